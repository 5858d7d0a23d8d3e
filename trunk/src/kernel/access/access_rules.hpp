// Who may publish or play: the client-address rules of a vhost's `security`
// block (allow/deny by IP or CIDR) and the page-URL domains of its `refer`
// block, as pure functions of (rules, address or page URL, action). No
// config, no sockets, no clock: the server reads the rules from its config
// and the address from the socket, and asks these.
//
// Addresses are IPv4 or IPv6. Both are kept as 16 bytes, IPv4 as the
// IPv4-mapped IPv6 address (::ffff:a.b.c.d), so a client an IPv6 dual-stack
// socket reports as ::ffff:10.1.2.3 matches the rule 10.0.0.0/8, and an IPv4
// network /n is the IPv6 network /(96 + n). SRS matches IPv4 only (an IPv6
// rule there is an exact string compare at best); this is a superset.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace srs {

struct IpAddress {
    uint8_t bytes[16] = {};
    bool v4 = false;  // written as (or mapped from) a dotted quad

    bool operator==(const IpAddress& o) const;
    // "10.1.2.3", "2001:db8::1" (an IPv4-mapped address prints as IPv4).
    std::string to_string() const;
};

// Strict text forms only: a dotted quad of four decimal parts without leading
// zeros ("10.0.0.1"), or RFC 4291 IPv6 text ("::1", "::ffff:1.2.3.4"); no
// brackets, no zone ("%eth0"), no port. An IPv4-mapped IPv6 text yields v4.
bool parse_ip_address(std::string_view text, IpAddress* out);

// A network: the first `prefix` bits (of 128) of `base`; the other bits are
// zero once parsed.
struct IpNetwork {
    IpAddress base;
    int prefix = 128;

    bool contains(const IpAddress& ip) const;
    // "10.0.0.0/8", "10.0.0.1" (a whole address prints without /n), "2001:db8::/32".
    std::string to_string() const;
};

// "1.2.3.4" (/32), "10.0.0.0/8", "::1" (/128), "2001:db8::/32",
// "::ffff:10.0.0.0/104" (an IPv4 /8). The prefix is decimal, 0..32 after an
// IPv4 address, 0..128 after IPv6. Bits past the prefix may be set in the
// text ("10.1.2.3/8" is 10.0.0.0/8, as SRS masks them). On failure *why says
// what is wrong and *out is untouched.
bool parse_ip_network(std::string_view text, IpNetwork* out, std::string* why);

enum class AccessAction { kPublish, kPlay };
enum class AccessVerb { kAllow, kDeny };

const char* access_action_name(AccessAction a);  // "publish" | "play"
const char* access_verb_name(AccessVerb v);      // "allow" | "deny"

// One `allow|deny publish|play all|IP|CIDR` line.
struct AccessRule {
    AccessVerb verb = AccessVerb::kDeny;
    AccessAction action = AccessAction::kPlay;
    bool all = false;  // the target is "all"
    IpNetwork network;  // else this
    // As the conf wrote it: "deny play 10.0.0.0/8".
    std::string text() const;
    std::string target;  // "all" or the network as written
};

// The rule `verb action target` (the conf's two arguments); false with *why
// for an action other than publish|play or a target that is not all, an
// address or a network.
bool parse_access_rule(AccessVerb verb, std::string_view action, std::string_view target, AccessRule* out,
                       std::string* why);

// SRS's order (srs_app_security.cpp), deny first:
//   1. any deny rule for the action that matches the client refuses it;
//   2. then, when there is any allow rule at all (for either action) or no
//      rule at all, the client must match an allow rule for this action.
// So deny-only rule sets let through everyone they do not deny, `allow
// publish all;` alone refuses every player, and an empty set refuses all.
// (The caller handles `enabled off`: nothing is checked then.)
struct AccessDecision {
    enum Kind {
        kAllowed,     // no deny matched, and an allow matched or none is needed
        kDenied,      // `rule` is the deny that matched
        kNotAllowed,  // allow rules exist (or no rule at all) and none for this action matched
    };
    Kind kind = kNotAllowed;
    const AccessRule* rule = nullptr;  // the matching deny (kDenied) or allow (kAllowed), else null
    int allow_rules = 0;  // counted over both actions, as SRS counts them
    int deny_rules = 0;
    bool allowed() const { return kind == kAllowed; }
};

// A client whose address does not parse (empty, a name) matches only `all`.
AccessDecision check_access(const std::vector<AccessRule>& rules, AccessAction action, const IpAddress* client);
AccessDecision check_access(const std::vector<AccessRule>& rules, AccessAction action, std::string_view client_ip);

// ---- refer: the RTMP connect's pageUrl ----

// The host SRS compares: the pageUrl without its scheme ("...://"), path,
// query, fragment, user info and port; "[v6]" loses its brackets. Lower case.
// "http://User@Www.A.com:8080/p?q" -> "www.a.com".
std::string refer_page_host(std::string_view page_url);

// SRS's rule (srs_app_refer.cpp): the page's host must END WITH one of
// `domains`, compared ignoring case; "a.com" admits "a.com", "www.a.com" and
// also "xa.com" (no dot boundary, as SRS). An empty pageUrl (or host) matches
// nothing. An empty list admits everyone (the directive is not set).
// *matched (may be null) gets the domain that matched.
bool refer_allows(const std::vector<std::string>& domains, std::string_view page_url, std::string* matched);

}  // namespace srs

#include "kernel/access/access_rules.hpp"

#include <arpa/inet.h>

#include <cstring>

#include "core/strings.hpp"

namespace srs {

namespace {

const uint8_t kMappedPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

bool is_mapped(const uint8_t* b) { return memcmp(b, kMappedPrefix, sizeof(kMappedPrefix)) == 0; }

// Zeroes every bit of `b` past the first `prefix`.
void mask_bits(uint8_t* b, int prefix) {
    for (int i = 0; i < 16; i++) {
        int keep = prefix - i * 8;
        if (keep >= 8) continue;
        b[i] &= keep <= 0 ? 0 : static_cast<uint8_t>(0xff << (8 - keep));
    }
}

}  // namespace

bool IpAddress::operator==(const IpAddress& o) const { return memcmp(bytes, o.bytes, sizeof(bytes)) == 0; }

std::string IpAddress::to_string() const {
    char text[INET6_ADDRSTRLEN] = {};
    if (is_mapped(bytes)) {
        inet_ntop(AF_INET, bytes + 12, text, sizeof(text));
    } else {
        inet_ntop(AF_INET6, bytes, text, sizeof(text));
    }
    return text;
}

bool parse_ip_address(std::string_view text, IpAddress* out) {
    // inet_pton needs a NUL; no address text is longer than this.
    char buf[INET6_ADDRSTRLEN + 1];
    if (text.empty() || text.size() >= sizeof(buf)) return false;
    memcpy(buf, text.data(), text.size());
    buf[text.size()] = '\0';
    IpAddress ip;
    if (inet_pton(AF_INET, buf, ip.bytes + 12) == 1) {
        memcpy(ip.bytes, kMappedPrefix, sizeof(kMappedPrefix));
        ip.v4 = true;
    } else if (inet_pton(AF_INET6, buf, ip.bytes) == 1) {
        ip.v4 = is_mapped(ip.bytes);
    } else {
        return false;
    }
    *out = ip;
    return true;
}

bool IpNetwork::contains(const IpAddress& ip) const {
    uint8_t masked[16];
    memcpy(masked, ip.bytes, sizeof(masked));
    mask_bits(masked, prefix);
    return memcmp(masked, base.bytes, sizeof(masked)) == 0;
}

std::string IpNetwork::to_string() const {
    std::string s = base.to_string();
    if (prefix == 128) return s;
    int shown = base.v4 ? prefix - 96 : prefix;
    return s + "/" + std::to_string(shown);
}

bool parse_ip_network(std::string_view text, IpNetwork* out, std::string* why) {
    size_t slash = text.find('/');
    std::string_view addr = text.substr(0, slash);
    IpNetwork net;
    if (!parse_ip_address(addr, &net.base)) {
        *why = "\"" + std::string(addr) + "\" is not an IPv4 or IPv6 address";
        return false;
    }
    // An IPv4 network written as IPv4 counts its bits after the 96 of ::ffff:.
    bool written_v4 = addr.find(':') == std::string_view::npos;
    int max = written_v4 ? 32 : 128;
    int prefix = max;
    if (slash != std::string_view::npos) {
        std::string_view bits = text.substr(slash + 1);
        // Decimal digits only: no sign, no space, no "0x".
        bool digits = !bits.empty() && bits.size() <= 3;
        for (char c : bits) digits = digits && is_ascii_digit(c);
        if (!digits || !parse_integer(bits, &prefix) || prefix > max) {
            *why = "prefix length \"/" + std::string(bits) + "\" is not a number 0.." + std::to_string(max);
            return false;
        }
    }
    net.prefix = written_v4 ? 96 + prefix : prefix;
    // "::ffff:10.0.0.0/8" would be an IPv6 /8 around a mapped address: the
    // network it names is not what the writer meant, so only /96.. is IPv4.
    if (!written_v4 && net.base.v4 && net.prefix < 96) net.base.v4 = false;
    mask_bits(net.base.bytes, net.prefix);
    *out = net;
    return true;
}

const char* access_action_name(AccessAction a) { return a == AccessAction::kPublish ? "publish" : "play"; }
const char* access_verb_name(AccessVerb v) { return v == AccessVerb::kAllow ? "allow" : "deny"; }

std::string AccessRule::text() const {
    return std::string(access_verb_name(verb)) + " " + access_action_name(action) + " " + target;
}

bool parse_access_rule(AccessVerb verb, std::string_view action, std::string_view target, AccessRule* out,
                       std::string* why) {
    AccessRule rule;
    rule.verb = verb;
    if (action == "publish") {
        rule.action = AccessAction::kPublish;
    } else if (action == "play") {
        rule.action = AccessAction::kPlay;
    } else {
        *why = "action \"" + std::string(action) + "\" is not publish or play";
        return false;
    }
    rule.target = std::string(target);
    if (target == "all") {
        rule.all = true;
    } else if (!parse_ip_network(target, &rule.network, why)) {
        *why = "target must be all, an IP address or a CIDR network: " + *why;
        return false;
    }
    *out = std::move(rule);
    return true;
}

AccessDecision check_access(const std::vector<AccessRule>& rules, AccessAction action, const IpAddress* client) {
    AccessDecision d;
    auto matches = [&](const AccessRule& r) {
        return r.action == action && (r.all || (client && r.network.contains(*client)));
    };
    for (const AccessRule& r : rules) {
        if (r.verb == AccessVerb::kAllow) {
            d.allow_rules++;
        } else {
            d.deny_rules++;
        }
    }
    for (const AccessRule& r : rules) {
        if (r.verb == AccessVerb::kDeny && matches(r)) {
            d.kind = AccessDecision::kDenied;
            d.rule = &r;
            return d;
        }
    }
    for (const AccessRule& r : rules) {
        if (r.verb == AccessVerb::kAllow && matches(r)) {
            d.kind = AccessDecision::kAllowed;
            d.rule = &r;
            return d;
        }
    }
    d.kind = d.allow_rules > 0 || d.deny_rules == 0 ? AccessDecision::kNotAllowed : AccessDecision::kAllowed;
    return d;
}

AccessDecision check_access(const std::vector<AccessRule>& rules, AccessAction action, std::string_view client_ip) {
    IpAddress ip;
    bool ok = parse_ip_address(client_ip, &ip);
    return check_access(rules, action, ok ? &ip : nullptr);
}

std::string refer_page_host(std::string_view url) {
    size_t scheme = url.find("://");
    if (scheme != std::string_view::npos) url.remove_prefix(scheme + 3);
    size_t end = url.find_first_of("/?#");
    if (end != std::string_view::npos) url = url.substr(0, end);
    size_t at = url.rfind('@');
    if (at != std::string_view::npos) url.remove_prefix(at + 1);
    if (!url.empty() && url[0] == '[') {
        size_t close = url.find(']');
        url = close == std::string_view::npos ? url.substr(1) : url.substr(1, close - 1);
    } else {
        size_t colon = url.find(':');
        if (colon != std::string_view::npos) url = url.substr(0, colon);
    }
    std::string host(url);
    for (char& c : host) c = ascii_lower(c);
    return host;
}

bool refer_allows(const std::vector<std::string>& domains, std::string_view page_url, std::string* matched) {
    if (domains.empty()) return true;
    std::string host = refer_page_host(page_url);
    if (host.empty()) return false;
    for (const std::string& d : domains) {
        if (d.empty() || d.size() > host.size()) continue;
        if (iequals(std::string_view(host).substr(host.size() - d.size()), d)) {
            if (matched) *matched = d;
            return true;
        }
    }
    return false;
}

}  // namespace srs

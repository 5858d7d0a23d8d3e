// Tests for kernel/access: addresses and networks (IPv4, IPv6, IPv4-mapped),
// broken rule text, SRS's deny-first evaluation as tables, and the refer
// (pageUrl domain) matcher.
#include "kernel/access/access_rules.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace srs;

namespace {

IpAddress ip(const char* text) {
    IpAddress a;
    EXPECT_TRUE(parse_ip_address(text, &a)) << text;
    return a;
}

IpNetwork net(const char* text) {
    IpNetwork n;
    std::string why;
    EXPECT_TRUE(parse_ip_network(text, &n, &why)) << text << ": " << why;
    return n;
}

// "allow play 10.0.0.0/8" -> the rule.
AccessRule rule(const std::string& line) {
    size_t a = line.find(' '), b = line.find(' ', a + 1);
    AccessVerb verb = line.substr(0, a) == "deny" ? AccessVerb::kDeny : AccessVerb::kAllow;
    AccessRule r;
    std::string why;
    EXPECT_TRUE(parse_access_rule(verb, line.substr(a + 1, b - a - 1), line.substr(b + 1), &r, &why)) << line << why;
    return r;
}

std::vector<AccessRule> rules(const std::vector<std::string>& lines) {
    std::vector<AccessRule> out;
    for (const std::string& l : lines) out.push_back(rule(l));
    return out;
}

}  // namespace

TEST(AccessRulesTest, ParsesAddresses) {
    EXPECT_TRUE(ip("10.0.0.1").v4);
    EXPECT_EQ("10.0.0.1", ip("10.0.0.1").to_string());
    EXPECT_FALSE(ip("2001:db8::1").v4);
    EXPECT_EQ("2001:db8::1", ip("2001:DB8:0::1").to_string());
    // An IPv4-mapped IPv6 address is the IPv4 address.
    EXPECT_TRUE(ip("::ffff:1.2.3.4").v4);
    EXPECT_TRUE(ip("::ffff:1.2.3.4") == ip("1.2.3.4"));
    EXPECT_TRUE(ip("::ffff:0102:0304") == ip("1.2.3.4"));
    EXPECT_EQ("1.2.3.4", ip("::ffff:1.2.3.4").to_string());
    EXPECT_FALSE(ip("::1") == ip("127.0.0.1"));

    IpAddress a;
    for (const char* bad : {"", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1.2.3.4 ", " 1.2.3.4", "a.b.c.d",
                            "localhost", "[::1]", "::1%lo", "1::2::3", "12345::", "1.2.3.4:80", "0x7f.0.0.1",
                            "::ffff:1.2.3", "1.2.3.-4"}) {
        EXPECT_FALSE(parse_ip_address(bad, &a)) << bad;
    }
    // Longer than any address: refused without reading past it.
    EXPECT_FALSE(parse_ip_address(std::string(200, '1'), &a));
    // Not NUL-terminated: only the view's bytes count.
    std::string_view cut("10.0.0.1999", 8);
    ASSERT_TRUE(parse_ip_address(cut, &a));
    EXPECT_EQ("10.0.0.1", a.to_string());
}

TEST(AccessRulesTest, Ipv4Networks) {
    IpNetwork n = net("10.0.0.0/8");
    EXPECT_TRUE(n.contains(ip("10.0.0.0")));
    EXPECT_TRUE(n.contains(ip("10.255.255.255")));
    EXPECT_FALSE(n.contains(ip("11.0.0.0")));
    EXPECT_FALSE(n.contains(ip("9.255.255.255")));
    EXPECT_EQ("10.0.0.0/8", n.to_string());
    // Host bits in the text are masked off, as SRS does.
    EXPECT_EQ("192.168.1.0/24", net("192.168.1.77/24").to_string());
    EXPECT_TRUE(net("192.168.1.77/24").contains(ip("192.168.1.200")));
    // A bare address is a /32; /0 is everything IPv4.
    EXPECT_TRUE(net("127.0.0.1").contains(ip("127.0.0.1")));
    EXPECT_FALSE(net("127.0.0.1").contains(ip("127.0.0.2")));
    EXPECT_EQ("127.0.0.1", net("127.0.0.1").to_string());
    EXPECT_TRUE(net("0.0.0.0/0").contains(ip("203.0.113.9")));
    EXPECT_FALSE(net("0.0.0.0/0").contains(ip("2001:db8::1")));
    // Odd prefixes cut inside a byte.
    EXPECT_TRUE(net("172.16.0.0/12").contains(ip("172.31.255.255")));
    EXPECT_FALSE(net("172.16.0.0/12").contains(ip("172.32.0.0")));
    EXPECT_TRUE(net("10.0.0.8/31").contains(ip("10.0.0.9")));
    EXPECT_FALSE(net("10.0.0.8/31").contains(ip("10.0.0.10")));
    // A client seen on a dual-stack socket as ::ffff:a.b.c.d matches IPv4 networks.
    EXPECT_TRUE(n.contains(ip("::ffff:10.1.2.3")));
    EXPECT_TRUE(net("127.0.0.1").contains(ip("::ffff:127.0.0.1")));
}

TEST(AccessRulesTest, Ipv6Networks) {
    IpNetwork n = net("2001:db8::/32");
    EXPECT_TRUE(n.contains(ip("2001:db8:ffff::1")));
    EXPECT_FALSE(n.contains(ip("2001:db9::1")));
    EXPECT_FALSE(n.contains(ip("10.0.0.1")));
    EXPECT_EQ("2001:db8::/32", n.to_string());
    EXPECT_TRUE(net("::1").contains(ip("::1")));
    EXPECT_FALSE(net("::1").contains(ip("127.0.0.1")));
    EXPECT_TRUE(net("fe80::/10").contains(ip("febf::1")));
    EXPECT_FALSE(net("fe80::/10").contains(ip("fec0::1")));
    // ::/0 is every address, IPv4 ones included (as ::ffff:a.b.c.d).
    EXPECT_TRUE(net("::/0").contains(ip("2001:db8::1")));
    EXPECT_TRUE(net("::/0").contains(ip("10.0.0.1")));
    // A mapped network from /96 on is an IPv4 network.
    IpNetwork m = net("::ffff:10.0.0.0/104");
    EXPECT_TRUE(m.base.v4);
    EXPECT_EQ("10.0.0.0/8", m.to_string());
    EXPECT_TRUE(m.contains(ip("10.9.9.9")));
    EXPECT_FALSE(m.contains(ip("11.0.0.0")));
}

TEST(AccessRulesTest, RefusesBrokenNetworks) {
    struct Case {
        const char* text;
        const char* why;  // part of the reason
    } cases[] = {
        {"10.0.0.0/33", "0..32"},
        {"::1/129", "0..128"},
        {"10.0.0.0/", "prefix"},
        {"10.0.0.0/-1", "prefix"},
        {"10.0.0.0/+8", "prefix"},
        {"10.0.0.0/8/8", "prefix"},
        {"10.0.0.0/ 8", "prefix"},
        {"10.0.0.0/0x8", "prefix"},
        {"10.0.0.0/1000", "prefix"},
        {"1.2.3", "not an IPv4 or IPv6 address"},
        {"1.2.3/24", "not an IPv4 or IPv6 address"},
        {"garbage", "not an IPv4 or IPv6 address"},
        {"/8", "not an IPv4 or IPv6 address"},
        {"", "not an IPv4 or IPv6 address"},
        {"example.com", "not an IPv4 or IPv6 address"},
    };
    for (const Case& c : cases) {
        IpNetwork n = net("1.1.1.1");
        std::string why;
        EXPECT_FALSE(parse_ip_network(c.text, &n, &why)) << c.text;
        EXPECT_NE(std::string::npos, why.find(c.why)) << c.text << ": " << why;
        EXPECT_EQ("1.1.1.1", n.to_string()) << "untouched on failure";
    }
}

TEST(AccessRulesTest, ParsesRules) {
    AccessRule r = rule("deny play 10.0.0.0/8");
    EXPECT_EQ(AccessVerb::kDeny, r.verb);
    EXPECT_EQ(AccessAction::kPlay, r.action);
    EXPECT_FALSE(r.all);
    EXPECT_EQ("deny play 10.0.0.0/8", r.text());
    EXPECT_TRUE(rule("allow publish all").all);
    EXPECT_EQ("allow publish all", rule("allow publish all").text());

    AccessRule out;
    std::string why;
    EXPECT_FALSE(parse_access_rule(AccessVerb::kAllow, "view", "all", &out, &why));
    EXPECT_NE(std::string::npos, why.find("publish or play")) << why;
    EXPECT_FALSE(parse_access_rule(AccessVerb::kAllow, "Play", "all", &out, &why));
    EXPECT_FALSE(parse_access_rule(AccessVerb::kAllow, "play", "ALL", &out, &why));
    EXPECT_FALSE(parse_access_rule(AccessVerb::kDeny, "play", "10.0.0.0/33", &out, &why));
    EXPECT_NE(std::string::npos, why.find("all, an IP address or a CIDR")) << why;
    EXPECT_FALSE(parse_access_rule(AccessVerb::kDeny, "publish", "1.2.3", &out, &why));
}

// SRS's evaluation (srs_app_security.cpp) as a table.
TEST(AccessRulesTest, DenyFirstThenAnyAllow) {
    struct Case {
        std::vector<std::string> rules;
        AccessAction action;
        const char* client;
        AccessDecision::Kind want;
    };
    const AccessAction kPub = AccessAction::kPublish, kPlay = AccessAction::kPlay;
    const auto kOk = AccessDecision::kAllowed, kDeny = AccessDecision::kDenied, kNo = AccessDecision::kNotAllowed;
    Case cases[] = {
        // Enabled with no rules at all refuses everyone.
        {{}, kPlay, "127.0.0.1", kNo},
        {{}, kPub, "127.0.0.1", kNo},
        // Deny-only sets let through everyone they do not deny.
        {{"deny play 10.0.0.0/8"}, kPlay, "10.1.1.1", kDeny},
        {{"deny play 10.0.0.0/8"}, kPlay, "11.1.1.1", kOk},
        {{"deny play 10.0.0.0/8"}, kPub, "10.1.1.1", kOk},
        // Deny wins over a matching allow, whatever the order written.
        {{"allow play all", "deny play 127.0.0.2"}, kPlay, "127.0.0.2", kDeny},
        {{"allow play all", "deny play 127.0.0.2"}, kPlay, "127.0.0.1", kOk},
        {{"deny play all", "allow play 127.0.0.1"}, kPlay, "127.0.0.1", kDeny},
        // Any allow rule (for either action) means the client needs one for its action:
        // `allow publish all;` alone refuses every player.
        {{"allow publish all"}, kPlay, "127.0.0.1", kNo},
        {{"allow publish all"}, kPub, "127.0.0.1", kOk},
        {{"allow publish 127.0.0.1"}, kPub, "127.0.0.2", kNo},
        {{"allow publish 127.0.0.1", "deny play 10.0.0.0/8"}, kPlay, "127.0.0.1", kNo},
        {{"allow play 192.168.0.0/16", "allow play 127.0.0.1"}, kPlay, "127.0.0.1", kOk},
        {{"allow play 192.168.0.0/16", "allow play 127.0.0.1"}, kPlay, "192.168.7.7", kOk},
        {{"allow play 192.168.0.0/16", "allow play 127.0.0.1"}, kPlay, "127.0.0.2", kNo},
        // IPv4-mapped clients match IPv4 rules; IPv6 rules match IPv6 clients.
        {{"deny play 127.0.0.1"}, kPlay, "::ffff:127.0.0.1", kDeny},
        {{"allow play 10.0.0.0/8"}, kPlay, "::ffff:10.2.3.4", kOk},
        {{"allow play ::1"}, kPlay, "::1", kOk},
        {{"allow play ::1"}, kPlay, "127.0.0.1", kNo},
        {{"deny play 2001:db8::/32"}, kPlay, "2001:db8::5", kDeny},
        {{"deny play 2001:db8::/32"}, kPlay, "2001:db9::5", kOk},
        // A client without a usable address matches only `all`.
        {{"deny play 10.0.0.0/8"}, kPlay, "", kOk},
        {{"allow play 10.0.0.0/8"}, kPlay, "", kNo},
        {{"allow play all"}, kPlay, "", kOk},
        {{"deny publish all"}, kPub, "not-an-ip", kDeny},
    };
    for (const Case& c : cases) {
        std::vector<AccessRule> rs = rules(c.rules);
        AccessDecision d = check_access(rs, c.action, c.client);
        std::string label = std::string(access_action_name(c.action)) + " from \"" + c.client + "\" with";
        for (const std::string& r : c.rules) label += " [" + r + "]";
        EXPECT_EQ(c.want, d.kind) << label;
        if (d.kind == AccessDecision::kDenied) {
            ASSERT_NE(nullptr, d.rule) << label;
            EXPECT_EQ(AccessVerb::kDeny, d.rule->verb) << label;
        }
    }
}

TEST(AccessRulesTest, DecisionNamesTheRuleAndCounts) {
    std::vector<AccessRule> rs = rules({"allow publish all", "deny play 127.0.0.0/24", "allow play ::1"});
    AccessDecision d = check_access(rs, AccessAction::kPlay, "127.0.0.9");
    EXPECT_EQ(AccessDecision::kDenied, d.kind);
    EXPECT_EQ("deny play 127.0.0.0/24", d.rule->text());
    EXPECT_EQ(2, d.allow_rules);
    EXPECT_EQ(1, d.deny_rules);
    d = check_access(rs, AccessAction::kPlay, "::1");
    EXPECT_TRUE(d.allowed());
    EXPECT_EQ("allow play ::1", d.rule->text());
}

TEST(AccessRulesTest, ReferPageHost) {
    EXPECT_EQ("www.a.com", refer_page_host("http://www.a.com/live/player.html"));
    EXPECT_EQ("www.a.com", refer_page_host("https://User:pw@WWW.A.com:8443/p?q=1#f"));
    EXPECT_EQ("a.com", refer_page_host("a.com"));
    EXPECT_EQ("a.com", refer_page_host("a.com:80/x"));
    EXPECT_EQ("::1", refer_page_host("http://[::1]:8080/p"));
    EXPECT_EQ("evil.com", refer_page_host("http://evil.com?x=a.com"));
    EXPECT_EQ("evil.com", refer_page_host("http://evil.com#a.com"));
    EXPECT_EQ("evil.com", refer_page_host("http://a.com@evil.com/"));
    EXPECT_EQ("", refer_page_host(""));
    EXPECT_EQ("", refer_page_host("http://"));
    EXPECT_EQ("", refer_page_host("http:///path"));
}

TEST(AccessRulesTest, ReferEndsWithAListedDomain) {
    std::vector<std::string> domains = {"a.com", "b.org"};
    std::string matched;
    EXPECT_TRUE(refer_allows(domains, "http://www.a.com/index.html", &matched));
    EXPECT_EQ("a.com", matched);
    EXPECT_TRUE(refer_allows(domains, "http://a.com/", nullptr));
    EXPECT_TRUE(refer_allows(domains, "https://x.y.b.org:8443/p", &matched));
    EXPECT_EQ("b.org", matched);
    EXPECT_TRUE(refer_allows(domains, "HTTP://WWW.A.COM/", nullptr));
    // Ends with, no dot boundary: SRS admits xa.com for a.com.
    EXPECT_TRUE(refer_allows(domains, "http://xa.com/", nullptr));
    EXPECT_FALSE(refer_allows(domains, "http://a.com.evil.net/", nullptr));
    EXPECT_FALSE(refer_allows(domains, "http://c.com/", nullptr));
    EXPECT_FALSE(refer_allows(domains, "http://evil.com/?a.com", nullptr));
    EXPECT_FALSE(refer_allows(domains, "http://evil.com#a.com", nullptr));
    EXPECT_FALSE(refer_allows(domains, "http://a.com@evil.com/", nullptr));
    EXPECT_FALSE(refer_allows(domains, "http://.com/", nullptr));
    // An empty pageUrl matches no domain: refused when a list is set.
    EXPECT_FALSE(refer_allows(domains, "", nullptr));
    // No list: nothing to check.
    EXPECT_TRUE(refer_allows({}, "", nullptr));
    EXPECT_TRUE(refer_allows({}, "http://anything/", nullptr));
}

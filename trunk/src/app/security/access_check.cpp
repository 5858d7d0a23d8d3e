#include "app/security/access_check.hpp"

#include <vector>

namespace srs {

namespace {

// The rows hold (action, target) pairs, validated at load.
void append_rules(const std::vector<std::string>& pairs, AccessVerb verb, std::vector<AccessRule>* out) {
    for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
        AccessRule rule;
        std::string why;
        if (parse_access_rule(verb, pairs[i], pairs[i + 1], &rule, &why)) out->push_back(std::move(rule));
    }
}

}  // namespace

Error check_security(const Config& conf, const std::string& vhost, AccessAction action, const std::string& client_ip) {
    if (!conf.get(vhost, keys::vhost_security_enabled)) return Error();
    std::vector<AccessRule> rules;
    append_rules(conf.get(vhost, keys::vhost_security_deny), AccessVerb::kDeny, &rules);
    append_rules(conf.get(vhost, keys::vhost_security_allow), AccessVerb::kAllow, &rules);
    AccessDecision d = check_access(rules, action, client_ip);
    const char* what = access_action_name(action);
    switch (d.kind) {
        case AccessDecision::kAllowed:
            return Error();
        case AccessDecision::kDenied:
            return SRS_ERR(kErrorSecurityDeny, "security: %s from %s refused by rule \"%s\" of vhost %s", what,
                           client_ip.c_str(), d.rule->text().c_str(), vhost.c_str());
        case AccessDecision::kNotAllowed:
        default:
            if (rules.empty()) {
                return SRS_ERR(kErrorSecurityAllow, "security: %s from %s refused: vhost %s has security on and no "
                               "rule (which refuses everyone)", what, client_ip.c_str(), vhost.c_str());
            }
            return SRS_ERR(kErrorSecurityAllow, "security: %s from %s refused: no \"allow %s\" rule of vhost %s "
                           "matches (%d allow, %d deny rules)", what, client_ip.c_str(), what, vhost.c_str(),
                           d.allow_rules, d.deny_rules);
    }
}

const char* refer_stage_name(ReferStage stage) {
    switch (stage) {
        case ReferStage::kConnect: return "all";
        case ReferStage::kPublish: return "publish";
        case ReferStage::kPlay:
        default: return "play";
    }
}

Error check_refer(const Config& conf, const std::string& vhost, ReferStage stage, const std::string& page_url) {
    if (!conf.get(vhost, keys::vhost_refer_enabled)) return Error();
    std::vector<std::string> domains;
    switch (stage) {
        case ReferStage::kConnect: domains = conf.get(vhost, keys::vhost_refer_all); break;
        case ReferStage::kPublish: domains = conf.get(vhost, keys::vhost_refer_publish); break;
        case ReferStage::kPlay: domains = conf.get(vhost, keys::vhost_refer_play); break;
    }
    if (refer_allows(domains, page_url, nullptr)) return Error();
    std::string list;
    for (const std::string& d : domains) list += (list.empty() ? "" : " ") + d;
    return SRS_ERR(kErrorReferDenied, "refer: pageUrl \"%s\" (host \"%s\") is on none of refer.%s [%s] of vhost %s",
                   page_url.c_str(), refer_page_host(page_url).c_str(), refer_stage_name(stage), list.c_str(),
                   vhost.c_str());
}

}  // namespace srs

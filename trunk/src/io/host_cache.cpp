#include "io/host_cache.hpp"

#include <arpa/inet.h>

#include <algorithm>

namespace srs {

bool is_address_literal(const std::string& host) {
    in_addr a4;
    in6_addr a6;
    return inet_pton(AF_INET, host.c_str(), &a4) == 1 || inet_pton(AF_INET6, host.c_str(), &a6) == 1;
}

std::string normalize_host_name(const std::string& host) {
    std::string s = host;
    if (!s.empty() && s.back() == '.') s.pop_back();
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) {
        return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    });
    return s;
}

bool answer_without_lookup(const std::string& host, std::vector<std::string>* addresses) {
    if (is_address_literal(host)) {
        *addresses = {host};
        return true;
    }
    if (normalize_host_name(host) == "localhost") {
        *addresses = {"127.0.0.1", "::1"};
        return true;
    }
    return false;
}

bool HostCache::find(const std::string& name, utime_t now, HostAnswer* out) const {
    auto it = entries_.find(name);
    if (it == entries_.end() || now >= it->second.expires) return false;
    *out = it->second.answer;
    return true;
}

void HostCache::put(const std::string& name, const HostAnswer& answer, utime_t now) {
    if (options_.max_entries == 0) return;
    utime_t ttl = answer.addresses.empty() ? options_.negative_ttl : options_.positive_ttl;
    if (ttl <= 0) {
        entries_.erase(name);
        return;
    }
    if (entries_.find(name) == entries_.end()) make_room(now);
    Entry& e = entries_[name];
    e.answer = answer;
    e.expires = now + ttl;
}

void HostCache::make_room(utime_t now) {
    if (entries_.size() < options_.max_entries) return;
    for (auto it = entries_.begin(); it != entries_.end();) {
        it = now >= it->second.expires ? entries_.erase(it) : std::next(it);
    }
    while (entries_.size() >= options_.max_entries) {
        auto soonest = std::min_element(entries_.begin(), entries_.end(), [](const auto& a, const auto& b) {
            return a.second.expires < b.second.expires;
        });
        entries_.erase(soonest);
    }
}

}  // namespace srs

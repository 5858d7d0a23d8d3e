// The resolver's memory of recent answers, and the names it answers without a
// lookup. No I/O and no clock of its own: `now` (monotonic microseconds) is
// passed in, so tests run it on a fake clock.
//
// - A literal IPv4 or IPv6 address is its own answer; "localhost" (any case,
//   with or without the trailing dot) is 127.0.0.1 then ::1. Neither is cached.
// - A name that resolved is kept positive_ttl, one that did not negative_ttl
//   (our choice, not the DNS record's TTL, which getaddrinfo does not give).
// - At most max_entries names: when full, expired entries go first, then the
//   one that expires soonest.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/clock.hpp"

namespace srs {

struct HostCacheOptions {
    utime_t positive_ttl = 60 * kUsPerSecond;
    utime_t negative_ttl = 5 * kUsPerSecond;
    size_t max_entries = 256;
};

// What a name resolved to: addresses as numeric strings (IPv6 without
// brackets), in the order getaddrinfo gave them; empty with `error` set when
// the name did not resolve.
struct HostAnswer {
    std::vector<std::string> addresses;
    std::string error;  // gai_strerror's words for a failed lookup
};

// Whether `host` is an IPv4 or IPv6 literal (IPv6 without brackets).
bool is_address_literal(const std::string& host);

// The addresses of a literal or "localhost", without a lookup; false for any other name.
bool answer_without_lookup(const std::string& host, std::vector<std::string>* addresses);

// The key names are cached under: lower case, one trailing dot removed.
std::string normalize_host_name(const std::string& host);

class HostCache {
  public:
    explicit HostCache(HostCacheOptions options = {}) : options_(options) {}

    // The cached answer for a normalized name, if it has not expired.
    bool find(const std::string& name, utime_t now, HostAnswer* out) const;
    // Keeps an answer (positive when it has addresses).
    void put(const std::string& name, const HostAnswer& answer, utime_t now);
    size_t size() const { return entries_.size(); }
    const HostCacheOptions& options() const { return options_; }

  private:
    struct Entry {
        HostAnswer answer;
        utime_t expires = 0;
    };
    void make_room(utime_t now);

    HostCacheOptions options_;
    std::unordered_map<std::string, Entry> entries_;
};

}  // namespace srs

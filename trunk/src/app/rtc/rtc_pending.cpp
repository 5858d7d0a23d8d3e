#include "app/rtc/rtc_pending.hpp"

#include <arpa/inet.h>

#include <cstdio>
#include <cstring>

namespace srs {

std::string rtc_pending_address_key(const std::string& ip) {
    in_addr v4;
    if (inet_pton(AF_INET, ip.c_str(), &v4) == 1) {
        char text[INET_ADDRSTRLEN];
        return inet_ntop(AF_INET, &v4, text, sizeof(text)) ? std::string(text) : ip;
    }
    in6_addr v6;
    if (inet_pton(AF_INET6, ip.c_str(), &v6) != 1) return ip;
    const uint8_t* b = v6.s6_addr;
    static const uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (memcmp(b, kMapped, sizeof(kMapped)) == 0) {
        char text[INET_ADDRSTRLEN];
        return inet_ntop(AF_INET, b + 12, text, sizeof(text)) ? std::string(text) : ip;
    }
    in6_addr prefix;
    memset(&prefix, 0, sizeof(prefix));
    memcpy(prefix.s6_addr, b, 8);
    char text[INET6_ADDRSTRLEN];
    if (!inet_ntop(AF_INET6, &prefix, text, sizeof(text))) return ip;
    return std::string(text) + "/64";
}

Error RtcPendingSessions::reserve(const std::string& address) {
    if (total_ >= limits_.total) {
        stats_.refused++;
        return SRS_ERR(kErrorExceedConnections,
                       "%zu WebRTC sessions wait for their first STUN check, the most rtc_server.pending_sessions "
                       "allows",
                       total_);
    }
    size_t& n = per_address_[address];
    if (limits_.per_address > 0 && n >= limits_.per_address) {
        stats_.refused++;
        stats_.refused_address++;
        return SRS_ERR(kErrorExceedConnections,
                       "%zu WebRTC sessions signalled from %s wait for their first STUN check, the most "
                       "rtc_server.pending_sessions_per_ip allows",
                       n, address.c_str());
    }
    n++;
    total_++;
    return Error();
}

void RtcPendingSessions::release(const std::string& address) {
    auto it = per_address_.find(address);
    if (it == per_address_.end() || it->second == 0 || total_ == 0) return;  // cannot happen
    if (--it->second == 0) per_address_.erase(it);
    total_--;
}

void RtcPendingSessions::cancel(const std::string& address) { release(address); }

void RtcPendingSessions::start(const std::string& cid, const std::string& address, utime_t now) {
    Session s;
    s.address = address;
    s.deadline = now + limits_.timeout;
    deadlines_.emplace(s.deadline, cid);
    sessions_[cid] = std::move(s);
}

bool RtcPendingSessions::verify(const std::string& cid) {
    auto it = sessions_.find(cid);
    if (it == sessions_.end() || it->second.expired) return false;  // expired: the server is closing it
    deadlines_.erase({it->second.deadline, cid});
    release(it->second.address);
    sessions_.erase(it);
    stats_.verified++;
    return true;
}

void RtcPendingSessions::forget(const std::string& cid) {
    auto it = sessions_.find(cid);
    if (it == sessions_.end()) return;
    deadlines_.erase({it->second.deadline, cid});
    release(it->second.address);
    sessions_.erase(it);
}

std::vector<std::string> RtcPendingSessions::expired(utime_t now) {
    std::vector<std::string> out;
    while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
        const std::string& cid = deadlines_.begin()->second;
        auto it = sessions_.find(cid);
        if (it != sessions_.end()) it->second.expired = true;
        out.push_back(cid);
        deadlines_.erase(deadlines_.begin());
        stats_.expired++;
    }
    return out;
}

size_t RtcPendingSessions::count(const std::string& address) const {
    auto it = per_address_.find(address);
    return it == per_address_.end() ? 0 : it->second;
}

}  // namespace srs

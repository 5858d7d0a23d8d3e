// Transport address -> session, for the lookup every WebRTC datagram makes.
// A flat table with linear probing: a lookup touches one 32-byte slot, the
// key and the value side by side, where a node-based map walks a bucket, the
// node before and the node (three cache misses with 1,000 sessions, 5-8 % of
// a server receiving 1,000 publishers in perf). No tombstones: erase moves
// the later entries of the run back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace srs {

class RtcSession;

// A transport address as a key: family, port and the address bytes (IPv4 in
// the first 4).
struct RtcAddressKey {
    uint8_t family = 0;
    uint16_t port = 0;
    uint8_t ip[16] = {};
    bool operator==(const RtcAddressKey& o) const;
};

class RtcAddressTable {
  public:
    RtcSession* find(const RtcAddressKey& key) const;
    // Maps key to session (not null); returns the session it mapped to before, or nullptr.
    RtcSession* put(const RtcAddressKey& key, RtcSession* session);
    // Whether key was there.
    bool erase(const RtcAddressKey& key);
    size_t size() const { return size_; }

  private:
    struct Slot {
        RtcAddressKey key;
        RtcSession* value = nullptr;  // nullptr: empty
    };
    static uint64_t hash(const RtcAddressKey& key);
    size_t home(const RtcAddressKey& key) const { return static_cast<size_t>(hash(key)) & (slots_.size() - 1); }
    // The slot holding key, or the empty slot ending its run.
    size_t probe(const RtcAddressKey& key) const;
    void grow();

    std::vector<Slot> slots_;  // a power of two, at most half full
    size_t size_ = 0;
};

}  // namespace srs

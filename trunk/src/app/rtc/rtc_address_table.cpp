#include "app/rtc/rtc_address_table.hpp"

#include <cstring>

namespace srs {

bool RtcAddressKey::operator==(const RtcAddressKey& o) const {
    return family == o.family && port == o.port && memcmp(ip, o.ip, sizeof(ip)) == 0;
}

uint64_t RtcAddressTable::hash(const RtcAddressKey& key) {
    uint64_t a, b;
    memcpy(&a, key.ip, 8);
    memcpy(&b, key.ip + 8, 8);
    uint64_t h = (a ^ (b * 0x9e3779b97f4a7c15ull)) + (static_cast<uint64_t>(key.port) << 8 | key.family);
    // A multiply and a fold: the port's bits reach the low bits the mask keeps.
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 32);
}

size_t RtcAddressTable::probe(const RtcAddressKey& key) const {
    size_t mask = slots_.size() - 1;
    size_t i = home(key);
    while (slots_[i].value && !(slots_[i].key == key)) i = (i + 1) & mask;
    return i;
}

RtcSession* RtcAddressTable::find(const RtcAddressKey& key) const {
    if (size_ == 0) return nullptr;
    return slots_[probe(key)].value;
}

RtcSession* RtcAddressTable::put(const RtcAddressKey& key, RtcSession* session) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    Slot& s = slots_[probe(key)];
    RtcSession* old = s.value;
    if (!old) {
        s.key = key;
        size_++;
    }
    s.value = session;
    return old;
}

bool RtcAddressTable::erase(const RtcAddressKey& key) {
    if (size_ == 0) return false;
    size_t mask = slots_.size() - 1;
    size_t hole = probe(key);
    if (!slots_[hole].value) return false;
    slots_[hole].value = nullptr;
    size_--;
    // Move back each later entry of the run that may sit in the hole: one
    // whose home is not cyclically within (hole, i].
    for (size_t i = (hole + 1) & mask; slots_[i].value; i = (i + 1) & mask) {
        size_t h = home(slots_[i].key);
        bool stays = hole <= i ? (hole < h && h <= i) : (hole < h || h <= i);
        if (stays) continue;
        slots_[hole] = slots_[i];
        slots_[i].value = nullptr;
        hole = i;
    }
    return true;
}

void RtcAddressTable::grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.resize(old.empty() ? 16 : old.size() * 2);
    size_ = 0;
    for (const Slot& s : old) {
        if (s.value) put(s.key, s.value);
    }
}

}  // namespace srs

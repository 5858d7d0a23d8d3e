// RtcAddressTable against std::map as the model: puts, replaces, finds and
// erases of IPv4 and IPv6 addresses in random order, growth, and the runs that
// erase must close (keys that share a home slot).
#include "app/rtc/rtc_address_table.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <random>
#include <tuple>

using namespace srs;

namespace {

RtcAddressKey v4(uint32_t ip, uint16_t port) {
    RtcAddressKey k;
    k.family = 1;
    k.port = port;
    memcpy(k.ip, &ip, 4);
    return k;
}

RtcAddressKey v6(uint64_t hi, uint64_t lo, uint16_t port) {
    RtcAddressKey k;
    k.family = 2;
    k.port = port;
    memcpy(k.ip, &hi, 8);
    memcpy(k.ip + 8, &lo, 8);
    return k;
}

using Model = std::map<std::tuple<uint8_t, uint16_t, std::string>, RtcSession*>;
std::tuple<uint8_t, uint16_t, std::string> model_key(const RtcAddressKey& k) {
    return {k.family, k.port, std::string(reinterpret_cast<const char*>(k.ip), sizeof(k.ip))};
}

RtcSession* fake(uintptr_t n) { return reinterpret_cast<RtcSession*>(n * 16); }

}  // namespace

TEST(RtcAddressTable, EmptyFindsNothing) {
    RtcAddressTable t;
    EXPECT_EQ(nullptr, t.find(v4(0x0100007f, 5000)));
    EXPECT_FALSE(t.erase(v4(0x0100007f, 5000)));
    EXPECT_EQ(0u, t.size());
}

TEST(RtcAddressTable, PutReplacesAndSaysWhatWasThere) {
    RtcAddressTable t;
    RtcAddressKey a = v4(0x0100007f, 5000);
    EXPECT_EQ(nullptr, t.put(a, fake(1)));
    EXPECT_EQ(fake(1), t.put(a, fake(2)));
    EXPECT_EQ(fake(2), t.find(a));
    EXPECT_EQ(1u, t.size());
    // Same port, other family or address: other keys.
    EXPECT_EQ(nullptr, t.find(v4(0x0200007f, 5000)));
    EXPECT_EQ(nullptr, t.find(v6(0x0100007f, 0, 5000)));
    EXPECT_TRUE(t.erase(a));
    EXPECT_EQ(nullptr, t.find(a));
    EXPECT_EQ(0u, t.size());
}

// Loopback publishers differ only in the port: thousands of them, all found,
// then every other one gone and the rest still found after the runs closed.
TEST(RtcAddressTable, ManyPortsOfOneAddress) {
    RtcAddressTable t;
    for (uint16_t p = 10000; p < 13000; p++) ASSERT_EQ(nullptr, t.put(v4(0x0100007f, p), fake(p)));
    EXPECT_EQ(3000u, t.size());
    for (uint16_t p = 10000; p < 13000; p++) ASSERT_EQ(fake(p), t.find(v4(0x0100007f, p)));
    for (uint16_t p = 10000; p < 13000; p += 2) ASSERT_TRUE(t.erase(v4(0x0100007f, p)));
    EXPECT_EQ(1500u, t.size());
    for (uint16_t p = 10000; p < 13000; p++) {
        ASSERT_EQ(p % 2 ? fake(p) : nullptr, t.find(v4(0x0100007f, p))) << p;
    }
}

TEST(RtcAddressTable, RandomOperationsMatchAMap) {
    std::mt19937_64 rng(7);
    RtcAddressTable t;
    Model m;
    // A small key space, so puts replace and erases hit, in runs of all lengths.
    auto key = [&]() {
        uint16_t port = static_cast<uint16_t>(rng() % 300);
        if (rng() % 3 == 0) return v6(0x20010db8ull, rng() % 4, port);
        return v4(static_cast<uint32_t>(0x0100007f + (rng() % 3 << 24)), port);
    };
    for (int i = 0; i < 60000; i++) {
        RtcAddressKey k = key();
        auto mk = model_key(k);
        switch (rng() % 3) {
            case 0: {
                RtcSession* v = fake(1 + rng() % 1000);
                auto it = m.find(mk);
                ASSERT_EQ(it == m.end() ? nullptr : it->second, t.put(k, v));
                m[mk] = v;
                break;
            }
            case 1:
                ASSERT_EQ(m.erase(mk) == 1, t.erase(k));
                break;
            default: {
                auto it = m.find(mk);
                ASSERT_EQ(it == m.end() ? nullptr : it->second, t.find(k));
            }
        }
        ASSERT_EQ(m.size(), t.size());
    }
    // Everything the model has is found, whatever was erased around it.
    for (uint16_t port = 0; port < 300; port++) {
        for (uint32_t h = 0; h < 3; h++) {
            RtcAddressKey k = v4(0x0100007f + (h << 24), port);
            auto it = m.find(model_key(k));
            ASSERT_EQ(it == m.end() ? nullptr : it->second, t.find(k));
        }
    }
}

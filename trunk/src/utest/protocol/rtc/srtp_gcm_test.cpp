// protocol/rtc/srtp_gcm: the OpenSSL AES-GCM sender gives libsrtp's bytes
// exactly (same keys, same packets: across the sequence wrap, a second SSRC,
// retransmissions of older numbers, headers with CSRCs and extensions, empty
// payloads; SRTCP compounds with many indexes), libsrtp's receiver takes them,
// our receiver takes libsrtp's and decides as libsrtp does on reordering,
// replays and the edge of the window; every altered byte and every short
// packet is refused; the KDF matches RFC 3711's test vectors (appendix B.3).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "protocol/rtc/srtp.hpp"
#include "protocol/rtc/srtp_gcm.hpp"

using namespace srs;

namespace {

std::vector<uint8_t> hex(const char* s) {
    std::vector<uint8_t> v;
    for (size_t i = 0; s[i] && s[i + 1]; i += 2) {
        unsigned x = 0;
        sscanf(s + i, "%2x", &x);
        v.push_back(static_cast<uint8_t>(x));
    }
    return v;
}

std::vector<uint8_t> material(uint8_t seed) {
    std::vector<uint8_t> m(2 * (16 + 12));
    for (size_t i = 0; i < m.size(); i++) m[i] = static_cast<uint8_t>(seed * 7 + i * 13);
    return m;
}

void init(SrtpSession* s, const std::vector<uint8_t>& m, bool is_client, bool libsrtp) {
    ASSERT_TRUE(srtp_library_init().ok());
    SrtpKeys local, remote;
    ASSERT_TRUE(srtp_split_keying_material(SrtpProfile::kAeadAes128Gcm, m.data(), m.size(), is_client, &local,
                                           &remote)
                    .ok());
    if (libsrtp) s->protect_rtp_with_libsrtp();
    Error err = s->initialize(SrtpProfile::kAeadAes128Gcm, local, remote);
    ASSERT_TRUE(err.ok()) << err.describe();
}

// A packet: optional CSRCs and a one-byte-form extension, payload bytes from seq.
std::vector<uint8_t> packet(uint16_t seq, uint32_t ssrc, size_t payload, int csrcs = 0, bool ext = false) {
    std::vector<uint8_t> p = {static_cast<uint8_t>(0x80 | (ext ? 0x10 : 0) | csrcs), 0x66,
                              static_cast<uint8_t>(seq >> 8), static_cast<uint8_t>(seq), 0, 1, 2, 3,
                              static_cast<uint8_t>(ssrc >> 24), static_cast<uint8_t>(ssrc >> 16),
                              static_cast<uint8_t>(ssrc >> 8), static_cast<uint8_t>(ssrc)};
    for (int i = 0; i < csrcs; i++) p.insert(p.end(), {0, 0, 0, static_cast<uint8_t>(i + 1)});
    if (ext) p.insert(p.end(), {0xBE, 0xDE, 0, 1, 0x10, 0xAB, 0, 0});
    for (size_t i = 0; i < payload; i++) p.push_back(static_cast<uint8_t>(seq * 3 + i));
    return p;
}

std::vector<uint8_t> protect(SrtpSession* s, std::vector<uint8_t> p, bool rtcp = false) {
    size_t len = p.size(), n = 0;
    p.resize(len + kSrtpMaxTrailer);
    Error err = rtcp ? s->protect_rtcp(p.data(), len, p.size(), &n) : s->protect_rtp(p.data(), len, p.size(), &n);
    EXPECT_TRUE(err.ok()) << err.describe();
    p.resize(n);
    return p;
}

// Unprotects a copy; the plain bytes in *out on success.
Error unprotect(SrtpSession* s, std::vector<uint8_t> p, bool rtcp, std::vector<uint8_t>* out) {
    size_t n = 0;
    Error err = rtcp ? s->unprotect_rtcp(p.data(), p.size(), &n) : s->unprotect_rtp(p.data(), p.size(), &n);
    if (err.ok()) {
        p.resize(n);
        *out = p;
    }
    return err;
}

// Which of libsrtp's verdicts an error names.
std::string verdict(const Error& err) {
    if (err.ok()) return "ok";
    std::string d = err.describe();
    for (const char* v : {"srtp_err_status_replay_old", "srtp_err_status_replay_fail", "srtp_err_status_auth_fail"}) {
        if (d.find(v) != std::string::npos) return v;
    }
    return "other: " + d;
}

// Four sessions on one keying block: ours and libsrtp's, as DTLS server
// (the sender in the tests) and client (the receiver); and the mirror.
struct Four {
    SrtpSession ours_server, lib_server, ours_client, lib_client;
    explicit Four(uint8_t seed) {
        std::vector<uint8_t> m = material(seed);
        init(&ours_server, m, false, false);
        init(&lib_server, m, false, true);
        init(&ours_client, m, true, false);
        init(&lib_client, m, true, true);
    }
};

// A sender report (one report block) and an SDES with a CNAME, compound.
std::vector<uint8_t> sr_sdes(uint32_t ssrc, uint32_t n) {
    std::vector<uint8_t> p = {0x81, 200, 0, 12, uint8_t(ssrc >> 24), uint8_t(ssrc >> 16), uint8_t(ssrc >> 8),
                              uint8_t(ssrc)};
    for (int i = 0; i < 20; i++) p.push_back(static_cast<uint8_t>(n + i));  // NTP, RTP ts, counts
    for (int i = 0; i < 24; i++) p.push_back(static_cast<uint8_t>(n * 5 + i));  // report block
    std::vector<uint8_t> sdes = {0x81, 202, 0, 3, uint8_t(ssrc >> 24), uint8_t(ssrc >> 16), uint8_t(ssrc >> 8),
                                 uint8_t(ssrc), 1, 4, 'a', 'b', 'c', 'd', 0, 0};
    p.insert(p.end(), sdes.begin(), sdes.end());
    return p;
}

// A receiver report (no blocks) and a PLI for media 0x11111111, compound.
std::vector<uint8_t> rr_pli(uint32_t ssrc) {
    return {0x80, 201, 0, 1, uint8_t(ssrc >> 24), uint8_t(ssrc >> 16), uint8_t(ssrc >> 8), uint8_t(ssrc),
            0x81, 206, 0, 2, uint8_t(ssrc >> 24), uint8_t(ssrc >> 16), uint8_t(ssrc >> 8), uint8_t(ssrc),
            0x11, 0x11, 0x11, 0x11};
}

}  // namespace

TEST(ProtocolSrtpGcm, SameBytesAsLibsrtpAndLibsrtpTakesThem) {
    std::vector<uint8_t> m = material(3);
    SrtpSession ours, theirs, receiver;
    init(&ours, m, false, false);
    init(&theirs, m, false, true);
    init(&receiver, m, true, true);
    struct Step {
        uint16_t seq;
        uint32_t ssrc;
        size_t payload;
        int csrcs;
        bool ext;
    };
    std::vector<Step> steps;
    for (uint32_t s = 65500; s < 65536 + 40; s++) steps.push_back({static_cast<uint16_t>(s), 0x11111111, 1100, 0, false});
    steps.push_back({65534, 0x11111111, 900, 0, false});  // a retransmission from before the wrap
    steps.push_back({20, 0x11111111, 900, 0, false});     // and one after it
    for (uint16_t s = 100; s < 110; s++) steps.push_back({s, 0x22222222, 160, 2, true});  // audio, CSRCs, extension
    steps.push_back({110, 0x22222222, 0, 0, false});      // a header only
    for (const Step& st : steps) {
        SCOPED_TRACE(st.seq);
        std::vector<uint8_t> plain = packet(st.seq, st.ssrc, st.payload, st.csrcs, st.ext);
        std::vector<uint8_t> a = protect(&ours, plain);
        std::vector<uint8_t> b = protect(&theirs, plain);
        ASSERT_EQ(a, b);
        ASSERT_EQ(a.size(), plain.size() + 16);
        // Replays are refused by the receiver: only check first sightings.
        if (st.seq == 65534 || st.seq == 20) continue;
        std::vector<uint8_t> buf = a;
        size_t n = 0;
        Error err = receiver.unprotect_rtp(buf.data(), buf.size(), &n);
        ASSERT_TRUE(err.ok()) << err.describe();
        buf.resize(n);
        EXPECT_EQ(buf, plain);
    }
}

// Out of place (a shared ring packet into a send slot): the slot gets a
// copy of the header with this session's payload type and number, the
// payload is read from the ring. The bytes equal in-place protection of the
// same header and payload (ours and libsrtp's, which copies first), the
// ring's packet is left as it was, and a wrong header length is refused.
TEST(ProtocolSrtpGcm, OutOfPlaceGivesTheInPlaceBytes) {
    std::vector<uint8_t> m = material(9);
    SrtpSession in_place, out_of_place, lib, lib_from;
    init(&in_place, m, false, false);
    init(&out_of_place, m, false, false);
    init(&lib, m, false, true);
    init(&lib_from, m, false, true);
    struct Step {
        uint16_t seq;
        size_t payload;
        int csrcs;
        bool ext;
    };
    const Step steps[] = {{65534, 1100, 0, false}, {65535, 1200, 0, false}, {0, 1, 0, false},
                          {1, 160, 2, true},       {2, 0, 0, false},        {3, 1188, 1, false}};
    for (const Step& st : steps) {
        SCOPED_TRACE(st.seq);
        const std::vector<uint8_t> ring = packet(st.seq, 0x33333333, st.payload, st.csrcs, st.ext);
        size_t header = ring.size() - st.payload;
        // This session's view: payload type 96 and a number 7 lower.
        std::vector<uint8_t> mine = ring;
        uint16_t seq = static_cast<uint16_t>(st.seq - 7);
        mine[1] = static_cast<uint8_t>((mine[1] & 0x80) | 96);
        mine[2] = static_cast<uint8_t>(seq >> 8);
        mine[3] = static_cast<uint8_t>(seq);
        std::vector<uint8_t> want = protect(&in_place, mine);
        ASSERT_EQ(want, protect(&lib, mine));
        for (SrtpSession* s : {&out_of_place, &lib_from}) {
            std::vector<uint8_t> slot(1500, 0xEE);
            memcpy(slot.data(), mine.data(), header);
            size_t n = 0;
            Error err = s->protect_rtp_from(slot.data(), slot.size(), ring.data(), header, ring.size(), &n);
            ASSERT_TRUE(err.ok()) << err.describe();
            slot.resize(n);
            EXPECT_EQ(slot, want);
        }
        EXPECT_EQ(ring, packet(st.seq, 0x33333333, st.payload, st.csrcs, st.ext));
    }
    // A header length that is not the packet's, and no room for the tag.
    const std::vector<uint8_t> ring = packet(10, 0x33333333, 100, 1, false);
    std::vector<uint8_t> slot(1500);
    memcpy(slot.data(), ring.data(), ring.size());
    size_t n = 0;
    EXPECT_FALSE(out_of_place.protect_rtp_from(slot.data(), slot.size(), ring.data(), 12, ring.size(), &n).ok());
    EXPECT_FALSE(out_of_place.protect_rtp_from(slot.data(), slot.size(), ring.data(), 20, ring.size(), &n).ok());
    EXPECT_FALSE(out_of_place.protect_rtp_from(slot.data(), ring.size() + 15, ring.data(), 16, ring.size(), &n).ok());
    EXPECT_FALSE(out_of_place.protect_rtp_from(slot.data(), slot.size(), ring.data(), 200, ring.size(), &n).ok());
    EXPECT_TRUE(out_of_place.protect_rtp_from(slot.data(), slot.size(), ring.data(), 16, ring.size(), &n).ok());
    EXPECT_EQ(n, ring.size() + 16);
}

TEST(ProtocolSrtpGcm, KdfMatchesRfc3711Vectors) {
    // RFC 3711 appendix B.3.
    std::vector<uint8_t> key = hex("E1F97A0D3E018BE0D64FA32C06DE4139");
    std::vector<uint8_t> salt = hex("0EC675AD498AFEEBB6960B3AABE6");
    uint8_t out[20];
    ASSERT_TRUE(srtp_kdf_aes_cm(key.data(), key.size(), salt.data(), salt.size(), 0x00, out, 16).ok());
    EXPECT_EQ(std::vector<uint8_t>(out, out + 16), hex("C61E7A93744F39EE10734AFE3FF7A087"));
    ASSERT_TRUE(srtp_kdf_aes_cm(key.data(), key.size(), salt.data(), salt.size(), 0x02, out, 14).ok());
    EXPECT_EQ(std::vector<uint8_t>(out, out + 14), hex("30CBBC08863D8C85D49DB34A9AE1"));
    ASSERT_TRUE(srtp_kdf_aes_cm(key.data(), key.size(), salt.data(), salt.size(), 0x01, out, 20).ok());
    EXPECT_EQ(std::vector<uint8_t>(out, out + 20), hex("CEBE321F6FF7716B6FD4AB49AF256A156D38BAA4"));
}

TEST(ProtocolSrtpGcm, RefusesWhatItCannotProtect) {
    SrtpGcmSender s;
    uint8_t buf[64] = {0x80, 0x60};
    size_t n = 0;
    EXPECT_EQ(s.protect_rtp(buf, 12, sizeof(buf), &n).code(), kErrorSrtpState);
    uint8_t key[16] = {1}, salt[12] = {2};
    EXPECT_EQ(s.initialize(key, 16, salt, 14).code(), kErrorSrtpKeyLength);
    ASSERT_TRUE(s.initialize(key, 16, salt, 12).ok());
    EXPECT_EQ(s.initialize(key, 16, salt, 12).code(), kErrorSrtpState);
    EXPECT_EQ(s.protect_rtp(buf, 12, 27, &n).code(), kErrorSrtpBufferTooSmall);  // no room for the tag
    EXPECT_EQ(s.protect_rtp(buf, 11, sizeof(buf), &n).code(), kErrorSrtpProtect);
    buf[0] = 0x40;  // version 1
    EXPECT_EQ(s.protect_rtp(buf, 12, sizeof(buf), &n).code(), kErrorSrtpProtect);
    buf[0] = 0x8f;  // 15 CSRCs announced, none there
    EXPECT_EQ(s.protect_rtp(buf, 20, sizeof(buf), &n).code(), kErrorSrtpProtect);
    buf[0] = 0x80;
    for (uint32_t ssrc = 1; ssrc <= SrtpGcmSender::kMaxSsrcs; ssrc++) {
        buf[11] = static_cast<uint8_t>(ssrc);
        ASSERT_TRUE(s.protect_rtp(buf, 12, sizeof(buf), &n).ok());
    }
    buf[11] = 0x77;
    EXPECT_EQ(s.protect_rtp(buf, 12, sizeof(buf), &n).code(), kErrorSrtpProtect);
}

// Both directions, both implementations: our protect gives libsrtp's bytes,
// and each receiver (ours, libsrtp's) gives the same verdict and plain text for
// the other's output, delivered reordered, with retransmissions across the
// wrap (replays at the receiver), CSRCs and extensions.
TEST(ProtocolSrtpGcm, RtpCrossCheckedBothWaysWithReordering) {
    Four f(5);
    struct Step {
        uint16_t seq;
        uint32_t ssrc;
        int csrcs;
        bool ext;
    };
    std::vector<Step> sent;
    for (uint32_t s = 65000; s < 65536 + 600; s++) {
        sent.push_back({static_cast<uint16_t>(s), 0x11111111, 0, s % 3 == 0});
        if (s % 7 == 0) sent.push_back({static_cast<uint16_t>(s / 7), 0x22222222, static_cast<int>(s % 4), true});
        if (s == 65536 + 30) sent.push_back({65530, 0x11111111, 0, false});  // retransmission across the wrap
        if (s == 65536 + 31) sent.push_back({10, 0x11111111, 0, false});
    }
    // Delivery order: adjacent pairs swapped, and every 50th packet 40 late.
    std::vector<size_t> order(sent.size());
    for (size_t i = 0; i < order.size(); i++) order[i] = i;
    for (size_t i = 0; i + 1 < order.size(); i += 2) std::swap(order[i], order[i + 1]);
    for (size_t i = 0; i + 41 < order.size(); i += 50) {
        size_t late = order[i];
        order.erase(order.begin() + i);
        order.insert(order.begin() + i + 40, late);
    }
    for (int dir = 0; dir < 2; dir++) {
        SCOPED_TRACE(dir == 0 ? "server to client" : "client to server");
        SrtpSession* ours_tx = dir == 0 ? &f.ours_server : &f.ours_client;
        SrtpSession* lib_tx = dir == 0 ? &f.lib_server : &f.lib_client;
        SrtpSession* ours_rx = dir == 0 ? &f.ours_client : &f.ours_server;
        SrtpSession* lib_rx = dir == 0 ? &f.lib_client : &f.lib_server;
        std::vector<std::vector<uint8_t>> plain, wire;
        for (const Step& st : sent) {
            plain.push_back(packet(st.seq, st.ssrc, 300 + st.seq % 50, st.csrcs, st.ext));
            std::vector<uint8_t> a = protect(ours_tx, plain.back());
            ASSERT_EQ(a, protect(lib_tx, plain.back())) << st.seq;
            wire.push_back(a);
        }
        int oks = 0, replays = 0;
        for (size_t i : order) {
            SCOPED_TRACE(sent[i].seq);
            std::vector<uint8_t> o1, o2;
            // ours receives libsrtp's output and libsrtp receives ours: the same bytes.
            Error e1 = unprotect(ours_rx, wire[i], false, &o1);
            Error e2 = unprotect(lib_rx, wire[i], false, &o2);
            ASSERT_EQ(verdict(e2), verdict(e1));
            if (e1.ok()) {
                EXPECT_EQ(plain[i], o1);
                EXPECT_EQ(plain[i], o2);
                oks++;
            } else {
                EXPECT_EQ(kErrorSrtpUnprotect, e1.code());
                replays++;
            }
        }
        EXPECT_EQ(2, replays);  // the two retransmissions
        EXPECT_EQ(static_cast<int>(sent.size()) - 2, oks);
    }
}

// The edge of the 8192-packet window and a jump, as libsrtp decides.
TEST(ProtocolSrtpGcm, RtpReplayWindowEdgeAsLibsrtp) {
    Four f(6);
    std::vector<uint16_t> seqs = {0, 10000, 1809, 1808, 1809, 9999, 10000, 10001, 40000, 50000, 7000, 60000, 100, 2};
    std::vector<std::string> want = {"ok", "ok", "ok", "srtp_err_status_replay_old", "srtp_err_status_replay_fail",
                                     "ok", "srtp_err_status_replay_fail", "ok", "ok", "ok",
                                     "srtp_err_status_replay_old", "ok", "ok", "srtp_err_status_replay_fail"};
    // Past 10001 the jumps cross half the sequence space (ROC guesses both
    // ways): libsrtp's verdict is the reference. Our sender protects them all
    // (libsrtp's outbound window refuses to go back that far).
    for (size_t i = 0; i < seqs.size(); i++) {
        SCOPED_TRACE(seqs[i]);
        std::vector<uint8_t> c = protect(&f.ours_server, packet(seqs[i], 0x33333333, 40)), o;
        std::string ours = verdict(unprotect(&f.ours_client, c, false, &o));
        std::string lib = verdict(unprotect(&f.lib_client, c, false, &o));
        EXPECT_EQ(lib, ours);
        if (i < 8) {
            EXPECT_EQ(want[i], ours);
        }
    }
}

TEST(ProtocolSrtpGcm, RtcpCrossCheckedBothWaysManyIndexes) {
    Four f(7);
    for (int dir = 0; dir < 2; dir++) {
        SCOPED_TRACE(dir == 0 ? "server to client" : "client to server");
        SrtpSession* ours_tx = dir == 0 ? &f.ours_server : &f.ours_client;
        SrtpSession* lib_tx = dir == 0 ? &f.lib_server : &f.lib_client;
        SrtpSession* ours_rx = dir == 0 ? &f.ours_client : &f.ours_server;
        SrtpSession* lib_rx = dir == 0 ? &f.lib_client : &f.lib_server;
        std::vector<std::vector<uint8_t>> wire;
        for (uint32_t n = 0; n < 400; n++) {
            // Two sender SSRCs interleaved: each has its own index.
            std::vector<uint8_t> plain = n % 3 == 0 ? rr_pli(0xcafe0000u + dir) : sr_sdes(0x5eed0000u + dir, n);
            std::vector<uint8_t> a = protect(ours_tx, plain, true);
            ASSERT_EQ(a, protect(lib_tx, plain, true)) << n;
            ASSERT_EQ(plain.size() + 20, a.size());
            EXPECT_EQ(0, memcmp(a.data(), plain.data(), 8));
            EXPECT_EQ(0x80, a[a.size() - 4] & 0x80);  // E: encrypted
            std::vector<uint8_t> o1, o2;
            Error e1 = unprotect(ours_rx, a, true, &o1);
            ASSERT_TRUE(e1.ok()) << e1.describe();
            Error e2 = unprotect(lib_rx, a, true, &o2);
            ASSERT_TRUE(e2.ok()) << e2.describe();
            EXPECT_EQ(plain, o1);
            EXPECT_EQ(plain, o2);
            wire.push_back(a);
        }
        // Replays: the last one (repeat), one far behind (old), one just inside.
        for (size_t i : {size_t(399), size_t(10), size_t(398)}) {
            std::vector<uint8_t> o;
            std::string ours = verdict(unprotect(ours_rx, wire[i], true, &o));
            EXPECT_EQ(verdict(unprotect(lib_rx, wire[i], true, &o)), ours) << i;
            EXPECT_NE(std::string::npos, ours.find("replay")) << i;
        }
    }
}

// Every byte of an SRTP packet (header, CSRCs, extension, payload, tag) and of
// an SRTCP one (header, body, tag, E and index) is covered by the tag.
TEST(ProtocolSrtpGcm, EveryAlteredByteIsRefused) {
    Four f(8);
    std::vector<uint8_t> plain = packet(77, 0x44444444, 64, 2, true);
    std::vector<uint8_t> c = protect(&f.ours_server, plain), o;
    for (size_t at = 0; at < c.size(); at++) {
        std::vector<uint8_t> bad = c;
        bad[at] ^= 0x04;
        Error err = unprotect(&f.ours_client, bad, false, &o);
        EXPECT_EQ(kErrorSrtpUnprotect, err.code()) << at;
    }
    ASSERT_TRUE(unprotect(&f.ours_client, c, false, &o).ok());
    EXPECT_EQ(plain, o);

    std::vector<uint8_t> rplain = sr_sdes(0x12345678, 3);
    std::vector<uint8_t> rc = protect(&f.ours_server, rplain, true);
    for (size_t at = 0; at < rc.size(); at++) {
        for (uint8_t bit : {uint8_t(0x01), uint8_t(0x80)}) {
            std::vector<uint8_t> bad = rc;
            bad[at] ^= bit;
            Error err = unprotect(&f.ours_client, bad, true, &o);
            EXPECT_EQ(kErrorSrtpUnprotect, err.code()) << at;
            EXPECT_EQ(verdict(unprotect(&f.lib_client, bad, true, &o)) == "ok", false) << at;
        }
    }
    ASSERT_TRUE(unprotect(&f.ours_client, rc, true, &o).ok());
    EXPECT_EQ(rplain, o);
}

TEST(ProtocolSrtpGcm, ShortPacketsAreRefused) {
    Four f(9);
    std::vector<uint8_t> c = protect(&f.ours_server, packet(5, 0x55555555, 0, 1, true));  // 12+4+8 + tag
    std::vector<uint8_t> rc = protect(&f.ours_server, rr_pli(0x66666666), true);
    std::vector<uint8_t> o;
    for (size_t n = 0; n < c.size(); n++) {
        EXPECT_EQ(kErrorSrtpUnprotect, unprotect(&f.ours_client, std::vector<uint8_t>(c.begin(), c.begin() + n),
                                                 false, &o)
                                           .code())
            << n;
    }
    for (size_t n = 0; n < rc.size(); n++) {
        EXPECT_EQ(kErrorSrtpUnprotect, unprotect(&f.ours_client, std::vector<uint8_t>(rc.begin(), rc.begin() + n),
                                                 true, &o)
                                           .code())
            << n;
    }
    EXPECT_TRUE(unprotect(&f.ours_client, c, false, &o).ok());
    EXPECT_TRUE(unprotect(&f.ours_client, rc, true, &o).ok());
    // Directly on the receiver: lengths below any header.
    SrtpGcmReceiver r(SrtpSession::kReplayWindow);
    uint8_t buf[40] = {0x80};
    size_t n = 0;
    EXPECT_EQ(kErrorSrtpState, r.unprotect_rtp(buf, 40, &n).code());
    uint8_t key[16] = {1}, salt[12] = {2};
    ASSERT_TRUE(r.initialize(key, 16, salt, 12).ok());
    EXPECT_EQ(kErrorSrtpState, r.initialize(key, 16, salt, 12).code());
    for (size_t len = 0; len < 28; len++) {
        EXPECT_EQ(kErrorSrtpUnprotect, r.unprotect_rtp(buf, len, &n).code()) << len;
        EXPECT_EQ(kErrorSrtpUnprotect, r.unprotect_rtcp(buf, len, &n).code()) << len;
    }
}

// RFC 7714 9.3: E=0, nothing encrypted, the whole compound authenticated.
// libsrtp's protect never sends that, so build one by hand with our keys.
TEST(ProtocolSrtpGcm, RtcpUnencryptedIsAuthenticated) {
    std::vector<uint8_t> m = material(10);
    SrtpKeys local, remote;
    ASSERT_TRUE(
        srtp_split_keying_material(SrtpProfile::kAeadAes128Gcm, m.data(), m.size(), false, &local, &remote).ok());
    SrtpGcmKey k;
    ASSERT_TRUE(k.initialize(local.key, 16, local.salt, 12, 0x03, 0x05, true).ok());
    std::vector<uint8_t> p = rr_pli(0x01020304);
    size_t body = p.size();
    uint32_t index = 9;
    uint8_t trailer[4] = {0, 0, 0, static_cast<uint8_t>(index)};
    uint8_t iv[12];
    k.make_iv(0x01020304, 0, static_cast<uint16_t>(index), iv);
    p.resize(body + 20);
    ASSERT_TRUE(k.seal(iv, p.data(), body, trailer, 4, p.data() + body, p.data() + body, 0, p.data() + body));
    memcpy(p.data() + body + 16, trailer, 4);
    Four f(10);
    std::vector<uint8_t> o1, o2;
    std::vector<uint8_t> bad = p;
    bad[14] ^= 1;  // a clear byte of the PLI
    EXPECT_EQ("srtp_err_status_auth_fail", verdict(unprotect(&f.ours_client, bad, true, &o1)));
    ASSERT_TRUE(unprotect(&f.ours_client, p, true, &o1).ok());
    ASSERT_TRUE(unprotect(&f.lib_client, p, true, &o2).ok());
    EXPECT_EQ(rr_pli(0x01020304), o1);
    EXPECT_EQ(o2, o1);
}

TEST(ProtocolSrtpGcm, ReplayWindow) {
    SrtpReplayWindow w(128);
    EXPECT_EQ(SrtpReplayWindow::kNew, w.check(0));
    w.add(0);
    EXPECT_EQ(SrtpReplayWindow::kReplay, w.check(0));
    w.add(200);
    EXPECT_EQ(SrtpReplayWindow::kTooOld, w.check(0));
    EXPECT_EQ(SrtpReplayWindow::kTooOld, w.check(72));
    EXPECT_EQ(SrtpReplayWindow::kNew, w.check(73));
    EXPECT_EQ(SrtpReplayWindow::kReplay, w.check(200));
    w.add(73);
    EXPECT_EQ(SrtpReplayWindow::kReplay, w.check(73));
    w.add(201);  // slot of 73 (201 - 128) is free again, 73 now too old
    EXPECT_EQ(SrtpReplayWindow::kTooOld, w.check(73));
    EXPECT_EQ(SrtpReplayWindow::kNew, w.check(74));
    EXPECT_EQ(201u, w.highest());
}

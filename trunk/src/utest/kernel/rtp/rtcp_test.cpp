// Tests of kernel/rtp/rtcp: packets written out by hand from the RFC 3550,
// 4585, 5104, 3611 and transport-cc layouts, every truncation of each,
// compounds with one broken part, builder bytes against the hand vectors, and
// build -> parse round trips (NACK and TWCC across the sequence wrap). Every
// parse reads input that ends right before a PROT_NONE page.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel/rtp/rtcp.hpp"
#include "kernel/rtp/rtp.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using namespace srs::utest;

namespace {

// SR, RC=1: SSRC 0x11223344, NTP 0xe12f3a4b5c6d7e8f, RTP ts 90000, 100
// packets, 100000 octets; block: SSRC 0x55667788, fraction 64, cumulative
// lost -2, highest 0x00010005, jitter 32, LSR 0x12345678, DLSR 0x00010000.
const char* kSr =
    "81 c8 00 0c  11 22 33 44  e1 2f 3a 4b  5c 6d 7e 8f"
    "00 01 5f 90  00 00 00 64  00 01 86 a0"
    "55 66 77 88  40 ff ff fe  00 01 00 05  00 00 00 20  12 34 56 78  00 01 00 00";
// RR without blocks + SDES with CNAME "0123456789abcdef" (what a browser sends).
const char* kRrSdes =
    "80 c9 00 01  11 22 33 44"
    "81 ca 00 06  11 22 33 44  01 10 30 31  32 33 34 35  36 37 38 39  61 62 63 64  65 66 00 00";
// BYE of one source with reason "bye!".
const char* kBye = "81 cb 00 03  11 22 33 44  04 62 79 65  21 00 00 00";
// Generic NACK: sender 1, media 0x11223344, PID 100, BLP 0x0005 (101, 103).
const char* kNack = "81 cd 00 03  00 00 00 01  11 22 33 44  00 64 00 05";
const char* kPli = "81 ce 00 02  00 00 00 01  11 22 33 44";
// FIR: sender 1, entry SSRC 0x11223344 seq 7.
const char* kFir = "84 ce 00 04  00 00 00 01  00 00 00 00  11 22 33 44  07 00 00 00";
// REMB: 1 SSRC, exp 2, mantissa 250000 (1000000 bps).
const char* kRemb = "8f ce 00 05  00 00 00 01  00 00 00 00  52 45 4d 42  01 0b d0 90  11 22 33 44";
// TWCC: base 10, 3 statuses, reference 1 (64 ms), fb count 5; one run-length
// chunk (small delta x3), deltas 4 8 12, RFC 3550 padding of 3.
const char* kTwccRun =
    "af cd 00 06  00 00 00 01  11 22 33 44  00 0a 00 03  00 00 01 05"
    "20 03 04 08  0c 00 00 03";
// TWCC: base 65534, 4 statuses, reference -1, fb count 0; a two-bit vector
// (small, not received, large, small); deltas 1, -200, 2; padding of 2.
const char* kTwccVector =
    "af cd 00 06  00 00 00 01  11 22 33 44  ff fe 00 04  ff ff ff 00"
    "d2 40 01 ff  38 02 00 02";
// XR: SSRC, RRTR (NTP a1..a8), DLRR (one item), an unknown block of length 0.
const char* kXr =
    "80 cf 00 09  11 22 33 44"
    "04 00 00 02  a1 a2 a3 a4  a5 a6 a7 a8"
    "05 00 00 03  55 66 77 88  00 00 12 34  00 00 56 78"
    "06 00 00 00";

const char* kAll[] = {kSr, kRrSdes, kBye, kNack, kPli, kFir, kRemb, kTwccRun, kTwccVector, kXr};

// Splits bytes placed before a guard page; the refs point into `g`.
Error split(const std::vector<uint8_t>& v, GuardPage* g, std::vector<RtcpPacketRef>* out) {
    const uint8_t* p = g->place(v);
    return rtcp_parse_compound(p, v.size(), out);
}

std::vector<uint8_t> bytes(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

}  // namespace

TEST(KernelRtcpTest, ParsesSenderReport) {
    GuardPage g(256);
    std::vector<RtcpPacketRef> pkts;
    ASSERT_TRUE(ok(split(unhex(kSr), &g, &pkts)));
    ASSERT_EQ(1u, pkts.size());
    EXPECT_EQ(kRtcpSr, pkts[0].type);
    RtcpSenderReport sr;
    ASSERT_TRUE(ok(rtcp_parse_sr(pkts[0], &sr)));
    EXPECT_EQ(0x11223344u, sr.ssrc);
    EXPECT_EQ(0xe12f3a4b5c6d7e8full, sr.ntp);
    EXPECT_EQ(90000u, sr.rtp_timestamp);
    EXPECT_EQ(100u, sr.packet_count);
    EXPECT_EQ(100000u, sr.octet_count);
    ASSERT_EQ(1u, sr.reports.size());
    const RtcpReportBlock& b = sr.reports[0];
    EXPECT_EQ(0x55667788u, b.ssrc);
    EXPECT_EQ(64, b.fraction_lost);
    EXPECT_EQ(-2, b.cumulative_lost);
    EXPECT_EQ(0x00010005u, b.highest_sequence);
    EXPECT_EQ(32u, b.jitter);
    EXPECT_EQ(0x12345678u, b.lsr);
    EXPECT_EQ(0x00010000u, b.dlsr);
    // The builder writes the same bytes.
    std::string out;
    rtcp_build_sr(sr, &out);
    EXPECT_EQ(unhex(kSr), bytes(out));
}

TEST(KernelRtcpTest, ParsesReceiverReportAndSdesCompound) {
    GuardPage g(256);
    std::vector<RtcpPacketRef> pkts;
    ASSERT_TRUE(ok(split(unhex(kRrSdes), &g, &pkts)));
    ASSERT_EQ(2u, pkts.size());
    RtcpReceiverReport rr;
    ASSERT_TRUE(ok(rtcp_parse_rr(pkts[0], &rr)));
    EXPECT_EQ(0x11223344u, rr.ssrc);
    EXPECT_TRUE(rr.reports.empty());
    std::vector<RtcpSdesChunk> chunks;
    ASSERT_TRUE(ok(rtcp_parse_sdes(pkts[1], &chunks)));
    ASSERT_EQ(1u, chunks.size());
    EXPECT_EQ(0x11223344u, chunks[0].ssrc);
    EXPECT_EQ("0123456789abcdef", chunks[0].cname);
    std::string out;
    rtcp_build_rr(rr, &out);
    rtcp_build_sdes(chunks, &out);
    EXPECT_EQ(unhex(kRrSdes), bytes(out));
}

TEST(KernelRtcpTest, ParsesBye) {
    GuardPage g(64);
    std::vector<RtcpPacketRef> pkts;
    ASSERT_TRUE(ok(split(unhex(kBye), &g, &pkts)));
    RtcpBye bye;
    ASSERT_TRUE(ok(rtcp_parse_bye(pkts[0], &bye)));
    ASSERT_EQ(1u, bye.ssrcs.size());
    EXPECT_EQ(0x11223344u, bye.ssrcs[0]);
    EXPECT_EQ("bye!", bye.reason);
    std::string out;
    rtcp_build_bye(bye, &out);
    EXPECT_EQ(unhex(kBye), bytes(out));
}

TEST(KernelRtcpTest, ParsesFeedback) {
    GuardPage g(64);
    std::vector<RtcpPacketRef> pkts;
    ASSERT_TRUE(ok(split(unhex(kNack), &g, &pkts)));
    RtcpNack nack;
    ASSERT_TRUE(ok(rtcp_parse_nack(pkts[0], &nack)));
    EXPECT_EQ(1u, nack.sender_ssrc);
    EXPECT_EQ(0x11223344u, nack.media_ssrc);
    EXPECT_EQ((std::vector<uint16_t>{100, 101, 103}), nack.lost);
    std::string out;
    rtcp_build_nack(1, 0x11223344, nack.lost, &out);
    EXPECT_EQ(unhex(kNack), bytes(out));

    ASSERT_TRUE(ok(split(unhex(kPli), &g, &pkts)));
    EXPECT_EQ(kRtcpPsfb, pkts[0].type);
    EXPECT_EQ(kRtcpFmtPli, pkts[0].count);
    RtcpPli pli;
    ASSERT_TRUE(ok(rtcp_parse_pli(pkts[0], &pli)));
    EXPECT_EQ(1u, pli.sender_ssrc);
    EXPECT_EQ(0x11223344u, pli.media_ssrc);
    out.clear();
    rtcp_build_pli(1, 0x11223344, &out);
    EXPECT_EQ(unhex(kPli), bytes(out));

    ASSERT_TRUE(ok(split(unhex(kFir), &g, &pkts)));
    RtcpFir fir;
    ASSERT_TRUE(ok(rtcp_parse_fir(pkts[0], &fir)));
    ASSERT_EQ(1u, fir.entries.size());
    EXPECT_EQ(0x11223344u, fir.entries[0].ssrc);
    EXPECT_EQ(7, fir.entries[0].seq);
    out.clear();
    rtcp_build_fir(1, fir.entries, &out);
    EXPECT_EQ(unhex(kFir), bytes(out));

    ASSERT_TRUE(ok(split(unhex(kRemb), &g, &pkts)));
    RtcpRemb remb;
    bool is_remb = false;
    ASSERT_TRUE(ok(rtcp_parse_remb(pkts[0], &remb, &is_remb)));
    ASSERT_TRUE(is_remb);
    EXPECT_EQ(1000000u, remb.bitrate);
    EXPECT_EQ(std::vector<uint32_t>{0x11223344u}, remb.ssrcs);
    out.clear();
    rtcp_build_remb(remb, &out);
    EXPECT_EQ(unhex(kRemb), bytes(out));

    // An AFB that is not REMB is skipped, not rejected.
    std::vector<uint8_t> afb = unhex("8f ce 00 03  00 00 00 01  00 00 00 00  41 42 43 44");
    ASSERT_TRUE(ok(split(afb, &g, &pkts)));
    ASSERT_TRUE(ok(rtcp_parse_remb(pkts[0], &remb, &is_remb)));
    EXPECT_FALSE(is_remb);
}

TEST(KernelRtcpTest, RembSaturatesHugeExponent) {
    GuardPage g(64);
    std::vector<RtcpPacketRef> pkts;
    // exp 63, mantissa 0x3ffff.
    ASSERT_TRUE(ok(split(unhex("8f ce 00 04  00 00 00 01  00 00 00 00  52 45 4d 42  00 ff ff ff"), &g, &pkts)));
    RtcpRemb remb;
    bool is_remb = false;
    ASSERT_TRUE(ok(rtcp_parse_remb(pkts[0], &remb, &is_remb)));
    EXPECT_EQ(UINT64_MAX, remb.bitrate);
    EXPECT_TRUE(remb.ssrcs.empty());
}

TEST(KernelRtcpTest, ParsesTwccRunLength) {
    GuardPage g(64);
    std::vector<RtcpPacketRef> pkts;
    ASSERT_TRUE(ok(split(unhex(kTwccRun), &g, &pkts)));
    ASSERT_EQ(1u, pkts.size());
    EXPECT_EQ(25u, pkts[0].size);  // padding stripped
    RtcpTwcc t;
    ASSERT_TRUE(ok(rtcp_parse_twcc(pkts[0], &t)));
    EXPECT_EQ(1u, t.sender_ssrc);
    EXPECT_EQ(0x11223344u, t.media_ssrc);
    EXPECT_EQ(10, t.base_seq);
    EXPECT_EQ(3, t.status_count);
    EXPECT_EQ(1, t.reference_time);
    EXPECT_EQ(5, t.fb_count);
    ASSERT_EQ(3u, t.packets.size());
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(10 + i, t.packets[i].seq);
        EXPECT_EQ(kTwccSmallDelta, t.packets[i].symbol);
        EXPECT_EQ(4 * (i + 1), t.packets[i].delta);
    }
    // The builder makes the same bytes from the arrival times.
    std::vector<TwccArrival> arr = {{10, 64000 + 1000}, {11, 64000 + 3000}, {12, 64000 + 6000}};
    std::string out;
    ASSERT_TRUE(ok(rtcp_build_twcc(1, 0x11223344, 5, arr, &out)));
    EXPECT_EQ(unhex(kTwccRun), bytes(out));
}

TEST(KernelRtcpTest, ParsesTwccStatusVectorAcrossWrap) {
    GuardPage g(64);
    std::vector<RtcpPacketRef> pkts;
    ASSERT_TRUE(ok(split(unhex(kTwccVector), &g, &pkts)));
    RtcpTwcc t;
    ASSERT_TRUE(ok(rtcp_parse_twcc(pkts[0], &t)));
    EXPECT_EQ(-1, t.reference_time);
    ASSERT_EQ(4u, t.packets.size());
    EXPECT_EQ(65534, t.packets[0].seq);
    EXPECT_EQ(kTwccSmallDelta, t.packets[0].symbol);
    EXPECT_EQ(1, t.packets[0].delta);
    EXPECT_EQ(65535, t.packets[1].seq);
    EXPECT_EQ(kTwccNotReceived, t.packets[1].symbol);
    EXPECT_EQ(0, t.packets[2].seq);
    EXPECT_EQ(kTwccLargeDelta, t.packets[2].symbol);
    EXPECT_EQ(-200, t.packets[2].delta);
    EXPECT_EQ(1, t.packets[3].seq);
    EXPECT_EQ(2, t.packets[3].delta);
}

TEST(KernelRtcpTest, TwccOneBitVectorAndBrokenDeltas) {
    GuardPage g(64);
    std::vector<RtcpPacketRef> pkts;
    // 1-bit vector: 14 symbols 1,0,1,0,... but status count 3 (1,0,1): two deltas.
    std::vector<uint8_t> v = unhex("8f cd 00 05  00 00 00 01  00 00 00 02  00 05 00 03  00 00 00 00  aa aa 10 20");
    ASSERT_TRUE(ok(split(v, &g, &pkts)));
    RtcpTwcc t;
    ASSERT_TRUE(ok(rtcp_parse_twcc(pkts[0], &t)));
    ASSERT_EQ(3u, t.packets.size());
    EXPECT_EQ(kTwccSmallDelta, t.packets[0].symbol);
    EXPECT_EQ(kTwccNotReceived, t.packets[1].symbol);
    EXPECT_EQ(0x20, t.packets[2].delta);
    // Too many trailing bytes (4 after the deltas).
    v = unhex("8f cd 00 06  00 00 00 01  00 00 00 02  00 05 00 03  00 00 00 00  aa aa 10 20  00 00 00 00");
    EXPECT_EQ(kErrorRtcpTwcc, code(split(v, &g, &pkts)));
    // Status count 200 with one chunk covering 3.
    v = unhex("8f cd 00 05  00 00 00 01  00 00 00 02  00 05 00 c8  00 00 00 00  20 03 01 02");
    EXPECT_EQ(kErrorRtcpTwcc, code(split(v, &g, &pkts)));
    // Run of the reserved symbol 3.
    v = unhex("8f cd 00 05  00 00 00 01  00 00 00 02  00 05 00 01  00 00 00 00  60 01 00 00");
    EXPECT_EQ(kErrorRtcpTwcc, code(split(v, &g, &pkts)));
    // Large delta cut in half.
    v = unhex("8f cd 00 05  00 00 00 01  00 00 00 02  00 05 00 02  00 00 00 00  40 02 00 01");
    EXPECT_EQ(kErrorRtcpTwcc, code(split(v, &g, &pkts)));
}

TEST(KernelRtcpTest, ParsesXr) {
    GuardPage g(64);
    std::vector<RtcpPacketRef> pkts;
    ASSERT_TRUE(ok(split(unhex(kXr), &g, &pkts)));
    RtcpXr xr;
    ASSERT_TRUE(ok(rtcp_parse_xr(pkts[0], &xr)));
    EXPECT_EQ(0x11223344u, xr.ssrc);
    EXPECT_EQ(std::vector<uint64_t>{0xa1a2a3a4a5a6a7a8ull}, xr.rrtr_ntp);
    ASSERT_EQ(1u, xr.dlrr.size());
    EXPECT_EQ(0x55667788u, xr.dlrr[0].ssrc);
    EXPECT_EQ(0x1234u, xr.dlrr[0].lrr);
    EXPECT_EQ(0x5678u, xr.dlrr[0].dlrr);
    EXPECT_EQ(1, xr.skipped_blocks);
    // RRTR of the wrong length; a block running past the packet.
    EXPECT_EQ(kErrorRtcpXr, code(split(unhex("80 cf 00 03 11 22 33 44 04 00 00 01 00 00 00 00"), &g, &pkts)));
    EXPECT_EQ(kErrorRtcpXr, code(split(unhex("80 cf 00 03 11 22 33 44 07 00 00 02 00 00 00 00"), &g, &pkts)));
}

TEST(KernelRtcpTest, EveryTruncationFails) {
    GuardPage g(256);
    for (const char* hex : kAll) {
        std::vector<uint8_t> v = unhex(hex);
        std::vector<RtcpPacketRef> pkts;
        ASSERT_TRUE(ok(split(v, &g, &pkts))) << hex;
        for (size_t n = 0; n < v.size(); ++n) {
            std::vector<uint8_t> cut(v.begin(), v.begin() + n);
            // A cut at a packet boundary of a compound leaves whole packets.
            if (n == 8 && hex == kRrSdes) continue;
            EXPECT_FALSE(ok(split(cut, &g, &pkts))) << hex << " cut at " << n;
            EXPECT_TRUE(pkts.empty());
        }
    }
}

TEST(KernelRtcpTest, RejectsBrokenHeaders) {
    GuardPage g(256);
    std::vector<RtcpPacketRef> pkts;
    EXPECT_EQ(kErrorRtcpVersion, code(split(unhex("40 c9 00 01 11 22 33 44"), &g, &pkts)));
    EXPECT_EQ(kErrorRtcpLength, code(split(unhex("80 c9 00 02 11 22 33 44"), &g, &pkts)));
    EXPECT_EQ(kErrorRtcpTooShort, code(split(unhex("80 c9 00 01 11 22 33 44 80"), &g, &pkts)));
    // Padding count 0, and larger than the body.
    EXPECT_EQ(kErrorRtcpPadding, code(split(unhex("a0 c9 00 01 11 22 33 00"), &g, &pkts)));
    EXPECT_EQ(kErrorRtcpPadding, code(split(unhex("a0 c9 00 01 11 22 33 05"), &g, &pkts)));
    // RR claiming 2 blocks with none; SR claiming 1 with none.
    EXPECT_EQ(kErrorRtcpCount, code(split(unhex("82 c9 00 01 11 22 33 44"), &g, &pkts)));
    EXPECT_EQ(kErrorRtcpCount,
              code(split(unhex("81 c8 00 06 11 22 33 44 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"),
                         &g, &pkts)));
    // SDES: item length past the chunk; a chunk count larger than the chunks; no end item.
    EXPECT_EQ(kErrorRtcpSdes, code(split(unhex("81 ca 00 02 11 22 33 44 01 09 61 00"), &g, &pkts)));
    EXPECT_EQ(kErrorRtcpSdes, code(split(unhex("82 ca 00 02 11 22 33 44 00 00 00 00"), &g, &pkts)));
    EXPECT_EQ(kErrorRtcpSdes, code(split(unhex("81 ca 00 02 11 22 33 44 01 02 61 62"), &g, &pkts)));
    // BYE: a source count past the end; a reason past the end.
    EXPECT_EQ(kErrorRtcpCount, code(split(unhex("82 cb 00 01 11 22 33 44"), &g, &pkts)));
    EXPECT_EQ(kErrorRtcpBye, code(split(unhex("81 cb 00 02 11 22 33 44 09 61 62 63"), &g, &pkts)));
    // NACK without FCI; FIR with a half entry; REMB with more SSRCs than present; short PSFB.
    EXPECT_EQ(kErrorRtcpFeedback, code(split(unhex("81 cd 00 02 00 00 00 01 11 22 33 44"), &g, &pkts)));
    EXPECT_EQ(kErrorRtcpFeedback,
              code(split(unhex("84 ce 00 03 00 00 00 01 00 00 00 00 11 22 33 44"), &g, &pkts)));
    EXPECT_EQ(kErrorRtcpFeedback,
              code(split(unhex("8f ce 00 04 00 00 00 01 00 00 00 00 52 45 4d 42 02 0b d0 90"), &g, &pkts)));
    EXPECT_EQ(kErrorRtcpTooShort, code(split(unhex("81 ce 00 01 00 00 00 01"), &g, &pkts)));
}

TEST(KernelRtcpTest, CompoundWithOneBrokenPartIsRejectedWhole) {
    GuardPage g(256);
    std::vector<RtcpPacketRef> pkts;
    // A good RR, a NACK without FCI, a good PLI.
    std::vector<uint8_t> v = unhex(std::string(kRrSdes) + "81 cd 00 02 00 00 00 01 11 22 33 44" + kPli);
    Error err = split(v, &g, &pkts);
    EXPECT_EQ(kErrorRtcpFeedback, err.code());
    err.ignore();
    EXPECT_TRUE(pkts.empty());
    // All parts good: five packets; unknown types pass through.
    v = unhex(std::string(kSr) + kRrSdes + kNack + "80 c3 00 00" + kTwccVector);
    ASSERT_TRUE(ok(split(v, &g, &pkts)));
    ASSERT_EQ(6u, pkts.size());
    EXPECT_EQ(195, pkts[4].type);
}

TEST(KernelRtcpTest, NackBuildParseRoundTripAcrossWrap) {
    std::vector<uint16_t> lost = {65530, 65535, 0, 5, 20, 36, 37, 40000};
    std::string out;
    rtcp_build_nack(7, 8, lost, &out);
    // 65530 covers up to 10; 20 covers 36; then 37 and 40000 start pairs.
    EXPECT_EQ(12u + 4 * 4, out.size());
    GuardPage g(256);
    std::vector<RtcpPacketRef> pkts;
    ASSERT_TRUE(ok(split(bytes(out), &g, &pkts)));
    RtcpNack nack;
    ASSERT_TRUE(ok(rtcp_parse_nack(pkts[0], &nack)));
    EXPECT_EQ(7u, nack.sender_ssrc);
    EXPECT_EQ(8u, nack.media_ssrc);
    EXPECT_EQ(lost, nack.lost);
    out.clear();
    rtcp_build_nack(7, 8, {}, &out);
    EXPECT_TRUE(out.empty());
}

TEST(KernelRtcpTest, TwccBuildParseRoundTripAcrossWrap) {
    // Sequences across the wrap with gaps (one of 10000, so long runs), small,
    // large and negative deltas.
    std::vector<TwccArrival> arr;
    int64_t t = 5 * 64000 + 750;
    uint16_t seq = 65500;
    for (int i = 0; i < 100; ++i) {
        arr.push_back({seq, t});
        seq = static_cast<uint16_t>(seq + (i % 9 == 3 ? 3 : 1));
        t += (i % 11 == 5) ? 70000 : (i % 13 == 7 ? -2000 : 1250);
    }
    seq = static_cast<uint16_t>(seq + 10000);
    arr.push_back({seq, t});
    arr.push_back({static_cast<uint16_t>(seq + 1), t + 250});
    std::string out;
    ASSERT_TRUE(ok(rtcp_build_twcc(1, 2, 9, arr, &out)));
    EXPECT_EQ(0u, out.size() % 4);
    GuardPage g(out.size());
    std::vector<RtcpPacketRef> pkts;
    ASSERT_TRUE(ok(split(bytes(out), &g, &pkts)));
    RtcpTwcc tw;
    ASSERT_TRUE(ok(rtcp_parse_twcc(pkts[0], &tw)));
    EXPECT_EQ(65500, tw.base_seq);
    EXPECT_EQ(9, tw.fb_count);
    EXPECT_EQ(5, tw.reference_time);
    // Rebuild the arrivals from the parsed feedback.
    std::vector<TwccArrival> back;
    int64_t ticks = static_cast<int64_t>(tw.reference_time) * 256;
    for (const RtcpTwccStatus& s : tw.packets) {
        if (s.symbol == kTwccNotReceived) continue;
        ticks += s.delta;
        back.push_back({s.seq, ticks * 250});
    }
    ASSERT_EQ(arr.size(), back.size());
    for (size_t i = 0; i < arr.size(); ++i) {
        EXPECT_EQ(arr[i].seq, back[i].seq) << i;
        EXPECT_EQ(arr[i].arrival_us, back[i].arrival_us) << i;
    }
    EXPECT_EQ(seq_distance(arr.front().seq, arr.back().seq) + 1, tw.status_count);
}

TEST(KernelRtcpTest, TwccBuildRejectsBadInput) {
    std::string out;
    EXPECT_EQ(kErrorRtcpBuild, code(rtcp_build_twcc(1, 2, 0, {}, &out)));
    EXPECT_EQ(kErrorRtcpBuild, code(rtcp_build_twcc(1, 2, 0, {{5, 0}, {5, 250}}, &out)));
    EXPECT_EQ(kErrorRtcpBuild, code(rtcp_build_twcc(1, 2, 0, {{5, 0}, {4, 250}}, &out)));
    EXPECT_EQ(kErrorRtcpBuild, code(rtcp_build_twcc(1, 2, 0, {{5, -1}}, &out)));
    // A delta of 10 s.
    EXPECT_EQ(kErrorRtcpBuild, code(rtcp_build_twcc(1, 2, 0, {{5, 0}, {6, 10000000}}, &out)));
    EXPECT_TRUE(out.empty());
}

TEST(KernelRtcpTest, RoundTripsBuilders) {
    RtcpReceiverReport rr;
    rr.ssrc = 9;
    for (uint32_t i = 0; i < 3; ++i) {
        RtcpReportBlock b;
        b.ssrc = 100 + i;
        b.fraction_lost = static_cast<uint8_t>(i);
        b.cumulative_lost = -8388608 + static_cast<int32_t>(i);
        b.highest_sequence = 70000 + i;
        rr.reports.push_back(b);
    }
    RtcpBye bye;
    bye.ssrcs = {1, 2};
    std::vector<RtcpSdesChunk> sdes = {{1, "a"}, {2, ""}, {3, std::string(300, 'x')}};
    std::string out;
    rtcp_build_rr(rr, &out);
    rtcp_build_sdes(sdes, &out);
    rtcp_build_bye(bye, &out);
    GuardPage g(out.size());
    std::vector<RtcpPacketRef> pkts;
    ASSERT_TRUE(ok(split(bytes(out), &g, &pkts)));
    ASSERT_EQ(3u, pkts.size());
    RtcpReceiverReport rr2;
    ASSERT_TRUE(ok(rtcp_parse_rr(pkts[0], &rr2)));
    ASSERT_EQ(3u, rr2.reports.size());
    EXPECT_EQ(-8388606, rr2.reports[2].cumulative_lost);
    EXPECT_EQ(70002u, rr2.reports[2].highest_sequence);
    std::vector<RtcpSdesChunk> sdes2;
    ASSERT_TRUE(ok(rtcp_parse_sdes(pkts[1], &sdes2)));
    ASSERT_EQ(3u, sdes2.size());
    EXPECT_EQ("a", sdes2[0].cname);
    EXPECT_EQ("", sdes2[1].cname);
    EXPECT_EQ(std::string(255, 'x'), sdes2[2].cname);
    RtcpBye bye2;
    ASSERT_TRUE(ok(rtcp_parse_bye(pkts[2], &bye2)));
    EXPECT_EQ(bye.ssrcs, bye2.ssrcs);
    EXPECT_EQ("", bye2.reason);
}

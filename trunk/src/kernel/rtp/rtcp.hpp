// RTCP (RFC 3550 section 6, RFC 4585, RFC 5104, RFC 3611 and the
// transport-wide congestion control feedback of
// draft-holmer-rmcat-transport-wide-cc-extensions-01), sans-IO.
//
// rtcp_parse_compound() splits a datagram into packets, checks every header
// and length, and runs the typed parser of every packet it knows; if any part
// is broken the whole compound is rejected. The typed parsers then read one
// packet each. Builders append whole packets to a std::string.
//
// Common header (every packet; length in 32-bit words minus one):
//   0                   1                   2                   3
//   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  |V=2|P| RC/FMT  |      PT       |             length            |
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  If P, the last byte of the packet counts the padding bytes (itself included).
//
// SR (200): SSRC, NTP (64), RTP timestamp, packet count, octet count, RC report
// blocks. RR (201): SSRC, RC report blocks. Report block (24 bytes): SSRC,
// fraction lost (8), cumulative lost (24, signed), highest sequence (32),
// jitter, LSR, DLSR. Bytes after the blocks (profile extensions) are ignored.
// SDES (202): SC chunks of SSRC + items (type 8, length 8, text), ended by a
// zero byte and padded to 32 bits. BYE (203): SC SSRCs, optional reason
// (length 8, text). Feedback (205 RTPFB, 206 PSFB; RFC 4585): sender SSRC,
// media SSRC, FCI.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace srs {

constexpr uint8_t kRtcpSr = 200;
constexpr uint8_t kRtcpRr = 201;
constexpr uint8_t kRtcpSdes = 202;
constexpr uint8_t kRtcpBye = 203;
constexpr uint8_t kRtcpApp = 204;
constexpr uint8_t kRtcpRtpfb = 205;
constexpr uint8_t kRtcpPsfb = 206;
constexpr uint8_t kRtcpXr = 207;
// Feedback message types (the FMT field).
constexpr uint8_t kRtcpFmtNack = 1;   // RTPFB generic NACK
constexpr uint8_t kRtcpFmtTwcc = 15;  // RTPFB transport-wide CC
constexpr uint8_t kRtcpFmtPli = 1;    // PSFB picture loss indication
constexpr uint8_t kRtcpFmtFir = 4;    // PSFB full intra request (RFC 5104)
constexpr uint8_t kRtcpFmtAfb = 15;   // PSFB application layer feedback (REMB)
constexpr uint8_t kRtcpSdesCname = 1;
constexpr int kRtcpMaxReports = 31;

// One packet of a compound: data[0, size) is the packet with its header and
// without its padding. Points into the caller's datagram.
struct RtcpPacketRef {
    uint8_t type = 0;
    uint8_t count = 0;  // RC, SC or FMT
    const uint8_t* data = nullptr;
    size_t size = 0;
};

// Splits and validates data[0, size). Clears *out, then appends one ref per
// packet. Errors: kErrorRtcpTooShort, kErrorRtcpVersion, kErrorRtcpLength,
// kErrorRtcpPadding, or the error of the typed parser of a broken packet.
// Packet types it does not know are passed through unchecked.
Error rtcp_parse_compound(const uint8_t* data, size_t size, std::vector<RtcpPacketRef>* out);

struct RtcpReportBlock {
    uint32_t ssrc = 0;
    uint8_t fraction_lost = 0;
    int32_t cumulative_lost = 0;  // 24-bit signed
    uint32_t highest_sequence = 0;
    uint32_t jitter = 0;
    uint32_t lsr = 0;
    uint32_t dlsr = 0;
};

struct RtcpSenderReport {
    uint32_t ssrc = 0;
    uint64_t ntp = 0;
    uint32_t rtp_timestamp = 0;
    uint32_t packet_count = 0;
    uint32_t octet_count = 0;
    std::vector<RtcpReportBlock> reports;
};

struct RtcpReceiverReport {
    uint32_t ssrc = 0;
    std::vector<RtcpReportBlock> reports;
};

struct RtcpSdesChunk {
    uint32_t ssrc = 0;
    std::string cname;  // empty when the chunk has no CNAME item
};

struct RtcpBye {
    std::vector<uint32_t> ssrcs;
    std::string reason;
};

struct RtcpNack {
    uint32_t sender_ssrc = 0;
    uint32_t media_ssrc = 0;
    std::vector<uint16_t> lost;  // in FCI order: each PID, then its BLP bits
};

struct RtcpPli {
    uint32_t sender_ssrc = 0;
    uint32_t media_ssrc = 0;
};

struct RtcpFirEntry {
    uint32_t ssrc = 0;
    uint8_t seq = 0;
};

struct RtcpFir {
    uint32_t sender_ssrc = 0;
    std::vector<RtcpFirEntry> entries;
};

// REMB (draft-alvestrand-rmcat-remb): PSFB FMT 15 with "REMB", num SSRC (8),
// BR exp (6), BR mantissa (18), SSRCs.
struct RtcpRemb {
    uint32_t sender_ssrc = 0;
    uint64_t bitrate = 0;  // mantissa << exp, saturated at UINT64_MAX
    std::vector<uint32_t> ssrcs;
};

// XR (RFC 3611): SSRC, then blocks of BT (8), type-specific (8), length (16,
// words). Receiver Reference Time (BT 4, NTP 64) and DLRR (BT 5, sub-blocks of
// SSRC, LRR, DLRR) are parsed; other blocks are skipped.
struct RtcpDlrrItem {
    uint32_t ssrc = 0;
    uint32_t lrr = 0;
    uint32_t dlrr = 0;
};

struct RtcpXr {
    uint32_t ssrc = 0;
    std::vector<uint64_t> rrtr_ntp;  // one per RRTR block
    std::vector<RtcpDlrrItem> dlrr;  // of every DLRR block
    int skipped_blocks = 0;
};

// Transport-wide CC feedback (RTPFB FMT 15):
//  sender SSRC, media SSRC, base sequence (16), packet status count (16),
//  reference time (24, units of 64 ms), feedback packet count (8),
//  packet chunks (16 bits each), receive deltas, zero padding to 32 bits.
// Chunk: T=0 run length: S (2) symbol, run (13); T=1 status vector: S=0 14
// one-bit symbols, S=1 seven two-bit symbols. Symbols: 0 not received,
// 1 received with a 1-byte unsigned delta, 2 received with a 2-byte signed
// delta, 3 reserved (rejected). Deltas are in units of 250 us.
constexpr uint8_t kTwccNotReceived = 0;
constexpr uint8_t kTwccSmallDelta = 1;
constexpr uint8_t kTwccLargeDelta = 2;

struct RtcpTwccStatus {
    uint16_t seq = 0;
    uint8_t symbol = 0;  // kTwccNotReceived, kTwccSmallDelta or kTwccLargeDelta
    int32_t delta = 0;   // 250 us units since the previous received packet (or the reference time)
};

struct RtcpTwcc {
    uint32_t sender_ssrc = 0;
    uint32_t media_ssrc = 0;
    uint16_t base_seq = 0;
    uint16_t status_count = 0;
    int32_t reference_time = 0;  // 24-bit signed, units of 64 ms
    uint8_t fb_count = 0;
    std::vector<RtcpTwccStatus> packets;  // status_count entries, base_seq onwards
};

// Typed parsers: `p` comes from rtcp_parse_compound() (or is one whole packet
// split the same way) and must be of the matching type/FMT.
Error rtcp_parse_sr(const RtcpPacketRef& p, RtcpSenderReport* out);
Error rtcp_parse_rr(const RtcpPacketRef& p, RtcpReceiverReport* out);
Error rtcp_parse_sdes(const RtcpPacketRef& p, std::vector<RtcpSdesChunk>* out);
Error rtcp_parse_bye(const RtcpPacketRef& p, RtcpBye* out);
Error rtcp_parse_nack(const RtcpPacketRef& p, RtcpNack* out);
Error rtcp_parse_pli(const RtcpPacketRef& p, RtcpPli* out);
Error rtcp_parse_fir(const RtcpPacketRef& p, RtcpFir* out);
// *is_remb is false (and the result a success) for an AFB that is not REMB.
Error rtcp_parse_remb(const RtcpPacketRef& p, RtcpRemb* out, bool* is_remb);
Error rtcp_parse_xr(const RtcpPacketRef& p, RtcpXr* out);
Error rtcp_parse_twcc(const RtcpPacketRef& p, RtcpTwcc* out);

// Builders: append one packet to *out.
void rtcp_build_sr(const RtcpSenderReport& sr, std::string* out);  // at most 31 reports are written
void rtcp_build_rr(const RtcpReceiverReport& rr, std::string* out);
// CNAMEs longer than 255 bytes are cut to 255.
void rtcp_build_sdes(const std::vector<RtcpSdesChunk>& chunks, std::string* out);
void rtcp_build_bye(const RtcpBye& bye, std::string* out);
void rtcp_build_pli(uint32_t sender_ssrc, uint32_t media_ssrc, std::string* out);
void rtcp_build_fir(uint32_t sender_ssrc, const std::vector<RtcpFirEntry>& entries, std::string* out);
void rtcp_build_remb(const RtcpRemb& remb, std::string* out);
// Generic NACK for `lost` (give it in increasing, wrap-aware order: 65534,
// 65535, 0, 1 packs into one PID+BLP pair). Nothing is written for an empty list.
void rtcp_build_nack(uint32_t sender_ssrc, uint32_t media_ssrc, const std::vector<uint16_t>& lost, std::string* out);

// One received packet for a TWCC feedback.
struct TwccArrival {
    uint16_t seq = 0;
    int64_t arrival_us = 0;  // >= 0, any time base
};
// Builds a transport-cc feedback of `arrivals` (strictly increasing, wrap-aware
// seq; the gaps are reported as not received). Arrival times are taken at 250
// us resolution; the reference time is the first arrival's, in 64 ms units,
// written modulo 2^24 (it reads back as negative past 2^23 * 64 ms, ~149 h).
// kErrorRtcpBuild for an empty list, a sequence not increasing, a span over
// 65535 packets, a negative arrival, or a delta outside +-8191.75 ms.
Error rtcp_build_twcc(uint32_t sender_ssrc, uint32_t media_ssrc, uint8_t fb_count,
                      const std::vector<TwccArrival>& arrivals, std::string* out);

}  // namespace srs

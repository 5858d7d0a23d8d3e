// libFuzzer target for kernel/rtp/rtcp: split a compound; every packet it
// accepted must then parse with its typed parser. Builders are checked
// against the parsers: SR/RR/SDES/BYE/FIR/REMB rebuilt from what was parsed
// parse back the same, a NACK rebuilt from its lost list carries the same set
// of sequences, a TWCC rebuilt from its arrivals gives the same arrivals.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "kernel/rtp/rtcp.hpp"

using namespace srs;

namespace {

void must(Error err) {
    if (!err.ok()) abort();
}

// Splits a built packet (which must be valid) into its single ref.
RtcpPacketRef one(const std::string& s, std::vector<RtcpPacketRef>* refs) {
    must(rtcp_parse_compound(reinterpret_cast<const uint8_t*>(s.data()), s.size(), refs));
    if (refs->size() != 1) abort();
    return (*refs)[0];
}

bool same_blocks(const std::vector<RtcpReportBlock>& a, const std::vector<RtcpReportBlock>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        if (a[i].ssrc != b[i].ssrc || a[i].fraction_lost != b[i].fraction_lost ||
            a[i].cumulative_lost != b[i].cumulative_lost || a[i].highest_sequence != b[i].highest_sequence ||
            a[i].jitter != b[i].jitter || a[i].lsr != b[i].lsr || a[i].dlsr != b[i].dlsr)
            return false;
    }
    return true;
}

// Received (seq, time in 250 us ticks) of a feedback.
std::vector<std::pair<uint16_t, int64_t>> arrivals(const RtcpTwcc& t) {
    std::vector<std::pair<uint16_t, int64_t>> out;
    int64_t ticks = static_cast<int64_t>(t.reference_time) * 256;
    for (const RtcpTwccStatus& s : t.packets) {
        if (s.symbol == kTwccNotReceived) continue;
        ticks += s.delta;
        out.push_back({s.seq, ticks});
    }
    return out;
}

void check(const RtcpPacketRef& p) {
    std::vector<RtcpPacketRef> refs;
    std::string out;
    if (p.type == kRtcpSr) {
        RtcpSenderReport a, b;
        must(rtcp_parse_sr(p, &a));
        rtcp_build_sr(a, &out);
        must(rtcp_parse_sr(one(out, &refs), &b));
        if (a.ssrc != b.ssrc || a.ntp != b.ntp || a.rtp_timestamp != b.rtp_timestamp ||
            a.packet_count != b.packet_count || a.octet_count != b.octet_count || !same_blocks(a.reports, b.reports))
            abort();
    } else if (p.type == kRtcpRr) {
        RtcpReceiverReport a, b;
        must(rtcp_parse_rr(p, &a));
        rtcp_build_rr(a, &out);
        must(rtcp_parse_rr(one(out, &refs), &b));
        if (a.ssrc != b.ssrc || !same_blocks(a.reports, b.reports)) abort();
    } else if (p.type == kRtcpSdes) {
        std::vector<RtcpSdesChunk> a, b;
        must(rtcp_parse_sdes(p, &a));
        rtcp_build_sdes(a, &out);
        must(rtcp_parse_sdes(one(out, &refs), &b));
        if (a.size() != b.size()) abort();
        for (size_t i = 0; i < a.size(); ++i)
            if (a[i].ssrc != b[i].ssrc || a[i].cname != b[i].cname) abort();
    } else if (p.type == kRtcpBye) {
        RtcpBye a, b;
        must(rtcp_parse_bye(p, &a));
        rtcp_build_bye(a, &out);
        must(rtcp_parse_bye(one(out, &refs), &b));
        if (a.ssrcs != b.ssrcs || a.reason != b.reason) abort();
    } else if (p.type == kRtcpRtpfb && p.count == kRtcpFmtNack) {
        RtcpNack a, b;
        must(rtcp_parse_nack(p, &a));
        rtcp_build_nack(a.sender_ssrc, a.media_ssrc, a.lost, &out);
        must(rtcp_parse_nack(one(out, &refs), &b));
        if (std::set<uint16_t>(a.lost.begin(), a.lost.end()) != std::set<uint16_t>(b.lost.begin(), b.lost.end()))
            abort();
    } else if (p.type == kRtcpRtpfb && p.count == kRtcpFmtTwcc) {
        RtcpTwcc a, b;
        must(rtcp_parse_twcc(p, &a));
        if (a.packets.size() != a.status_count) abort();
        std::vector<std::pair<uint16_t, int64_t>> got = arrivals(a);
        std::vector<TwccArrival> in;
        for (const auto& g : got) in.push_back({g.first, g.second * 250});
        // The builder's 24-bit reference time wraps past 2^23 * 64 ms; stay below.
        if (!in.empty() && in.front().arrival_us / 64000 >= 0x800000) return;
        Error err = rtcp_build_twcc(a.sender_ssrc, a.media_ssrc, a.fb_count, in, &out);
        if (!err.ok()) {  // no packet received, or negative times: nothing to compare
            err.ignore();
            return;
        }
        must(rtcp_parse_twcc(one(out, &refs), &b));
        if (arrivals(b) != got) abort();
    } else if (p.type == kRtcpPsfb && p.count == kRtcpFmtPli) {
        RtcpPli a;
        must(rtcp_parse_pli(p, &a));
    } else if (p.type == kRtcpPsfb && p.count == kRtcpFmtFir) {
        RtcpFir a, b;
        must(rtcp_parse_fir(p, &a));
        rtcp_build_fir(a.sender_ssrc, a.entries, &out);
        must(rtcp_parse_fir(one(out, &refs), &b));
        if (a.entries.size() != b.entries.size()) abort();
    } else if (p.type == kRtcpPsfb && p.count == kRtcpFmtAfb) {
        RtcpRemb a, b;
        bool is_remb = false;
        must(rtcp_parse_remb(p, &a, &is_remb));
        if (!is_remb) return;
        rtcp_build_remb(a, &out);
        must(rtcp_parse_remb(one(out, &refs), &b, &is_remb));
        if (!is_remb || a.ssrcs != b.ssrcs || b.bitrate > a.bitrate) abort();
    } else if (p.type == kRtcpXr) {
        RtcpXr a;
        must(rtcp_parse_xr(p, &a));
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::vector<RtcpPacketRef> refs;
    Error err = rtcp_parse_compound(data, size, &refs);
    if (!err.ok()) {
        err.ignore();
        if (!refs.empty()) abort();
        return 0;
    }
    size_t total = 0;
    for (const RtcpPacketRef& p : refs) {
        if (p.data < data || p.data + p.size > data + size || p.size < 4) abort();
        total += p.size;
        check(p);
    }
    if (total > size) abort();
    return 0;
}

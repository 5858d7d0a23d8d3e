// Transport-wide congestion control feedback (RTPFB FMT 15): parse and build.
// Layout in rtcp.hpp.
#include <cstdlib>

#include "core/bytes.hpp"
#include "kernel/rtp/rtcp.hpp"
#include "kernel/rtp/rtcp_internal.hpp"
#include "kernel/rtp/rtp.hpp"

namespace srs {

using namespace rtcp_internal;

namespace {
constexpr uint32_t kMaxRun = 0x1fff;  // 13-bit run length
constexpr int64_t kTicksPer64Ms = 256;  // 64 ms in 250 us units

// Appends the symbols of one chunk to *symbols, at most `want` of them.
Error read_chunk(uint16_t c, size_t want, std::vector<uint8_t>* symbols) {
    if ((c & 0x8000) == 0) {
        uint8_t s = (c >> 13) & 3;
        size_t run = c & kMaxRun;
        if (run > want) run = want;
        if (run && s == 3) return SRS_ERR(kErrorRtcpTwcc, "twcc run of reserved symbol");
        symbols->insert(symbols->end(), run, s);
    } else if ((c & 0x4000) == 0) {
        for (int i = 0; i < 14 && want; ++i, --want) symbols->push_back((c >> (13 - i)) & 1);
    } else {
        for (int i = 0; i < 7 && want; ++i, --want) {
            uint8_t s = (c >> (2 * (6 - i))) & 3;
            if (s == 3) return SRS_ERR(kErrorRtcpTwcc, "twcc vector with reserved symbol");
            symbols->push_back(s);
        }
    }
    return Error();
}
}  // namespace

Error rtcp_parse_twcc(const RtcpPacketRef& p, RtcpTwcc* out) {
    out->packets.clear();
    if (p.size < 20) return SRS_ERR(kErrorRtcpTwcc, "twcc of %zu bytes", p.size);
    const uint8_t* q = p.data;
    out->sender_ssrc = load_be32(q + 4);
    out->media_ssrc = load_be32(q + 8);
    out->base_seq = load_be16(q + 12);
    out->status_count = load_be16(q + 14);
    uint32_t ref = load_be24(q + 16);
    out->reference_time = (ref & 0x800000) ? static_cast<int32_t>(ref) - 0x1000000 : static_cast<int32_t>(ref);
    out->fb_count = q[19];

    std::vector<uint8_t> symbols;
    symbols.reserve(out->status_count);
    size_t pos = 20;
    while (symbols.size() < out->status_count) {
        if (p.size - pos < 2) return SRS_ERR(kErrorRtcpTwcc, "twcc chunks end at %zu of %u statuses", symbols.size(), out->status_count);
        if (Error err = read_chunk(load_be16(q + pos), out->status_count - symbols.size(), &symbols); !err.ok()) return err;
        pos += 2;
    }

    out->packets.resize(symbols.size());
    for (size_t i = 0; i < symbols.size(); ++i) {
        RtcpTwccStatus& s = out->packets[i];
        s.seq = static_cast<uint16_t>(out->base_seq + i);
        s.symbol = symbols[i];
        if (s.symbol == kTwccSmallDelta) {
            if (p.size - pos < 1) return SRS_ERR(kErrorRtcpTwcc, "twcc delta %zu past end", i);
            s.delta = q[pos];
            pos += 1;
        } else if (s.symbol == kTwccLargeDelta) {
            if (p.size - pos < 2) return SRS_ERR(kErrorRtcpTwcc, "twcc delta %zu past end", i);
            s.delta = static_cast<int16_t>(load_be16(q + pos));
            pos += 2;
        }
    }
    // Zero padding to 32 bits (when the sender did not use the P bit).
    if (p.size - pos > 3) return SRS_ERR(kErrorRtcpTwcc, "twcc %zu bytes after the deltas", p.size - pos);
    return Error();
}

Error rtcp_build_twcc(uint32_t sender_ssrc, uint32_t media_ssrc, uint8_t fb_count,
                      const std::vector<TwccArrival>& arrivals, std::string* out) {
    if (arrivals.empty()) return SRS_ERR(kErrorRtcpBuild, "twcc without packets");
    // The status of every sequence from the first to the last, and the deltas.
    std::vector<uint8_t> symbols;
    std::vector<int32_t> deltas;
    uint16_t base = arrivals[0].seq;
    if (arrivals[0].arrival_us < 0) return SRS_ERR(kErrorRtcpBuild, "twcc negative arrival");
    int64_t ref = arrivals[0].arrival_us / 64000;
    int64_t prev_ticks = ref * kTicksPer64Ms;
    for (size_t i = 0; i < arrivals.size(); ++i) {
        const TwccArrival& a = arrivals[i];
        if (a.arrival_us < 0) return SRS_ERR(kErrorRtcpBuild, "twcc negative arrival");
        if (i > 0) {
            int d = seq_distance(arrivals[i - 1].seq, a.seq);
            if (d <= 0) return SRS_ERR(kErrorRtcpBuild, "twcc seq %u after %u", a.seq, arrivals[i - 1].seq);
            if (symbols.size() + static_cast<size_t>(d) > 0xffff) return SRS_ERR(kErrorRtcpBuild, "twcc span over 65535");
            symbols.insert(symbols.end(), static_cast<size_t>(d - 1), kTwccNotReceived);
        }
        int64_t ticks = a.arrival_us / 250;
        int64_t delta = ticks - prev_ticks;
        prev_ticks = ticks;
        if (delta >= 0 && delta <= 255) {
            symbols.push_back(kTwccSmallDelta);
        } else if (delta >= -32768 && delta <= 32767) {
            symbols.push_back(kTwccLargeDelta);
        } else {
            return SRS_ERR(kErrorRtcpBuild, "twcc delta %lld ticks out of range", static_cast<long long>(delta));
        }
        deltas.push_back(static_cast<int32_t>(delta));
    }

    size_t start = begin_packet(out, kRtcpFmtTwcc, kRtcpRtpfb);
    put32(out, sender_ssrc);
    put32(out, media_ssrc);
    put16(out, base);
    put16(out, static_cast<uint16_t>(symbols.size()));
    put32(out, static_cast<uint32_t>(ref & 0xffffff) << 8 | fb_count);

    // Chunks: a run of 7 or more equal symbols, or the run that ends the list,
    // is run-length coded; otherwise
    // 14 one-bit symbols if they are all 0/1, else 7 two-bit symbols.
    size_t i = 0, n = symbols.size();
    while (i < n) {
        size_t run = 1;
        while (i + run < n && symbols[i + run] == symbols[i] && run < kMaxRun) ++run;
        if (run >= 7 || i + run == n) {
            put16(out, static_cast<uint16_t>(symbols[i] << 13 | run));
            i += run;
            continue;
        }
        size_t take = n - i < 14 ? n - i : 14;
        bool one_bit = true;
        for (size_t k = 0; k < take; ++k) one_bit = one_bit && symbols[i + k] <= 1;
        uint16_t c;
        if (one_bit) {
            c = 0x8000;
            for (size_t k = 0; k < take; ++k) c = static_cast<uint16_t>(c | symbols[i + k] << (13 - k));
        } else {
            take = n - i < 7 ? n - i : 7;
            c = 0xc000;
            for (size_t k = 0; k < take; ++k) c = static_cast<uint16_t>(c | symbols[i + k] << (2 * (6 - k)));
        }
        put16(out, c);
        i += take;
    }

    for (int32_t d : deltas) {
        if (d >= 0 && d <= 255) {
            out->push_back(static_cast<char>(d));
        } else {
            put16(out, static_cast<uint16_t>(static_cast<int16_t>(d)));
        }
    }
    end_packet(out, start, true);
    return Error();
}

}  // namespace srs

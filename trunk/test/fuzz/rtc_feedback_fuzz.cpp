// libFuzzer target for the WebRTC feedback handlers of protocol/rtc: the
// input is a script of received packets (sequence number, time step) and
// actions. Checked: the NACK generator never tracks more than max_missing
// numbers and hands them out in strictly increasing wrap-aware order; every
// TWCC feedback the recorder builds parses back, stays within max_size, and
// reports only arrival times that were given for its sequence numbers; the
// receive stats take any order of numbers (run under ASAN/UBSAN).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "kernel/rtp/rtcp.hpp"
#include "kernel/rtp/rtp.hpp"
#include "protocol/rtc/nack_generator.hpp"
#include "protocol/rtc/receive_stats.hpp"
#include "protocol/rtc/twcc_recorder.hpp"

using namespace srs;

namespace {

void check(bool ok) {
    if (!ok) abort();
}

void check_twcc(const std::string& out, size_t max_size, const std::map<uint16_t, std::set<int64_t>>& given) {
    if (out.empty()) return;  // nothing arrived since the last build
    std::vector<RtcpPacketRef> refs;
    check(rtcp_parse_compound(reinterpret_cast<const uint8_t*>(out.data()), out.size(), &refs).ok());
    for (const RtcpPacketRef& r : refs) {
        check(r.size <= max_size);
        RtcpTwcc t;
        check(rtcp_parse_twcc(r, &t).ok());
        int64_t ticks = static_cast<int64_t>(t.reference_time) * 256;
        for (const RtcpTwccStatus& s : t.packets) {
            if (s.symbol == kTwccNotReceived) continue;
            ticks += s.delta;
            auto it = given.find(s.seq);
            check(it != given.end());
            bool found = false;
            for (int64_t at : it->second) found = found || at / 250 == ticks;
            check(found);
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 2) return 0;
    NackOptions no;
    no.max_missing = 1 + data[0] % 64;
    no.max_retries = 1 + data[0] / 64;
    NackGenerator nack(no);
    TwccOptions to;
    to.max_size = 64 + data[1] * 8;
    to.max_pending = 1 + data[1] * 16;
    to.max_span = 1 + data[1] * 300;
    TwccRecorder twcc(to);
    RtpReceiveStats stats(1, 90000);
    std::map<uint16_t, std::set<int64_t>> given;

    utime_t now = 1000;
    std::vector<uint16_t> lost;
    std::string out;
    for (size_t i = 2; i + 4 <= size; i += 4) {
        uint8_t op = data[i];
        uint16_t seq = static_cast<uint16_t>(data[i + 1] << 8 | data[i + 2]);
        now += static_cast<utime_t>(data[i + 3]) * (op & 0x80 ? 100000 : 250);
        switch (op & 3) {
            case 0:
            case 1:
                nack.on_packet(seq, now);
                twcc.on_packet(seq, now);
                given[seq].insert(now);
                stats.on_packet(seq, static_cast<uint32_t>(now / 11), now);
                check(nack.missing() <= no.max_missing);
                break;
            case 2:
                lost.clear();
                nack.collect(now, &lost);
                for (size_t k = 1; k < lost.size(); ++k) check(seq_newer(lost[k], lost[k - 1]));
                nack.set_rtt(seq * 10);
                break;
            case 3: {
                out.clear();
                check(twcc.build(2, 3, &out).ok());
                check(twcc.pending() == 0);
                check_twcc(out, to.max_size, given);
                RtcpReportBlock b = stats.report(now);
                check(b.ssrc == 1 && b.cumulative_lost <= 0x7fffff && b.cumulative_lost >= -0x800000);
                break;
            }
        }
    }
    return 0;
}

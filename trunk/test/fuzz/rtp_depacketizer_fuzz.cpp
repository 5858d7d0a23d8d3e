// libFuzzer target for the RTP receive path of the RTMP<->WebRTC bridge:
// protocol/rtc/rtp_reorder feeding kernel/rtp/rtp_h264's H264Depacketizer, and
// the packetizers (H.264 round trip, H.265, AV1) on fuzzed access units.
//
// data[0] % 4 picks the mode:
//  0, 1: a script of received packets. Each record: a control byte (bit 0
//        marker, bits 1-2 timestamp step, bits 3-5 sequence step, bits 6-7
//        clock step), a length byte (255: a 16-bit length follows), the
//        payload. Packets go through a small reorder buffer (so its window
//        fills, jumps and restarts happen) into the depacketizer.
//        Checked: a release with lost_before 0 is the number right after the
//        previous one; the buffer never holds more than its capacity; every
//        frame is well-formed AVCC of NAL types 1..23 without SPS/PPS/AUD/
//        filler, keyframe exactly when it holds an IDR, within the size bound,
//        and the first frame is a keyframe.
//  2:    H.264 round trip: NALUs built from the input (the first an IDR),
//        packetized with a fuzzed max_payload and merge_nalus, depacketized:
//        the frame must come back byte for byte, every payload within
//        max_payload, the marker on the last only.
//  3:    the input as an H.265 access unit, an AV1 temporal unit and as
//        configuration records: no crash, payloads within max_payload.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/bytes.hpp"
#include "kernel/rtp/rtp_av1.hpp"
#include "kernel/rtp/rtp_h264.hpp"
#include "kernel/rtp/rtp_h265.hpp"
#include "protocol/rtc/rtp_reorder.hpp"

using namespace srs;

namespace {

void check(bool ok) {
    if (!ok) abort();
}

// Reads the fuzz input front to back; past the end everything reads as 0.
class Reader {
  public:
    Reader(const uint8_t* p, size_t n) : p_(p), n_(n) {}
    bool empty() const { return pos_ >= n_; }
    uint8_t byte() { return pos_ < n_ ? p_[pos_++] : 0; }
    uint16_t be16() {
        uint8_t hi = byte();
        return static_cast<uint16_t>(hi << 8 | byte());
    }
    // Up to n bytes (fewer at the end).
    std::string take(size_t n) {
        size_t k = n < n_ - pos_ ? n : n_ - pos_;
        std::string s(reinterpret_cast<const char*>(p_ + pos_), k);
        pos_ += k;
        return s;
    }

  private:
    const uint8_t* p_;
    size_t n_;
    size_t pos_ = 0;
};

void check_frame(const H264Frame& f) {
    check(f.nalus.size() <= 5 * kH264MaxFrameSize);  // a 4-byte length per NALU of at least 1 byte
    bool idr = false;
    size_t pos = 0;
    while (pos < f.nalus.size()) {
        check(f.nalus.size() - pos >= 5);
        size_t len = load_be32(f.nalus.data() + pos);
        pos += 4;
        check(len >= 1 && len <= f.nalus.size() - pos);
        uint8_t type = static_cast<uint8_t>(f.nalus[pos]) & 0x1f;
        check(type >= 1 && type <= 23 && type != 7 && type != 8 && type != 9 && type != 12);
        idr |= type == 5;
        pos += len;
    }
    check(!f.nalus.empty());
    check(idr == f.keyframe);
    check(f.sps.empty() || (f.sps[0] & 0x1f) == 7);
    check(f.pps.empty() || (f.pps[0] & 0x1f) == 8);
}

class Collect : public RtpPayloadSink {
  public:
    std::vector<std::string> payloads;
    std::vector<bool> markers;
    void on_rtp_payload(const uint8_t* data, size_t size, bool marker) override {
        payloads.emplace_back(reinterpret_cast<const char*>(data), size);
        markers.push_back(marker);
    }
    void check_shape(size_t max_payload) const {
        for (size_t i = 0; i < payloads.size(); ++i) {
            check(!payloads[i].empty() && payloads[i].size() <= max_payload);
            check(markers[i] == (i + 1 == payloads.size()));
        }
    }
};

void run_script(Reader& in) {
    RtpReorderBuffer reorder(64, 20 * 1000);
    H264Depacketizer depacketizer;
    uint16_t seq = 1000;
    uint32_t ts = 90000;
    utime_t now = 0;
    bool released_any = false;
    uint16_t last_released = 0;
    bool popped_any = false;

    auto drain = [&](utime_t at) {
        RtpReorderPacket p;
        while (reorder.pop(at, &p)) {
            check(p.lost_before >= 0);
            if (released_any && p.lost_before == 0) check(p.seq == static_cast<uint16_t>(last_released + 1));
            released_any = true;
            last_released = p.seq;
            // The harness keeps timestamp and marker before the payload.
            check(p.size >= 5);
            uint32_t pts = load_be32(p.data);
            bool marker = p.data[4] != 0;
            Error err = depacketizer.push(p.seq, pts, marker, p.data + 5, p.size - 5, p.lost_before);
            err.ignore();
            H264Frame f;
            while (depacketizer.pop(&f)) {
                check_frame(f);
                if (!popped_any) check(f.keyframe);
                popped_any = true;
            }
        }
        check(reorder.buffered() <= reorder.capacity());
    };

    while (!in.empty()) {
        uint8_t c = in.byte();
        bool marker = c & 1;
        switch ((c >> 1) & 3) {
            case 1: ts += 3000; break;
            case 2: ts += 1; break;
            case 3: ts -= 3000; break;
            default: break;
        }
        switch ((c >> 3) & 7) {
            case 3: seq += 2; break;
            case 4: seq -= 1; break;
            case 5: break;  // the same number again
            case 6: seq += in.byte(); break;
            case 7: seq += in.be16(); break;
            default: seq += 1; break;
        }
        static const utime_t kSteps[4] = {0, 1000, 10 * 1000, 50 * 1000};
        now += kSteps[c >> 6];

        size_t len = in.byte();
        if (len == 255) len = in.be16();
        std::string packet(5, '\0');
        store_be32(&packet[0], ts);
        packet[4] = marker ? 1 : 0;
        packet += in.take(len);
        reorder.push(seq, reinterpret_cast<const uint8_t*>(packet.data()), packet.size(), now);
        drain(now);
    }
    drain(now + 1000 * 1000);
}

void run_h264_round_trip(Reader& in) {
    uint8_t opt = in.byte();
    H264PacketizerOptions o;
    o.max_payload = 3 + static_cast<size_t>(in.byte()) * 5;
    o.merge_nalus = opt & 1;
    H264Packetizer packetizer(o);

    // NALUs from the input, with NAL types the depacketizer keeps; the first is an IDR.
    std::string au;
    bool first = true;
    while (!in.empty()) {
        size_t len = 1 + (in.be16() & 0x0fff);
        std::string nalu = in.take(len);
        if (nalu.empty()) break;
        uint8_t type = static_cast<uint8_t>(nalu[0]) % 23 + 1;
        if (type == 7 || type == 8 || type == 9 || type == 12) type = 1;
        if (first) type = 5;
        first = false;
        nalu[0] = static_cast<char>((nalu[0] & 0xe0) | type);
        char length[4];
        store_be32(length, static_cast<uint32_t>(nalu.size()));
        au.append(length, 4);
        au += nalu;
    }
    if (au.empty()) return;

    Collect c;
    Error err = packetizer.packetize(reinterpret_cast<const uint8_t*>(au.data()), au.size(), &c);
    check(err.ok());
    c.check_shape(o.max_payload);
    H264Depacketizer depacketizer;
    uint16_t seq = static_cast<uint16_t>(opt << 8);
    for (size_t i = 0; i < c.payloads.size(); ++i) {
        const std::string& p = c.payloads[i];
        Error perr = depacketizer.push(seq++, 1234, c.markers[i], reinterpret_cast<const uint8_t*>(p.data()), p.size());
        check(perr.ok());
    }
    H264Frame f;
    check(depacketizer.pop(&f));
    check(f.keyframe && f.timestamp == 1234 && f.nalus == au);
    check(!depacketizer.pop(&f));
    check(depacketizer.frames_dropped() == 0);
}

void run_other_packetizers(Reader& in) {
    size_t max_payload = 4 + static_cast<size_t>(in.byte()) * 5;
    bool flags = in.byte();
    std::string rest = in.take(1 << 20);
    const uint8_t* p = reinterpret_cast<const uint8_t*>(rest.data());

    H265PacketizerOptions o;
    o.max_payload = max_payload;
    o.merge_nalus = flags;
    H265Packetizer h265(o);
    Error e1 = h265.set_sequence_header(p, rest.size());
    e1.ignore();
    Collect c1;
    Error e2 = h265.packetize(p, rest.size(), &c1);
    if (e2.ok()) c1.check_shape(max_payload);
    else check(c1.payloads.empty());
    e2.ignore();

    H264Packetizer h264({max_payload, flags});
    Error e3 = h264.set_sequence_header(p, rest.size());
    e3.ignore();

    Av1Packetizer av1(max_payload);
    Error e4 = av1.set_sequence_header(p, rest.size());
    e4.ignore();
    Collect c2;
    Error e5 = av1.packetize(p, rest.size(), flags, &c2);
    if (e5.ok()) c2.check_shape(max_payload);
    else check(c2.payloads.empty());
    e5.ignore();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    Reader in(data + 1, size - 1);
    switch (data[0] % 4) {
        case 2: run_h264_round_trip(in); break;
        case 3: run_other_packetizers(in); break;
        default: run_script(in); break;
    }
    return 0;
}

// Tests of kernel/rtp/rtp_h265: the HEVCDecoderConfigurationRecord (real x265
// VPS/SPS/PPS), the AP before every IRAP, FU start/middle/end headers, AUD and
// filler dropped, merge_nalus with the lowest TID, every NALU size around
// max_payload reassembled by a small RFC 7798 reader here, malformed input.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel/rtp/rtp_h265.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using namespace srs::utest;

namespace {

// ffmpeg -f lavfi -i testsrc=size=320x240:rate=25 -frames:v 1 -pix_fmt yuv420p -c:v libx265 -f hevc -
const std::string kVps = unhex_string("40010c01ffff01600000030090000003000003003c959809");
const std::string kSps = unhex_string(
    "42010101600000030090000003000003003ca00a080f165959a4932bc05a020000030002000003003210");
const std::string kPps = unhex_string("4401c172b46240");

// A NALU of `size` bytes with NAL type `type`, layer 0, TID tid.
std::string make_nalu(uint8_t type, size_t size, int tid = 1) {
    std::string n(size, '\0');
    n[0] = static_cast<char>(type << 1);
    n[1] = static_cast<char>(tid);
    for (size_t i = 2; i < size; ++i) n[i] = static_cast<char>((i * 13 + size) & 0xff);
    return n;
}

std::string avcc(const std::vector<std::string>& nalus) {
    std::string out;
    for (const std::string& n : nalus) {
        for (int i = 3; i >= 0; --i) out.push_back(static_cast<char>(n.size() >> (8 * i)));
        out += n;
    }
    return out;
}

// hvcC: 23 bytes of profile/tier/level and format (lengthSizeMinusOne 3), then VPS, SPS, PPS arrays.
std::string record() {
    std::string r = unhex_string("01 01 60000000 900000000000 3c f000 fc fd f8 f8 0000 0f 03");
    auto array = [&](uint8_t type, const std::string& nalu) {
        r.push_back(static_cast<char>(0x80 | type));
        r += unhex_string("00 01");
        r.push_back(static_cast<char>(nalu.size() >> 8));
        r.push_back(static_cast<char>(nalu.size()));
        r += nalu;
    };
    array(32, kVps);
    array(33, kSps);
    array(34, kPps);
    return r;
}

struct Payload {
    std::string data;
    bool marker = false;
};

class Collect : public RtpPayloadSink {
  public:
    std::vector<Payload> out;
    void on_rtp_payload(const uint8_t* data, size_t size, bool marker) override {
        out.push_back(Payload{std::string(reinterpret_cast<const char*>(data), size), marker});
    }
};

std::vector<Payload> packetize(H265Packetizer& p, const std::string& au, int* err_code = nullptr) {
    GuardedBytes in(au);
    Collect c;
    int e = code(p.packetize(in.data(), in.size(), &c));
    if (err_code) *err_code = e;
    else EXPECT_EQ(0, e);
    return c.out;
}

H265Packetizer with_record(H265PacketizerOptions o = {}) {
    H265Packetizer p(o);
    std::string r = record();
    GuardedBytes in(r);
    EXPECT_TRUE(ok(p.set_sequence_header(in.data(), in.size())));
    return p;
}

int type_of(const std::string& payload) {
    return (static_cast<uint8_t>(payload[0]) >> 1) & 0x3f;
}

// NALUs back from payloads (RFC 7798 without DONL); "" on anything unexpected.
std::vector<std::string> reassemble(const std::vector<Payload>& ps) {
    std::vector<std::string> out;
    std::string fu;
    bool in_fu = false;
    for (const Payload& p : ps) {
        const std::string& d = p.data;
        int type = type_of(d);
        if (type == 48) {
            size_t pos = 2;
            while (pos + 2 <= d.size()) {
                size_t len = static_cast<uint8_t>(d[pos]) << 8 | static_cast<uint8_t>(d[pos + 1]);
                out.push_back(d.substr(pos + 2, len));
                pos += 2 + len;
            }
        } else if (type == 49) {
            uint8_t h = static_cast<uint8_t>(d[2]);
            if (h & 0x80) {
                in_fu = true;
                fu.clear();
                fu.push_back(static_cast<char>((d[0] & 0x81) | (h & 0x3f) << 1));
                fu.push_back(d[1]);
            } else if (!in_fu) {
                return {};
            }
            fu += d.substr(3);
            if (h & 0x40) {
                out.push_back(fu);
                in_fu = false;
            }
        } else {
            out.push_back(d);
        }
    }
    return out;
}

}  // namespace

TEST(RtpH265Test, SequenceHeaderFromRealParameterSets) {
    H265Packetizer p;
    EXPECT_FALSE(p.has_sequence_header());
    std::string r = record();
    GuardedBytes in(r);
    ASSERT_TRUE(ok(p.set_sequence_header(in.data(), in.size())));
    EXPECT_TRUE(p.has_sequence_header());
    EXPECT_EQ(4, p.nalu_length_size());
}

TEST(RtpH265Test, SequenceHeaderBroken) {
    std::string r = record();
    H265Packetizer p;
    for (size_t n = 0; n < r.size(); ++n) {
        GuardedBytes in(r.substr(0, n));
        EXPECT_EQ(kErrorRtpPayloadConfig, code(p.set_sequence_header(in.data(), in.size()))) << n;
    }
    std::string v0 = r;
    v0[0] = 0;
    GuardedBytes a(v0);
    EXPECT_EQ(kErrorRtpPayloadConfig, code(p.set_sequence_header(a.data(), a.size())));
    std::string no_pps = r.substr(0, r.size() - 5 - kPps.size());
    no_pps[22] = 2;
    GuardedBytes b(no_pps);
    EXPECT_EQ(kErrorRtpPayloadConfig, code(p.set_sequence_header(b.data(), b.size())));
    EXPECT_FALSE(p.has_sequence_header());
}

TEST(RtpH265Test, IrapGetsApThenFu) {
    H265Packetizer p = with_record();
    std::string idr = make_nalu(20, 3000);  // IDR_N_LP
    std::vector<Payload> ps = packetize(p, avcc({make_nalu(35, 3), idr}));  // AUD dropped
    ASSERT_EQ(4u, ps.size());
    // AP: type 48, layer 0, TID 1, then each parameter set after its 16-bit size.
    EXPECT_EQ(unhex_string("60 01 00 18") + kVps + unhex_string("00 2a") + kSps + unhex_string("00 07") + kPps,
              ps[0].data);
    // FU: 2998 body bytes in parts of at most 1197: 1000, 999, 999.
    EXPECT_EQ(unhex_string("62 01 94") + idr.substr(2, 1000), ps[1].data);
    EXPECT_EQ(unhex_string("62 01 14") + idr.substr(1002, 999), ps[2].data);
    EXPECT_EQ(unhex_string("62 01 54") + idr.substr(2001, 999), ps[3].data);
    EXPECT_FALSE(ps[0].marker || ps[1].marker || ps[2].marker);
    EXPECT_TRUE(ps[3].marker);
    EXPECT_EQ((std::vector<std::string>{kVps, kSps, kPps, idr}), reassemble(ps));

    // Every IRAP type (16..21) gets the AP; a trailing picture does not.
    for (uint8_t t = 16; t <= 21; ++t) EXPECT_EQ(48, type_of(packetize(p, avcc({make_nalu(t, 50)}))[0].data)) << int(t);
    std::vector<Payload> trail = packetize(p, avcc({make_nalu(1, 50), make_nalu(38, 10)}));  // filler dropped
    ASSERT_EQ(1u, trail.size());
    EXPECT_EQ(make_nalu(1, 50), trail[0].data);
    EXPECT_TRUE(trail[0].marker);
}

TEST(RtpH265Test, FrameOwnParameterSetsAreSent) {
    H265Packetizer p = with_record();
    std::string sps2 = kSps;
    sps2.back() ^= 1;
    std::vector<Payload> ps = packetize(p, avcc({kPps, sps2, kVps, make_nalu(19, 100)}));
    ASSERT_EQ(2u, ps.size());
    // Reordered VPS, SPS, PPS in the AP.
    EXPECT_EQ((std::vector<std::string>{kVps, sps2, kPps, make_nalu(19, 100)}), reassemble(ps));
}

TEST(RtpH265Test, MergeNalusUsesLowestTid) {
    H265PacketizerOptions o;
    o.merge_nalus = true;
    H265Packetizer p(o);
    std::vector<Payload> ps = packetize(p, avcc({make_nalu(39, 10, 2), make_nalu(1, 20, 3), make_nalu(1, 30, 2)}));
    ASSERT_EQ(1u, ps.size());
    EXPECT_EQ(unhex_string("60 02"), ps[0].data.substr(0, 2));
    EXPECT_EQ(2u + 12 + 22 + 32, ps[0].data.size());
    EXPECT_EQ((std::vector<std::string>{make_nalu(39, 10, 2), make_nalu(1, 20, 3), make_nalu(1, 30, 2)}), reassemble(ps));
}

TEST(RtpH265Test, EveryNaluSizeAroundMaxPayload) {
    for (size_t max : {size_t(100), size_t(1200)}) {
        H265Packetizer p({max, false});
        for (size_t base : {max, 2 * max, 3 * max}) {
            for (size_t s = base - 2; s <= base + 2; ++s) {
                std::string n = make_nalu(1, s);
                std::vector<Payload> ps = packetize(p, avcc({n}));
                size_t want = s <= max ? 1 : (s - 2 + max - 4) / (max - 3);
                EXPECT_EQ(want, ps.size()) << s;
                for (const Payload& x : ps) EXPECT_LE(x.data.size(), max);
                EXPECT_EQ(std::vector<std::string>{n}, reassemble(ps)) << s;
                EXPECT_TRUE(ps.back().marker);
            }
        }
    }
}

TEST(RtpH265Test, MalformedAccessUnits) {
    H265Packetizer p;
    int err = 0;
    EXPECT_TRUE(packetize(p, avcc({make_nalu(1, 20), std::string(1, '\x02')}), &err).empty());  // 1-byte NALU
    EXPECT_EQ(kErrorRtpPayloadNalu, err);
    std::string au = avcc({make_nalu(1, 20)});
    EXPECT_TRUE(packetize(p, au.substr(0, au.size() - 1), &err).empty());
    EXPECT_EQ(kErrorRtpPayloadNalu, err);
    EXPECT_TRUE(packetize(p, "").empty());
}

// Tests of kernel/rtp/rtp_av1: the aggregation header (Z, Y, W=0, N), OBU
// elements without obu_size, temporal delimiters dropped, fragments across
// packets for every size around max_payload (reassembled by a small reader of
// the AV1 RTP format here), the av1C sequence header put before keyframes,
// OBUs with an extension header or without obu_size, malformed units.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel/rtp/rtp_av1.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using namespace srs::utest;

namespace {

std::string leb128(size_t v) {
    std::string s;
    do {
        uint8_t b = v & 0x7f;
        v >>= 7;
        if (v) b |= 0x80;
        s.push_back(static_cast<char>(b));
    } while (v);
    return s;
}

// An OBU with obu_size: header byte(s), size, payload of `size` bytes.
std::string obu(uint8_t type, size_t size, int extension = -1) {
    std::string o;
    o.push_back(static_cast<char>(type << 3 | 0x02 | (extension >= 0 ? 0x04 : 0)));
    if (extension >= 0) o.push_back(static_cast<char>(extension));
    o += leb128(size);
    for (size_t i = 0; i < size; ++i) o.push_back(static_cast<char>((i * 11 + size + type) & 0xff));
    return o;
}

// The RTP element of an OBU: the same without obu_size (and its flag).
std::string element(uint8_t type, size_t size, int extension = -1) {
    std::string full = obu(type, size, extension);
    size_t hs = extension >= 0 ? 2 : 1;
    std::string e = full.substr(0, hs);
    e[0] = static_cast<char>(e[0] & ~0x02);
    e += full.substr(hs + leb128(size).size());
    return e;
}

const std::string kTemporalDelimiter = unhex_string("12 00");

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

std::vector<Payload> packetize(Av1Packetizer& p, const std::string& tu, bool keyframe, int* err_code = nullptr) {
    GuardedBytes in(tu);
    Collect c;
    int e = code(p.packetize(in.data(), in.size(), keyframe, &c));
    if (err_code) *err_code = e;
    else EXPECT_EQ(0, e);
    return c.out;
}

// Elements back from payloads, checking Z and Y agree between packets and W is 0.
std::vector<std::string> reassemble(const std::vector<Payload>& ps) {
    std::vector<std::string> out;
    bool continues = false;
    for (const Payload& p : ps) {
        const std::string& d = p.data;
        uint8_t h = static_cast<uint8_t>(d[0]);
        bool z = h & 0x80, y = h & 0x40;
        EXPECT_EQ(0, (h >> 4) & 3);
        EXPECT_EQ(continues, z);
        size_t pos = 1;
        bool first = true;
        while (pos < d.size()) {
            size_t len = 0, shift = 0;
            while (true) {
                uint8_t b = static_cast<uint8_t>(d[pos++]);
                len |= static_cast<size_t>(b & 0x7f) << shift;
                shift += 7;
                if (!(b & 0x80)) break;
            }
            EXPECT_GT(len, 0u);
            EXPECT_LE(pos + len, d.size());
            std::string piece = d.substr(pos, len);
            pos += len;
            if (first && z) out.back() += piece;
            else out.push_back(piece);
            first = false;
        }
        continues = y;
    }
    EXPECT_FALSE(continues);
    return out;
}

}  // namespace

TEST(RtpAv1Test, KeyframeUnitStructure) {
    Av1Packetizer p(1200);
    std::string tu = kTemporalDelimiter + obu(kAv1ObuSequenceHeader, 11) + obu(kAv1ObuFrame, 3000);
    std::vector<Payload> ps = packetize(p, tu, true);
    ASSERT_EQ(3u, ps.size());
    // First packet: N (new coded video sequence), Y (the frame continues), W=0.
    EXPECT_EQ(0x48, static_cast<uint8_t>(ps[0].data[0]));
    EXPECT_EQ(0xc0, static_cast<uint8_t>(ps[1].data[0]));  // Z and Y
    EXPECT_EQ(0x80, static_cast<uint8_t>(ps[2].data[0]));  // Z
    // The sequence header element first: length 12, header 0x08 (type 1, no size field).
    EXPECT_EQ(unhex_string("0c 08"), ps[0].data.substr(1, 2));
    EXPECT_EQ(1200u, ps[0].data.size());
    EXPECT_EQ(1200u, ps[1].data.size());
    EXPECT_FALSE(ps[0].marker || ps[1].marker);
    EXPECT_TRUE(ps[2].marker);
    EXPECT_EQ((std::vector<std::string>{element(kAv1ObuSequenceHeader, 11), element(kAv1ObuFrame, 3000)}),
              reassemble(ps));

    // A delta unit: no N.
    std::vector<Payload> delta = packetize(p, kTemporalDelimiter + obu(kAv1ObuFrame, 500), false);
    ASSERT_EQ(1u, delta.size());
    EXPECT_EQ(0x00, static_cast<uint8_t>(delta[0].data[0]));
    EXPECT_EQ(leb128(501) + element(kAv1ObuFrame, 500), delta[0].data.substr(1));
    EXPECT_TRUE(delta[0].marker);
}

TEST(RtpAv1Test, DroppedObuTypesAndEmptyUnits) {
    Av1Packetizer p;
    EXPECT_TRUE(packetize(p, kTemporalDelimiter, false).empty());
    EXPECT_TRUE(packetize(p, "", true).empty());
    std::string tu = kTemporalDelimiter + obu(kAv1ObuPadding, 10) + obu(kAv1ObuMetadata, 5) + obu(kAv1ObuTileList, 4) +
                     obu(kAv1ObuFrameHeader, 6) + obu(kAv1ObuTileGroup, 40);
    std::vector<Payload> ps = packetize(p, tu, false);
    ASSERT_EQ(1u, ps.size());
    EXPECT_EQ((std::vector<std::string>{element(kAv1ObuMetadata, 5), element(kAv1ObuFrameHeader, 6),
                                        element(kAv1ObuTileGroup, 40)}),
              reassemble(ps));
}

TEST(RtpAv1Test, ExtensionHeaderAndLastObuWithoutSize) {
    Av1Packetizer p(100);
    // The last OBU has no obu_size: it runs to the end of the unit.
    std::string last = unhex_string("30") + std::string(150, 'z');
    std::string tu = obu(kAv1ObuFrame, 20, 0x28) + last;
    std::vector<Payload> ps = packetize(p, tu, false);
    std::vector<std::string> got = reassemble(ps);
    ASSERT_EQ(2u, got.size());
    EXPECT_EQ(element(kAv1ObuFrame, 20, 0x28), got[0]);
    EXPECT_EQ(0x34, static_cast<uint8_t>(got[0][0]));  // extension flag kept, size flag cleared
    EXPECT_EQ(0x28, static_cast<uint8_t>(got[0][1]));
    EXPECT_EQ(last, got[1]);
}

TEST(RtpAv1Test, SequenceHeaderFromAv1cLeadsKeyframes) {
    Av1Packetizer p;
    std::string av1c = unhex_string("81 00 0c 00") + obu(kAv1ObuSequenceHeader, 11);
    GuardedBytes in(av1c);
    ASSERT_TRUE(ok(p.set_sequence_header(in.data(), in.size())));
    std::string tu = kTemporalDelimiter + obu(kAv1ObuFrame, 100);
    EXPECT_EQ((std::vector<std::string>{element(kAv1ObuSequenceHeader, 11), element(kAv1ObuFrame, 100)}),
              reassemble(packetize(p, tu, true)));
    EXPECT_EQ((std::vector<std::string>{element(kAv1ObuFrame, 100)}), reassemble(packetize(p, tu, false)));
    // A keyframe with its own sequence header gets no second one.
    std::string own = obu(kAv1ObuSequenceHeader, 9) + obu(kAv1ObuFrame, 100);
    EXPECT_EQ((std::vector<std::string>{element(kAv1ObuSequenceHeader, 9), element(kAv1ObuFrame, 100)}),
              reassemble(packetize(p, own, true)));
}

TEST(RtpAv1Test, Av1cBroken) {
    Av1Packetizer p;
    auto fails = [&](const std::string& r) {
        GuardedBytes in(r);
        return code(p.set_sequence_header(in.data(), in.size())) == kErrorRtpPayloadConfig;
    };
    EXPECT_TRUE(fails(unhex_string("81 00 0c")));
    EXPECT_TRUE(fails(unhex_string("01 00 0c 00") + obu(kAv1ObuSequenceHeader, 11)));  // no marker bit
    EXPECT_TRUE(fails(unhex_string("81 00 0c 00")));                                    // no configOBUs
    EXPECT_TRUE(fails(unhex_string("81 00 0c 00") + obu(kAv1ObuMetadata, 3)));          // no sequence header
    EXPECT_TRUE(fails(unhex_string("81 00 0c 00 0a 20 00")));                           // obu_size past the end
}

TEST(RtpAv1Test, EverySizeAroundMaxPayload) {
    for (size_t max : {size_t(100), size_t(1200)}) {
        Av1Packetizer p(max);
        for (size_t base : {max, 2 * max, 3 * max}) {
            for (size_t s = base - 6; s <= base + 2; ++s) {
                std::string tu = obu(kAv1ObuFrameHeader, 3) + obu(kAv1ObuTileGroup, s);
                std::vector<Payload> ps = packetize(p, tu, false);
                ASSERT_FALSE(ps.empty());
                for (size_t i = 0; i < ps.size(); ++i) {
                    EXPECT_LE(ps[i].data.size(), max) << s;
                    if (i + 1 < ps.size()) {
                        EXPECT_GE(ps[i].data.size(), max - 2) << s;  // no runts but the last
                    }
                    EXPECT_EQ(i + 1 == ps.size(), ps[i].marker);
                }
                EXPECT_EQ((std::vector<std::string>{element(kAv1ObuFrameHeader, 3), element(kAv1ObuTileGroup, s)}),
                          reassemble(ps))
                    << s;
            }
        }
    }
}

TEST(RtpAv1Test, TinyMaxPayloadStillCarriesEveryByte) {
    Av1Packetizer p(1);  // raised to 3: header, a length byte, one byte
    std::vector<Payload> ps = packetize(p, obu(kAv1ObuFrame, 4), false);
    EXPECT_EQ(5u, ps.size());
    for (const Payload& x : ps) EXPECT_EQ(3u, x.data.size());
    EXPECT_EQ(std::vector<std::string>{element(kAv1ObuFrame, 4)}, reassemble(ps));
}

TEST(RtpAv1Test, MalformedUnitsEmitNothing) {
    Av1Packetizer p;
    std::string good = obu(kAv1ObuFrame, 200);
    std::vector<std::string> bad = {
        obu(kAv1ObuFrame, 10) + good.substr(0, good.size() - 1),  // obu_size past the end
        unhex_string("b2 01 00"),                                 // forbidden bit
        unhex_string("32 ff ff ff ff ff ff ff ff 01"),            // obu_size LEB128 over 8 bytes
        unhex_string("32 ff ff ff ff 7f"),                        // obu_size over 2^32
        unhex_string("36"),                                       // extension byte missing
    };
    for (size_t i = 0; i < bad.size(); ++i) {
        int err = 0;
        EXPECT_TRUE(packetize(p, bad[i], true, &err).empty()) << i;
        EXPECT_EQ(kErrorRtpPayloadNalu, err) << i;
    }
}

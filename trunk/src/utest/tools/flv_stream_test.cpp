// FlvStream (research/tools/flv_stream.hpp): the FLV stream of the HTTP-FLV
// tools, fed in pieces of every size, in both of its modes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tools/flv_stream.hpp"

using namespace srs;
using namespace srs::tool;

namespace {

void put24(std::string* s, uint32_t v) {
    s->push_back(static_cast<char>(v >> 16));
    s->push_back(static_cast<char>(v >> 8));
    s->push_back(static_cast<char>(v));
}

void put32(std::string* s, uint32_t v) {
    s->push_back(static_cast<char>(v >> 24));
    put24(s, v);
}

// An FLV header, then a tag of each given type, size and timestamp.
struct TagSpec {
    uint8_t type;
    uint32_t size;
    uint32_t ts;
};

std::string flv_of(const std::vector<TagSpec>& tags) {
    std::string s("FLV\x01\x05\x00\x00\x00\x09", 9);
    put32(&s, 0);
    for (const TagSpec& t : tags) {
        s.push_back(static_cast<char>(t.type));
        put24(&s, t.size);
        put24(&s, t.ts & 0xffffff);
        s.push_back(static_cast<char>(t.ts >> 24));
        put24(&s, 0);
        for (uint32_t i = 0; i < t.size; i++) s.push_back(static_cast<char>(i & 0xff));
        put32(&s, 11 + t.size);
    }
    return s;
}

struct Seen {
    uint8_t type;
    uint32_t ts;
    std::string first;  // the first bytes shown, at most kBodyPrefix
    size_t body_fed_before;  // bytes of the stream fed when shown
};

}  // namespace

TEST(ToolsFlvStream, EveryTagShownOnceInBothModes) {
    const std::vector<TagSpec> spec = {{18, 30, 0}, {9, 1000, 40}, {8, 0, 41}, {8, 7, 0x01000002}};
    const std::string wire = flv_of(spec);
    for (FlvStream::Show show : {FlvStream::kAtPrefix, FlvStream::kAtEnd}) {
        for (size_t step = 1; step <= wire.size(); step += (step < 40 ? 1 : 97)) {
            FlvStream flv(show);
            std::vector<Seen> seen;
            size_t fed = 0;
            for (size_t at = 0; at < wire.size(); at += step) {
                const size_t n = std::min(step, wire.size() - at);
                Error err = flv.feed(reinterpret_cast<const uint8_t*>(wire.data() + at), n,
                                     [&](uint8_t type, uint32_t ts, const uint8_t* b, size_t m) {
                                         seen.push_back({type, ts, std::string(reinterpret_cast<const char*>(b),
                                                                               std::min<size_t>(m, kBodyPrefix)),
                                                         fed + n});
                                         return true;
                                     });
                ASSERT_TRUE(err.ok()) << err.summary();
                fed += n;
            }
            ASSERT_EQ(spec.size(), seen.size()) << step;
            EXPECT_TRUE(flv.at_boundary());
            for (size_t i = 0; i < spec.size(); i++) {
                EXPECT_EQ(spec[i].type, seen[i].type);
                EXPECT_EQ(spec[i].ts, seen[i].ts);
                const size_t want = std::min<size_t>(spec[i].size, kBodyPrefix);
                ASSERT_GE(seen[i].first.size(), want) << step << " tag " << i;
                for (size_t k = 0; k < want; k++) EXPECT_EQ(static_cast<char>(k & 0xff), seen[i].first[k]);
            }
            // The 1000-byte video tag: kAtEnd shows it only once its last
            // byte was fed; kAtPrefix as soon as 64 bytes were.
            const size_t video_end = 9 + 4 + (11 + 30 + 4) + 11 + 1000;
            if (show == FlvStream::kAtEnd) {
                EXPECT_GE(seen[1].body_fed_before, video_end) << step;
            } else if (step < 100) {
                EXPECT_LT(seen[1].body_fed_before, video_end) << step;
            }
        }
    }
}

TEST(ToolsFlvStream, StopEndsTheStream) {
    const std::string wire = flv_of({{9, 100, 0}, {9, 100, 40}});
    FlvStream flv(FlvStream::kAtEnd);
    int shown = 0;
    auto on_tag = [&](uint8_t, uint32_t, const uint8_t*, size_t) { return ++shown < 1; };
    ASSERT_TRUE(flv.feed(reinterpret_cast<const uint8_t*>(wire.data()), wire.size(), on_tag).ok());
    EXPECT_TRUE(flv.stopped());
    EXPECT_EQ(1, shown);
    ASSERT_TRUE(flv.feed(reinterpret_cast<const uint8_t*>(wire.data()), wire.size(), on_tag).ok());
    EXPECT_EQ(1, shown);  // nothing more once stopped
}

TEST(ToolsFlvStream, BrokenStreamsAreErrors) {
    auto feed_all = [](const std::string& wire) {
        FlvStream flv;
        return flv.feed(reinterpret_cast<const uint8_t*>(wire.data()), wire.size(),
                        [](uint8_t, uint32_t, const uint8_t*, size_t) { return true; });
    };
    std::string bad_prev = flv_of({{9, 10, 0}});
    bad_prev[bad_prev.size() - 1] ^= 1;
    std::string bad_type = flv_of({{9, 10, 0}});
    bad_type[13] = 7;
    std::string bad_sig = flv_of({});
    bad_sig[0] = 'G';
    std::string bad_stream_id = flv_of({{8, 4, 0}});
    bad_stream_id[13 + 10] = 1;
    const std::pair<std::string, int> cases[] = {{bad_prev, kErrorFlvTagSize},
                                                 {bad_type, kErrorFlvTagType},
                                                 {bad_sig, kErrorFlvHeader},
                                                 {bad_stream_id, kErrorFlvTagType}};
    for (const auto& [wire, code] : cases) {
        Error err = feed_all(wire);
        EXPECT_EQ(code, err.code());
        err.ignore();
    }
}

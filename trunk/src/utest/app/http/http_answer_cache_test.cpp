// The shared answer table: hits by body identity and variant, misses after
// the body is dropped (also when a new body reuses its address), and sweeps
// that keep it about the size of the live bodies.
#include <gtest/gtest.h>

#include "app/http/http_answer_cache.hpp"

using namespace srs;

namespace {
std::shared_ptr<const std::string> body(const char* s) { return std::make_shared<const std::string>(s); }
}  // namespace

TEST(AppHttpAnswerCache, HitsByBodyAndVariant) {
    SharedAnswerCache cache;
    auto a = body("#EXTM3U\n");
    EXPECT_EQ(nullptr, cache.find(a, 1));
    auto put = cache.put(a, 1, "HTTP/1.1 200 OK\r\n\r\n#EXTM3U\n");
    ASSERT_NE(nullptr, put);
    auto hit = cache.find(a, 1);
    EXPECT_EQ(put.get(), hit.get());  // the same bytes, shared
    EXPECT_EQ("HTTP/1.1 200 OK\r\n\r\n#EXTM3U\n", *hit);
    EXPECT_EQ(nullptr, cache.find(a, 5));  // another variant (e.g. HEAD)
    // An equal text in another blob is another version: no hit.
    auto same_text = body("#EXTM3U\n");
    EXPECT_EQ(nullptr, cache.find(same_text, 1));
}

TEST(AppHttpAnswerCache, NullBodyIsNeverStored) {
    SharedAnswerCache cache;
    auto answer = cache.put(nullptr, 0, "x");
    ASSERT_NE(nullptr, answer);
    EXPECT_EQ("x", *answer);
    EXPECT_EQ(0u, cache.size());
    EXPECT_EQ(nullptr, cache.find(nullptr, 0));
}

TEST(AppHttpAnswerCache, DroppedBodyMisses) {
    SharedAnswerCache cache;
    auto a = body("v1");
    auto answer = cache.put(a, 0, "answer v1");
    const std::string* addr = a.get();
    a.reset();
    // A client still writing keeps its answer.
    EXPECT_EQ("answer v1", *answer);
    // A new body may land at the freed address; it must not get the old answer.
    std::shared_ptr<const std::string> b;
    for (int i = 0; i < 64 && (!b || b.get() != addr); ++i) b = body("v2");
    EXPECT_EQ(nullptr, cache.find(b, 0));
    cache.put(b, 0, "answer v2");
    EXPECT_EQ("answer v2", *cache.find(b, 0));
}

TEST(AppHttpAnswerCache, SweepKeepsLiveBodiesOnly) {
    SharedAnswerCache cache;
    auto live = body("live");
    cache.put(live, 0, "L");
    for (int i = 0; i < 1000; ++i) {
        auto gone = body("version");
        cache.put(gone, 0, "G");
    }
    // Dead entries are swept as the table doubles: never near 1,000.
    EXPECT_LT(cache.size(), 40u);
    EXPECT_EQ("L", *cache.find(live, 0));
    cache.sweep();
    EXPECT_EQ(1u, cache.size());
}

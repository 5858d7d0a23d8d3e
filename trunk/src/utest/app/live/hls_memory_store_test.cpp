// Tests for the HLS memory store: keys that disk paths and HTTP paths share,
// put / get / replace / evict with the byte count, playlists in slots that
// outlive their removal, and the preload hint lookup.
#include <gtest/gtest.h>

#include "app/live/hls_memory_store.hpp"

#include <memory>
#include <vector>

#include "core/clock.hpp"
#include "io/runtime.hpp"
#include "utest/coroutine_fn.hpp"

using namespace srs;

TEST(HlsMemoryStore, FoldsPaths) {
    EXPECT_EQ("/a/b/d", hls_fold_path("/a/./b//c/../d"));
    EXPECT_EQ("/", hls_fold_path("/../.."));
    EXPECT_EQ("/x", hls_fold_path("/../x/"));
    HlsMemoryStore store("/srv/trunk");
    EXPECT_EQ("/srv/trunk/objs/nginx/html/live/s.m3u8", store.key_of("./objs/nginx/html/live/s.m3u8"));
    EXPECT_EQ(store.key_of("./objs/nginx/html/live/s.m3u8"), store.key_of("objs/nginx/html" "/live/s.m3u8"));
    EXPECT_EQ("/tmp/h/live/s-1.m4s", store.key_of("/tmp/h//live/s-1.m4s"));
    // A relative path folds as cwd + "/" + path would, ".." reaching into cwd.
    EXPECT_EQ("/srv/x.m3u8", store.key_of("../x.m3u8"));
    EXPECT_EQ("/", store.key_of("../../../"));
    EXPECT_EQ("/srv/trunk", store.key_of("."));
    EXPECT_EQ("/srv/trunk/a", store.key_of("a/b/.."));
    EXPECT_EQ("/", HlsMemoryStore("/").key_of(""));
    EXPECT_EQ("/a", HlsMemoryStore("/").key_of("a"));
    EXPECT_EQ("/", hls_fold_path(""));
    EXPECT_EQ("/a/b", hls_fold_path("/a/b/."));
    EXPECT_EQ("/b", hls_fold_path("/a/../b"));
}

TEST(HlsMemoryStore, PutGetReplaceEvict) {
    HlsMemoryStore store("/w");
    EXPECT_EQ(nullptr, store.get("/w/live/s-1.m4s"));
    store.put("live/s-1.m4s", "abcd");
    HlsBlob held = store.get("/w/live/s-1.m4s");
    ASSERT_NE(nullptr, held);
    EXPECT_EQ("abcd", *held);
    EXPECT_EQ(4u, store.bytes());
    EXPECT_EQ(1u, store.files());
    store.put("./live/s-1.m4s", "xy");  // replaced: a reader keeps the old bytes
    EXPECT_EQ("abcd", *held);
    EXPECT_EQ("xy", *store.get("live/s-1.m4s"));
    EXPECT_EQ(2u, store.bytes());
    store.remove("live/s-1.m4s");
    EXPECT_EQ(nullptr, store.get("live/s-1.m4s"));
    EXPECT_EQ(0u, store.bytes());
    EXPECT_EQ(0u, store.files());
    store.remove("live/never.m4s");  // absent: nothing happens
    EXPECT_EQ("abcd", *held);
}

TEST(HlsMemoryStore, PlaylistSlotsAndHints) {
    HlsMemoryStore store("/w");
    HlsMemoryPlaylist p;
    p.full = std::make_shared<const std::string>("#EXTM3U\n");
    p.ll = true;
    p.position.last_msn = 3;
    p.position.open_parts = 1;
    p.hint_key = "live/s-4.part1.m4s";
    store.put_playlist("live/s.m3u8", p);
    std::shared_ptr<HlsPlaylistSlot> slot = store.playlist("/w/live/s.m3u8");
    ASSERT_NE(nullptr, slot);
    EXPECT_EQ(1u, slot->version());
    EXPECT_EQ("#EXTM3U\n", *store.get("live/s.m3u8"));  // a plain GET sees the full text
    EXPECT_EQ(8u, store.bytes());
    EXPECT_EQ(slot, store.hinted_by("/w/live/s-4.part1.m4s"));

    // A new version moves the hint and bumps the version.
    p.position.open_parts = 2;
    p.hint_key = "live/s-4.part2.m4s";
    p.delta = std::make_shared<const std::string>("#D\n");
    store.put_playlist("live/s.m3u8", p);
    EXPECT_EQ(slot, store.playlist("live/s.m3u8"));
    EXPECT_EQ(2u, slot->version());
    EXPECT_EQ(2, slot->current().position.open_parts);
    EXPECT_EQ(nullptr, store.hinted_by("live/s-4.part1.m4s"));
    EXPECT_EQ(slot, store.hinted_by("live/s-4.part2.m4s"));
    EXPECT_EQ(11u, store.bytes());

    // Removed (dispose): a holder sees it gone; the store forgets it.
    store.remove("live/s.m3u8");
    EXPECT_TRUE(slot->removed());
    EXPECT_EQ(nullptr, store.playlist("live/s.m3u8"));
    EXPECT_EQ(nullptr, store.hinted_by("live/s-4.part2.m4s"));
    EXPECT_EQ(0u, store.bytes());
    EXPECT_EQ(0u, store.files());
}

namespace {

// A waiter of the slot in its own coroutine: what wait_change said and after how long.
struct SlotWaiter {
    int64_t timeout_us;
    bool changed = false;
    utime_t woke_after_us = -1;
    std::unique_ptr<utest::FnHandler> handler;
    std::unique_ptr<Coroutine> co;

    void start(std::shared_ptr<HlsPlaylistSlot> slot) {
        handler.reset(new utest::FnHandler([this, slot] {
            utime_t t0 = monotonic_us();
            changed = slot->wait_change(timeout_us);
            woke_after_us = monotonic_us() - t0;
            return Error();
        }));
        co.reset(new Coroutine("slot-waiter", handler.get()));
        ASSERT_TRUE(co->start().ok());
    }
};

}  // namespace

// Parked waiters share one timed wait (the keeper's); each still wakes no
// later than its own timeout, and a change wakes them all.
TEST(HlsMemoryStore, ParkedWaitersShareOneTimeKeeper) {
    ASSERT_TRUE(init_runtime().ok());
    HlsMemoryStore store("/w");
    HlsMemoryPlaylist p;
    p.full = std::make_shared<const std::string>("#EXTM3U\n");
    store.put_playlist("live/s.m3u8", p);
    std::shared_ptr<HlsPlaylistSlot> slot = store.playlist("live/s.m3u8");

    // The first to park keeps time (60 ms); the second (1 s) waits untimed
    // and is woken when the keeper's wait ends; the third (20 ms) ends
    // sooner than the keeper and keeps its own timeout.
    std::vector<SlotWaiter> w(3);
    w[0].timeout_us = 60 * kUsPerMs;
    w[1].timeout_us = kUsPerSecond;
    w[2].timeout_us = 20 * kUsPerMs;
    for (SlotWaiter& x : w) x.start(slot);
    ASSERT_TRUE(sleep_us(300 * kUsPerMs).ok());
    for (SlotWaiter& x : w) EXPECT_FALSE(x.changed);
    EXPECT_GE(w[0].woke_after_us, 50 * kUsPerMs);
    EXPECT_LT(w[0].woke_after_us, 250 * kUsPerMs);
    EXPECT_GE(w[1].woke_after_us, 50 * kUsPerMs);  // at the keeper's end, long before its own
    EXPECT_LT(w[1].woke_after_us, 250 * kUsPerMs);
    EXPECT_GE(w[2].woke_after_us, 15 * kUsPerMs);
    EXPECT_LT(w[2].woke_after_us, 55 * kUsPerMs);  // before the keeper's end
    EXPECT_EQ(0u, slot->waiters());

    // A change wakes every waiter at once, and they say so.
    std::vector<SlotWaiter> v(3);
    for (SlotWaiter& x : v) {
        x.timeout_us = 5 * kUsPerSecond;
        x.start(slot);
    }
    yield_now();
    EXPECT_EQ(3u, slot->waiters());
    store.put_playlist("live/s.m3u8", p);
    ASSERT_TRUE(sleep_us(20 * kUsPerMs).ok());
    for (SlotWaiter& x : v) {
        EXPECT_TRUE(x.changed);
        EXPECT_LT(x.woke_after_us, kUsPerSecond);
    }

    // The keeper interrupted (its connection stopped): the others are woken,
    // and the next one to park keeps time.
    std::vector<SlotWaiter> k(2);
    for (SlotWaiter& x : k) {
        x.timeout_us = 5 * kUsPerSecond;
        x.start(slot);
    }
    yield_now();
    k[0].co->stop();
    ASSERT_TRUE(sleep_us(20 * kUsPerMs).ok());
    EXPECT_GE(k[1].woke_after_us, 0);
    EXPECT_LT(k[1].woke_after_us, kUsPerSecond);
    EXPECT_FALSE(k[1].changed);
    for (auto* all : {&w, &v, &k}) {
        for (SlotWaiter& x : *all) x.co->stop();
    }
}

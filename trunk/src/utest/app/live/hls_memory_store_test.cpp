// Tests for the HLS memory store: keys that disk paths and HTTP paths share,
// put / get / replace / evict with the byte count, playlists in slots that
// outlive their removal, and the preload hint lookup.
#include <gtest/gtest.h>

#include "app/live/hls_memory_store.hpp"

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

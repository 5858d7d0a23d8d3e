// Tests for app/hls/hls_segment_file and the disk sink (app/hls/hls_sink)
// on a real folder: appends gathered into bounded writes, the bytes on
// disk exactly the bytes appended (small, large and mixed pieces), the file
// complete when it gets its final name, a retired segment's inode reused
// by the next segment, and failures (no folder, not open) as errors.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "app/hls/hls_segment_file.hpp"
#include "app/hls/hls_sink.hpp"

using namespace srs;

namespace {

class TempDir {
  public:
    TempDir() {
        char tmpl[] = "/tmp/srs_hls_sink_test_XXXXXX";
        const char* p = mkdtemp(tmpl);
        path_ = p ? p : "";
    }
    ~TempDir() {
        if (!path_.empty()) std::filesystem::remove_all(path_);
    }
    std::string file(const std::string& name) const { return path_ + "/" + name; }
    const std::string& path() const { return path_; }

  private:
    std::string path_;
};

std::string read_all(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

bool exists(const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
}

ino_t inode_of(const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

// Deterministic bytes that differ from piece to piece.
std::string piece(size_t n, char seed) {
    std::string s(n, '\0');
    for (size_t i = 0; i < n; i++) s[i] = static_cast<char>(seed + i * 7);
    return s;
}

}  // namespace

TEST(HlsSegmentFile, TsPacketsGoOutInBoundedWrites) {
    TempDir dir;
    HlsSegmentFile f(1024);
    ASSERT_TRUE(f.open(dir.file("a.ts")).ok());
    std::string expected;
    for (int i = 0; i < 20; i++) {  // 20 x 188 = 3760 bytes
        std::string p = piece(188, static_cast<char>(i));
        expected += p;
        ASSERT_TRUE(f.append(p.data(), p.size()).ok());
    }
    // Three full buffers are out; the rest waits for close.
    EXPECT_EQ(3u, f.writes());
    EXPECT_EQ(3072u, read_all(dir.file("a.ts")).size());
    ASSERT_TRUE(f.close().ok());
    EXPECT_EQ(4u, f.writes());
    EXPECT_FALSE(f.is_open());
    EXPECT_EQ(expected, read_all(dir.file("a.ts")));
}

TEST(HlsSegmentFile, LargePiecesWrittenWithoutBuffering) {
    TempDir dir;
    HlsSegmentFile f(1000);
    ASSERT_TRUE(f.open(dir.file("b.m4s")).ok());
    std::string whole = piece(5000, 'x');  // a whole fMP4 segment in one append
    ASSERT_TRUE(f.append(whole.data(), whole.size()).ok());
    EXPECT_EQ(1u, f.writes());
    // A small piece, then a large one: the buffer is filled and written,
    // the rest of the large one goes straight out.
    std::string small = piece(300, 'a'), large = piece(2500, 'b');
    ASSERT_TRUE(f.append(small.data(), small.size()).ok());
    EXPECT_EQ(1u, f.writes());
    ASSERT_TRUE(f.append(large.data(), large.size()).ok());
    EXPECT_EQ(3u, f.writes());
    ASSERT_TRUE(f.close().ok());
    EXPECT_EQ(3u, f.writes());  // nothing was left
    EXPECT_EQ(whole + small + large, read_all(dir.file("b.m4s")));
}

TEST(HlsSegmentFile, ReopenWritesOverAndAbandonDropsTheBuffer) {
    TempDir dir;
    HlsSegmentFile f(4096);
    ASSERT_TRUE(f.open(dir.file("c.ts")).ok());
    std::string p = piece(5000, 'q');
    ASSERT_TRUE(f.append(p.data(), p.size()).ok());
    ASSERT_TRUE(f.append("tail", 4).ok());
    f.abandon();  // "tail" never reaches the file
    EXPECT_EQ(p, read_all(dir.file("c.ts")));
    // Written over from the start and cut to the new length at close (the
    // same inode; never truncated to zero, which makes ext4 flush at close).
    const ino_t inode = inode_of(dir.file("c.ts"));
    ASSERT_TRUE(f.open(dir.file("c.ts")).ok());
    ASSERT_TRUE(f.append("new", 3).ok());
    ASSERT_TRUE(f.close().ok());
    EXPECT_EQ("new", read_all(dir.file("c.ts")));
    EXPECT_EQ(inode, inode_of(dir.file("c.ts")));
    // Longer than what was there: no cut needed, nothing old left.
    std::string longer = piece(6000, 'L');
    ASSERT_TRUE(f.open(dir.file("c.ts")).ok());
    ASSERT_TRUE(f.append(longer.data(), longer.size()).ok());
    ASSERT_TRUE(f.close().ok());
    EXPECT_EQ(longer, read_all(dir.file("c.ts")));
}

TEST(HlsSegmentFile, FailuresAreErrors) {
    TempDir dir;
    HlsSegmentFile f;
    Error err = f.open(dir.file("no/such/folder/d.ts"));
    EXPECT_TRUE(err.failed());
    EXPECT_NE(std::string::npos, err.summary().find("no/such/folder/d.ts"));
    err.ignore();
    Error w = f.append("x", 1);
    EXPECT_TRUE(w.failed());
    w.ignore();
    Error c = f.close();
    EXPECT_TRUE(c.failed());
    c.ignore();
}

TEST(HlsDiskSink, SegmentCompleteUnderItsFinalName) {
    TempDir dir;
    HlsDiskSink sink;
    const std::string temp = dir.file("live/s-0.ts.tmp"), final_path = dir.file("live/s-0.ts");
    ASSERT_TRUE(sink.begin_segment(temp).ok());  // makes the folder
    std::string expected;
    for (int i = 0; i < 500; i++) {  // 94,000 bytes of TS packets, one at a time
        std::string p = piece(188, static_cast<char>(i));
        expected += p;
        ASSERT_TRUE(sink.append_segment(p.data(), p.size()).ok());
    }
    ASSERT_TRUE(sink.finish_segment(final_path, true).ok());
    EXPECT_FALSE(exists(temp));
    EXPECT_EQ(expected, read_all(final_path));
    // 64 KiB and the rest: two write(2)s for 500 packets.
    EXPECT_EQ(2u, sink.segment_writes());
}

TEST(HlsDiskSink, DroppedSegmentLeavesNoFile) {
    TempDir dir;
    HlsDiskSink sink;
    ASSERT_TRUE(sink.begin_segment(dir.file("s-1.ts.tmp")).ok());
    ASSERT_TRUE(sink.append_segment("abc", 3).ok());
    ASSERT_TRUE(sink.finish_segment(dir.file("s-1.ts"), false).ok());
    EXPECT_FALSE(exists(dir.file("s-1.ts.tmp")));
    EXPECT_FALSE(exists(dir.file("s-1.ts")));
    Error err = sink.finish_segment(dir.file("s-1.ts"), true);  // none open
    EXPECT_TRUE(err.failed());
    err.ignore();
}

TEST(HlsDiskSink, RetiredSegmentBecomesTheNextOne) {
    TempDir dir;
    HlsDiskSink sink(0);  // no grace: the next segment takes it at once
    ASSERT_TRUE(sink.begin_segment(dir.file("s-0.ts.tmp")).ok());
    std::string old_bytes = piece(70000, 'o');
    ASSERT_TRUE(sink.append_segment(old_bytes.data(), old_bytes.size()).ok());
    ASSERT_TRUE(sink.finish_segment(dir.file("s-0.ts"), true).ok());
    const ino_t old_inode = inode_of(dir.file("s-0.ts"));
    ASSERT_NE(0u, old_inode);

    // s-0 leaves the window: its name goes at once, its file is kept aside
    // and becomes the next segment's, written over and cut.
    sink.retire_segment(dir.file("s-0.ts"));
    EXPECT_FALSE(exists(dir.file("s-0.ts")));
    EXPECT_TRUE(exists(dir.file("s-0.ts.retired")));
    ASSERT_TRUE(sink.begin_segment(dir.file("s-1.ts.tmp")).ok());
    EXPECT_FALSE(exists(dir.file("s-0.ts.retired")));
    EXPECT_EQ(old_inode, inode_of(dir.file("s-1.ts.tmp")));
    ASSERT_TRUE(sink.append_segment("new", 3).ok());
    ASSERT_TRUE(sink.finish_segment(dir.file("s-1.ts"), true).ok());
    EXPECT_EQ("new", read_all(dir.file("s-1.ts")));
    EXPECT_EQ(old_inode, inode_of(dir.file("s-1.ts")));
}

TEST(HlsDiskSink, RetiredSegmentKeepsItsBytesThroughTheGrace) {
    TempDir dir;
    HlsDiskSink sink;  // the default grace (30 s)
    ASSERT_TRUE(sink.begin_segment(dir.file("s-0.ts.tmp")).ok());
    ASSERT_TRUE(sink.append_segment("old", 3).ok());
    ASSERT_TRUE(sink.finish_segment(dir.file("s-0.ts"), true).ok());
    // A slow player opened s-0 before it left the window.
    int reader = ::open(dir.file("s-0.ts").c_str(), O_RDONLY);
    ASSERT_GE(reader, 0);
    sink.retire_segment(dir.file("s-0.ts"));
    EXPECT_FALSE(exists(dir.file("s-0.ts")));

    // Within the grace the next segment is a new file: the reader still
    // reads what s-0 held.
    ASSERT_TRUE(sink.begin_segment(dir.file("s-1.ts.tmp")).ok());
    ASSERT_TRUE(sink.append_segment("newer bytes", 11).ok());
    ASSERT_TRUE(sink.finish_segment(dir.file("s-1.ts"), true).ok());
    EXPECT_NE(inode_of(dir.file("s-1.ts")), inode_of(dir.file("s-0.ts.retired")));
    char got[8] = {};
    EXPECT_EQ(3, ::pread(reader, got, sizeof(got), 0));
    EXPECT_EQ("old", std::string(got, 3));
    ::close(reader);

    // The publish ends: the spare goes.
    sink.release_kept();
    EXPECT_FALSE(exists(dir.file("s-0.ts.retired")));
}

TEST(HlsDiskSink, RetiredSegmentsBoundedAndDeletedWhenNotReused) {
    TempDir dir;
    {
        HlsDiskSink sink;
        const size_t n = HlsDiskSink::kMaxSpares + 2;
        for (size_t i = 0; i < n; i++) {
            std::string name = dir.file("r" + std::to_string(i) + ".ts");
            ASSERT_TRUE(sink.begin_segment(name + ".tmp").ok());
            ASSERT_TRUE(sink.finish_segment(name, true).ok());
            sink.retire_segment(name);
        }
        // The oldest spares beyond the bound were deleted.
        EXPECT_FALSE(exists(dir.file("r0.ts.retired")));
        EXPECT_FALSE(exists(dir.file("r1.ts.retired")));
        EXPECT_TRUE(exists(dir.file("r2.ts.retired")));
        EXPECT_TRUE(exists(dir.file("r" + std::to_string(n - 1) + ".ts.retired")));
        // A retired file that vanished meanwhile is not kept.
        sink.retire_segment(dir.file("never-made.ts"));
        EXPECT_FALSE(exists(dir.file("never-made.ts.retired")));
    }
    // The sink's end deletes what it still kept.
    for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
        ADD_FAILURE() << "left behind: " << entry.path();
    }
}

TEST(HlsDiskSink, VanishedSpareGivesANewFile) {
    TempDir dir;
    HlsDiskSink sink(0);
    ASSERT_TRUE(sink.begin_segment(dir.file("c.ts.tmp")).ok());
    ASSERT_TRUE(sink.finish_segment(dir.file("c.ts"), true).ok());
    sink.retire_segment(dir.file("c.ts"));
    ASSERT_EQ(0, ::unlink(dir.file("c.ts.retired").c_str()));
    ASSERT_TRUE(sink.begin_segment(dir.file("d.ts.tmp")).ok());
    ASSERT_TRUE(sink.append_segment("d", 1).ok());
    ASSERT_TRUE(sink.finish_segment(dir.file("d.ts"), true).ok());
    EXPECT_EQ("d", read_all(dir.file("d.ts")));
}

TEST(HlsDiskSink, PlaylistSwappedWithItsPreviousVersion) {
    TempDir dir;
    const std::string m3u8 = dir.file("live/s.m3u8"), temp = m3u8 + ".temp";
    HlsPlaylistUpdate v1, v2, v3;
    v1.full = "#EXTM3U\n#v1\n";
    v2.full = "#EXTM3U\n#v2 longer\n";
    v3.full = "#EXTM3U\n#3\n";
    {
        HlsDiskSink sink;
        // The first version: made and renamed, nothing left aside.
        ASSERT_TRUE(sink.write_playlist(m3u8, v1).ok());
        EXPECT_EQ(v1.full, read_all(m3u8));
        EXPECT_FALSE(exists(temp));
        const ino_t first = inode_of(m3u8);
        // The next: the previous version is kept under the temporary name...
        ASSERT_TRUE(sink.write_playlist(m3u8, v2).ok());
        EXPECT_EQ(v2.full, read_all(m3u8));
        EXPECT_EQ(v1.full, read_all(temp));
        EXPECT_EQ(first, inode_of(temp));
        const ino_t second = inode_of(m3u8);
        // ...and written over by the one after: two inodes take turns.
        ASSERT_TRUE(sink.write_playlist(m3u8, v3).ok());
        EXPECT_EQ(v3.full, read_all(m3u8));
        EXPECT_EQ(first, inode_of(m3u8));
        EXPECT_EQ(second, inode_of(temp));
        // The publish ends: the playlist stays, the kept version goes.
        sink.release_kept();
        EXPECT_TRUE(exists(m3u8));
        EXPECT_FALSE(exists(temp));
        ASSERT_TRUE(sink.write_playlist(m3u8, v1).ok());
        ASSERT_TRUE(sink.write_playlist(m3u8, v2).ok());
        EXPECT_TRUE(exists(temp));
        // Disposed of: both go.
        sink.remove(m3u8);
        EXPECT_FALSE(exists(m3u8));
        EXPECT_FALSE(exists(temp));
        ASSERT_TRUE(sink.write_playlist(m3u8, v1).ok());
        ASSERT_TRUE(sink.write_playlist(m3u8, v2).ok());
    }
    // The sink's end deletes the kept version, never the playlist.
    EXPECT_EQ(v2.full, read_all(m3u8));
    EXPECT_FALSE(exists(temp));
}

TEST(HlsDiskSink, PlaylistInAFolderThatCannotBeMade) {
    TempDir dir;
    ASSERT_EQ(0, ::close(::open(dir.file("file").c_str(), O_WRONLY | O_CREAT, 0644)));
    HlsDiskSink sink;
    HlsPlaylistUpdate v;
    v.full = "#EXTM3U\n";
    Error err = sink.write_playlist(dir.file("file/s.m3u8"), v);  // "file" is not a folder
    EXPECT_TRUE(err.failed());
    err.ignore();
}

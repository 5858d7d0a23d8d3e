// HTTP-TS/MP3/AAC's pure pieces: the format a mount picks, fast_cache's
// selection, the audio remuxer's iovecs (MP3 as sent, AAC behind ADTS) and
// the TS writer's muxing of a batch.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "app/http/http_remux_audio.hpp"
#include "app/http/http_remux_format.hpp"
#include "app/http/http_remux_ts.hpp"

using namespace srs;

namespace {

LiveMessagePtr msg(LiveMessageKind kind, uint32_t ts, std::vector<uint8_t> body, bool sh = false) {
    LiveMessagePtr m(LiveMessage::create(kind, ts, SharedBytes::copy_of(body.data(), body.size())));
    m->set_sequence_header(sh);
    return m;
}

// FLV audio bodies: 0xAF = AAC 44 kHz 16-bit stereo, 0x2F = MP3 44 kHz 16-bit stereo.
LiveMessagePtr aac_sh(uint32_t ts = 0) { return msg(LiveMessageKind::kAudio, ts, {0xAF, 0x00, 0x12, 0x10}, true); }
LiveMessagePtr aac_raw(uint32_t ts, size_t n = 5) {
    std::vector<uint8_t> b = {0xAF, 0x01};
    for (size_t i = 0; i < n; i++) b.push_back(static_cast<uint8_t>(0x21 + i));
    return msg(LiveMessageKind::kAudio, ts, b);
}
LiveMessagePtr mp3(uint32_t ts) { return msg(LiveMessageKind::kAudio, ts, {0x2F, 0xFF, 0xFB, 0x90, 0x64, 0x00}); }
LiveMessagePtr video(uint32_t ts) { return msg(LiveMessageKind::kVideo, ts, {0x27, 0x01, 0, 0, 0, 0, 0, 0, 1, 0x41}); }

std::string join(const std::vector<struct iovec>& iov) {
    std::string s;
    for (const auto& v : iov) s.append(static_cast<const char*>(v.iov_base), v.iov_len);
    return s;
}

}  // namespace

TEST(AppHttpRemuxFormat, ExtensionPicksTheFormat) {
    EXPECT_EQ(remux_format_of("[vhost]/[app]/[stream].flv"), RemuxFormat::kFlv);
    EXPECT_EQ(remux_format_of("/live/s.ts"), RemuxFormat::kTs);
    EXPECT_EQ(remux_format_of("[app]/[stream].mp3"), RemuxFormat::kMp3);
    EXPECT_EQ(remux_format_of("[app]/[stream].aac"), RemuxFormat::kAac);
    EXPECT_EQ(remux_format_of("[app]/[stream].m3u8"), RemuxFormat::kNone);
    EXPECT_EQ(remux_format_of(".ts"), RemuxFormat::kNone);  // no name before the extension
    EXPECT_EQ(remux_format_of("/live/s.TS"), RemuxFormat::kNone);
    EXPECT_EQ(remux_format_of(""), RemuxFormat::kNone);
    EXPECT_STREQ(remux_content_type(RemuxFormat::kTs), "video/MP2T");
    EXPECT_STREQ(remux_content_type(RemuxFormat::kMp3), "audio/mpeg");
    EXPECT_STREQ(remux_content_type(RemuxFormat::kAac), "audio/x-aac");
    EXPECT_STREQ(remux_content_type(RemuxFormat::kFlv), "video/x-flv");
    EXPECT_STREQ(remux_extension(RemuxFormat::kAac), ".aac");
    EXPECT_TRUE(remux_audio_only(RemuxFormat::kMp3));
    EXPECT_FALSE(remux_audio_only(RemuxFormat::kTs));
}

TEST(AppHttpRemuxFormat, Id3TagIsTenBytesOfPadding) {
    EXPECT_EQ(memcmp(kId3Header, "ID3\x03\x00\x00\x00\x00\x00\x0a", 10), 0);
    for (size_t i = 10; i < kId3HeaderSize; i++) EXPECT_EQ(kId3Header[i], 0);
}

TEST(AppHttpRemuxFastCache, KeepsHeadersAndTheLastSecondsOfAudio) {
    std::vector<LiveMessagePtr> primed = {msg(LiveMessageKind::kData, 0, {2}), aac_sh(), video(0)};
    for (uint32_t ts = 0; ts <= 3000; ts += 500) primed.push_back(aac_raw(ts));
    std::vector<LiveMessagePtr> one = select_fast_cache(primed, 1000);
    ASSERT_EQ(one.size(), 4u);  // the header, 2000, 2500, 3000
    EXPECT_TRUE(one[0]->is_sequence_header());
    EXPECT_EQ(one[1]->timestamp(), 2000u);
    EXPECT_EQ(one[3]->timestamp(), 3000u);
    std::vector<LiveMessagePtr> none = select_fast_cache(primed, 0);
    ASSERT_EQ(none.size(), 1u);
    EXPECT_TRUE(none[0]->is_sequence_header());
    EXPECT_EQ(select_fast_cache(primed, 3600 * 1000).size(), 8u);  // all the cache has
    EXPECT_TRUE(select_fast_cache({}, 1000).empty());
}

TEST(AppHttpRemuxAudio, Mp3FramesGoOutAsSent) {
    AudioRemuxer r(RemuxFormat::kMp3);
    std::vector<struct iovec> iov;
    LiveMessagePtr a = mp3(0), v = video(0);
    ASSERT_TRUE(r.frame(v.get(), &iov).ok());
    ASSERT_TRUE(r.frame(a.get(), &iov).ok());
    ASSERT_EQ(iov.size(), 1u);
    EXPECT_EQ(join(iov), std::string("\xFF\xFB\x90\x64\x00", 5));
    EXPECT_EQ(iov[0].iov_base, a->payload().data() + 1);  // no copy
}

TEST(AppHttpRemuxAudio, AnotherCodecIsAnError) {
    AudioRemuxer for_mp3(RemuxFormat::kMp3);
    std::vector<struct iovec> iov;
    LiveMessagePtr a = aac_raw(0);
    Error err = for_mp3.frame(a.get(), &iov);
    ASSERT_FALSE(err.ok());
    EXPECT_NE(err.summary().find("MP3 needs MP3 audio, the stream has AAC"), std::string::npos) << err.summary();
    err.ignore();
    AudioRemuxer for_aac(RemuxFormat::kAac);
    LiveMessagePtr m = mp3(0);
    err = for_aac.frame(m.get(), &iov);
    ASSERT_FALSE(err.ok());
    err.ignore();
    EXPECT_TRUE(iov.empty());
}

TEST(AppHttpRemuxAudio, AacFramesGetAdtsHeadersSharedPerMessage) {
    AudioRemuxer r(RemuxFormat::kAac);
    std::vector<struct iovec> iov;
    LiveMessagePtr early = aac_raw(0), sh = aac_sh(), f = aac_raw(23, 5);
    ASSERT_TRUE(r.frame(early.get(), &iov).ok());  // before the config: nothing to build a header from
    ASSERT_TRUE(r.frame(sh.get(), &iov).ok());
    EXPECT_TRUE(iov.empty());
    ASSERT_TRUE(r.have_config());
    ASSERT_TRUE(r.frame(f.get(), &iov).ok());
    ASSERT_EQ(iov.size(), 2u);
    // LC (profile 1), 44.1 kHz (index 4), stereo, frame_length 7 + 5 = 12.
    const uint8_t want[7] = {0xFF, 0xF1, 0x50, 0x80, 0x01, 0x9F, 0xFC};
    EXPECT_EQ(memcmp(iov[0].iov_base, want, 7), 0);
    EXPECT_EQ(iov[1].iov_base, f->payload().data() + 2);
    // A second player of the stream reuses the message's header.
    AudioRemuxer other(RemuxFormat::kAac);
    std::vector<struct iovec> iov2;
    ASSERT_TRUE(other.frame(sh.get(), &iov2).ok());
    ASSERT_TRUE(other.frame(f.get(), &iov2).ok());
    EXPECT_EQ(iov2[0].iov_base, iov[0].iov_base);
}

TEST(AppHttpRemuxAudio, BrokenAacIsAnError) {
    AudioRemuxer r(RemuxFormat::kAac);
    std::vector<struct iovec> iov;
    LiveMessagePtr bad_sh = msg(LiveMessageKind::kAudio, 0, {0xAF, 0x00, 0xF8}, true);  // object type 31, cut
    Error err = r.frame(bad_sh.get(), &iov);
    EXPECT_FALSE(err.ok());
    err.ignore();
    LiveMessagePtr empty = msg(LiveMessageKind::kAudio, 0, {});
    err = r.frame(empty.get(), &iov);
    EXPECT_FALSE(err.ok());
    err.ignore();
    LiveMessagePtr sh = aac_sh(), huge = aac_raw(0, kTsAdtsMaxPayload + 1);
    ASSERT_TRUE(r.frame(sh.get(), &iov).ok());
    err = r.frame(huge.get(), &iov);
    EXPECT_FALSE(err.ok());
    err.ignore();
    EXPECT_TRUE(iov.empty());
}

TEST(AppHttpRemuxTs, BatchBecomesPacketsAndBrokenFramesAreSkipped) {
    TsMuxer muxer;
    std::string out;
    std::vector<LiveMessagePtr> batch = {msg(LiveMessageKind::kData, 0, {2, 0, 10}), aac_sh(), aac_raw(0),
                                         aac_raw(23)};
    TsPlayWriter::mux(&muxer, batch, &out, "/live/s");
    ASSERT_FALSE(out.empty());
    ASSERT_EQ(out.size() % 188, 0u);
    for (size_t i = 0; i < out.size(); i += 188) EXPECT_EQ(static_cast<uint8_t>(out[i]), 0x47) << i;
    EXPECT_EQ(muxer.stats().audio_frames, 2u);
    EXPECT_GE(muxer.stats().psi_writes, 1u);
    // An AAC frame too big for ADTS: skipped, counted, the next one still goes.
    size_t before = out.size();
    TsPlayWriter::mux(&muxer, {aac_raw(46, kTsAdtsMaxPayload + 1), aac_raw(69)}, &out, "/live/s");
    EXPECT_EQ(muxer.stats().errors, 1u);
    EXPECT_EQ(muxer.stats().audio_frames, 3u);
    EXPECT_GT(out.size(), before);
}

#include "app/hls/hls_audio_clock.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

using namespace srs;

namespace {

// FLV AAC sequence header bodies: 0xAF (AAC, 44 kHz, 16-bit, stereo), 0x00
// (sequence header), then the AudioSpecificConfig.
const std::vector<uint8_t> kLc44100Stereo = {0xAF, 0x00, 0x12, 0x10};  // AAC-LC, 44.1 kHz, 2 ch
const std::vector<uint8_t> kLc48000Stereo = {0xAF, 0x00, 0x11, 0x90};  // AAC-LC, 48 kHz, 2 ch
// HE-AAC with explicit SBR: object type 5, core 22.05 kHz, 2 ch, SBR 44.1 kHz, then AAC-LC.
const std::vector<uint8_t> kHe44100 = {0xAF, 0x00, 0x2B, 0x92, 0x08, 0x00};

}  // namespace

TEST(HlsAudioClockTest, CountsSamplesInsteadOfRoundedMilliseconds) {
    HlsAudioClock clock;
    clock.on_sequence_header(kLc44100Stereo.data(), kLc44100Stereo.size());
    ASSERT_TRUE(clock.counting());
    // RTMP's ms stamps of 1024-sample frames at 44.1 kHz (23.22 ms each),
    // with a publisher's rounding jitter; the counted clock is exact.
    const int64_t stamped[] = {1000, 1023, 1047, 1069, 1093, 1116, 1139};
    const int64_t counted[] = {1000, 1023, 1046, 1069, 1092, 1116, 1139};
    for (size_t i = 0; i < 7; i++) EXPECT_EQ(counted[i], clock.next(stamped[i])) << i;
}

TEST(HlsAudioClockTest, RestartsFromTheStreamAfterAJumpOrAGap) {
    HlsAudioClock clock;
    clock.on_sequence_header(kLc48000Stereo.data(), kLc48000Stereo.size());
    EXPECT_EQ(0, clock.next(0));
    EXPECT_EQ(21, clock.next(21));  // 1024 / 48 kHz = 21.33 ms
    EXPECT_EQ(42, clock.next(43));
    // Two frames off is still jitter; more is a jump: the stream's time wins.
    EXPECT_EQ(5000, clock.next(5000));
    EXPECT_EQ(5021, clock.next(5021));
    EXPECT_EQ(4000, clock.next(4000));  // back in time
    EXPECT_EQ(4021, clock.next(4020));
}

TEST(HlsAudioClockTest, HeAacFramesAreTwiceAsLong) {
    HlsAudioClock clock;
    clock.on_sequence_header(kHe44100.data(), kHe44100.size());
    ASSERT_TRUE(clock.counting());
    EXPECT_EQ(0, clock.next(0));
    EXPECT_EQ(46, clock.next(46));  // 2048 / 44.1 kHz = 46.44 ms
    EXPECT_EQ(92, clock.next(93));
}

TEST(HlsAudioClockTest, OtherAudioAndBrokenConfigsPassTimestampsThrough) {
    HlsAudioClock clock;
    EXPECT_FALSE(clock.counting());
    EXPECT_EQ(77, clock.next(77));
    const std::vector<uint8_t> mp3 = {0x2F, 0xFF, 0xFB, 0x90};    // MP3: no config to count from
    clock.on_sequence_header(mp3.data(), mp3.size());
    EXPECT_FALSE(clock.counting());
    const std::vector<uint8_t> raw = {0xAF, 0x01, 0x21, 0x00};    // an AAC frame, not a header
    clock.on_sequence_header(raw.data(), raw.size());
    EXPECT_FALSE(clock.counting());
    const std::vector<uint8_t> broken = {0xAF, 0x00, 0x17};       // sampling index 15 without its 24 bits
    clock.on_sequence_header(broken.data(), broken.size());
    EXPECT_FALSE(clock.counting());
    EXPECT_EQ(30, clock.next(30));
    // A new config drops the count: the next frame starts from its own stamp.
    clock.on_sequence_header(kLc44100Stereo.data(), kLc44100Stereo.size());
    EXPECT_EQ(100, clock.next(100));
}

// Tests for kernel/codec/audio_transcoder: AAC and MP3 -> Opus, Opus -> AAC.
//
// Inputs are real: the AAC and MP3 frames were made by ffmpeg 5.1 from a
// 440 Hz sine (audio_vectors.hpp); the Opus packets are made here by
// libavcodec's libopus encoder from a 440 Hz sine. Every output is decoded
// back with libavcodec's own decoders (not the transcoder) and must carry a
// 440 Hz tone, and its frame count and timestamps must follow the input's
// duration and timestamps.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/channel_layout.h>
}

#include "kernel/codec/audio_transcoder.hpp"
#include "kernel/codec/media_codec.hpp"
#include "utest/kernel/codec/audio_vectors.hpp"
#include "utest/test_util.hpp"

using namespace srs;

namespace {

constexpr double kTone = 440;

std::string bytes(const std::vector<uint8_t>& v) { return std::string(v.begin(), v.end()); }

// The first channel of a decoded stream, as floats, and its rate.
struct DecodedAudio {
    int rate = 0;
    int channels = 0;
    std::vector<float> first_channel;
};

float sample_at(const AVFrame* f, int i) {
    int ch = f->ch_layout.nb_channels;
    switch (f->format) {
        case AV_SAMPLE_FMT_FLTP: return reinterpret_cast<const float*>(f->data[0])[i];
        case AV_SAMPLE_FMT_FLT: return reinterpret_cast<const float*>(f->data[0])[i * ch];
        case AV_SAMPLE_FMT_S16P: return reinterpret_cast<const int16_t*>(f->data[0])[i] / 32768.0f;
        case AV_SAMPLE_FMT_S16: return reinterpret_cast<const int16_t*>(f->data[0])[i * ch] / 32768.0f;
        default: ADD_FAILURE() << "sample format " << f->format; return 0;
    }
}

// Decodes packets with libavcodec's decoder for `id` (independent of the transcoder).
DecodedAudio decode_with_libav(AVCodecID id, const std::string& extradata, int channels,
                               const std::vector<AudioTranscodedFrame>& frames) {
    DecodedAudio out;
    const AVCodec* codec = avcodec_find_decoder(id);
    AVCodecContext* ctx = avcodec_alloc_context3(codec);
    if (!extradata.empty()) {
        ctx->extradata = static_cast<uint8_t*>(av_mallocz(extradata.size() + AV_INPUT_BUFFER_PADDING_SIZE));
        memcpy(ctx->extradata, extradata.data(), extradata.size());
        ctx->extradata_size = static_cast<int>(extradata.size());
    }
    if (id == AV_CODEC_ID_OPUS) {
        ctx->sample_rate = 48000;
        av_channel_layout_default(&ctx->ch_layout, channels);
    }
    EXPECT_EQ(0, avcodec_open2(ctx, codec, nullptr));
    AVPacket* pkt = av_packet_alloc();
    AVFrame* frame = av_frame_alloc();
    for (const AudioTranscodedFrame& f : frames) {
        std::vector<uint8_t> padded(f.data.begin(), f.data.end());
        padded.resize(f.data.size() + AV_INPUT_BUFFER_PADDING_SIZE);
        pkt->data = padded.data();
        pkt->size = static_cast<int>(f.data.size());
        EXPECT_EQ(0, avcodec_send_packet(ctx, pkt));
        while (avcodec_receive_frame(ctx, frame) == 0) {
            out.rate = frame->sample_rate;
            out.channels = frame->ch_layout.nb_channels;
            for (int i = 0; i < frame->nb_samples; i++) out.first_channel.push_back(sample_at(frame, i));
        }
    }
    av_frame_free(&frame);
    av_packet_free(&pkt);
    avcodec_free_context(&ctx);
    return out;
}

double rms(const std::vector<float>& x, size_t from) {
    double sum = 0;
    for (size_t i = from; i < x.size(); i++) sum += double(x[i]) * x[i];
    return x.size() > from ? std::sqrt(sum / double(x.size() - from)) : 0;
}

// The share of the signal's energy at `freq` (Goertzel): about 1 for a pure tone, about 0 for silence or noise.
double tone_share(const std::vector<float>& x, size_t from, double freq, int rate) {
    double coeff = 2 * std::cos(2 * M_PI * freq / rate), s1 = 0, s2 = 0, energy = 0;
    for (size_t i = from; i < x.size(); i++) {
        double s = x[i] + coeff * s1 - s2;
        s2 = s1;
        s1 = s;
        energy += double(x[i]) * x[i];
    }
    double n = double(x.size() - from);
    double power = s1 * s1 + s2 * s2 - coeff * s1 * s2;
    return energy > 0 ? 2 * power / (n * energy) : 0;
}

// 20 ms Opus packets of a 440 Hz sine (amplitude 0.25), 48 kHz, made by libopus.
std::vector<std::string> make_opus_packets(int count, int channels) {
    std::vector<std::string> packets;
    const AVCodec* codec = avcodec_find_encoder_by_name("libopus");
    AVCodecContext* ctx = avcodec_alloc_context3(codec);
    ctx->sample_rate = 48000;
    ctx->time_base = AVRational{1, 48000};
    ctx->sample_fmt = AV_SAMPLE_FMT_FLT;
    ctx->bit_rate = 64000;
    av_channel_layout_default(&ctx->ch_layout, channels);
    EXPECT_EQ(0, avcodec_open2(ctx, codec, nullptr));
    EXPECT_EQ(960, ctx->frame_size);
    AVFrame* frame = av_frame_alloc();
    frame->nb_samples = ctx->frame_size;
    frame->format = ctx->sample_fmt;
    frame->sample_rate = 48000;
    av_channel_layout_copy(&frame->ch_layout, &ctx->ch_layout);
    EXPECT_EQ(0, av_frame_get_buffer(frame, 0));
    AVPacket* pkt = av_packet_alloc();
    int64_t t = 0;
    for (int k = 0; k < count; k++) {
        EXPECT_EQ(0, av_frame_make_writable(frame));
        float* s = reinterpret_cast<float*>(frame->data[0]);
        for (int i = 0; i < frame->nb_samples; i++, t++) {
            for (int c = 0; c < channels; c++) s[i * channels + c] = float(0.25 * std::sin(2 * M_PI * kTone * t / 48000));
        }
        frame->pts = k * 960;
        EXPECT_EQ(0, avcodec_send_frame(ctx, frame));
        while (avcodec_receive_packet(ctx, pkt) == 0) {
            packets.emplace_back(reinterpret_cast<const char*>(pkt->data), pkt->size);
            av_packet_unref(pkt);
        }
    }
    av_packet_free(&pkt);
    av_frame_free(&frame);
    avcodec_free_context(&ctx);
    return packets;
}

std::unique_ptr<AudioTranscoder> make(const AudioTranscoderOptions& o) {
    std::unique_ptr<AudioTranscoder> t;
    Error err = AudioTranscoder::create(o, &t);
    EXPECT_TRUE(err.ok()) << err.describe();
    return t;
}

AudioTranscoderOptions aac_to_opus() {
    AudioTranscoderOptions o;
    o.from = AudioCodec::kAAC;
    o.from_config = bytes(utest::sine440_aac_asc());
    o.to = AudioCodec::kOpus;
    return o;
}

// Microseconds of input frame i of `samples` samples at `rate`, from `start_us` (as an FLV demuxer would, in ms).
int64_t frame_us(int64_t start_us, int i, int samples, int rate) {
    return start_us + int64_t(i) * samples * 1000 / rate * 1000;
}

void expect_continuous(const std::vector<AudioTranscodedFrame>& out, int64_t first_pts, int samples) {
    ASSERT_FALSE(out.empty());
    EXPECT_EQ(first_pts, out[0].pts);
    for (size_t i = 0; i < out.size(); i++) {
        EXPECT_EQ(samples, out[i].samples) << i;
        EXPECT_FALSE(out[i].data.empty()) << i;
        if (i > 0) {
            EXPECT_EQ(out[i - 1].pts + samples, out[i].pts) << i;
        }
    }
}

}  // namespace

TEST(AudioTranscoderTest, AacToOpusDurationTimestampsAndTone) {
    std::unique_ptr<AudioTranscoder> t = make(aac_to_opus());
    ASSERT_TRUE(t);
    EXPECT_TRUE(t->output_config().empty());
    EXPECT_EQ(960, t->frame_samples());
    EXPECT_EQ(48000, t->output_sample_rate());
    EXPECT_GT(t->delay_samples(), 0);

    const auto& frames = utest::sine440_aac_frames();
    std::vector<AudioTranscodedFrame> out;
    for (size_t i = 0; i < frames.size(); i++) {
        Error err = t->transcode(frames[i].data(), frames[i].size(), frame_us(1000000, int(i), 1024, 44100), &out);
        ASSERT_TRUE(err.ok()) << i << ": " << err.describe();
    }
    // 14 x 1024 samples at 44.1 kHz = 15604 samples at 48 kHz = 16.25 Opus frames.
    double expected = frames.size() * 1024.0 * 48000 / 44100 / 960;
    EXPECT_LE(std::fabs(double(out.size()) - expected), 1.0) << out.size();
    expect_continuous(out, 48000, 960);  // 1 s in 48 kHz samples
    EXPECT_EQ(0u, t->discontinuities());
    EXPECT_EQ(0u, t->decode_errors());

    DecodedAudio pcm = decode_with_libav(AV_CODEC_ID_OPUS, "", 2, out);
    EXPECT_EQ(48000, pcm.rate);
    EXPECT_EQ(2, pcm.channels);
    EXPECT_EQ(out.size() * 960, pcm.first_channel.size());
    // Past the priming of both encoders (AAC's 1024 samples of the source, libopus's lookahead).
    EXPECT_GT(rms(pcm.first_channel, 3000), 0.05);  // the source sine's amplitude is 1/8: RMS 0.088
    EXPECT_GT(tone_share(pcm.first_channel, 3000, kTone, 48000), 0.8);
    EXPECT_LT(tone_share(pcm.first_channel, 3000, 1000, 48000), 0.05);
}

TEST(AudioTranscoderTest, OpusToAac48kConfigFramesAndTone) {
    AudioTranscoderOptions o;
    o.from = AudioCodec::kOpus;
    o.from_sample_rate = 48000;
    o.from_channels = 2;
    o.to = AudioCodec::kAAC;
    o.to_sample_rate = 48000;
    o.to_channels = 2;
    o.bitrate = 64000;
    std::unique_ptr<AudioTranscoder> t = make(o);
    ASSERT_TRUE(t);

    // The ASC an FLV sequence header carries: LC, 48 kHz, stereo.
    EXPECT_EQ(std::string("\x11\x90", 2), t->output_config());  // LC (2), index 3 (48000), 2 channels
    AudioCodecConfig config;
    Error err = parse_aac_sequence_header(reinterpret_cast<const uint8_t*>(t->output_config().data()),
                                          t->output_config().size(), &config);
    ASSERT_TRUE(err.ok()) << err.describe();
    EXPECT_EQ(48000, config.sample_rate);
    EXPECT_EQ(2, config.channels);
    EXPECT_EQ("LC", config.profile);
    EXPECT_EQ(1024, t->frame_samples());
    EXPECT_EQ(1024, t->delay_samples());

    std::vector<std::string> packets = make_opus_packets(25, 2);  // 0.5 s
    ASSERT_EQ(25u, packets.size());
    std::vector<AudioTranscodedFrame> out;
    for (size_t i = 0; i < packets.size(); i++) {
        err = t->transcode(reinterpret_cast<const uint8_t*>(packets[i].data()), packets[i].size(),
                           5000000 + int64_t(i) * 20000, &out);
        ASSERT_TRUE(err.ok()) << i << ": " << err.describe();
    }
    // 24000 samples = 23.4 AAC frames; the aac encoder holds one frame back.
    EXPECT_GE(out.size(), 22u);
    EXPECT_LE(out.size(), 23u);
    expect_continuous(out, 5 * 48000, 1024);

    DecodedAudio pcm = decode_with_libav(AV_CODEC_ID_AAC, t->output_config(), 2, out);
    EXPECT_EQ(48000, pcm.rate);
    EXPECT_EQ(2, pcm.channels);
    EXPECT_GT(rms(pcm.first_channel, 3000), 0.1);  // amplitude 0.25: RMS 0.177
    EXPECT_GT(tone_share(pcm.first_channel, 3000, kTone, 48000), 0.8);
}

TEST(AudioTranscoderTest, OpusToAac44100MonoConfig) {
    AudioTranscoderOptions o;
    o.from = AudioCodec::kOpus;
    o.to = AudioCodec::kAAC;
    o.to_sample_rate = 44100;
    o.to_channels = 1;
    std::unique_ptr<AudioTranscoder> t = make(o);
    ASSERT_TRUE(t);
    AudioCodecConfig config;
    Error err = parse_aac_sequence_header(reinterpret_cast<const uint8_t*>(t->output_config().data()),
                                          t->output_config().size(), &config);
    ASSERT_TRUE(err.ok()) << err.describe();
    EXPECT_EQ(44100, config.sample_rate);
    EXPECT_EQ(1, config.channels);
    EXPECT_EQ(std::string("\x12\x08", 2), t->output_config());  // LC, index 4, 1 channel

    // Stereo Opus in, mono 44.1 kHz AAC out: 0.5 s = 22050 samples = 21.5 frames.
    std::vector<std::string> packets = make_opus_packets(25, 2);
    std::vector<AudioTranscodedFrame> out;
    for (size_t i = 0; i < packets.size(); i++) {
        err = t->transcode(reinterpret_cast<const uint8_t*>(packets[i].data()), packets[i].size(),
                           int64_t(i) * 20000, &out);
        ASSERT_TRUE(err.ok()) << err.describe();
    }
    EXPECT_GE(out.size(), 20u);
    EXPECT_LE(out.size(), 21u);
    expect_continuous(out, 0, 1024);
    DecodedAudio pcm = decode_with_libav(AV_CODEC_ID_AAC, t->output_config(), 1, out);
    EXPECT_EQ(44100, pcm.rate);
    EXPECT_EQ(1, pcm.channels);
    EXPECT_GT(tone_share(pcm.first_channel, 3000, kTone, 44100), 0.8);
}

TEST(AudioTranscoderTest, Mp3ToOpus) {
    AudioTranscoderOptions o;
    o.from = AudioCodec::kMP3;
    o.from_sample_rate = 44100;
    o.from_channels = 1;
    o.to = AudioCodec::kOpus;
    std::unique_ptr<AudioTranscoder> t = make(o);
    ASSERT_TRUE(t);

    const auto& frames = utest::sine440_mp3_frames();
    std::vector<AudioTranscodedFrame> out;
    for (size_t i = 0; i < frames.size(); i++) {
        Error err = t->transcode(frames[i].data(), frames[i].size(), frame_us(2000000, int(i), 1152, 44100), &out);
        ASSERT_TRUE(err.ok()) << i << ": " << err.describe();
    }
    // 11 x 1152 samples at 44.1 kHz = 13793 samples at 48 kHz = 14.4 Opus frames.
    double expected = frames.size() * 1152.0 * 48000 / 44100 / 960;
    EXPECT_LE(std::fabs(double(out.size()) - expected), 1.0) << out.size();
    expect_continuous(out, 2 * 48000, 960);

    DecodedAudio pcm = decode_with_libav(AV_CODEC_ID_OPUS, "", 2, out);
    EXPECT_EQ(2, pcm.channels);  // mono in, stereo out
    EXPECT_GT(rms(pcm.first_channel, 3000), 0.03);
    EXPECT_GT(tone_share(pcm.first_channel, 3000, kTone, 48000), 0.8);
}

TEST(AudioTranscoderTest, TimestampJumpRestartsTheOutput) {
    std::unique_ptr<AudioTranscoder> t = make(aac_to_opus());
    ASSERT_TRUE(t);
    const auto& frames = utest::sine440_aac_frames();
    std::vector<AudioTranscodedFrame> out;
    size_t before_jump = 0;
    int64_t jump_us = 0;
    for (size_t i = 0; i < frames.size(); i++) {
        int64_t us = frame_us(0, int(i), 1024, 44100);
        if (i >= 7) us += 1000000;  // a 1 s gap before frame 7
        if (i == 7) {
            before_jump = out.size();
            jump_us = us;
        }
        Error err = t->transcode(frames[i].data(), frames[i].size(), us, &out);
        ASSERT_TRUE(err.ok()) << i << ": " << err.describe();
    }
    EXPECT_EQ(1u, t->discontinuities());
    ASSERT_GT(out.size(), before_jump);
    // Before the gap: continuous from 0. After: from the jumping input, continuous again.
    std::vector<AudioTranscodedFrame> first(out.begin(), out.begin() + before_jump);
    std::vector<AudioTranscodedFrame> second(out.begin() + before_jump, out.end());
    expect_continuous(first, 0, 960);
    expect_continuous(second, jump_us * 48000 / 1000000, 960);
    // 7 frames each side: 7 x 1024 / 44100 s = 7.5 Opus frames; the buffered remainder was dropped.
    EXPECT_GE(first.size(), 6u);
    EXPECT_GE(second.size(), 6u);
    EXPECT_LE(second.size(), 8u);
}

TEST(AudioTranscoderTest, JitterAndBackwardStepBelowThresholdAreAbsorbed) {
    std::unique_ptr<AudioTranscoder> t = make(aac_to_opus());
    ASSERT_TRUE(t);
    const auto& frames = utest::sine440_aac_frames();
    std::vector<AudioTranscodedFrame> out;
    for (size_t i = 0; i < frames.size(); i++) {
        int64_t us = frame_us(0, int(i), 1024, 44100);
        if (i == 4) us += 150000;  // late by 150 ms
        if (i == 9) us -= 150000;  // early by 150 ms
        Error err = t->transcode(frames[i].data(), frames[i].size(), us, &out);
        ASSERT_TRUE(err.ok()) << err.describe();
    }
    EXPECT_EQ(0u, t->discontinuities());
    expect_continuous(out, 0, 960);
}

TEST(AudioTranscoderTest, GarbageFrameIsAnErrorAndTheTranscoderGoesOn) {
    std::unique_ptr<AudioTranscoder> t = make(aac_to_opus());
    ASSERT_TRUE(t);
    const auto& frames = utest::sine440_aac_frames();
    std::vector<AudioTranscodedFrame> out;
    Error err = t->transcode(frames[0].data(), frames[0].size(), 0, &out);
    ASSERT_TRUE(err.ok()) << err.describe();

    // A program_config_element-looking raw block with nonsense after it, then an empty frame.
    std::vector<uint8_t> garbage(64, 0xff);
    err = t->transcode(garbage.data(), garbage.size(), 23000, &out);
    EXPECT_EQ(kErrorAudioTranscoderDecode, err.code()) << err.describe();
    err.ignore();
    err = t->transcode(garbage.data(), 0, 23000, &out);
    EXPECT_EQ(kErrorAudioTranscoderDecode, err.code());
    err.ignore();
    err = t->transcode(nullptr, 10, 23000, &out);
    EXPECT_EQ(kErrorAudioTranscoderDecode, err.code());
    err.ignore();
    EXPECT_EQ(3u, t->decode_errors());

    // The rest of the stream still transcodes, on the same timeline (the bad frame is within the jitter bound).
    out.clear();
    for (size_t i = 1; i < frames.size(); i++) {
        err = t->transcode(frames[i].data(), frames[i].size(), frame_us(0, int(i), 1024, 44100), &out);
        ASSERT_TRUE(err.ok()) << i << ": " << err.describe();
    }
    EXPECT_GE(out.size(), 14u);
    EXPECT_EQ(0u, t->discontinuities());
    for (size_t i = 1; i < out.size(); i++) {
        EXPECT_EQ(out[i - 1].pts + 960, out[i].pts);
    }
    DecodedAudio pcm = decode_with_libav(AV_CODEC_ID_OPUS, "", 2, out);
    EXPECT_GT(tone_share(pcm.first_channel, 3000, kTone, 48000), 0.8);
}

TEST(AudioTranscoderTest, InputEndingAtAGuardPageAndTruncatedFrames) {
    // The transcoder copies the input into its padded buffer: libavcodec never reads past the caller's bytes.
    std::unique_ptr<AudioTranscoder> t = make(aac_to_opus());
    ASSERT_TRUE(t);
    const auto& frames = utest::sine440_aac_frames();
    std::vector<AudioTranscodedFrame> out;
    for (size_t i = 0; i < frames.size(); i++) {
        utest::GuardedBytes in(bytes(frames[i]));
        Error err = t->transcode(in.data(), in.size(), frame_us(0, int(i), 1024, 44100), &out);
        ASSERT_TRUE(err.ok()) << err.describe();
    }
    EXPECT_GE(out.size(), 15u);

    // Every prefix of a real frame: decoded (concealed) or rejected, never a crash; then the stream goes on.
    std::unique_ptr<AudioTranscoder> cut = make(aac_to_opus());
    ASSERT_TRUE(cut);
    const std::string whole = bytes(frames[5]);
    for (size_t n = 1; n < whole.size(); n++) {
        utest::GuardedBytes in(whole.substr(0, n));
        Error err = cut->transcode(in.data(), in.size(), 0, &out);
        if (err.failed()) {
            EXPECT_EQ(kErrorAudioTranscoderDecode, err.code()) << n;
        }
        err.ignore();
    }
    EXPECT_GT(cut->decode_errors(), 0u);
    out.clear();
    for (size_t i = 0; i < frames.size(); i++) {
        Error err = cut->transcode(frames[i].data(), frames[i].size(), 10000000 + frame_us(0, int(i), 1024, 44100),
                                   &out);
        ASSERT_TRUE(err.ok()) << err.describe();
    }
    ASSERT_GE(out.size(), 15u);
    for (size_t i = 1; i < out.size(); i++) {
        EXPECT_EQ(out[i - 1].pts + 960, out[i].pts);
    }
}

TEST(AudioTranscoderTest, CreateRejectsBadConfigsAndOptions) {
    std::unique_ptr<AudioTranscoder> t;
    AudioTranscoderOptions o = aac_to_opus();

    o.from_config.clear();
    Error err = AudioTranscoder::create(o, &t);
    EXPECT_EQ(kErrorAudioTranscoderConfig, err.code()) << err.describe();
    err.ignore();
    o.from_config = std::string("\xff\xff\xff", 3);  // object type 31 escape, then nonsense
    err = AudioTranscoder::create(o, &t);
    EXPECT_EQ(kErrorAudioTranscoderConfig, err.code()) << err.describe();
    err.ignore();
    o.from_config = std::string("\x12", 1);  // truncated
    err = AudioTranscoder::create(o, &t);
    EXPECT_EQ(kErrorAudioTranscoderConfig, err.code()) << err.describe();
    err.ignore();
    EXPECT_FALSE(t);

    o = aac_to_opus();
    o.to_sample_rate = 44100;  // Opus is 48 kHz only
    err = AudioTranscoder::create(o, &t);
    EXPECT_EQ(kErrorAudioTranscoderOptions, err.code());
    err.ignore();
    o = aac_to_opus();
    o.to_channels = 6;
    err = AudioTranscoder::create(o, &t);
    EXPECT_EQ(kErrorAudioTranscoderOptions, err.code());
    err.ignore();
    o = aac_to_opus();
    o.to = AudioCodec::kMP3;
    err = AudioTranscoder::create(o, &t);
    EXPECT_EQ(kErrorAudioTranscoderOptions, err.code());
    err.ignore();
    o = aac_to_opus();
    o.from = AudioCodec::kOther;
    err = AudioTranscoder::create(o, &t);
    EXPECT_EQ(kErrorAudioTranscoderOptions, err.code());
    err.ignore();
    o = aac_to_opus();
    o.to = AudioCodec::kAAC;
    o.to_sample_rate = 12345;
    err = AudioTranscoder::create(o, &t);
    EXPECT_EQ(kErrorAudioTranscoderOptions, err.code());
    err.ignore();
    o = aac_to_opus();
    o.bitrate = 0;
    err = AudioTranscoder::create(o, &t);
    EXPECT_EQ(kErrorAudioTranscoderOptions, err.code());
    err.ignore();
    EXPECT_FALSE(t);

    // And a good one still works after all that.
    EXPECT_TRUE(AudioTranscoder::create(aac_to_opus(), &t).ok());
    EXPECT_TRUE(t);
}

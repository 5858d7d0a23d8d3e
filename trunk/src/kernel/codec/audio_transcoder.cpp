#include "kernel/codec/audio_transcoder.hpp"

#include <climits>
#include <cstring>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/mathematics.h>
#include <libavutil/opt.h>
#include <libavutil/samplefmt.h>
#include <libswresample/swresample.h>
}

namespace srs {

namespace {

constexpr int kOpusRate = 48000;

// av_strerror into a value the error message can print.
struct AvErrorText {
    char text[AV_ERROR_MAX_STRING_SIZE] = {};
    explicit AvErrorText(int code) { av_strerror(code, text, sizeof(text)); }
};
#define AV_ERR_STR(code) (AvErrorText(code).text)

bool would_block(int r) { return r == AVERROR(EAGAIN) || r == AVERROR_EOF; }

// The encoder's sample format: float (interleaved for libopus, planar for aac)
// when it takes one, else its first.
AVSampleFormat pick_sample_format(const AVCodec* codec) {
    if (!codec->sample_fmts) return AV_SAMPLE_FMT_FLTP;
    for (const AVSampleFormat* f = codec->sample_fmts; *f != AV_SAMPLE_FMT_NONE; ++f) {
        if (*f == AV_SAMPLE_FMT_FLT || *f == AV_SAMPLE_FMT_FLTP) return *f;
    }
    return codec->sample_fmts[0];
}

bool takes_rate(const AVCodec* codec, int rate) {
    if (!codec->supported_samplerates) return true;
    for (const int* r = codec->supported_samplerates; *r; ++r) {
        if (*r == rate) return true;
    }
    return false;
}

// What identifies a decoded frame's layout for the resampler: the mask of a
// native layout, else 0 (the channel count is compared separately).
uint64_t layout_key(const AVChannelLayout& layout) {
    return layout.order == AV_CHANNEL_ORDER_NATIVE ? layout.u.mask : 0;
}

}  // namespace

Error AudioTranscoder::create(const AudioTranscoderOptions& options, std::unique_ptr<AudioTranscoder>* out) {
    if (options.from != AudioCodec::kAAC && options.from != AudioCodec::kMP3 && options.from != AudioCodec::kOpus) {
        return SRS_ERR(kErrorAudioTranscoderOptions, "cannot decode %s", audio_codec_name(options.from));
    }
    if (options.to != AudioCodec::kOpus && options.to != AudioCodec::kAAC) {
        return SRS_ERR(kErrorAudioTranscoderOptions, "cannot encode %s", audio_codec_name(options.to));
    }
    if (options.to_channels != 1 && options.to_channels != 2) {
        return SRS_ERR(kErrorAudioTranscoderOptions, "output channels %d (1 or 2)", options.to_channels);
    }
    if (options.bitrate <= 0) {
        return SRS_ERR(kErrorAudioTranscoderOptions, "bitrate %d", options.bitrate);
    }

    std::unique_ptr<AudioTranscoder> t(new AudioTranscoder());
    t->options_ = options;
    t->decoded_ = av_frame_alloc();
    t->to_encode_ = av_frame_alloc();
    t->packet_ = av_packet_alloc();
    if (!t->decoded_ || !t->to_encode_ || !t->packet_) {
        return SRS_ERR(kErrorAudioTranscoderMemory, "allocate frames and packet");
    }
    if (Error err = t->open_decoder(); err.failed()) {
        return SRS_WRAP(err, "%s decoder", audio_codec_name(options.from));
    }
    if (Error err = t->open_encoder(); err.failed()) {
        return SRS_WRAP(err, "%s encoder", audio_codec_name(options.to));
    }
    *out = std::move(t);
    return Error();
}

AudioTranscoder::~AudioTranscoder() {
    avcodec_free_context(&decoder_);
    avcodec_free_context(&encoder_);
    swr_free(&resampler_);
    if (fifo_) av_audio_fifo_free(fifo_);
    av_frame_free(&decoded_);
    av_frame_free(&to_encode_);
    av_packet_free(&packet_);
    if (converted_) av_freep(&converted_[0]);
    av_freep(&converted_);
}

Error AudioTranscoder::open_decoder() {
    AVCodecID id = options_.from == AudioCodec::kAAC   ? AV_CODEC_ID_AAC
                   : options_.from == AudioCodec::kMP3 ? AV_CODEC_ID_MP3
                                                       : AV_CODEC_ID_OPUS;
    const AVCodec* codec = avcodec_find_decoder(id);
    if (!codec) return SRS_ERR(kErrorAudioTranscoderCodec, "libavcodec has no %s decoder", avcodec_get_name(id));
    decoder_ = avcodec_alloc_context3(codec);
    if (!decoder_) return SRS_ERR(kErrorAudioTranscoderMemory, "allocate the decoder context");

    if (options_.from == AudioCodec::kAAC) {
        // Check the config ourselves first: the decoder's complaint would only reach its log.
        const std::string& asc = options_.from_config;
        AudioCodecConfig config;
        if (asc.empty()) return SRS_ERR(kErrorAudioTranscoderConfig, "no AudioSpecificConfig");
        if (Error err = parse_aac_sequence_header(reinterpret_cast<const uint8_t*>(asc.data()), asc.size(), &config);
            err.failed()) {
            Error wrapped = SRS_ERR(kErrorAudioTranscoderConfig, "AudioSpecificConfig of %zu bytes: %s", asc.size(),
                                    err.message().c_str());
            err.ignore();
            return wrapped;
        }
        decoder_->extradata = static_cast<uint8_t*>(av_mallocz(asc.size() + AV_INPUT_BUFFER_PADDING_SIZE));
        if (!decoder_->extradata) return SRS_ERR(kErrorAudioTranscoderMemory, "allocate the decoder's extradata");
        memcpy(decoder_->extradata, asc.data(), asc.size());
        decoder_->extradata_size = static_cast<int>(asc.size());
    } else if (options_.from == AudioCodec::kOpus) {
        // Without an OpusHead the decoder takes one stream of 1 or 2 channels; it always outputs 48 kHz.
        int channels = options_.from_channels > 0 ? options_.from_channels : 2;
        if (channels > 2) return SRS_ERR(kErrorAudioTranscoderOptions, "Opus input of %d channels (1 or 2)", channels);
        decoder_->sample_rate = kOpusRate;
        av_channel_layout_default(&decoder_->ch_layout, channels);
    } else if (options_.from_sample_rate > 0) {
        // MP3: every frame header says its rate and mode; the hint only fills the context until the first one.
        decoder_->sample_rate = options_.from_sample_rate;
    }

    if (int r = avcodec_open2(decoder_, codec, nullptr); r < 0) {
        int code = options_.from == AudioCodec::kAAC ? kErrorAudioTranscoderConfig : kErrorAudioTranscoderCodec;
        return SRS_ERR(code, "open %s: %s", codec->name, AV_ERR_STR(r));
    }
    return Error();
}

Error AudioTranscoder::open_encoder() {
    const char* name = options_.to == AudioCodec::kOpus ? "libopus" : "aac";
    const AVCodec* codec = avcodec_find_encoder_by_name(name);
    if (!codec) return SRS_ERR(kErrorAudioTranscoderCodec, "libavcodec has no %s encoder", name);

    int rate = options_.to_sample_rate;
    if (options_.to == AudioCodec::kOpus && rate != kOpusRate) {
        return SRS_ERR(kErrorAudioTranscoderOptions, "Opus output at %d Hz (WebRTC takes 48000)", rate);
    }
    if (rate <= 0 || !takes_rate(codec, rate)) {
        return SRS_ERR(kErrorAudioTranscoderOptions, "%s does not encode at %d Hz", name, rate);
    }

    encoder_ = avcodec_alloc_context3(codec);
    if (!encoder_) return SRS_ERR(kErrorAudioTranscoderMemory, "allocate the encoder context");
    encoder_->sample_rate = rate;
    encoder_->time_base = AVRational{1, rate};
    encoder_->sample_fmt = pick_sample_format(codec);
    encoder_->bit_rate = options_.bitrate;
    av_channel_layout_default(&encoder_->ch_layout, options_.to_channels);

    AVDictionary* settings = nullptr;
    if (options_.to == AudioCodec::kAAC) {
        // The AudioSpecificConfig goes to extradata, for the FLV sequence header.
        encoder_->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
        encoder_->profile = FF_PROFILE_AAC_LOW;
    } else {
        // "audio": the full codec (SILK/CELT/hybrid as fits); RTMP sources are music as often as speech.
        av_dict_set(&settings, "application", "audio", 0);
        av_dict_set(&settings, "frame_duration", "20", 0);
    }
    int r = avcodec_open2(encoder_, codec, &settings);
    av_dict_free(&settings);
    if (r < 0) {
        return SRS_ERR(kErrorAudioTranscoderCodec, "open %s (%d Hz, %d channels, %d bps): %s", name, rate,
                       options_.to_channels, options_.bitrate, AV_ERR_STR(r));
    }
    frame_samples_ = encoder_->frame_size;
    out_rate_ = rate;
    if (frame_samples_ <= 0) return SRS_ERR(kErrorAudioTranscoderCodec, "%s has no fixed frame size", name);
    if (options_.to == AudioCodec::kAAC) {
        if (!encoder_->extradata || encoder_->extradata_size <= 0) {
            return SRS_ERR(kErrorAudioTranscoderCodec, "%s made no AudioSpecificConfig", name);
        }
        output_config_.assign(reinterpret_cast<const char*>(encoder_->extradata), encoder_->extradata_size);
        // The aac encoder appends an explicit "no SBR" sync extension (0x2b7, 5 bytes in all). The first
        // 16 bits are a complete LC config (object type, rate index, channels, three zero flags); keep that
        // 2-byte form every RTMP player reads, when it says the same as the whole.
        AudioCodecConfig whole, lc;
        const uint8_t* p = encoder_->extradata;
        if (output_config_.size() > 2 && (p[1] & 0x07) == 0) {
            Error whole_err = parse_aac_sequence_header(p, output_config_.size(), &whole);
            Error lc_err = parse_aac_sequence_header(p, 2, &lc);
            if (whole_err.ok() && lc_err.ok() && lc.object_type == 2 && lc.sample_rate == whole.sample_rate &&
                lc.channels == whole.channels) {
                output_config_.resize(2);
            }
            whole_err.ignore();
            lc_err.ignore();
        }
    }

    to_encode_->nb_samples = frame_samples_;
    to_encode_->format = encoder_->sample_fmt;
    to_encode_->sample_rate = rate;
    if ((r = av_channel_layout_copy(&to_encode_->ch_layout, &encoder_->ch_layout)) < 0 ||
        (r = av_frame_get_buffer(to_encode_, 0)) < 0) {
        return SRS_ERR(kErrorAudioTranscoderMemory, "allocate the encoder's frame: %s", AV_ERR_STR(r));
    }
    // Room for a few frames: one input frame (1024..1152 samples, resampled) is about one output frame.
    fifo_ = av_audio_fifo_alloc(encoder_->sample_fmt, options_.to_channels, frame_samples_ * 4);
    if (!fifo_) return SRS_ERR(kErrorAudioTranscoderMemory, "allocate the sample FIFO");
    return Error();
}

const std::string& AudioTranscoder::output_config() const { return output_config_; }
uint64_t AudioTranscoder::discontinuities() const { return discontinuities_; }
uint64_t AudioTranscoder::decode_errors() const { return decode_errors_; }
int AudioTranscoder::frame_samples() const { return frame_samples_; }
int AudioTranscoder::output_sample_rate() const { return out_rate_; }
int64_t AudioTranscoder::delay_samples() const { return encoder_ ? encoder_->initial_padding : 0; }

void AudioTranscoder::restart(int64_t pts_us) {
    started_ = true;
    in_base_us_ = pts_us;
    in_samples_ = 0;
    next_out_pts_ = av_rescale(pts_us, out_rate_, 1000000);
    av_audio_fifo_reset(fifo_);
}

Error AudioTranscoder::transcode(const uint8_t* data, size_t size, int64_t pts_us,
                                 std::vector<AudioTranscodedFrame>* out) {
    // An empty packet would mean "end of stream" to libavcodec.
    if (!data || size == 0 || size > INT_MAX - AV_INPUT_BUFFER_PADDING_SIZE) {
        decode_errors_++;
        return SRS_ERR(kErrorAudioTranscoderDecode, "input frame of %zu bytes", size);
    }

    // Where this frame was expected, from the samples decoded since the timeline started.
    if (!started_) {
        restart(pts_us);
    } else if (in_rate_ <= 0 || in_samples_ == 0) {
        // Nothing decoded yet on this timeline (only rejected frames): nothing to keep continuous.
        restart(pts_us);
    } else {
        int64_t expected = in_base_us_ + av_rescale(in_samples_, 1000000, in_rate_);
        int64_t diff = pts_us - expected;
        if (diff > kMaxJitterUs || diff < -kMaxJitterUs) {
            // The decoder's overlap state belongs to the old signal; the encoder keeps its (it only delays).
            discontinuities_++;
            avcodec_flush_buffers(decoder_);
            restart(pts_us);
        }
    }

    // libavcodec reads up to AV_INPUT_BUFFER_PADDING_SIZE past the end; the buffer only grows.
    input_.assign(data, data + size);
    input_.resize(size + AV_INPUT_BUFFER_PADDING_SIZE, 0);
    packet_->data = input_.data();
    packet_->size = static_cast<int>(size);
    int r = avcodec_send_packet(decoder_, packet_);
    packet_->data = nullptr;
    packet_->size = 0;
    if (r < 0) {
        decode_errors_++;
        return SRS_ERR(kErrorAudioTranscoderDecode, "%s frame of %zu bytes: %s", audio_codec_name(options_.from),
                       size, AV_ERR_STR(r));
    }
    for (;;) {
        r = avcodec_receive_frame(decoder_, decoded_);
        if (would_block(r)) break;
        if (r < 0) {
            decode_errors_++;
            return SRS_ERR(kErrorAudioTranscoderDecode, "%s frame of %zu bytes: %s",
                           audio_codec_name(options_.from), size, AV_ERR_STR(r));
        }
        Error err = push_decoded(decoded_);
        av_frame_unref(decoded_);
        if (err.failed()) return SRS_WRAP(err, "resample");
    }
    if (Error err = encode_ready(out); err.failed()) {
        return SRS_WRAP(err, "encode %s", audio_codec_name(options_.to));
    }
    return Error();
}

Error AudioTranscoder::configure_resampler(const AVFrame* frame) {
    if (resampler_ && frame->format == resample_in_format_ && frame->sample_rate == resample_in_rate_ &&
        frame->ch_layout.nb_channels == resample_in_channels_ && layout_key(frame->ch_layout) == resample_in_layout_) {
        return Error();
    }
    if (frame->sample_rate <= 0 || frame->ch_layout.nb_channels <= 0) {
        return SRS_ERR(kErrorAudioTranscoderResample, "decoded frame of %d Hz, %d channels", frame->sample_rate,
                       frame->ch_layout.nb_channels);
    }
    AVChannelLayout in_layout = {};  // copy() uninits its target first: it must be valid
    int r = frame->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC
                ? (av_channel_layout_default(&in_layout, frame->ch_layout.nb_channels), 0)
                : av_channel_layout_copy(&in_layout, &frame->ch_layout);
    if (r >= 0) {
        r = swr_alloc_set_opts2(&resampler_, &encoder_->ch_layout, encoder_->sample_fmt, encoder_->sample_rate,
                                &in_layout, static_cast<AVSampleFormat>(frame->format), frame->sample_rate, 0,
                                nullptr);
    }
    av_channel_layout_uninit(&in_layout);
    if (r >= 0) r = swr_init(resampler_);
    if (r < 0) {
        resample_in_format_ = -1;
        return SRS_ERR(kErrorAudioTranscoderResample, "%d Hz %d channels %s -> %d Hz %d channels: %s",
                       frame->sample_rate, frame->ch_layout.nb_channels,
                       av_get_sample_fmt_name(static_cast<AVSampleFormat>(frame->format)), encoder_->sample_rate,
                       options_.to_channels, AV_ERR_STR(r));
    }
    resample_in_format_ = frame->format;
    resample_in_rate_ = frame->sample_rate;
    resample_in_channels_ = frame->ch_layout.nb_channels;
    resample_in_layout_ = layout_key(frame->ch_layout);
    return Error();
}

Error AudioTranscoder::push_decoded(const AVFrame* frame) {
    if (frame->nb_samples <= 0) return Error();
    // A new input rate (MP3 may change it per frame): keep the expected time, count from there at the new rate.
    if (frame->sample_rate != in_rate_) {
        if (in_rate_ > 0) in_base_us_ += av_rescale(in_samples_, 1000000, in_rate_);
        in_samples_ = 0;
        in_rate_ = frame->sample_rate;
    }
    in_samples_ += frame->nb_samples;

    if (Error err = configure_resampler(frame); err.failed()) return err;

    int need = swr_get_out_samples(resampler_, frame->nb_samples);
    if (need < 0) return SRS_ERR(kErrorAudioTranscoderResample, "output size: %s", AV_ERR_STR(need));
    if (need > converted_capacity_) {
        if (converted_) av_freep(&converted_[0]);
        av_freep(&converted_);
        converted_capacity_ = 0;
        int r = av_samples_alloc_array_and_samples(&converted_, nullptr, options_.to_channels, need,
                                                   encoder_->sample_fmt, 0);
        if (r < 0) return SRS_ERR(kErrorAudioTranscoderMemory, "%d resampled samples: %s", need, AV_ERR_STR(r));
        converted_capacity_ = need;
    }
    int n = swr_convert(resampler_, converted_, converted_capacity_,
                        const_cast<const uint8_t**>(frame->extended_data), frame->nb_samples);
    if (n < 0) return SRS_ERR(kErrorAudioTranscoderResample, "convert: %s", AV_ERR_STR(n));
    if (n > 0 && av_audio_fifo_write(fifo_, reinterpret_cast<void**>(converted_), n) < n) {
        return SRS_ERR(kErrorAudioTranscoderMemory, "grow the sample FIFO by %d samples", n);
    }
    return Error();
}

Error AudioTranscoder::encode_ready(std::vector<AudioTranscodedFrame>* out) {
    while (av_audio_fifo_size(fifo_) >= frame_samples_) {
        // The encoder let go of the previous frame's buffer, so this does not copy.
        int r = av_frame_make_writable(to_encode_);
        if (r < 0) return SRS_ERR(kErrorAudioTranscoderMemory, "encoder frame: %s", AV_ERR_STR(r));
        if (av_audio_fifo_read(fifo_, reinterpret_cast<void**>(to_encode_->data), frame_samples_) < frame_samples_) {
            return SRS_ERR(kErrorAudioTranscoderEncode, "sample FIFO read short");
        }
        // The encoder's own clock only moves forward, whatever the input's does.
        to_encode_->pts = encoder_pts_;
        encoder_pts_ += frame_samples_;
        if ((r = avcodec_send_frame(encoder_, to_encode_)) < 0) {
            return SRS_ERR(kErrorAudioTranscoderEncode, "send frame: %s", AV_ERR_STR(r));
        }
        if (Error err = drain_packets(out); err.failed()) return err;
    }
    return Error();
}

Error AudioTranscoder::drain_packets(std::vector<AudioTranscodedFrame>* out) {
    for (;;) {
        int r = avcodec_receive_packet(encoder_, packet_);
        if (would_block(r)) return Error();
        if (r < 0) return SRS_ERR(kErrorAudioTranscoderEncode, "receive packet: %s", AV_ERR_STR(r));
        AudioTranscodedFrame frame;
        frame.data.assign(reinterpret_cast<const char*>(packet_->data), packet_->size);
        frame.pts = next_out_pts_;
        frame.samples = frame_samples_;
        next_out_pts_ += frame_samples_;
        av_packet_unref(packet_);
        out->push_back(std::move(frame));
    }
}

}  // namespace srs

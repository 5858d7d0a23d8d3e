#include "app/http/http_remux_audio.hpp"

#include "kernel/codec/media_codec.hpp"

namespace srs {

FramingSlotId adts_framing_slot() {
    static const FramingSlotId id = register_framing_slot("adts");
    return id;
}

// The slot's key names the AudioSpecificConfig the header was built from (a
// republish may change it); never 0, so a fresh slot never matches.
static uint64_t adts_key(const TsAdtsConfig& c) {
    return 1 + ((uint64_t)c.profile << 16 | (uint64_t)c.sampling_index << 8 | c.channel_config);
}

Error AudioRemuxer::frame(LiveMessage* msg, std::vector<struct iovec>* iov) {
    if (!msg->is_audio()) return Error();
    AudioPacketInfo info;
    if (Error err = parse_audio_packet(msg->payload().data(), msg->size(), &info); !err.ok()) {
        return SRS_WRAP(err, "audio at %u ms", msg->timestamp());
    }
    AudioCodec want = format_ == RemuxFormat::kMp3 ? AudioCodec::kMP3 : AudioCodec::kAAC;
    if (info.codec != want) {
        return SRS_ERR(kErrorAudioPacket, "%s needs %s audio, the stream has %s", remux_format_name(format_),
                       audio_codec_name(want), audio_codec_name(info.codec));
    }
    if (info.size == 0) return Error();
    if (want == AudioCodec::kMP3) {
        iov->push_back({const_cast<uint8_t*>(info.data), info.size});
        return Error();
    }
    if (info.sequence_header) {
        if (Error err = ts_parse_adts_config(info.data, info.size, &config_); !err.ok()) {
            have_config_ = false;
            return SRS_WRAP(err, "AAC sequence header");
        }
        have_config_ = true;
        return Error();
    }
    if (!have_config_) return Error();  // nothing to build a header from yet
    if (info.size > kTsAdtsMaxPayload) {
        return SRS_ERR(kErrorAudioPacket, "AAC frame of %zu bytes, ADTS carries %zu at most", info.size,
                       kTsAdtsMaxPayload);
    }
    FramingSlot& slot = msg->framing(adts_framing_slot());
    uint64_t key = adts_key(config_);
    if (!slot.holds(key)) ts_write_adts_header(slot.fill(key, kTsAdtsHeaderSize), config_, info.size);
    iov->push_back({const_cast<uint8_t*>(slot.bytes()), kTsAdtsHeaderSize});
    iov->push_back({const_cast<uint8_t*>(info.data), info.size});
    return Error();
}

Error AudioPlayWriter::write(const std::vector<LiveMessagePtr>& msgs) {
    iov_.clear();
    for (const LiveMessagePtr& m : msgs) {
        if (Error err = remuxer_.frame(m.get(), &iov_); !err.ok()) return SRS_WRAP(err, "%s %s", tag_.c_str(), url_.c_str());
    }
    if (iov_.empty()) return Error();
    return send(iov_);
}

}  // namespace srs

#include "kernel/mp4/mp4_muxer.hpp"

#include <algorithm>
#include <cstring>

#include "core/bytes.hpp"
#include "kernel/mp4/mp4_box.hpp"

namespace srs {

namespace {

constexpr uint32_t kMovieTimescale = 1000;  // mvhd, tkhd, mehd: ms
constexpr uint32_t kVideoTimescale = 90000;
constexpr uint32_t kVideoTrackId = 1;
constexpr uint32_t kAudioTrackId = 2;
constexpr size_t kMaxSampleSize = 64u << 20;
constexpr uint32_t kDefaultVideoDuration = 3600;  // 40 ms at 90 kHz, for a lone first frame

// Sample flags (14496-12 8.8.3.1): sample_depends_on 2 (an I-frame) for sync
// samples; depends_on 1 and sample_is_non_sync_sample for the others.
constexpr uint32_t kSyncSampleFlags = 0x02000000;
constexpr uint32_t kNonSyncSampleFlags = 0x01010000;

// tfhd / trun flags.
constexpr uint32_t kTfhdDefaultSampleFlags = 0x000020;
constexpr uint32_t kTfhdDefaultBaseIsMoof = 0x020000;
constexpr uint32_t kTrunDataOffset = 0x000001;
constexpr uint32_t kTrunSampleDuration = 0x000100;
constexpr uint32_t kTrunSampleSize = 0x000200;
constexpr uint32_t kTrunSampleFlags = 0x000400;
constexpr uint32_t kTrunSampleCts = 0x000800;

const uint8_t kUnityMatrix[36] = {0x00, 0x01, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,
                                  0, 0, 0, 0, 0x00, 0x01, 0x00, 0x00, 0, 0, 0, 0,
                                  0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0x00, 0x00, 0x00};

uint64_t to_timescale(int64_t ms, uint32_t timescale) {
    return (static_cast<uint64_t>(ms) * timescale + 500) / 1000;
}

}  // namespace

Error mp4_video_track(VideoCodec codec, const uint8_t* record, size_t n, Mp4TrackConfig* out) {
    VideoCodecConfig vc;
    if (codec == VideoCodec::kH264) {
        if (Error err = parse_avc_sequence_header(record, n, &vc); !err.ok()) return SRS_WRAP(err, "avcC record");
    } else if (codec == VideoCodec::kH265) {
        if (Error err = parse_hevc_sequence_header(record, n, &vc); !err.ok()) return SRS_WRAP(err, "hvcC record");
    } else {
        return SRS_ERR(kErrorMp4Track, "video codec %s is not muxed to MP4 here", video_codec_name(codec));
    }
    if (vc.width <= 0 || vc.height <= 0 || vc.width > 0xffff || vc.height > 0xffff) {
        return SRS_ERR(kErrorMp4Track, "video size %dx%d not usable", vc.width, vc.height);
    }
    Mp4TrackConfig c;
    c.video = true;
    c.video_codec = codec;
    c.record.assign(reinterpret_cast<const char*>(record), n);
    c.width = static_cast<uint16_t>(vc.width);
    c.height = static_cast<uint16_t>(vc.height);
    *out = std::move(c);
    return Error();
}

Error mp4_aac_track(const uint8_t* asc, size_t n, Mp4TrackConfig* out) {
    AudioCodecConfig ac;
    if (Error err = parse_aac_sequence_header(asc, n, &ac); !err.ok()) return SRS_WRAP(err, "AAC track");
    if (ac.sample_rate <= 0) return SRS_ERR(kErrorMp4Track, "AAC sample rate %d", ac.sample_rate);
    Mp4TrackConfig c;
    c.audio_codec = AudioCodec::kAAC;
    c.record.assign(reinterpret_cast<const char*>(asc), n);
    c.sample_rate = static_cast<uint32_t>(ac.sample_rate);
    c.channels = static_cast<uint16_t>(ac.channels > 0 ? ac.channels : 2);
    *out = std::move(c);
    return Error();
}

Error mp4_opus_track(const uint8_t* opus_head, size_t n, Mp4TrackConfig* out) {
    Mp4TrackConfig c;
    c.audio_codec = AudioCodec::kOpus;
    if (n > 0) {
        if (Error err = mp4_parse_opus_head(opus_head, n, &c.opus); !err.ok()) return SRS_WRAP(err, "Opus track");
    }
    c.sample_rate = 48000;
    c.channels = c.opus.channels;
    *out = std::move(c);
    return Error();
}

Error Mp4FragmentedMuxer::set_track(const Mp4TrackConfig& config) {
    if (init_written_) return SRS_ERR(kErrorMp4State, "track set after the init segment");
    Track* t = config.video ? &video_ : &audio_;
    if (config.video) {
        if (config.video_codec != VideoCodec::kH264 && config.video_codec != VideoCodec::kH265) {
            return SRS_ERR(kErrorMp4Track, "video codec %s", video_codec_name(config.video_codec));
        }
        if (config.record.empty() || config.width == 0 || config.height == 0) {
            return SRS_ERR(kErrorMp4Track, "video track without a record or a size");
        }
    } else {
        if (config.audio_codec != AudioCodec::kAAC && config.audio_codec != AudioCodec::kOpus) {
            return SRS_ERR(kErrorMp4Track, "audio codec %s", audio_codec_name(config.audio_codec));
        }
        if (config.audio_codec == AudioCodec::kAAC && config.record.empty()) {
            return SRS_ERR(kErrorMp4Track, "AAC track without an AudioSpecificConfig");
        }
        if (config.sample_rate == 0 || config.channels == 0) {
            return SRS_ERR(kErrorMp4Track, "audio track with rate %u and %u channels", config.sample_rate,
                           config.channels);
        }
    }
    t->present = true;
    t->config = config;
    t->id = config.video ? kVideoTrackId : kAudioTrackId;
    t->timescale = config.video ? kVideoTimescale : config.sample_rate;
    return Error();
}

void Mp4FragmentedMuxer::write_trak(std::string* out, const Track& t, size_t* tkhd_at, size_t* mdhd_at) {
    Mp4BoxWriter w(out);
    const Mp4TrackConfig& c = t.config;
    size_t trak = w.begin("trak");

    size_t tkhd = w.begin_full("tkhd", 0, 0x000003);  // enabled, in movie
    w.u32(0);  // creation_time
    w.u32(0);  // modification_time
    w.u32(t.id);
    w.u32(0);  // reserved
    *tkhd_at = w.offset();
    w.u32(0);  // duration (ms), patched by finish()
    w.zeros(8);  // reserved
    w.u16(0);    // layer
    w.u16(c.video ? 0 : 1);  // alternate_group
    w.u16(c.video ? 0 : 0x0100);  // volume
    w.u16(0);
    w.bytes(kUnityMatrix, sizeof(kUnityMatrix));
    w.u32(c.video ? static_cast<uint32_t>(c.width) << 16 : 0);
    w.u32(c.video ? static_cast<uint32_t>(c.height) << 16 : 0);
    w.end(tkhd);

    size_t mdia = w.begin("mdia");
    size_t mdhd = w.begin_full("mdhd", 1, 0);  // version 1: 64-bit duration (hours at 90 kHz overflow 32 bits)
    w.u64(0);  // creation_time
    w.u64(0);  // modification_time
    w.u32(t.timescale);
    *mdhd_at = w.offset();
    w.u64(0);  // duration, patched by finish()
    w.u16(0x55c4);  // language "und"
    w.u16(0);
    w.end(mdhd);

    size_t hdlr = w.begin_full("hdlr", 0, 0);
    w.u32(0);
    w.fourcc(c.video ? "vide" : "soun");
    w.zeros(12);
    const char* name = c.video ? "VideoHandler" : "SoundHandler";
    w.bytes(name, strlen(name) + 1);
    w.end(hdlr);

    size_t minf = w.begin("minf");
    if (c.video) {
        size_t vmhd = w.begin_full("vmhd", 0, 1);
        w.zeros(8);  // graphicsmode, opcolor
        w.end(vmhd);
    } else {
        size_t smhd = w.begin_full("smhd", 0, 0);
        w.zeros(4);  // balance, reserved
        w.end(smhd);
    }
    size_t dinf = w.begin("dinf");
    size_t dref = w.begin_full("dref", 0, 0);
    w.u32(1);
    size_t url = w.begin_full("url ", 0, 1);  // media in this file
    w.end(url);
    w.end(dref);
    w.end(dinf);

    size_t stbl = w.begin("stbl");
    size_t stsd = w.begin_full("stsd", 0, 0);
    w.u32(1);
    if (c.video) {
        mp4_write_visual_entry(&w, c.video_codec == VideoCodec::kH265, c.width, c.height, c.record);
    } else if (c.audio_codec == AudioCodec::kAAC) {
        mp4_write_mp4a_entry(&w, c.channels, c.sample_rate, c.record);
    } else {
        mp4_write_opus_entry(&w, c.opus);
    }
    w.end(stsd);
    // Empty sample tables: every sample is in the fragments.
    size_t stts = w.begin_full("stts", 0, 0);
    w.u32(0);  // entry_count
    w.end(stts);
    size_t stsc = w.begin_full("stsc", 0, 0);
    w.u32(0);
    w.end(stsc);
    size_t stco = w.begin_full("stco", 0, 0);
    w.u32(0);
    w.end(stco);
    size_t stsz = w.begin_full("stsz", 0, 0);
    w.u32(0);  // sample_size
    w.u32(0);  // sample_count
    w.end(stsz);
    w.end(stbl);
    w.end(minf);
    w.end(mdia);
    w.end(trak);
}

Error Mp4FragmentedMuxer::write_init(std::string* out) {
    if (init_written_) return SRS_ERR(kErrorMp4State, "init segment written twice");
    if (!video_.present && !audio_.present) return SRS_ERR(kErrorMp4State, "init segment without a track");
    const size_t base = out->size();
    Mp4BoxWriter w(out);

    size_t ftyp = w.begin("ftyp");
    w.fourcc("iso6");
    w.u32(0);
    w.fourcc("iso6");
    w.fourcc("cmfc");
    w.fourcc("isom");
    w.fourcc("mp41");
    w.end(ftyp);

    size_t moov = w.begin("moov");
    size_t mvhd = w.begin_full("mvhd", 0, 0);
    w.u32(0);  // creation_time
    w.u32(0);  // modification_time
    w.u32(kMovieTimescale);
    mvhd_duration_at_ = w.offset() - base;
    w.u32(0);  // duration, patched by finish()
    w.u32(0x00010000);  // rate 1.0
    w.u16(0x0100);      // volume 1.0
    w.zeros(10);
    w.bytes(kUnityMatrix, sizeof(kUnityMatrix));
    w.zeros(24);  // pre_defined
    w.u32(3);     // next_track_ID
    w.end(mvhd);

    for (Track* t : {&video_, &audio_}) {
        if (!t->present) continue;
        size_t tkhd_at = 0, mdhd_at = 0;
        write_trak(out, *t, &tkhd_at, &mdhd_at);
        t->tkhd_duration_at = tkhd_at - base;
        t->mdhd_duration_at = mdhd_at - base;
    }

    size_t mvex = w.begin("mvex");
    if (options_.dvr) {
        size_t mehd = w.begin_full("mehd", 1, 0);
        mehd_duration_at_ = w.offset() - base;
        w.u64(0);  // fragment_duration, patched by finish()
        w.end(mehd);
    }
    for (const Track* t : {&video_, &audio_}) {
        if (!t->present) continue;
        size_t trex = w.begin_full("trex", 0, 0);
        w.u32(t->id);
        w.u32(1);  // default_sample_description_index
        w.u32(0);  // default_sample_duration
        w.u32(0);  // default_sample_size
        w.u32(0);  // default_sample_flags
        w.end(trex);
    }
    w.end(mvex);
    w.end(moov);
    init_written_ = true;
    return Error();
}

Error Mp4FragmentedMuxer::add(Track* t, const Mp4Sample& s) {
    if (!init_written_ || finished_) return SRS_ERR(kErrorMp4State, "sample outside init..finish");
    if (!t->present) return SRS_ERR(kErrorMp4Sample, "sample for a track that is not declared");
    if (s.dts_ms < 0 || s.dts_ms < t->last_dts_ms) {
        return SRS_ERR(kErrorMp4Sample, "dts %lld after %lld", static_cast<long long>(s.dts_ms),
                       static_cast<long long>(t->last_dts_ms));
    }
    if (s.size == 0 || s.size > kMaxSampleSize) return SRS_ERR(kErrorMp4Sample, "sample of %zu bytes", s.size);
    PendingSample p;
    p.dts = to_timescale(s.dts_ms, t->timescale);
    p.cts = static_cast<int64_t>(s.cts_ms) * t->timescale / 1000;
    p.size = static_cast<uint32_t>(s.size);
    p.keyframe = t->config.video ? s.keyframe : true;
    t->samples.push_back(p);
    t->data.append(reinterpret_cast<const char*>(s.data), s.size);
    t->last_dts_ms = s.dts_ms;
    return Error();
}

Error Mp4FragmentedMuxer::add_video(const Mp4Sample& sample) {
    return add(&video_, sample);
}

Error Mp4FragmentedMuxer::add_audio(const Mp4Sample& sample) {
    return add(&audio_, sample);
}

int64_t Mp4FragmentedMuxer::pending_start_ms() const {
    int64_t first = -1;
    for (const Track* t : {&video_, &audio_}) {
        if (t->samples.empty()) continue;
        int64_t a = static_cast<int64_t>(t->samples.front().dts * 1000 / t->timescale);
        if (first < 0 || a < first) first = a;
    }
    return first;
}

void Mp4FragmentedMuxer::write_traf(std::string* out, Track* t, std::vector<size_t>* data_offset_at,
                                    int64_t next_dts_ms) {
    Mp4BoxWriter w(out);
    const std::vector<PendingSample>& s = t->samples;
    const bool video = t->config.video;

    // Durations: the distance to the next sample; the last one as the header says.
    std::vector<uint32_t> durations(s.size());
    for (size_t i = 0; i + 1 < s.size(); i++) durations[i] = static_cast<uint32_t>(s[i + 1].dts - s[i].dts);
    uint32_t last = t->last_duration;
    if (s.size() > 1) last = durations[s.size() - 2];
    if (video && next_dts_ms >= 0) {
        uint64_t next = to_timescale(next_dts_ms, t->timescale);
        if (next > s.back().dts) last = static_cast<uint32_t>(next - s.back().dts);
    }
    if (last == 0) {
        last = video ? kDefaultVideoDuration
                     : (t->config.audio_codec == AudioCodec::kOpus ? 960 : 1024);  // one frame
    }
    durations.back() = last;
    t->last_duration = last;

    bool any_cts = false, negative_cts = false;
    for (const PendingSample& p : s) {
        any_cts |= p.cts != 0;
        negative_cts |= p.cts < 0;
    }

    size_t traf = w.begin("traf");
    size_t tfhd = w.begin_full("tfhd", 0, kTfhdDefaultBaseIsMoof | (video ? 0 : kTfhdDefaultSampleFlags));
    w.u32(t->id);
    if (!video) w.u32(kSyncSampleFlags);
    w.end(tfhd);

    size_t tfdt = w.begin_full("tfdt", 1, 0);
    w.u64(s.front().dts);
    w.end(tfdt);

    uint32_t flags = kTrunDataOffset | kTrunSampleDuration | kTrunSampleSize;
    if (video) flags |= kTrunSampleFlags;
    if (any_cts) flags |= kTrunSampleCts;
    size_t trun = w.begin_full("trun", negative_cts ? 1 : 0, flags);
    w.u32(static_cast<uint32_t>(s.size()));
    data_offset_at->push_back(w.offset());
    w.u32(0);  // data_offset, set once the moof size is known
    for (size_t i = 0; i < s.size(); i++) {
        w.u32(durations[i]);
        w.u32(s[i].size);
        if (video) w.u32(s[i].keyframe ? kSyncSampleFlags : kNonSyncSampleFlags);
        if (any_cts) w.u32(static_cast<uint32_t>(static_cast<int32_t>(s[i].cts)));
    }
    w.end(trun);
    w.end(traf);

    const int64_t first_ms = static_cast<int64_t>(s.front().dts * 1000 / t->timescale);
    const int64_t end_ms = static_cast<int64_t>((s.back().dts + last) * 1000 / t->timescale);
    if (t->first_ms < 0) t->first_ms = first_ms;
    t->end_ms = std::max(t->end_ms, end_ms);
}

Error Mp4FragmentedMuxer::flush(std::string* out, Mp4FragmentInfo* info, int64_t next_dts_ms) {
    *info = Mp4FragmentInfo();
    if (!init_written_ || finished_) return SRS_ERR(kErrorMp4State, "flush outside init..finish");
    if (!has_pending()) return Error();
    const size_t start = out->size();
    Mp4BoxWriter w(out);

    if (options_.styp) {
        size_t styp = w.begin("styp");
        w.fourcc("msdh");
        w.u32(0);
        w.fourcc("msdh");
        w.fourcc("msix");
        w.end(styp);
    }

    info->sequence_number = ++sequence_;
    info->independent = video_.samples.empty() || video_.samples.front().keyframe;
    info->video_samples = static_cast<uint32_t>(video_.samples.size());
    info->audio_samples = static_cast<uint32_t>(audio_.samples.size());
    info->start_ms = -1;

    size_t moof = w.begin("moof");
    size_t mfhd = w.begin_full("mfhd", 0, 0);
    w.u32(sequence_);
    w.end(mfhd);
    std::vector<Track*> tracks;
    std::vector<size_t> data_offset_at;
    for (Track* t : {&video_, &audio_}) {
        if (t->samples.empty()) continue;
        tracks.push_back(t);
        write_traf(out, t, &data_offset_at, next_dts_ms);
        const int64_t first_ms = static_cast<int64_t>(t->samples.front().dts * 1000 / t->timescale);
        if (info->start_ms < 0 || first_ms < info->start_ms) info->start_ms = first_ms;
        info->end_ms = std::max(info->end_ms, t->end_ms);
    }
    w.end(moof);

    // mdat: each track's bytes in traf order; data_offset counts from the moof.
    size_t mdat_payload = 0;
    for (Track* t : tracks) mdat_payload += t->data.size();
    const bool large = mdat_payload + 8 > 0xffffffffu;
    size_t data_at = (out->size() - moof) + (large ? 16 : 8);
    for (size_t i = 0; i < tracks.size(); i++) {
        store_be32(&(*out)[data_offset_at[i]], static_cast<uint32_t>(data_at));
        data_at += tracks[i]->data.size();
    }
    if (large) {
        w.u32(1);
        w.fourcc("mdat");
        w.u64(mdat_payload + 16);
    } else {
        w.u32(static_cast<uint32_t>(mdat_payload + 8));
        w.fourcc("mdat");
    }
    for (Track* t : tracks) {
        out->append(t->data);
        t->data.clear();
        t->samples.clear();
    }
    info->bytes = out->size() - start;
    return Error();
}

int64_t Mp4FragmentedMuxer::duration_ms() const {
    int64_t first = -1, end = 0;
    for (const Track* t : {&video_, &audio_}) {
        if (t->first_ms < 0) continue;
        if (first < 0 || t->first_ms < first) first = t->first_ms;
        end = std::max(end, t->end_ms);
    }
    return first < 0 ? 0 : end - first;
}

Error Mp4FragmentedMuxer::finish(std::vector<Mp4Patch>* patches) {
    if (!options_.dvr || !init_written_) return SRS_ERR(kErrorMp4State, "finish without dvr or init");
    if (finished_) return SRS_ERR(kErrorMp4State, "finish twice");
    finished_ = true;
    auto patch32 = [patches](size_t at, uint64_t v) {
        Mp4Patch p;
        p.offset = at;
        p.bytes.resize(4);
        store_be32(&p.bytes[0], static_cast<uint32_t>(std::min<uint64_t>(v, 0xffffffffu)));
        patches->push_back(std::move(p));
    };
    auto patch64 = [patches](size_t at, uint64_t v) {
        Mp4Patch p;
        p.offset = at;
        p.bytes.resize(8);
        store_be64(&p.bytes[0], v);
        patches->push_back(std::move(p));
    };
    const uint64_t movie = static_cast<uint64_t>(duration_ms());
    patch32(mvhd_duration_at_, movie);
    for (const Track* t : {&video_, &audio_}) {
        if (!t->present || t->first_ms < 0) continue;
        const uint64_t ms = static_cast<uint64_t>(t->end_ms - t->first_ms);
        patch32(t->tkhd_duration_at, ms);
        patch64(t->mdhd_duration_at, to_timescale(static_cast<int64_t>(ms), t->timescale));
    }
    patch64(mehd_duration_at_, movie);
    return Error();
}

}  // namespace srs

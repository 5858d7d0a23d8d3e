#include "app/hls/hls_stream.hpp"

#include "core/log.hpp"
#include "kernel/flv/flv.hpp"
#include "kernel/mp4/mp4_flv_input.hpp"

namespace srs {

namespace {

int64_t wall_clock_ms() { return wall_us() / 1000; }

VideoCodec pmt_video(const std::string& v) {
    if (v == "h264") return VideoCodec::kH264;
    if (v == "h265" || v == "hevc") return VideoCodec::kH265;
    return VideoCodec::kUnknown;  // vn
}

AudioCodec pmt_audio(const std::string& a) {
    if (a == "aac") return AudioCodec::kAAC;
    if (a == "mp3") return AudioCodec::kMP3;
    return AudioCodec::kUnknown;  // an
}

// The folder files go under: "" stays relative to the working directory.
std::string key_folder(const HlsStreamConfig& c) { return c.key_file_path.empty() ? c.path : c.key_file_path; }

}  // namespace

void HlsStreamState::dispose() {
    disposed = true;
    if (!sink) return;
    for (const HlsSegmentEntry& s : segments) {
        sink->remove(s.path);
        for (const HlsPartEntry& p : s.parts) sink->remove(p.path);
    }
    for (const std::string& f : side_files) sink->remove(f);
    if (!m3u8_path.empty()) sink->remove(m3u8_path);
    segments.clear();
    side_files.clear();
}

HlsStream::HlsStream(HlsStreamConfig config, std::shared_ptr<HlsStreamState> state, HlsStreamEvents* events,
                     int64_t (*clock_ms)())
    : config_(std::move(config)), state_(std::move(state)), events_(events),
      clock_ms_(clock_ms ? clock_ms : wall_clock_ms),
      ts_floor_(static_cast<int64_t>(config_.cut.fragment_s * 1000)) {
    playlist_.version = config_.fmp4 ? 7 : 3;
    playlist_.fragment_s = config_.cut.fragment_s;
    playlist_.td_ratio = config_.cut.td_ratio;
    HlsPathVars v = vars(0, 0);
    state_->m3u8_path = hls_join_path(config_.path, hls_expand_path(config_.m3u8_file, v));
    state_->publishing = true;
    state_->dispose_s = config_.dispose_s;
    // A republish continues the window: its timestamps start again.
    pending_discontinuity_ = !state_->segments.empty();
    if (Error err = ts_.set_tracks(pmt_video(config_.vcodec), pmt_audio(config_.acodec)); err.failed()) {
        err.ignore();  // the enum rows allow only codecs TS carries
    }
}

HlsStream::~HlsStream() {
    if (open_ && !failed_ && !state_->disposed) {
        if (Error err = close_segment(seg_last_ms_); err.failed()) {
            srs_warn("hls %s/%s: close at unpublish: %s", state_->app.c_str(), state_->stream.c_str(),
                     err.summary().c_str());
            err.ignore();
        }
    }
    state_->publishing = false;
    state_->last_packet_us = monotonic_us();
}

HlsPathVars HlsStream::vars(int64_t seq, int64_t duration_ms) const {
    HlsPathVars v;
    v.vhost = state_->vhost;
    v.app = state_->app;
    v.stream = state_->stream;
    v.seq = seq;
    v.duration_ms = duration_ms;
    v.wall_ms = clock_ms_();
    int64_t fragment_ms = static_cast<int64_t>(config_.cut.fragment_s * 1000);
    // hls_ts_floor: the open segment's floor number (hls_ts_floor.hpp).
    v.timestamp = (config_.ts_floor && fragment_ms > 0) ? seg_floor_ : v.wall_ms;
    return v;
}

void HlsStream::on_live_message(const LiveMessagePtr& msg) {
    if (failed_ || state_->disposed || msg->is_data()) return;
    state_->last_packet_us = monotonic_us();
    const SharedBytes& p = msg->payload();
    Error err = on_frame(msg->is_video(), msg->timestamp(), msg->is_keyframe(), msg->is_sequence_header(),
                         reinterpret_cast<const uint8_t*>(p.data()), p.size());
    if (err.ok()) return;
    std::string where = state_->vhost + "/" + state_->app + "/" + state_->stream;
    if (config_.on_error == "continue") {
        // At most a line a second: a full disk fails every frame.
        utime_t now = monotonic_us();
        if (now - last_error_log_us_ >= kUsPerSecond) {
            srs_warn("hls %s: %s (hls_on_error continue; %llu more failures since the last line)", where.c_str(),
                     err.summary().c_str(), static_cast<unsigned long long>(errors_unlogged_));
            last_error_log_us_ = now;
            errors_unlogged_ = 0;
        } else {
            errors_unlogged_++;
        }
        err.ignore();
        return;
    }
    srs_error("hls %s: %s; HLS stops for this publish (hls_on_error %s)", where.c_str(), err.summary().c_str(),
              config_.on_error.c_str());
    err.ignore();
    failed_ = true;
    if (open_) {
        open_ = false;
        state_->sink->finish_segment("", false).ignore();
    }
    if (config_.on_error == "disconnect") events_->disconnect_publisher();
}

Error HlsStream::on_frame(bool video, uint32_t timestamp, bool keyframe, bool sequence_header, const uint8_t* body,
                          size_t n) {
    if (sequence_header) return on_sequence_header(video, timestamp, body, n);
    // hls_dts_directly off: audio frames take the counted clock's DTS.
    if (!video && !config_.dts_directly) timestamp = static_cast<uint32_t>(audio_clock_.next(timestamp));
    const int64_t dts = timestamp;
    if (video) seen_video_ = true;
    if (open_) {
        const int64_t duration = dts - seg_start_ms_;
        HlsCutOptions cut_rule = config_.cut;
        if (config_.ts_floor) cut_rule.slack_ms = ts_floor_.cut_slack_ms();
        bool cut = video ? hls_video_cut_due(cut_rule, duration, keyframe) : hls_audio_cut_due(cut_rule, duration);
        if (cut) {
            if (Error err = close_segment(dts); !err.ok()) return SRS_WRAP(err, "close segment %lld",
                                                                           (long long)seg_.seq);
        }
    }
    if (!open_) {
        // A segment starts where a player can start: at a keyframe once
        // the stream has video.
        if (video && !keyframe && config_.cut.wait_keyframe) return Error();
        if (!video && seen_video_ && config_.fmp4 && config_.cut.wait_keyframe) return Error();
        if (Error err = open_segment(dts); !err.ok()) return SRS_WRAP(err, "open segment");
    }
    seg_last_ms_ = std::max(seg_last_ms_, dts);
    if (config_.ll && part_due(video, dts)) {
        if (Error err = flush_part(dts); !err.ok()) return SRS_WRAP(err, "part");
    }
    int64_t& last = last_frame_ms_[video ? 1 : 0];
    if (last >= 0 && dts > last) frame_interval_ms_[video ? 1 : 0] = dts - last;
    last = dts;
    if (!config_.fmp4) {
        scratch_.clear();
        if (Error err = ts_.write_flv_tag(video ? kFlvTagVideo : kFlvTagAudio, timestamp, body, n, &scratch_);
            !err.ok()) {
            return SRS_WRAP(err, "ts mux");
        }
        return append(scratch_);
    }
    Mp4FlvFrame frame;
    if (Error err = mp4_frame_from_flv(video ? kFlvTagVideo : kFlvTagAudio, timestamp, body, n, &frame); !err.ok()) {
        return SRS_WRAP(err, "fmp4 frame");
    }
    if (frame.unsupported) note_unsupported_fmp4_codec(video, body, n);
    if (frame.kind == Mp4FlvFrame::kVideoSample && mp4_ && mp4_->has_video()) return mp4_->add_video(frame.sample);
    if (frame.kind == Mp4FlvFrame::kAudioSample && mp4_ && mp4_->has_audio()) return mp4_->add_audio(frame.sample);
    return Error();
}

// fMP4 carries H.264/H.265 and AAC/Opus only (MP3 stays on MPEG-TS, as the
// docs say): a track in another codec is left out, said once per publish.
void HlsStream::note_unsupported_fmp4_codec(bool video, const uint8_t* body, size_t n) {
    bool& noted = unsupported_noted_[video ? 1 : 0];
    if (noted) return;
    noted = true;
    std::string codec = "an unknown codec";
    if (video) {
        VideoPacketInfo info;
        Error err = parse_video_packet(body, n, &info);
        if (err.ok()) codec = video_codec_name(info.codec);
        err.ignore();  // the frame parsed before it got here
    } else {
        AudioPacketInfo info;
        Error err = parse_audio_packet(body, n, &info);
        if (err.ok()) codec = audio_codec_name(info.codec);
        err.ignore();
    }
    srs_warn("hls %s/%s/%s: fmp4 does not carry %s %s; its segments go without that track (MPEG-TS does: "
             "hls_use_fmp4 off)", state_->vhost.c_str(), state_->app.c_str(), state_->stream.c_str(),
             video ? "video" : "audio", codec.c_str());
}

Error HlsStream::on_sequence_header(bool video, uint32_t timestamp, const uint8_t* body, size_t n) {
    if (!video) audio_clock_.on_sequence_header(body, n);
    const bool changed = codecs_.on_sequence_header(video, body, n);
    if (changed) {
        // A real codec change: the segment so far ends here, the next one
        // is marked (and gets a new init segment with fMP4).
        if (open_) {
            if (Error err = close_segment(timestamp); !err.ok()) return SRS_WRAP(err, "close at codec change");
        }
        pending_discontinuity_ = true;
    }
    if (!config_.fmp4) {
        scratch_.clear();
        return ts_.write_flv_tag(video ? kFlvTagVideo : kFlvTagAudio, timestamp, body, n, &scratch_);
    }
    Mp4FlvFrame frame;
    if (Error err = mp4_frame_from_flv(video ? kFlvTagVideo : kFlvTagAudio, timestamp, body, n, &frame); !err.ok()) {
        return SRS_WRAP(err, "fmp4 config");
    }
    if (frame.kind == Mp4FlvFrame::kVideoConfig) {
        video_config_ = frame.config;
        if (!have_video_config_ || changed) init_due_ = true;
        have_video_config_ = true;
    } else if (frame.kind == Mp4FlvFrame::kAudioConfig) {
        audio_config_ = frame.config;
        if (!have_audio_config_ || changed) init_due_ = true;
        have_audio_config_ = true;
    }
    return Error();
}

Error HlsStream::write_init() {
    mp4_.reset(new Mp4FragmentedMuxer(Mp4MuxerOptions{true, false}));
    if (have_video_config_) {
        if (Error err = mp4_->set_track(video_config_); !err.ok()) return SRS_WRAP(err, "video track");
    }
    if (have_audio_config_) {
        if (Error err = mp4_->set_track(audio_config_); !err.ok()) return SRS_WRAP(err, "audio track");
    }
    std::string init;
    if (Error err = mp4_->write_init(&init); !err.ok()) return SRS_WRAP(err, "init segment");
    std::string name = hls_expand_path(config_.init_file, vars(state_->next_seq, 0));
    if (init_count_ > 0 && config_.init_file.find("[seq]") == std::string::npos) {
        // A later codec config: a new name, so segments still listed keep theirs.
        size_t dot = name.rfind('.');
        std::string suffix = "-" + std::to_string(init_count_);
        name = dot == std::string::npos || name.find('/', dot) != std::string::npos ? name + suffix
                                                                                     : name.insert(dot, suffix);
    }
    init_count_++;
    std::string path = hls_join_path(config_.path, name);
    if (Error err = state_->sink->write_file(path, init, ".tmp"); !err.ok()) return SRS_WRAP(err, "write init");
    state_->side_files.insert(path);
    init_uri_ = hls_relative_uri(hls_expand_path(config_.m3u8_file, vars(0, 0)), name);
    init_due_ = false;
    return Error();
}

Error HlsStream::start_key(HlsSegmentEntry* entry, int64_t seq) {
    if (Error err = hls_new_key(&key_); !err.ok()) return err;
    std::string name = hls_expand_path(config_.key_file, vars(seq, 0));
    std::string path = hls_join_path(key_folder(config_), name);
    if (Error err = state_->sink->write_file(path, key_.key, ".tmp"); !err.ok()) return SRS_WRAP(err, "write key");
    have_key_ = true;
    state_->side_files.insert(path);
    entry->key_path = key_path_ = path;
    entry->key_uri = config_.key_url.empty() ? hls_relative_uri(hls_expand_path(config_.m3u8_file, vars(0, 0)), name)
                                             : config_.key_url + name;
    key_uri_ = entry->key_uri;
    entry->key_iv_hex = hls_iv_hex(key_.iv);
    return Error();
}

Error HlsStream::open_segment(int64_t dts) {
    if (config_.ts_floor) {
        seg_floor_ = ts_floor_.next(clock_ms_());
        if (ts_floor_.jumped()) {
            srs_warn("hls %s/%s: hls_ts_floor numbering restarts at %lld (the segments drifted more than %lld "
                     "fragments from the clock)", state_->app.c_str(), state_->stream.c_str(),
                     static_cast<long long>(seg_floor_), static_cast<long long>(kHlsFloorJumpPieces));
        }
    }
    if (config_.fmp4 && (init_due_ || !mp4_)) {
        if (Error err = write_init(); !err.ok()) return err;
    }
    seg_ = HlsSegmentEntry();
    seg_.seq = state_->next_seq;
    seg_.discontinuity = pending_discontinuity_;
    seg_.map_uri = config_.fmp4 ? init_uri_ : "";
    if (config_.keys) {
        if (seg_.seq % config_.fragments_per_key == 0 || !have_key_) {
            if (Error err = start_key(&seg_, seg_.seq); !err.ok()) return SRS_WRAP(err, "key");
            seg_.new_key = true;
        } else {
            seg_.key_uri = key_uri_;
            seg_.key_iv_hex = hls_iv_hex(key_.iv);
            seg_.key_path = key_path_;
        }
    }
    const std::string& tmpl = config_.fmp4 ? config_.fmp4_file : config_.ts_file;
    std::string temp = hls_join_path(config_.path, hls_expand_path(tmpl, vars(seg_.seq, 0))) + ".tmp";
    if (Error err = state_->sink->begin_segment(temp); !err.ok()) return err;
    open_ = true;
    seg_start_ms_ = seg_last_ms_ = dts;
    seg_.pdt_ms = clock_ms_();
    part_start_ms_ = dts;
    open_parts_.clear();
    buffer_.clear();
    if (!config_.fmp4) {
        scratch_.clear();
        ts_.start_segment(&scratch_);
        return append(scratch_);
    }
    return Error();
}

Error HlsStream::append(const std::string& bytes) {
    if (config_.keys || config_.fmp4) {
        buffer_ += bytes;
        return Error();
    }
    return state_->sink->append_segment(bytes.data(), bytes.size());
}

Error HlsStream::close_segment(int64_t end_dts) {
    open_ = false;
    const int64_t duration = std::max<int64_t>(0, end_dts - seg_start_ms_);
    if (config_.fmp4 && mp4_ && mp4_->has_pending()) {
        Mp4FragmentInfo info;
        scratch_.clear();
        if (Error err = mp4_->flush(&scratch_, &info, end_dts > seg_last_ms_ ? end_dts : -1); !err.ok()) {
            state_->sink->finish_segment("", false).ignore();
            return SRS_WRAP(err, "fmp4 fragment");
        }
        if (config_.ll) {
            if (Error err = store_part(scratch_, end_dts, info.independent); !err.ok()) {
                state_->sink->finish_segment("", false).ignore();
                return SRS_WRAP(err, "last part");
            }
        }
        buffer_ += scratch_;
    }
    Error err;
    if (config_.keys && !buffer_.empty()) {
        std::string cipher;
        err = hls_encrypt_segment(key_, buffer_, &cipher);
        if (err.ok()) err = state_->sink->append_segment(cipher.data(), cipher.size());
    } else if (!buffer_.empty()) {
        err = state_->sink->append_segment(buffer_.data(), buffer_.size());
    }
    buffer_.clear();
    const bool keep = err.ok() && hls_segment_kept(duration);
    const std::string& tmpl = config_.fmp4 ? config_.fmp4_file : config_.ts_file;
    std::string name = hls_expand_path(tmpl, vars(seg_.seq, duration));
    std::string path = hls_join_path(config_.path, name);
    Error finished = state_->sink->finish_segment(path, keep);
    if (err.failed()) {
        finished.ignore();
        return err;
    }
    if (finished.failed()) return finished;
    std::vector<HlsPartEntry> parts;
    parts.swap(open_parts_);
    if (!keep) {
        for (const HlsPartEntry& p : parts) state_->sink->remove(p.path);
        // Too short: dropped, its number (and its marks) go to the next one.
        pending_discontinuity_ = seg_.discontinuity;
        if (seg_.new_key) have_key_ = false;
        return Error();
    }
    pending_discontinuity_ = false;
    seg_.duration_ms = duration;
    seg_.path = path;
    std::string m3u8_name = hls_expand_path(config_.m3u8_file, vars(0, 0));
    std::string uri = hls_relative_uri(m3u8_name, name);
    if (!config_.entry_prefix.empty()) {
        // SRS's rule: a prefix without a trailing slash also gets the
        // playlist's folder ("http://cdn" -> "http://cdn/live/s-0.ts").
        std::string prefix = config_.entry_prefix;
        if (prefix.back() != '/') {
            prefix += "/";
            size_t slash = m3u8_name.rfind('/');
            if (slash != std::string::npos && slash > 0) prefix += m3u8_name.substr(0, slash) + "/";
        }
        uri = prefix + uri;
    }
    seg_.uri = uri;
    seg_.parts = std::move(parts);
    state_->next_seq = seg_.seq + 1;
    state_->segments.push_back(seg_);
    if (config_.ll) {
        // Parts are listed (and kept) for the newest segments only.
        const size_t keep_parts = HlsLlPlaylist().segments_with_parts;
        for (size_t i = 0; i + keep_parts < state_->segments.size(); i++) {
            HlsSegmentEntry& old = state_->segments[i];
            for (const HlsPartEntry& p : old.parts) state_->sink->remove(p.path);
            old.parts.clear();
        }
    }
    std::vector<HlsSegmentEntry> gone = hls_shrink_window(&state_->segments, config_.window_s);
    if (Error e = write_playlist(); !e.ok()) return e;
    for (const HlsSegmentEntry& s : gone) {
        for (const HlsPartEntry& p : s.parts) state_->sink->remove(p.path);
    }
    if (config_.cleanup) {
        for (const HlsSegmentEntry& s : gone) {
            state_->sink->retire_segment(s.path);
            if (s.key_path.empty()) continue;
            // A key file goes with the last listed segment that uses it.
            bool used = false;
            for (const HlsSegmentEntry& kept : state_->segments) used = used || kept.key_path == s.key_path;
            if (!used) {
                state_->sink->remove(s.key_path);
                state_->side_files.erase(s.key_path);
            }
        }
    }
    HlsSegmentReport report;
    report.file = path;
    report.url = uri;
    report.m3u8 = state_->m3u8_path;
    report.m3u8_url = m3u8_name;
    report.seq = seg_.seq;
    report.duration_ms = duration;
    events_->on_hls_segment(state_->vhost, state_->app, state_->stream, report);
    return Error();
}

bool HlsStream::part_due(bool video, int64_t dts) const {
    if (!open_ || !mp4_ || !mp4_->has_pending()) return false;
    // With video, parts are cut on video frames (the audio between rides along).
    if (have_video_config_ && !video) return false;
    const int64_t part_ms = static_cast<int64_t>(config_.part_s * 1000 + 0.5);
    const int64_t frame = std::max<int64_t>(1, frame_interval_ms_[video ? 1 : 0]);
    return dts - part_start_ms_ + frame > part_ms;
}

std::string HlsStream::part_name(int64_t seq, size_t index) const {
    // "live/s-12.m4s" -> "live/s-12.part3.m4s"
    std::string name = hls_expand_path(config_.fmp4_file, vars(seq, 0));
    std::string mark = ".part" + std::to_string(index);
    size_t dot = name.rfind('.');
    if (dot == std::string::npos || name.find('/', dot) != std::string::npos) return name + mark;
    return name.insert(dot, mark);
}

Error HlsStream::flush_part(int64_t end_dts) {
    Mp4FragmentInfo info;
    scratch_.clear();
    if (Error err = mp4_->flush(&scratch_, &info, end_dts); !err.ok()) return SRS_WRAP(err, "fmp4 part");
    if (Error err = store_part(scratch_, end_dts, info.independent); !err.ok()) return err;
    buffer_ += scratch_;
    return write_playlist();
}

Error HlsStream::store_part(const std::string& bytes, int64_t end_dts, bool independent) {
    std::string name = part_name(seg_.seq, open_parts_.size());
    HlsPartEntry part;
    part.duration_ms = std::max<int64_t>(0, end_dts - part_start_ms_);
    part.path = hls_join_path(config_.path, name);
    part.uri = hls_relative_uri(hls_expand_path(config_.m3u8_file, vars(0, 0)), name);
    part.independent = independent;
    if (Error err = state_->sink->write_file(part.path, bytes, ".tmp"); !err.ok()) return SRS_WRAP(err, "part");
    open_parts_.push_back(std::move(part));
    part_start_ms_ = end_dts;
    return Error();
}

Error HlsStream::write_playlist() {
    HlsPlaylistUpdate u;
    if (!config_.ll) {
        u.full = render_hls_playlist(state_->segments, playlist_);
        return state_->sink->write_playlist(state_->m3u8_path, u);
    }
    HlsLlPlaylist ll;
    ll.part_target_s = config_.part_s;
    ll.open_seq = state_->next_seq;
    ll.open_started = open_;
    if (open_) {
        ll.open_pdt_ms = seg_.pdt_ms;
        ll.open_discontinuity = seg_.discontinuity;
        ll.open_map_uri = seg_.map_uri;
        ll.open_parts = open_parts_;
    }
    // The next part: of the open segment, or the first of the next one.
    const std::string m3u8_name = hls_expand_path(config_.m3u8_file, vars(0, 0));
    std::string hint = part_name(state_->next_seq, open_ ? open_parts_.size() : 0);
    ll.preload_hint_uri = hls_relative_uri(m3u8_name, hint);
    u.ll = true;
    u.full = render_ll_hls_playlist(state_->segments, playlist_, ll, false);
    u.target_duration_s = hls_ll_target_duration(state_->segments, playlist_);
    if (hls_skippable_segments(state_->segments, u.target_duration_s) > 0) {
        u.delta = render_ll_hls_playlist(state_->segments, playlist_, ll, true);
    }
    u.position.last_msn = state_->next_seq - 1;
    u.position.open_parts = open_ ? static_cast<int64_t>(open_parts_.size()) : 0;
    u.hint_path = hls_join_path(config_.path, hint);
    return state_->sink->write_playlist(state_->m3u8_path, u);
}

}  // namespace srs

#include "app/dvr/dvr_recorder.hpp"

#include <cstring>

#include "app/dvr/dvr_flv_metadata.hpp"
#include "app/hooks/http_hooks.hpp"
#include "core/log.hpp"

namespace srs {

namespace {

bool same_bytes(const LiveMessagePtr& a, const LiveMessagePtr& b) {
    if (!a || !b || a->size() != b->size()) return false;
    return a->size() == 0 || memcmp(a->payload().data(), b->payload().data(), a->size()) == 0;
}

}  // namespace

DvrRecorder::DvrRecorder(DvrSettings settings, DvrStreamName name, HookRequest hook, HttpHooks* hooks,
                         std::function<int64_t()> wall_ms)
    : settings_(std::move(settings)),
      name_(std::move(name)),
      hook_(std::move(hook)),
      hooks_(hooks),
      wall_ms_(std::move(wall_ms)),
      plan_(settings_.plan) {}

DvrRecorder::~DvrRecorder() { close_file(); }

void DvrRecorder::on_live_message(const LiveMessagePtr& msg) {
    if (failed_) return;
    Error err = handle(msg);
    if (err.ok()) return;
    srs_error("dvr %s/%s/%s: %s; recording of this publish stopped (the stream goes on)", name_.vhost.c_str(),
              name_.app.c_str(), name_.stream.c_str(), err.summary().c_str());
    err.ignore();
    if (writer_) writer_->abandon();
    writer_.reset();
    failed_ = true;
}

Error DvrRecorder::handle(const LiveMessagePtr& msg) {
    if (msg->is_data()) {
        // Kept for the next file; a file already open keeps the one it has.
        std::unique_ptr<Amf0Value> meta(new Amf0Value());
        Error err = dvr_parse_metadata(msg->payload().data(), msg->size(), meta.get());
        if (err.ok()) metadata_ = std::move(meta);
        err.ignore();  // another data message (e.g. |RtmpSampleAccess): not ours
        return Error();
    }
    if (msg->is_video()) has_video_ = true;
    if (msg->is_sequence_header()) {
        LiveMessagePtr& cached = msg->is_video() ? video_header_ : audio_header_;
        bool changed = !same_bytes(cached, msg);
        cached = msg;
        if (!writer_ || !changed) return Error();
        if (!writer_->takes_new_config()) {
            // MP4 cannot change a track's config mid-file: the next frame opens a new file.
            close_file();
            return Error();
        }
        return write_frame(msg, jitter_.correct(msg->timestamp(), settings_.jitter, msg->is_video()));
    }
    if (writer_ && plan_.cut_before(msg->timestamp(), msg->is_video(), msg->is_keyframe(), has_video_)) close_file();
    if (!writer_) return open_file(msg);
    plan_.on_written(msg->timestamp());
    return write_frame(msg, jitter_.correct(msg->timestamp(), settings_.jitter, msg->is_video()));
}

Error DvrRecorder::open_file(const LiveMessagePtr& first) {
    std::string path = expand_dvr_path(settings_.path_template, name_, wall_ms_());
    std::unique_ptr<DvrWriter> w = dvr_path_is_mp4(path) ? make_dvr_mp4_writer() : make_dvr_flv_writer();
    if (Error err = w->open(path); err.failed()) return SRS_WRAP(err, "open");
    writer_ = std::move(w);
    path_ = path;
    jitter_ = TimestampJitter();
    plan_.on_new_file();
    plan_.on_written(first->timestamp());
    // The first frame's time is the file's start: the headers carry it too.
    uint32_t ts = jitter_.correct(first->timestamp(), settings_.jitter, first->is_video());
    if (Error err = writer_->write_metadata(metadata_.get(), ts); err.failed()) return err;
    for (const LiveMessagePtr* h : {&video_header_, &audio_header_}) {
        if (!*h) continue;
        if (Error err = write_frame(*h, ts); err.failed()) return err;
    }
    srs_trace("dvr %s/%s/%s: recording to %s", name_.vhost.c_str(), name_.app.c_str(), name_.stream.c_str(),
              path.c_str());
    return write_frame(first, ts);
}

Error DvrRecorder::write_frame(const LiveMessagePtr& msg, uint32_t timestamp) {
    DvrFrame f;
    f.video = msg->is_video();
    f.timestamp = timestamp;
    f.keyframe = msg->is_keyframe();
    f.sequence_header = msg->is_sequence_header();
    f.body = &msg->payload();
    Error err = writer_->write(f);
    if (err.failed()) return SRS_WRAP(err, "write");
    return Error();
}

void DvrRecorder::close_file() {
    if (!writer_) return;
    std::unique_ptr<DvrWriter> w = std::move(writer_);
    if (w->empty()) {
        srs_warn("dvr %s/%s/%s: nothing %s records in %s, file removed", name_.vhost.c_str(), name_.app.c_str(),
                 name_.stream.c_str(), dvr_path_is_mp4(path_) ? "MP4" : "FLV", path_.c_str());
        w->discard();
        return;
    }
    int64_t duration_ms = 0;
    if (Error err = w->close(&duration_ms); err.failed()) {
        srs_error("dvr %s/%s/%s: close: %s; recording of this publish stopped", name_.vhost.c_str(),
                  name_.app.c_str(), name_.stream.c_str(), err.summary().c_str());
        err.ignore();
        w->abandon();
        failed_ = true;
        return;
    }
    files_closed_++;
    srs_trace("dvr %s/%s/%s: closed %s, %.3f s, %llu bytes", name_.vhost.c_str(), name_.app.c_str(),
              name_.stream.c_str(), path_.c_str(), duration_ms / 1000.0, (unsigned long long)w->bytes());
    if (hooks_) {
        HookRequest req = hook_;
        req.file = path_;
        hooks_->post_async(HookAction::kDvr, std::move(req));
    }
}

}  // namespace srs

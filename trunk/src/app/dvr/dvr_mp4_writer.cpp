// The MP4 recording, fragmented while it is written (beyond SRS, whose MP4
// keeps its index in memory and writes it at the end, so a crash loses the
// whole file): the init segment at offset 0 once the first frame comes (the
// tracks are known by then), then one moof+mdat per fragment, cut before
// each video keyframe or once a fragment holds kFragmentMs (audio-only
// streams, long GOPs). A crash leaves a file that plays to its last whole
// fragment (app/dvr/dvr_recovery cuts what follows at the next start). A
// clean close patches the durations into moov, so players see a normal MP4.
#include "app/dvr/dvr_file.hpp"
#include "app/dvr/dvr_writer.hpp"
#include "core/log.hpp"
#include "kernel/flv/flv.hpp"
#include "kernel/mp4/mp4_flv_input.hpp"
#include "kernel/mp4/mp4_muxer.hpp"

namespace srs {

namespace {

constexpr int64_t kFragmentMs = 1000;

class DvrMp4Writer : public DvrWriter {
  public:
    Error open(const std::string& path) override {
        muxer_.reset(new Mp4FragmentedMuxer(muxer_options()));
        init_written_ = false;
        return file_.open(path);
    }

    Error write_metadata(const Amf0Value*, uint32_t) override { return Error(); }  // MP4 has no onMetaData

    Error write(const DvrFrame& f) override {
        Mp4FlvFrame frame;
        Error err = mp4_frame_from_flv(f.video ? kFlvTagVideo : kFlvTagAudio, f.timestamp, f.body->data(),
                                       f.body->size(), &frame);
        if (err.failed()) {
            // One bad frame (or a config the muxer cannot write) is skipped;
            // the recording goes on.
            warn_once(&bad_frame_logged_, std::move(err));
            return Error();
        }
        if (frame.unsupported) {
            if (!unsupported_logged_) srs_warn("dvr mp4 %s: a codec MP4 recording does not take, skipped",
                                               file_.path().c_str());
            unsupported_logged_ = true;
            return Error();
        }
        switch (frame.kind) {
            case Mp4FlvFrame::kVideoConfig:
            case Mp4FlvFrame::kAudioConfig:
                if (init_written_) return Error();  // the recorder starts a new file for a new config
                if (Error e = muxer_->set_track(frame.config); e.failed()) {
                    warn_once(&bad_frame_logged_, std::move(e));
                }
                return Error();
            case Mp4FlvFrame::kVideoSample:
            case Mp4FlvFrame::kAudioSample:
                return add_sample(frame);
            default:
                return Error();
        }
    }

    bool takes_new_config() const override { return !init_written_; }

    Error close(int64_t* duration_ms) override {
        *duration_ms = 0;
        if (!init_written_) return SRS_ERR(kErrorMp4State, "close of an MP4 with no frame (the recorder discards it)");
        if (Error err = flush_fragment(-1); err.failed()) return err;
        std::vector<Mp4Patch> patches;
        if (Error err = muxer_->finish(&patches); err.failed()) return err;
        for (const Mp4Patch& p : patches) {
            if (Error err = file_.write_at(p.offset, p.bytes); err.failed()) return err;
        }
        *duration_ms = muxer_->duration_ms();
        return file_.close_and_rename();
    }

    void abandon() override { file_.abandon(); }
    bool empty() const override { return !init_written_; }
    void discard() override { file_.discard(); }
    uint64_t bytes() const override { return file_.size(); }

  private:
    static Mp4MuxerOptions muxer_options() {
        Mp4MuxerOptions o;
        o.dvr = true;
        return o;
    }

    // Logs the first such error of the file and consumes every one.
    void warn_once(bool* logged, Error err) {
        if (!*logged) srs_warn("dvr mp4 %s: %s, frame skipped (logged once per file)", file_.path().c_str(),
                               err.summary().c_str());
        *logged = true;
        err.ignore();
    }

    Error add_sample(const Mp4FlvFrame& frame) {
        bool video = frame.kind == Mp4FlvFrame::kVideoSample;
        if (video ? !muxer_->has_video() : !muxer_->has_audio()) return Error();  // no config for it yet
        if (!init_written_) {
            std::string init;
            if (Error err = muxer_->write_init(&init); err.failed()) return err;
            if (Error err = file_.append(init); err.failed()) return err;
            init_written_ = true;
        }
        int64_t start = muxer_->pending_start_ms();
        bool cut = start >= 0 && ((video && frame.sample.keyframe) || frame.sample.dts_ms - start >= kFragmentMs);
        if (cut) {
            if (Error err = flush_fragment(frame.sample.dts_ms); err.failed()) return err;
        }
        Error err = video ? muxer_->add_video(frame.sample) : muxer_->add_audio(frame.sample);
        // e.g. a timestamp going back (time_jitter off): that frame only.
        if (err.failed()) warn_once(&bad_frame_logged_, std::move(err));
        return Error();
    }

    Error flush_fragment(int64_t next_dts_ms) {
        std::string out;
        Mp4FragmentInfo info;
        if (Error err = muxer_->flush(&out, &info, next_dts_ms); err.failed()) return err;
        if (out.empty()) return Error();
        return file_.append(out);
    }

    DvrFile file_;
    std::unique_ptr<Mp4FragmentedMuxer> muxer_;
    bool init_written_ = false;
    bool bad_frame_logged_ = false;
    bool unsupported_logged_ = false;
};

}  // namespace

std::unique_ptr<DvrWriter> make_dvr_mp4_writer() { return std::unique_ptr<DvrWriter>(new DvrMp4Writer()); }

}  // namespace srs

// The FLV recording: FLV header, our onMetaData (duration and filesize
// patched in place on close), then every tag as it comes. Tags gather in
// memory and go to disk at each video keyframe or every 64 KiB, so a crash
// loses at most that much and the file ends on a whole tag.
#include <algorithm>

#include "app/dvr/dvr_file.hpp"
#include "app/dvr/dvr_flv_metadata.hpp"
#include "app/dvr/dvr_writer.hpp"
#include "kernel/flv/flv.hpp"

namespace srs {

namespace {

constexpr size_t kFlvFlushBytes = 64 * 1024;

class DvrFlvWriter : public DvrWriter {
  public:
    Error open(const std::string& path) override {
        buffer_.clear();
        first_ts_ = last_ts_ = -1;
        if (Error err = file_.open(path); err.failed()) return err;
        FlvWriter::write_header(&buffer_, true, true);
        return Error();
    }

    Error write_metadata(const Amf0Value* publisher, uint32_t timestamp) override {
        DvrFlvMetadata meta = dvr_flv_metadata(publisher);
        uint64_t body_at = file_.size() + buffer_.size() + kFlvTagHeaderSize;
        duration_at_ = body_at + meta.duration_at;
        filesize_at_ = body_at + meta.filesize_at;
        has_metadata_ = true;
        append_tag(kFlvTagScript, timestamp, reinterpret_cast<const uint8_t*>(meta.body.data()), meta.body.size());
        return Error();
    }

    Error write(const DvrFrame& f) override {
        if (f.body->size() > kFlvMaxDataSize) return Error();  // cannot be framed; never seen from RTMP
        if (f.video && f.keyframe && !f.sequence_header) {
            // Flushed before the keyframe: a crash leaves whole GOPs.
            if (Error err = flush(); err.failed()) return err;
        }
        if (!f.sequence_header) {
            if (first_ts_ < 0) first_ts_ = f.timestamp;
            last_ts_ = std::max<int64_t>(last_ts_, f.timestamp);
        }
        append_tag(f.video ? kFlvTagVideo : kFlvTagAudio, f.timestamp, f.body->data(), f.body->size());
        if (buffer_.size() >= kFlvFlushBytes) return flush();
        return Error();
    }

    bool takes_new_config() const override { return true; }

    Error close(int64_t* duration_ms) override {
        if (Error err = flush(); err.failed()) return err;
        *duration_ms = first_ts_ < 0 ? 0 : last_ts_ - first_ts_;
        if (has_metadata_) {
            if (Error err = file_.write_at(duration_at_, amf0_number_bytes(*duration_ms / 1000.0)); err.failed()) {
                return err;
            }
            if (Error err = file_.write_at(filesize_at_, amf0_number_bytes(static_cast<double>(file_.size())));
                err.failed()) {
                return err;
            }
        }
        return file_.close_and_rename();
    }

    void abandon() override { file_.abandon(); }
    void discard() override { file_.discard(); }
    uint64_t bytes() const override { return file_.size() + buffer_.size(); }

  private:
    void append_tag(uint8_t type, uint32_t timestamp, const uint8_t* body, size_t n) {
        uint8_t header[kFlvTagHeaderSize];
        FlvWriter::write_tag_header(header, type, timestamp, static_cast<uint32_t>(n));
        buffer_.append(reinterpret_cast<const char*>(header), sizeof(header));
        buffer_.append(reinterpret_cast<const char*>(body), n);
        uint8_t pts[kFlvPreviousTagSize];
        FlvWriter::write_previous_tag_size(pts, static_cast<uint32_t>(kFlvTagHeaderSize + n));
        buffer_.append(reinterpret_cast<const char*>(pts), sizeof(pts));
    }

    Error flush() {
        if (buffer_.empty()) return Error();
        Error err = file_.append(buffer_);
        buffer_.clear();
        return err;
    }

    DvrFile file_;
    std::string buffer_;
    bool has_metadata_ = false;
    uint64_t duration_at_ = 0;
    uint64_t filesize_at_ = 0;
    int64_t first_ts_ = -1;
    int64_t last_ts_ = -1;
};

}  // namespace

std::unique_ptr<DvrWriter> make_dvr_flv_writer() { return std::unique_ptr<DvrWriter>(new DvrFlvWriter()); }

}  // namespace srs

#include "app/hls/hls_memory_sink.hpp"

namespace srs {

Error HlsMemorySink::begin_segment(const std::string&) {
    open_ = true;
    segment_.clear();
    return Error();
}

Error HlsMemorySink::append_segment(const char* data, size_t n) {
    if (!open_) return SRS_ERR(kErrorFileWrite, "no segment open");
    segment_.append(data, n);
    return Error();
}

Error HlsMemorySink::finish_segment(const std::string& final_path, bool keep) {
    if (!open_) return SRS_ERR(kErrorFileWrite, "no segment open");
    open_ = false;
    if (keep) store_->put(final_path, std::move(segment_));
    segment_ = std::string();
    return Error();
}

Error HlsMemorySink::write_file(const std::string& path, const std::string& bytes, const char*) {
    store_->put(path, bytes);
    return Error();
}

void HlsMemorySink::remove(const std::string& path) { store_->remove(path); }

Error HlsMemorySink::write_playlist(const std::string& path, const HlsPlaylistUpdate& u) {
    HlsMemoryPlaylist p;
    p.full = std::make_shared<const std::string>(u.full);
    if (!u.delta.empty()) p.delta = std::make_shared<const std::string>(u.delta);
    p.ll = u.ll;
    p.position = u.position;
    p.target_duration_s = u.target_duration_s;
    p.hint_key = u.hint_path;
    store_->put_playlist(path, std::move(p));
    return Error();
}

}  // namespace srs

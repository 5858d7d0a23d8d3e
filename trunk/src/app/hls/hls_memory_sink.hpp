// The HLS sink of hls_storage memory (and LL-HLS): files go into the
// server's HlsMemoryStore under the paths a disk sink would write, nothing
// touches the disk. A segment is collected while it is written and stored
// whole when it is kept; the temporary name is never stored.
#pragma once

#include "app/hls/hls_sink.hpp"
#include "app/live/hls_memory_store.hpp"

namespace srs {

class HlsMemorySink : public HlsSink {
  public:
    explicit HlsMemorySink(HlsMemoryStore* store) : store_(store) {}
    Error begin_segment(const std::string& temp_path) override;
    Error append_segment(const char* data, size_t n) override;
    Error finish_segment(const std::string& final_path, bool keep) override;
    Error write_file(const std::string& path, const std::string& bytes, const char* temp_suffix) override;
    void remove(const std::string& path) override;
    Error write_playlist(const std::string& path, const HlsPlaylistUpdate& update) override;

  private:
    HlsMemoryStore* store_;
    bool open_ = false;
    std::string segment_;
};

}  // namespace srs

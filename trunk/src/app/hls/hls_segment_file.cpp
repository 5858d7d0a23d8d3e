#include "app/hls/hls_segment_file.hpp"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace srs {

HlsSegmentFile::HlsSegmentFile(size_t flush_bytes) : flush_bytes_(std::max<size_t>(1, flush_bytes)) {}

HlsSegmentFile::~HlsSegmentFile() { abandon(); }

Error HlsSegmentFile::open(const std::string& path) {
    abandon();
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) return SRS_ERR(kErrorFileOpen, "open %s: %s", path.c_str(), strerror(errno));
    struct stat st;
    size_before_ = ::fstat(fd_, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
    written_ = 0;
    path_ = path;
    buffer_.reserve(flush_bytes_);
    return Error();
}

Error HlsSegmentFile::append(const char* data, size_t n) {
    if (fd_ < 0) return SRS_ERR(kErrorFileWrite, "write %s: not open", path_.c_str());
    while (n > 0) {
        // A piece as large as the buffer (a whole fMP4 or encrypted
        // segment) goes straight out, without a copy.
        if (buffer_.empty() && n >= flush_bytes_) return write_out(data, n);
        size_t take = std::min(n, flush_bytes_ - buffer_.size());
        buffer_.append(data, take);
        data += take;
        n -= take;
        if (buffer_.size() < flush_bytes_) break;
        Error err = write_out(buffer_.data(), buffer_.size());
        buffer_.clear();
        if (err.failed()) return err;
    }
    return Error();
}

Error HlsSegmentFile::close() {
    if (fd_ < 0) return SRS_ERR(kErrorFileWrite, "close %s: not open", path_.c_str());
    Error err;
    if (!buffer_.empty()) err = write_out(buffer_.data(), buffer_.size());
    buffer_.clear();
    if (err.ok() && size_before_ > written_ && ::ftruncate(fd_, static_cast<off_t>(written_)) != 0) {
        err = SRS_ERR(kErrorFileWrite, "truncate %s: %s", path_.c_str(), strerror(errno));
    }
    if (::close(fd_) != 0 && err.ok()) err = SRS_ERR(kErrorFileWrite, "close %s: %s", path_.c_str(), strerror(errno));
    fd_ = -1;
    return err;
}

void HlsSegmentFile::abandon() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    buffer_.clear();
}

Error HlsSegmentFile::write_out(const char* data, size_t n) {
    while (n > 0) {
        ssize_t w = ::write(fd_, data, n);
        writes_++;
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            return SRS_ERR(kErrorFileWrite, "write %s: %s", path_.c_str(), w < 0 ? strerror(errno) : "no progress");
        }
        data += w;
        n -= static_cast<size_t>(w);
        written_ += static_cast<uint64_t>(w);
    }
    return Error();
}

}  // namespace srs

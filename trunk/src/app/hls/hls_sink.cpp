#include "app/hls/hls_sink.hpp"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

namespace srs {

namespace {

Error write_all(int fd, const char* data, size_t n, const std::string& path) {
    while (n > 0) {
        ssize_t w = ::write(fd, data, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return SRS_ERR(kErrorFileWrite, "write %s: %s", path.c_str(), strerror(errno));
        data += w;
        n -= static_cast<size_t>(w);
    }
    return Error();
}

}  // namespace

Error hls_make_parent_folders(const std::string& path) {
    // Usually the folder is there (every segment of a stream goes to the
    // same one): one stat instead of a mkdir per path component.
    size_t last = path.rfind('/');
    if (last == std::string::npos || last == 0) return Error();
    struct stat st;
    if (::stat(path.substr(0, last).c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return Error();
    for (size_t at = path.find('/', 1); at != std::string::npos; at = path.find('/', at + 1)) {
        std::string dir = path.substr(0, at);
        if (dir == "." || dir == "..") continue;
        if (::mkdir(dir.c_str(), 0755) < 0 && errno != EEXIST) {
            return SRS_ERR(kErrorFileOpen, "mkdir %s: %s", dir.c_str(), strerror(errno));
        }
    }
    return Error();
}

HlsDiskSink::~HlsDiskSink() {
    if (fd_ >= 0) {
        ::close(fd_);
        ::unlink(temp_path_.c_str());
    }
}

Error HlsDiskSink::begin_segment(const std::string& temp_path) {
    if (fd_ >= 0) {
        ::close(fd_);
        ::unlink(temp_path_.c_str());
        fd_ = -1;
    }
    if (Error err = hls_make_parent_folders(temp_path); !err.ok()) return err;
    fd_ = ::open(temp_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) return SRS_ERR(kErrorFileOpen, "open %s: %s", temp_path.c_str(), strerror(errno));
    temp_path_ = temp_path;
    return Error();
}

Error HlsDiskSink::append_segment(const char* data, size_t n) {
    if (fd_ < 0) return SRS_ERR(kErrorFileWrite, "no segment open");
    return write_all(fd_, data, n, temp_path_);
}

Error HlsDiskSink::finish_segment(const std::string& final_path, bool keep) {
    if (fd_ < 0) return SRS_ERR(kErrorFileWrite, "no segment open");
    ::close(fd_);
    fd_ = -1;
    if (!keep) {
        ::unlink(temp_path_.c_str());
        return Error();
    }
    if (Error err = hls_make_parent_folders(final_path); !err.ok()) return err;
    if (::rename(temp_path_.c_str(), final_path.c_str()) < 0) {
        Error err = SRS_ERR(kErrorFileWrite, "rename %s to %s: %s", temp_path_.c_str(), final_path.c_str(),
                            strerror(errno));
        ::unlink(temp_path_.c_str());
        return err;
    }
    return Error();
}

Error HlsDiskSink::write_file(const std::string& path, const std::string& bytes, const char* temp_suffix) {
    if (Error err = hls_make_parent_folders(path); !err.ok()) return err;
    std::string temp = path + temp_suffix;
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return SRS_ERR(kErrorFileOpen, "open %s: %s", temp.c_str(), strerror(errno));
    Error err = write_all(fd, bytes.data(), bytes.size(), temp);
    ::close(fd);
    if (err.ok() && ::rename(temp.c_str(), path.c_str()) < 0) {
        err = SRS_ERR(kErrorFileWrite, "rename %s: %s", temp.c_str(), strerror(errno));
    }
    if (err.failed()) ::unlink(temp.c_str());
    return err;
}

void HlsDiskSink::remove(const std::string& path) { ::unlink(path.c_str()); }

}  // namespace srs

#include "app/dvr/dvr_file.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

namespace srs {

Error dvr_make_parent_dirs(const std::string& path) {
    size_t slash = path.rfind('/');
    if (slash == std::string::npos || slash == 0) return Error();
    std::string dir = path.substr(0, slash);
    for (size_t at = 1; at <= dir.size(); at++) {
        if (at != dir.size() && dir[at] != '/') continue;
        std::string part = dir.substr(0, at);
        if (mkdir(part.c_str(), 0755) == 0 || errno == EEXIST) continue;
        return SRS_ERR(kErrorFileOpen, "mkdir %s: %s", part.c_str(), strerror(errno));
    }
    return Error();
}

DvrFile::~DvrFile() { abandon(); }

Error DvrFile::open(const std::string& path) {
    abandon();
    path_ = path;
    size_ = 0;
    if (Error err = dvr_make_parent_dirs(path); err.failed()) return err;
    std::string tmp = temp_path();
    fd_ = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) return SRS_ERR(kErrorFileOpen, "open %s: %s", tmp.c_str(), strerror(errno));
    // Held while recording, let go by the kernel when the process dies: a
    // server starting beside this one (several processes on one machine)
    // must not take this file for a leftover of a crash.
    if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        abandon();
        return SRS_ERR(kErrorFileOpen, "lock %s: %s", tmp.c_str(), strerror(e));
    }
    return Error();
}

Error DvrFile::append(const std::string& bytes) {
    if (fd_ < 0) return SRS_ERR(kErrorFileWrite, "write %s: not open", temp_path().c_str());
    size_t done = 0;
    while (done < bytes.size()) {
        ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int e = n < 0 ? errno : ENOSPC;
            return SRS_ERR(kErrorFileWrite, "write %s at %llu: %s", temp_path().c_str(),
                           (unsigned long long)(size_ + done), strerror(e));
        }
        done += static_cast<size_t>(n);
    }
    size_ += done;
    return Error();
}

Error DvrFile::write_at(uint64_t offset, const std::string& bytes) {
    if (fd_ < 0) return SRS_ERR(kErrorFileWrite, "write %s: not open", temp_path().c_str());
    ssize_t n = ::pwrite(fd_, bytes.data(), bytes.size(), static_cast<off_t>(offset));
    if (n != static_cast<ssize_t>(bytes.size())) {
        return SRS_ERR(kErrorFileWrite, "patch %s at %llu: %s", temp_path().c_str(), (unsigned long long)offset,
                       n < 0 ? strerror(errno) : "short write");
    }
    return Error();
}

Error DvrFile::close_and_rename() {
    if (fd_ < 0) return SRS_ERR(kErrorFileWrite, "close %s: not open", temp_path().c_str());
    int rc = ::close(fd_);
    fd_ = -1;
    std::string tmp = temp_path();
    if (rc != 0) return SRS_ERR(kErrorFileWrite, "close %s: %s", tmp.c_str(), strerror(errno));
    if (::rename(tmp.c_str(), path_.c_str()) != 0) {
        return SRS_ERR(kErrorFileWrite, "rename %s to %s: %s", tmp.c_str(), path_.c_str(), strerror(errno));
    }
    return Error();
}

void DvrFile::discard() {
    if (fd_ < 0) return;
    abandon();
    ::unlink(temp_path().c_str());
}

void DvrFile::abandon() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

}  // namespace srs

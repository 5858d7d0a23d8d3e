#include "app/hls/hls_sink.hpp"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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
    if (file_.is_open()) {
        file_.abandon();
        ::unlink(file_.path().c_str());
    }
    release_kept();
}

Error HlsDiskSink::begin_segment(const std::string& temp_path) {
    if (file_.is_open()) {
        file_.abandon();
        ::unlink(file_.path().c_str());
    }
    if (Error err = hls_make_parent_folders(temp_path); !err.ok()) return err;
    if (!spares_.empty() && monotonic_us() - spares_.front().retired_at >= reuse_grace_us_) {
        // Its inode becomes this segment's (written over, cut at close). If
        // it is gone or on another file system, a new file is made instead.
        const std::string& spare = spares_.front().path;
        if (::rename(spare.c_str(), temp_path.c_str()) != 0) ::unlink(spare.c_str());
        spares_.pop_front();
    }
    Error err = file_.open(temp_path);
    if (err.failed()) ::unlink(temp_path.c_str());  // a recycled file renamed there
    return err;
}

Error HlsDiskSink::append_segment(const char* data, size_t n) {
    if (!file_.is_open()) return SRS_ERR(kErrorFileWrite, "no segment open");
    return file_.append(data, n);
}

Error HlsDiskSink::finish_segment(const std::string& final_path, bool keep) {
    if (!file_.is_open()) return SRS_ERR(kErrorFileWrite, "no segment open");
    const std::string temp = file_.path();
    if (!keep) {
        file_.abandon();
        ::unlink(temp.c_str());
        return Error();
    }
    // Complete before it gets its final name: a reader of that name never
    // sees a part of it.
    if (Error err = file_.close(); !err.ok()) {
        ::unlink(temp.c_str());
        return err;
    }
    // begin_segment made the temporary name's folder; only another one is checked.
    const bool same_folder = final_path.substr(0, final_path.rfind('/') + 1) == temp.substr(0, temp.rfind('/') + 1);
    if (!same_folder) {
        if (Error err = hls_make_parent_folders(final_path); !err.ok()) return err;
    }
    if (::rename(temp.c_str(), final_path.c_str()) < 0) {
        Error err = SRS_ERR(kErrorFileWrite, "rename %s to %s: %s", temp.c_str(), final_path.c_str(), strerror(errno));
        ::unlink(temp.c_str());
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

Error HlsDiskSink::write_playlist(const std::string& path, const HlsPlaylistUpdate& update) {
    if (Error err = hls_make_parent_folders(path); !err.ok()) return err;
    const std::string temp = path + ".temp";
    // Usually the previous version, left here by the last exchange: written
    // over (no inode made, no truncation to zero; see HlsSegmentFile).
    HlsSegmentFile file(1);  // unbuffered: the whole text is one write
    Error err = file.open(temp);
    if (err.ok()) err = file.append(update.full.data(), update.full.size());
    if (err.ok()) err = file.close();
    if (err.failed()) {
        ::unlink(temp.c_str());
        kept_temps_.erase(temp);
        return err;
    }
    // A reader of the playlist sees the old version or the new one, as
    // with a rename; the old one stays under the temporary name.
    if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) == 0) {
        kept_temps_.insert(temp);
        return Error();
    }
    // The first version (no playlist to swap with), or a file system
    // without the exchange: a plain rename.
    kept_temps_.erase(temp);
    if (::rename(temp.c_str(), path.c_str()) < 0) {
        err = SRS_ERR(kErrorFileWrite, "rename %s: %s", temp.c_str(), strerror(errno));
        ::unlink(temp.c_str());
    }
    return err;
}

void HlsDiskSink::remove(const std::string& path) {
    ::unlink(path.c_str());
    auto kept = kept_temps_.find(path + ".temp");
    if (kept == kept_temps_.end()) return;
    ::unlink(kept->c_str());
    kept_temps_.erase(kept);
}

void HlsDiskSink::retire_segment(const std::string& path) {
    std::string spare = path + ".retired";
    if (::rename(path.c_str(), spare.c_str()) != 0) return;  // already gone
    spares_.push_back(Spare{std::move(spare), monotonic_us()});
    while (spares_.size() > kMaxSpares) {
        ::unlink(spares_.front().path.c_str());
        spares_.pop_front();
    }
}

void HlsDiskSink::release_kept() {
    for (const Spare& spare : spares_) ::unlink(spare.path.c_str());
    spares_.clear();
    for (const std::string& temp : kept_temps_) ::unlink(temp.c_str());
    kept_temps_.clear();
}

}  // namespace srs

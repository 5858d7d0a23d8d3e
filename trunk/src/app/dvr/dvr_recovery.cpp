#include "app/dvr/dvr_recovery.hpp"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "app/dvr/dvr_flv_metadata.hpp"
#include "core/bytes.hpp"
#include "kernel/flv/flv.hpp"
#include "kernel/mp4/mp4_recovery.hpp"

namespace srs {

namespace {

const std::string kTmpSuffix = ".tmp";

bool ends_with_tmp(const std::string& s) {
    return s.size() > kTmpSuffix.size() && s.compare(s.size() - kTmpSuffix.size(), kTmpSuffix.size(), kTmpSuffix) == 0;
}

struct Walk {
    std::string tmpl;
    bool strip_dot = false;  // the root is "." and the template does not say "./"
    size_t max_files;
    size_t entries = 0;
    std::vector<std::string> found;
};

void walk(Walk* w, const std::string& dir, int depth) {
    DIR* d = opendir(dir.c_str());
    if (!d) return;  // a root that does not exist yet: nothing was recorded there
    std::vector<std::string> subdirs;
    while (struct dirent* e = readdir(d)) {
        if (++w->entries > kDvrRecoveryMaxEntries || w->found.size() >= w->max_files) break;
        std::string name = e->d_name;
        if (name == "." || name == "..") continue;
        std::string path = dir == "/" ? "/" + name : dir + "/" + name;
        struct stat st;
        if (lstat(path.c_str(), &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            if (depth > 0) subdirs.push_back(path);
            continue;
        }
        if (!S_ISREG(st.st_mode) || !ends_with_tmp(name)) continue;
        std::string final_name = path.substr(0, path.size() - kTmpSuffix.size());
        if (w->strip_dot && final_name.compare(0, 2, "./") == 0) final_name = final_name.substr(2);
        if (match_dvr_path(w->tmpl, final_name, nullptr)) w->found.push_back(path);
    }
    closedir(d);
    std::sort(subdirs.begin(), subdirs.end());
    for (const std::string& s : subdirs) walk(w, s, depth - 1);
}

Error read_at(int fd, uint64_t offset, size_t n, uint8_t* out, size_t* got) {
    size_t done = 0;
    while (done < n) {
        ssize_t r = pread(fd, out + done, n - done, static_cast<off_t>(offset + done));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return SRS_ERR(kErrorFileRead, "pread at %llu: %s", (unsigned long long)offset, strerror(errno));
        if (r == 0) break;
        done += static_cast<size_t>(r);
    }
    *got = done;
    return Error();
}

// The length of the whole tags of an FLV, with its first and last media
// timestamps and where its onMetaData numbers are (0 when not ours).
Error scan_flv(int fd, uint64_t size, uint64_t* keep, int64_t* duration_ms, uint64_t* duration_at,
               uint64_t* filesize_at) {
    *keep = 0;
    *duration_ms = -1;
    *duration_at = *filesize_at = 0;
    uint8_t head[kFlvHeaderSize + kFlvPreviousTagSize];
    size_t got = 0;
    if (Error err = read_at(fd, 0, sizeof(head), head, &got); err.failed()) return err;
    if (got < sizeof(head) || memcmp(head, "FLV", 3) != 0) return Error();
    uint64_t at = sizeof(head);
    int64_t first_ts = -1, last_ts = -1;
    bool first_tag = true;
    while (at + kFlvTagHeaderSize <= size) {
        uint8_t th[kFlvTagHeaderSize];
        if (Error err = read_at(fd, at, sizeof(th), th, &got); err.failed()) return err;
        if (got < sizeof(th)) break;
        uint8_t type = th[0] & 0x1f;
        uint32_t data_size = load_be24(th + 1);
        uint32_t ts = load_be24(th + 4) | (static_cast<uint32_t>(th[7]) << 24);
        if (type != kFlvTagAudio && type != kFlvTagVideo && type != kFlvTagScript) break;
        uint64_t end = at + kFlvTagHeaderSize + data_size + kFlvPreviousTagSize;
        if (end > size) break;
        if (first_tag && type == kFlvTagScript && data_size <= 64 * 1024) {
            std::string body(data_size, '\0');
            if (Error err = read_at(fd, at + kFlvTagHeaderSize, data_size, reinterpret_cast<uint8_t*>(&body[0]), &got);
                err.failed()) {
                return err;
            }
            size_t d = 0, f = 0;
            if (got == data_size && dvr_find_metadata_fields(body, &d, &f)) {
                *duration_at = at + kFlvTagHeaderSize + d;
                *filesize_at = at + kFlvTagHeaderSize + f;
            }
        }
        if (type != kFlvTagScript) {
            if (first_ts < 0) first_ts = ts;
            last_ts = std::max<int64_t>(last_ts, ts);
        }
        first_tag = false;
        at = end;
    }
    *keep = at;
    if (first_ts >= 0) *duration_ms = last_ts - first_ts;
    return Error();
}

Error pwrite_all(int fd, uint64_t offset, const std::string& bytes) {
    if (pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset)) != static_cast<ssize_t>(bytes.size())) {
        return SRS_ERR(kErrorFileWrite, "pwrite at %llu: %s", (unsigned long long)offset, strerror(errno));
    }
    return Error();
}

Error recover_open(int fd, const std::string& tmp_path, DvrRecovered* out) {
    struct stat st;
    if (fstat(fd, &st) != 0) return SRS_ERR(kErrorFileRead, "stat: %s", strerror(errno));
    uint64_t size = static_cast<uint64_t>(st.st_size);
    std::string final_name = tmp_path.substr(0, tmp_path.size() - kTmpSuffix.size());
    uint64_t keep = 0;
    bool mp4 = dvr_path_is_mp4(final_name);
    if (mp4) {
        Mp4Recovery r;
        auto reader = [fd](uint64_t offset, size_t n, uint8_t* buf, size_t* got) {
            return read_at(fd, offset, n, buf, got);
        };
        if (Error err = mp4_scan_recovery(size, reader, &r); err.failed()) return err;
        if (!r.has_moov || r.length == 0) {
            return SRS_ERR(kErrorFileRead, "no complete init segment in %llu bytes: left as it is",
                           (unsigned long long)size);
        }
        keep = r.length;
        out->fragments = r.fragments;
        // The moov's durations were 0 (written at a clean close): the kept fragments' time.
        for (const Mp4Patch& p : r.patches) {
            if (p.offset + p.bytes.size() > keep) continue;
            if (Error err = pwrite_all(fd, p.offset, p.bytes); err.failed()) return SRS_WRAP(err, "moov duration");
        }
        out->duration_ms = r.duration_ms;
    } else {
        uint64_t duration_at = 0, filesize_at = 0;
        if (Error err = scan_flv(fd, size, &keep, &out->duration_ms, &duration_at, &filesize_at); err.failed()) {
            return err;
        }
        if (keep == 0) return SRS_ERR(kErrorFileRead, "no FLV header in %llu bytes: left as it is",
                                      (unsigned long long)size);
        if (duration_at && duration_at + 8 <= keep && filesize_at + 8 <= keep) {
            double seconds = out->duration_ms < 0 ? 0 : out->duration_ms / 1000.0;
            if (Error err = pwrite_all(fd, duration_at, amf0_number_bytes(seconds)); err.failed()) return err;
            if (Error err = pwrite_all(fd, filesize_at, amf0_number_bytes(static_cast<double>(keep))); err.failed()) {
                return err;
            }
        }
    }
    if (keep < size && ftruncate(fd, static_cast<off_t>(keep)) != 0) {
        return SRS_ERR(kErrorFileWrite, "truncate to %llu: %s", (unsigned long long)keep, strerror(errno));
    }
    out->bytes = keep;
    out->cut_bytes = size - keep;
    out->path = final_name;
    return Error();
}

}  // namespace

std::vector<std::string> dvr_find_leftovers(const std::string& tmpl, size_t max_files) {
    Walk w;
    w.tmpl = tmpl;
    w.max_files = max_files;
    int depth = 0;
    std::string root = dvr_search_root(tmpl, &depth);
    w.strip_dot = root == "." && tmpl.compare(0, 2, "./") != 0;
    walk(&w, root, depth);
    return w.found;
}

Error dvr_recover_file(const std::string& tmp_path, DvrRecovered* out) {
    if (!ends_with_tmp(tmp_path)) return SRS_ERR(kErrorFileOpen, "%s: not a temporary name", tmp_path.c_str());
    int fd = open(tmp_path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return SRS_ERR(kErrorFileOpen, "open %s: %s", tmp_path.c_str(), strerror(errno));
    // A recording in progress (another server process) holds the lock.
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        close(fd);
        return SRS_ERR(kErrorFileOpen, "%s is being recorded by a running process (%s): left as it is",
                       tmp_path.c_str(), strerror(e));
    }
    Error err = recover_open(fd, tmp_path, out);
    close(fd);
    if (err.failed()) return SRS_WRAP(err, "recover %s", tmp_path.c_str());
    if (rename(tmp_path.c_str(), out->path.c_str()) != 0) {
        return SRS_ERR(kErrorFileWrite, "rename %s to %s: %s", tmp_path.c_str(), out->path.c_str(), strerror(errno));
    }
    return Error();
}

}  // namespace srs

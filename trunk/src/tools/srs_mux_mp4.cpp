// srs_mux_mp4: an FLV file to fragmented MP4 with kernel/mp4, the muxer HLS
// fMP4 and DVR MP4 use; the black-box test compares its output with ffmpeg's.
//
//   objs/srs_mux_mp4 fmp4 in.flv out_dir   init.mp4 + seg-1.m4s, seg-2.m4s, ...
//   objs/srs_mux_mp4 mp4 in.flv out.mp4    one fragmented file, durations patched at close
//   objs/srs_mux_mp4 recover file.mp4       truncate an unclosed recording to its last complete fragment
//
// Options (before the mode): --fragment MS cuts at the first video keyframe
// once a fragment holds MS (default 2000; audio-only streams cut at MS);
// --no-close (mp4) leaves the file as a killed recorder would: no patches.
// Each fragment is reported on stdout as one line:
//   fragment SEQ start_ms=S duration_ms=D video=N audio=M independent=0|1 bytes=B
// The tracks are the first video and audio sequence headers of the file; a
// later different header is reported and its track's frames skipped (a new
// init segment is the server's business, not this tool's).
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kernel/flv/flv.hpp"
#include "kernel/mp4/mp4_flv_input.hpp"
#include "kernel/mp4/mp4_muxer.hpp"
#include "kernel/mp4/mp4_recovery.hpp"

using namespace srs;

namespace {

int usage() {
    fprintf(stderr, "usage: srs_mux_mp4 [--fragment MS] [--no-close] fmp4|mp4 in.flv out_dir|out.mp4\n"
                    "       srs_mux_mp4 recover file.mp4\n");
    return 2;
}

Error read_file(const std::string& path, std::string* out) {
    FILE* f = fopen(path.c_str(), "rb");
    if (!f) return SRS_ERR(kErrorFileOpen, "open %s: %s", path.c_str(), strerror(errno));
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) out->append(buf, n);
    const bool bad = ferror(f);
    fclose(f);
    if (bad) return SRS_ERR(kErrorFileRead, "read %s", path.c_str());
    return Error();
}

Error write_file(const std::string& path, const std::string& bytes) {
    FILE* f = fopen(path.c_str(), "wb");
    if (!f) return SRS_ERR(kErrorFileOpen, "open %s: %s", path.c_str(), strerror(errno));
    const bool ok = fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
    if (fclose(f) != 0 || !ok) return SRS_ERR(kErrorFileWrite, "write %s", path.c_str());
    return Error();
}

struct Sink {
    bool split = false;   // fmp4: a file per segment
    std::string out;      // directory (fmp4) or file (mp4)
    FILE* file = nullptr;  // mp4
};

Error emit(Sink* sink, const std::string& bytes, uint32_t seq) {
    if (sink->split) return write_file(sink->out + "/seg-" + std::to_string(seq) + ".m4s", bytes);
    if (fwrite(bytes.data(), 1, bytes.size(), sink->file) != bytes.size()) {
        return SRS_ERR(kErrorFileWrite, "write %s", sink->out.c_str());
    }
    return Error();
}

Error flush(Mp4FragmentedMuxer* mux, Sink* sink, int64_t next_dts) {
    std::string bytes;
    Mp4FragmentInfo info;
    if (Error err = mux->flush(&bytes, &info, next_dts); !err.ok()) return err;
    if (info.bytes == 0) return Error();
    printf("fragment %u start_ms=%lld duration_ms=%lld video=%u audio=%u independent=%d bytes=%zu\n",
           info.sequence_number, static_cast<long long>(info.start_ms),
           static_cast<long long>(info.end_ms - info.start_ms), info.video_samples, info.audio_samples,
           info.independent ? 1 : 0, info.bytes);
    return emit(sink, bytes, info.sequence_number);
}

Error run(const std::string& mode, const std::string& in, const std::string& out, int64_t fragment_ms,
          bool close_file) {
    std::string flv;
    if (Error err = read_file(in, &flv); !err.ok()) return err;
    FlvReader reader;
    std::vector<FlvTag> tags;
    size_t used = 0;
    if (Error err = reader.feed(reinterpret_cast<const uint8_t*>(flv.data()), flv.size(), &used, &tags); !err.ok()) {
        return SRS_WRAP(err, "parse %s", in.c_str());
    }
    if (used < flv.size()) fprintf(stderr, "warning: %zu bytes of a partial tag at the end\n", flv.size() - used);

    // The tracks: the first sequence header of each kind.
    Mp4MuxerOptions options;
    options.styp = mode == "fmp4";
    options.dvr = mode == "mp4";
    Mp4FragmentedMuxer mux(options);
    std::string video_record, audio_record;
    for (const FlvTag& t : tags) {
        Mp4FlvFrame f;
        if (Error err = mp4_frame_from_flv(t.type, t.timestamp, t.data.data(), t.data.size(), &f); !err.ok()) {
            fprintf(stderr, "warning: tag at %u ms skipped: %s\n", t.timestamp, err.summary().c_str());
            err.ignore();
            continue;
        }
        bool video = f.kind == Mp4FlvFrame::kVideoConfig;
        if (f.kind != Mp4FlvFrame::kVideoConfig && f.kind != Mp4FlvFrame::kAudioConfig) continue;
        if (video ? mux.has_video() : mux.has_audio()) continue;
        if (Error err = mux.set_track(f.config); !err.ok()) return err;
        (video ? video_record : audio_record) = f.config.record;
    }
    if (!mux.has_video() && !mux.has_audio()) return SRS_ERR(kErrorMp4Track, "%s has no H.264/H.265/AAC/Opus", in.c_str());

    Sink sink;
    sink.split = mode == "fmp4";
    sink.out = out;
    std::string init;
    if (Error err = mux.write_init(&init); !err.ok()) return err;
    if (sink.split) {
        if (Error err = write_file(out + "/init.mp4", init); !err.ok()) return err;
    } else {
        sink.file = fopen(out.c_str(), "wb");
        if (!sink.file) return SRS_ERR(kErrorFileOpen, "open %s: %s", out.c_str(), strerror(errno));
        if (Error err = emit(&sink, init, 0); !err.ok()) return err;
    }

    Error result;
    bool video_seen = false;
    for (const FlvTag& t : tags) {
        Mp4FlvFrame f;
        if (Error err = mp4_frame_from_flv(t.type, t.timestamp, t.data.data(), t.data.size(), &f); !err.ok()) {
            err.ignore();  // reported above
            continue;
        }
        if (f.kind == Mp4FlvFrame::kVideoConfig || f.kind == Mp4FlvFrame::kAudioConfig) {
            const std::string& first = f.kind == Mp4FlvFrame::kVideoConfig ? video_record : audio_record;
            if (f.config.record != first) fprintf(stderr, "warning: a new sequence header at %u ms\n", t.timestamp);
            continue;
        }
        if (f.kind == Mp4FlvFrame::kVideoSample && mux.has_video()) {
            if (!video_seen && !f.sample.keyframe) continue;  // start at the first keyframe
            video_seen = true;
            if (f.sample.keyframe && mux.has_pending() && f.sample.dts_ms - mux.pending_start_ms() >= fragment_ms) {
                if (Error err = flush(&mux, &sink, f.sample.dts_ms); !err.ok()) { result = std::move(err); break; }
            }
            if (Error err = mux.add_video(f.sample); !err.ok()) {
                fprintf(stderr, "warning: video at %u ms: %s\n", t.timestamp, err.summary().c_str());
                err.ignore();
            }
        } else if (f.kind == Mp4FlvFrame::kAudioSample && mux.has_audio()) {
            if (mux.has_video() && !video_seen) continue;
            if (!mux.has_video() && mux.has_pending() && f.sample.dts_ms - mux.pending_start_ms() >= fragment_ms) {
                if (Error err = flush(&mux, &sink, f.sample.dts_ms); !err.ok()) { result = std::move(err); break; }
            }
            if (Error err = mux.add_audio(f.sample); !err.ok()) {
                fprintf(stderr, "warning: audio at %u ms: %s\n", t.timestamp, err.summary().c_str());
                err.ignore();
            }
        }
    }
    if (result.ok()) result = flush(&mux, &sink, -1);
    if (sink.file) {
        if (result.ok() && close_file) {
            std::vector<Mp4Patch> patches;
            result = mux.finish(&patches);
            for (const Mp4Patch& p : patches) {
                if (!result.ok()) break;
                if (fseek(sink.file, static_cast<long>(p.offset), SEEK_SET) != 0 ||
                    fwrite(p.bytes.data(), 1, p.bytes.size(), sink.file) != p.bytes.size()) {
                    result = SRS_ERR(kErrorFileWrite, "patch %s at %llu", out.c_str(),
                                     static_cast<unsigned long long>(p.offset));
                }
            }
            printf("duration_ms=%lld\n", static_cast<long long>(mux.duration_ms()));
        }
        if (fclose(sink.file) != 0 && result.ok()) result = SRS_ERR(kErrorFileWrite, "close %s", out.c_str());
    }
    return result;
}

// What the DVR does at start for a recording left unclosed: keep its complete fragments.
Error recover(const std::string& path) {
    FILE* f = fopen(path.c_str(), "r+b");
    if (!f) return SRS_ERR(kErrorFileOpen, "open %s: %s", path.c_str(), strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        fclose(f);
        return SRS_ERR(kErrorFileRead, "stat %s", path.c_str());
    }
    const int fd = fileno(f);
    Mp4Recovery r;
    Error err = mp4_scan_recovery(static_cast<uint64_t>(st.st_size),
                                  [fd](uint64_t offset, size_t n, uint8_t* out, size_t* got) {
                                      ssize_t k = pread(fd, out, n, static_cast<off_t>(offset));
                                      if (k < 0) return SRS_ERR(kErrorFileRead, "pread: %s", strerror(errno));
                                      *got = static_cast<size_t>(k);
                                      return Error();
                                  },
                                  &r);
    if (err.ok() && r.length == 0) err = SRS_ERR(kErrorMp4Box, "%s has no moov: nothing to recover", path.c_str());
    if (err.ok() && r.truncated && ftruncate(fd, static_cast<off_t>(r.length)) != 0) {
        err = SRS_ERR(kErrorFileWrite, "truncate %s: %s", path.c_str(), strerror(errno));
    }
    fclose(f);
    if (err.ok()) {
        printf("recovered length=%llu of=%lld fragments=%u\n", static_cast<unsigned long long>(r.length),
               static_cast<long long>(st.st_size), r.fragments);
    }
    return err;
}

}  // namespace

int main(int argc, char** argv) {
    int64_t fragment_ms = 2000;
    bool close_file = true;
    int i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        if (strcmp(argv[i], "--no-close") == 0) {
            close_file = false;
        } else if (strcmp(argv[i], "--fragment") == 0 && i + 1 < argc) {
            fragment_ms = atoll(argv[++i]);
            if (fragment_ms <= 0) return usage();
        } else {
            return usage();
        }
    }
    if (argc - i == 2 && strcmp(argv[i], "recover") == 0) {
        Error err = recover(argv[i + 1]);
        if (!err.ok()) {
            fprintf(stderr, "srs_mux_mp4: %s\n", err.describe().c_str());
            err.ignore();
            return 1;
        }
        return 0;
    }
    if (argc - i != 3) return usage();
    const std::string mode = argv[i];
    if (mode != "fmp4" && mode != "mp4") return usage();
    Error err = run(mode, argv[i + 1], argv[i + 2], fragment_ms, close_file);
    if (!err.ok()) {
        fprintf(stderr, "srs_mux_mp4: %s\n", err.describe().c_str());
        err.ignore();
        return 1;
    }
    return 0;
}

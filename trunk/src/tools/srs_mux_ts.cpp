// srs_mux_ts: FLV file in, MPEG-TS file out, through the server's own FLV
// reader (kernel/flv) and TS muxer (kernel/ts). For tests and for comparing
// our TS with other muxers':
//
//   objs/srs_mux_ts in.flv out.ts
//   objs/srs_mux_ts -s SECONDS in.flv out.ts
//
// The second form cuts segments as HLS does, through the muxer's segment API:
// before the first video keyframe (any frame when there is no video) at least
// SECONDS after the segment's start, start_segment() begins the next one. It
// writes out-0.ts, out-1.ts, ... and out.m3u8 (a VOD playlist with each
// segment's duration from the DTS), so players' HLS readers can check the
// segments one after another.
//
// The tracks are taken from the first audio and video tags, so the first
// PAT/PMT already lists both. Exit status 0 on success, 1 on a read/write
// failure or malformed input (the error is printed), 2 for bad arguments.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernel/codec/media_codec.hpp"
#include "kernel/flv/flv.hpp"
#include "kernel/ts/ts_muxer.hpp"

using namespace srs;

namespace {

bool read_file(const char* path, std::string* out) {
    FILE* f = fopen(path, "rb");
    if (!f) return false;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) out->append(buf, n);
    bool ok = !ferror(f);
    fclose(f);
    return ok;
}

bool succeeded(Error err) {
    bool ok = err.ok();
    err.ignore();
    return ok;
}

bool write_file(const std::string& path, const std::string& bytes) {
    FILE* f = fopen(path.c_str(), "wb");
    if (!f) return false;
    bool ok = fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
    return fclose(f) == 0 && ok;
}

struct Segment {
    std::string bytes;
    uint32_t start_ms = 0;
    uint32_t end_ms = 0;  // the DTS the next segment starts at (or the last frame's)
};

// "dir/out.ts" -> "dir/out" (the segments' and playlist's stem).
std::string stem_of(const std::string& path) {
    size_t slash = path.rfind('/');
    size_t dot = path.rfind('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return path;
    return path.substr(0, dot);
}

std::string base_name(const std::string& path) {
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool write_segments(const std::string& out, const std::vector<Segment>& segments) {
    std::string stem = stem_of(out);
    std::string playlist = "#EXTM3U\n#EXT-X-VERSION:3\n";
    uint32_t longest = 0;
    for (const Segment& seg : segments) longest = std::max(longest, seg.end_ms - seg.start_ms);
    playlist += "#EXT-X-TARGETDURATION:" + std::to_string((longest + 999) / 1000) + "\n#EXT-X-MEDIA-SEQUENCE:0\n";
    for (size_t i = 0; i < segments.size(); i++) {
        std::string name = stem + "-" + std::to_string(i) + ".ts";
        if (!write_file(name, segments[i].bytes)) return false;
        char extinf[64];
        snprintf(extinf, sizeof(extinf), "#EXTINF:%.3f,\n", (segments[i].end_ms - segments[i].start_ms) / 1000.0);
        playlist += extinf + base_name(name) + "\n";
    }
    playlist += "#EXT-X-ENDLIST\n";
    return write_file(stem + ".m3u8", playlist);
}

// The codecs of the first audio and video tags.
void find_tracks(const std::vector<FlvTag>& tags, VideoCodec* video, AudioCodec* audio) {
    for (const FlvTag& t : tags) {
        if (t.type == kFlvTagVideo && *video == VideoCodec::kUnknown) {
            VideoPacketInfo info;
            if (succeeded(parse_video_packet(t.data.data(), t.data.size(), &info))) *video = info.codec;
        } else if (t.type == kFlvTagAudio && *audio == AudioCodec::kUnknown) {
            AudioPacketInfo info;
            if (succeeded(parse_audio_packet(t.data.data(), t.data.size(), &info))) *audio = info.codec;
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    double segment_seconds = 0;
    int arg = 1;
    if (argc == 5 && std::string(argv[1]) == "-s") {
        segment_seconds = atof(argv[2]);
        arg = 3;
    }
    if (argc - arg != 2 || (arg == 3 && segment_seconds <= 0)) {
        fprintf(stderr, "usage: %s [-s SECONDS] in.flv out.ts\n", argv[0]);
        return 2;
    }
    const char* in = argv[arg];
    const char* out = argv[arg + 1];
    std::string flv;
    if (!read_file(in, &flv)) {
        fprintf(stderr, "cannot read %s\n", in);
        return 1;
    }
    FlvReader reader;
    std::vector<FlvTag> tags;
    size_t used = 0;
    if (Error err = reader.feed(reinterpret_cast<const uint8_t*>(flv.data()), flv.size(), &used, &tags); !err.ok()) {
        fprintf(stderr, "%s: %s\n", in, err.describe().c_str());
        return 1;
    }
    if (used != flv.size()) fprintf(stderr, "%s: %zu trailing bytes ignored\n", in, flv.size() - used);

    TsMuxer mux;
    VideoCodec video = VideoCodec::kUnknown;
    AudioCodec audio = AudioCodec::kUnknown;
    find_tracks(tags, &video, &audio);
    // A codec TS does not carry stays out of the PMT (write_flv_tag skips its tags).
    if (video != VideoCodec::kH264 && video != VideoCodec::kH265) video = VideoCodec::kUnknown;
    if (audio != AudioCodec::kAAC && audio != AudioCodec::kMP3) audio = AudioCodec::kUnknown;
    if (Error err = mux.set_tracks(video, audio); !err.ok()) {
        fprintf(stderr, "%s\n", err.describe().c_str());
        return 1;
    }

    std::vector<Segment> segments(1);
    bool started = false;
    const uint32_t segment_ms = static_cast<uint32_t>(segment_seconds * 1000);
    for (const FlvTag& t : tags) {
        // HLS's rule: a new segment before a keyframe (any frame without video) once the current one is long enough.
        bool media = (t.type == kFlvTagVideo && video != VideoCodec::kUnknown) ||
                     (t.type == kFlvTagAudio && video == VideoCodec::kUnknown);
        if (segment_ms && started && media && t.timestamp - segments.back().start_ms >= segment_ms &&
            !is_video_sequence_header(t.data.data(), t.data.size()) &&
            (t.type == kFlvTagAudio || is_video_keyframe(t.data.data(), t.data.size()))) {
            segments.back().end_ms = t.timestamp;
            segments.emplace_back();
            segments.back().start_ms = t.timestamp;
            mux.start_segment(&segments.back().bytes);
        }
        Segment& seg = segments.back();
        bool written = false;
        if (Error err = mux.write_flv_tag(t.type, t.timestamp, t.data.data(), t.data.size(), &seg.bytes, &written);
            !err.ok()) {
            fprintf(stderr, "tag at %u ms: %s\n", t.timestamp, err.describe().c_str());
            return 1;
        }
        if (written && !started) {
            started = true;
            seg.start_ms = t.timestamp;
        }
        if (written) seg.end_ms = std::max(seg.end_ms, t.timestamp);
    }
    bool ok = segment_ms ? write_segments(out, segments) : write_file(out, segments[0].bytes);
    if (!ok) {
        fprintf(stderr, "cannot write %s\n", out);
        return 1;
    }
    const TsMuxerStats& s = mux.stats();
    fprintf(stderr, "%s: %zu tags -> %s: %zu segment(s), %llu video, %llu audio frames, %llu bytes\n", in,
            tags.size(), out, segments.size(), static_cast<unsigned long long>(s.video_frames),
            static_cast<unsigned long long>(s.audio_frames), static_cast<unsigned long long>(s.bytes));
    return 0;
}

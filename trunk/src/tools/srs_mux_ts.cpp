// srs_mux_ts: FLV file in, MPEG-TS file out, through the server's own FLV
// reader (kernel/flv) and TS muxer (kernel/ts). For tests and for comparing
// our TS with other muxers':
//
//   objs/srs_mux_ts in.flv out.ts
//
// The tracks are taken from the first audio and video tags, so the first
// PAT/PMT already lists both. Exit status 0 on success, 1 on a read/write
// failure or malformed input (the error is printed).
#include <cstdio>
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
    if (argc != 3) {
        fprintf(stderr, "usage: %s in.flv out.ts\n", argv[0]);
        return 2;
    }
    std::string flv;
    if (!read_file(argv[1], &flv)) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    FlvReader reader;
    std::vector<FlvTag> tags;
    size_t used = 0;
    if (Error err = reader.feed(reinterpret_cast<const uint8_t*>(flv.data()), flv.size(), &used, &tags); !err.ok()) {
        fprintf(stderr, "%s: %s\n", argv[1], err.describe().c_str());
        return 1;
    }
    if (used != flv.size()) fprintf(stderr, "%s: %zu trailing bytes ignored\n", argv[1], flv.size() - used);

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

    std::string ts;
    for (const FlvTag& t : tags) {
        if (Error err = mux.write_flv_tag(t.type, t.timestamp, t.data.data(), t.data.size(), &ts); !err.ok()) {
            fprintf(stderr, "tag at %u ms: %s\n", t.timestamp, err.describe().c_str());
            return 1;
        }
    }
    FILE* f = fopen(argv[2], "wb");
    if (!f || fwrite(ts.data(), 1, ts.size(), f) != ts.size() || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", argv[2]);
        return 1;
    }
    const TsMuxerStats& s = mux.stats();
    fprintf(stderr, "%s: %zu tags -> %s: %llu video, %llu audio frames, %llu bytes\n", argv[1], tags.size(), argv[2],
            static_cast<unsigned long long>(s.video_frames), static_cast<unsigned long long>(s.audio_frames),
            static_cast<unsigned long long>(s.bytes));
    return 0;
}

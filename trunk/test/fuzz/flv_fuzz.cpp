// libFuzzer target for kernel/flv: the reader must give the same tags (and the
// same error at the same place) whether the input comes whole or in pieces;
// what it reads, written back with FlvWriter, must read back identically; and
// every tag body goes through the media codec parsers.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kernel/flv/flv.hpp"
#include "kernel/codec/media_codec.hpp"

using namespace srs;

namespace {

struct Result {
    std::vector<FlvTag> tags;
    size_t consumed = 0;
    int error = 0;
};

// Feeds pieces whose sizes come from `sizes` (cycled), keeping the unconsumed tail.
Result read_pieces(const uint8_t* data, size_t size, const uint8_t* sizes, size_t nsizes) {
    Result r;
    FlvReader reader;
    std::vector<uint8_t> pending;
    size_t offset = 0, k = 0;
    while (offset < size) {
        size_t piece = nsizes ? static_cast<size_t>(sizes[k++ % nsizes]) + 1 : size;
        if (piece > size - offset) piece = size - offset;
        pending.insert(pending.end(), data + offset, data + offset + piece);
        offset += piece;
        size_t used = 0;
        Error err = reader.feed(pending.data(), pending.size(), &used, &r.tags);
        if (used > pending.size()) abort();
        pending.erase(pending.begin(), pending.begin() + used);
        r.consumed += used;
        if (!err.ok()) {
            r.error = err.code();
            err.ignore();
            break;
        }
    }
    return r;
}

void same_or_abort(const std::vector<FlvTag>& a, const std::vector<FlvTag>& b) {
    if (a.size() != b.size()) abort();
    for (size_t i = 0; i < a.size(); i++) {
        if (a[i].type != b[i].type || a[i].timestamp != b[i].timestamp) abort();
        if (a[i].data.size() != b[i].data.size()) abort();
        if (a[i].data.size() && memcmp(a[i].data.data(), b[i].data.data(), a[i].data.size()) != 0) abort();
    }
}

void parse_body(const FlvTag& t) {
    const uint8_t* p = t.data.data();
    size_t n = t.data.size();
    if (t.type == kFlvTagVideo) {
        VideoPacketInfo info;
        Error err = parse_video_packet(p, n, &info);
        if (err.ok() && info.sequence_header) {
            VideoCodecConfig config;
            Error e2 = info.codec == VideoCodec::kH264   ? parse_avc_sequence_header(info.data, info.size, &config)
                       : info.codec == VideoCodec::kH265 ? parse_hevc_sequence_header(info.data, info.size, &config)
                                                         : parse_av1_sequence_header(info.data, info.size, &config);
            e2.ignore();
        }
        err.ignore();
        (void)is_video_keyframe(p, n);
        (void)is_video_sequence_header(p, n);
    } else if (t.type == kFlvTagAudio) {
        AudioPacketInfo info;
        Error err = parse_audio_packet(p, n, &info);
        if (err.ok() && info.sequence_header && info.codec == AudioCodec::kAAC) {
            AudioCodecConfig config;
            parse_aac_sequence_header(info.data, info.size, &config).ignore();
        }
        err.ignore();
        (void)is_audio_sequence_header(p, n);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Result whole = read_pieces(data, size, nullptr, 0);
    // Piece sizes from the input's own last bytes: 1..256 bytes at a time.
    size_t nsizes = size < 8 ? size : 8;
    Result pieces = read_pieces(data, size, data + size - nsizes, nsizes);
    Result bytewise;
    if (size <= 4096) {
        const uint8_t one = 0;
        bytewise = read_pieces(data, size, &one, 1);
    } else {
        bytewise = whole;
    }
    for (const Result* r : {&pieces, &bytewise}) {
        same_or_abort(whole.tags, r->tags);
        if (r->error != whole.error || r->consumed != whole.consumed) abort();
    }
    if (whole.consumed > size) abort();

    for (const FlvTag& t : whole.tags) parse_body(t);

    // Written back with the writer, the tags read back the same, with no mismatch.
    std::string out;
    FlvWriter::write_header(&out, true, true);
    for (const FlvTag& t : whole.tags) {
        uint8_t h[11], pts[4];
        FlvWriter::write_tag_header(h, t.type, t.timestamp, static_cast<uint32_t>(t.data.size()));
        FlvWriter::write_previous_tag_size(pts, static_cast<uint32_t>(11 + t.data.size()));
        out.append(reinterpret_cast<char*>(h), 11);
        out.append(reinterpret_cast<const char*>(t.data.data()), t.data.size());
        out.append(reinterpret_cast<char*>(pts), 4);
    }
    FlvReader again;
    std::vector<FlvTag> tags;
    size_t used = 0;
    Error err = again.feed(reinterpret_cast<const uint8_t*>(out.data()), out.size(), &used, &tags);
    if (!err.ok() || used != out.size() || again.previous_tag_size_mismatches() != 0) abort();
    same_or_abort(whole.tags, tags);
    return 0;
}

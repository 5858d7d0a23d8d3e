#include "app/edge/edge_keyframe_gate.hpp"

#include "kernel/codec/media_codec.hpp"

namespace srs {

bool EdgeKeyframeGate::pass_video(const uint8_t* data, size_t size) {
    VideoPacketInfo info;
    if (Error err = parse_video_packet(data, size, &info); !err.ok()) {
        err.ignore();
        dropped_++;
        return false;
    }
    if (info.sequence_header) return true;
    if (!open_ && info.keyframe) open_ = true;
    if (!open_) dropped_++;
    return open_;
}

}  // namespace srs

// Error codes of kernel/ts (3140s, after the FLV codes). They live here rather
// than in core/error.hpp's enum so that adding the muxer does not rebuild
// every object; Error takes any int code. Move them into the enum when
// core/error.hpp changes anyway.
#pragma once

namespace srs {

// The muxer was given a frame it cannot carry (no config, bad NALU lengths, size, codec).
constexpr int kErrorTsMux = 3140;
// TS bytes that break ISO 13818-1 (sync byte, section, PES header, sizes).
constexpr int kErrorTsDemux = 3141;

}  // namespace srs

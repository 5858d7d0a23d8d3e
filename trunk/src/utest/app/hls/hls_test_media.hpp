// FLV tag bodies the HLS writer tests feed HlsStream: an H.264 sequence
// header (a real avcC, 320x240 Main), an AAC-LC 44.1 kHz stereo
// AudioSpecificConfig, an IDR and a P slice (length-prefixed), one AAC frame.
#pragma once

#include <cstdint>
#include <string>

#include "utest/test_util.hpp"

namespace srs::utest::hls_media {

inline int64_t fake_clock() { return 1700000000000; }

inline const std::string kAvcSeq =
    unhex_string("1700000000014d500bffe10016674d500beca146d80880000003008000000a078912cb01000468ebecb2");
inline const std::string kAacSeq = unhex_string("af001210");
inline const std::string kIdr = unhex_string("1701000000 00000005 6588840021");
inline const std::string kP = unhex_string("2701000000 00000005 419a246c42");
inline const std::string kAac = unhex_string("af01 211003fff8");

}  // namespace srs::utest::hls_media

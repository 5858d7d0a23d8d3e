// RFC 4571 framing, without I/O: how ICE-TCP (RFC 6544) carries WebRTC's
// datagrams (STUN, DTLS, SRTP/SRTCP) over a TCP stream. Each packet is preceded
// by its length as a 16-bit big-endian number:
//
//    0                   1                   2                   3
//    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |             LENGTH            |  packet (LENGTH bytes) ...
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// Guarantees:
// - Rfc4571Decoder takes the stream in pieces of any size and hands out whole
//   frames; every header is checked as soon as its two bytes are in, so a
//   zero-length frame (never valid for the packets WebRTC carries) or one over
//   max_frame fails feed() at once, not after the connection has buffered it.
// - Bounded memory: the decoder keeps only what has not been handed out; when
//   the caller takes every frame (next() until false) after each feed(), it
//   never holds more than one partial frame (max_frame + 2) plus one feed.
// - After a failed feed() the stream cannot be resynchronised: later feeds fail
//   with the same code; frames complete before the bad header are still given.
//
// Use, per TCP connection:
//   Rfc4571Decoder dec;
//   on bytes read: if (Error err = dec.feed(p, n); !err.ok()) close;
//                  while (dec.next(&frame, &size)) handle(frame, size);
//   to send: rfc4571_header(size, hdr); writev({hdr, 2}, {packet, size}).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/error.hpp"

namespace srs {

// The largest packet the 16-bit length can describe.
constexpr size_t kRfc4571MaxFrame = 65535;
constexpr size_t kRfc4571HeaderSize = 2;

class Rfc4571Decoder {
  public:
    // max_frame: the longest packet accepted (capped at kRfc4571MaxFrame).
    explicit Rfc4571Decoder(size_t max_frame = kRfc4571MaxFrame);

    // Appends received bytes; kErrorRfc4571Frame for a zero-length frame (or
    // over max_frame).
    Error feed(const uint8_t* data, size_t size);
    // The next whole frame (points into the decoder; valid until the next
    // feed/next); false when none is complete.
    bool next(uint8_t** frame, size_t* size);
    // Bytes received and not handed out yet (whole frames not taken, headers,
    // the partial frame).
    size_t buffered() const;

  private:
    size_t max_frame_;
    std::vector<uint8_t> buf_;
    size_t head_ = 0;     // the header of the next frame to hand out
    size_t checked_ = 0;  // frames in [head_, checked_) are whole and valid
    bool failed_ = false;
    size_t bad_length_ = 0;  // the length that failed (for the repeated error)
};

// Writes the 2-byte header for a frame of `size` bytes (kErrorRfc4571Frame if
// size is 0 or > 65535).
Error rfc4571_header(size_t size, uint8_t out[2]);

}  // namespace srs

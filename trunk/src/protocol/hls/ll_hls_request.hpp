// Low-Latency HLS playlist requests (RFC 8216bis section 6.2.5): what a
// player's _HLS_msn / _HLS_part / _HLS_skip ask for, and whether the server
// answers now, parks the request until the playlist has grown, or refuses
// it. Sans-IO: the caller owns the clock and the waiting.
#pragma once

#include <cstdint>
#include <string>

namespace srs {

// What a playlist request asks for.
struct LlHlsQuery {
    int64_t msn = -1;   // _HLS_msn, -1 when absent
    int64_t part = -1;  // _HLS_part, -1 when absent
    bool skip = false;  // _HLS_skip=YES (v2 also counts: no date ranges to keep)
    bool malformed = false;  // a directive that is not a non-negative integer, or _HLS_part without _HLS_msn
    bool blocking() const { return msn >= 0; }
};

// Parses the directives from the query values ("" for an absent one).
LlHlsQuery parse_ll_hls_query(const std::string& msn, const std::string& part, const std::string& skip);

// Where a live LL-HLS playlist is: the last complete segment and the parts
// of the segment being written (which is last_msn + 1).
struct LlHlsPosition {
    int64_t last_msn = -1;     // -1: no complete segment yet
    int64_t open_parts = 0;    // parts of segment last_msn + 1 listed so far
};

enum class LlHlsDecision {
    kReady,       // the playlist already holds what was asked for
    kWait,        // park until the playlist changes, then decide again
    kBadRequest,  // too far ahead: 400 at once
    kTimedOut,    // waited long enough: the playlist as it is
};

// How many parts past the last one a request may ask for (the spec's
// Advance Part Limit for part targets under one second).
constexpr int64_t kLlHlsAdvancePartLimit = 3;

// The spec's rule: msn > last msn + 2 is refused, as is a part more than
// the advance limit past the last listed one of the open segment; a request
// for a complete segment, or for a listed part, is ready.
// A request without _HLS_msn is ready at once, except before the first
// segment is complete: then it waits for that segment (a playlist of parts
// only has no segment to start at, and hls.js rejects it).
LlHlsDecision decide_ll_hls_request(const LlHlsPosition& pos, const LlHlsQuery& q);

// How long a blocking request is held: 3 x the target duration (the spec
// suggests answering 503 past that; we answer the playlist, docs/hls.md).
int64_t ll_hls_block_limit_us(int64_t target_duration_s);

// The same for a request parked since waited_us ago: kWait becomes
// kTimedOut once it waited the limit for the playlist's target duration.
LlHlsDecision decide_ll_hls_request(const LlHlsPosition& pos, const LlHlsQuery& q, int64_t waited_us,
                                    int64_t target_duration_s);

}  // namespace srs

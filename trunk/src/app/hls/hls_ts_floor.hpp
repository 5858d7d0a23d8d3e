// hls_ts_floor on: SRS's floor numbering of segment files.
//
// [timestamp] in hls_ts_file counts the wall clock in units of hls_fragment
// (now_ms / fragment_ms), so the file name tells its place in time and two
// servers fed the same stream name their segments alike. Segments are not
// exactly one fragment long, so the numbers are not taken from the clock as
// they are: they go up by one per segment (no gap, no duplicate), starting
// one below the clock's, and the gap between the number and the clock (the
// deviation, in fragments) steers the next cut: each fragment of deviation
// moves the cut length by 30 % of a fragment (behind the clock: shorter
// segments, ahead of it: longer ones), so the numbers follow the clock.
// When they are more than 20 fragments apart, numbering starts again from
// the clock (SRS does this only when ahead; we also do it when behind,
// e.g. after a long stall, where shorter segments could never catch up).
//
// Pure: the caller passes the clock.
#pragma once

#include <cstdint>

namespace srs {

constexpr double kHlsFloorReapPerPiece = 0.3;  // of a fragment, per fragment of deviation
constexpr int64_t kHlsFloorJumpPieces = 20;    // deviation that restarts the numbering

class HlsTsFloor {
  public:
    explicit HlsTsFloor(int64_t fragment_ms) : fragment_ms_(fragment_ms > 0 ? fragment_ms : 1) {}

    // At a segment's open: its [timestamp] number. Sets deviation() and
    // whether the numbering restarted (jumped()).
    int64_t next(int64_t wall_ms);

    // The numbers minus the clock's, in fragments, at the last next().
    int64_t deviation() const { return deviation_; }
    bool jumped() const { return jumped_; }
    // What the open segment's cut length moves by (negative: cut sooner).
    int64_t cut_slack_ms() const;

  private:
    int64_t fragment_ms_;
    int64_t accepted_ = 0;
    bool started_ = false;
    int64_t deviation_ = 0;
    bool jumped_ = false;
};

}  // namespace srs

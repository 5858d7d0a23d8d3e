#include "app/hls/hls_ts_floor.hpp"

#include <cmath>

namespace srs {

int64_t HlsTsFloor::next(int64_t wall_ms) {
    const int64_t clock = wall_ms / fragment_ms_;
    jumped_ = false;
    if (!started_) {
        started_ = true;
        accepted_ = clock - 1;
    } else {
        accepted_++;
        if (accepted_ - clock > kHlsFloorJumpPieces || clock - accepted_ > kHlsFloorJumpPieces) {
            accepted_ = clock - 1;
            jumped_ = true;
        }
    }
    deviation_ = accepted_ - clock;
    return accepted_;
}

int64_t HlsTsFloor::cut_slack_ms() const {
    return static_cast<int64_t>(std::llround(kHlsFloorReapPerPiece * static_cast<double>(deviation_) *
                                             static_cast<double>(fragment_ms_)));
}

}  // namespace srs

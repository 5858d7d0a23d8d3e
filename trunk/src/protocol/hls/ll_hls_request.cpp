#include "protocol/hls/ll_hls_request.hpp"

namespace srs {

namespace {

// A decimal integer without sign or junk, at most 18 digits.
bool parse_count(const std::string& s, int64_t* out) {
    if (s.empty() || s.size() > 18) return false;
    int64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
        v = v * 10 + (c - '0');
    }
    *out = v;
    return true;
}

}  // namespace

LlHlsQuery parse_ll_hls_query(const std::string& msn, const std::string& part, const std::string& skip) {
    LlHlsQuery q;
    if (!msn.empty() && !parse_count(msn, &q.msn)) q.malformed = true;
    if (!part.empty() && !parse_count(part, &q.part)) q.malformed = true;
    // _HLS_part alone means nothing: the spec makes it a 400.
    if (!part.empty() && msn.empty()) q.malformed = true;
    q.skip = skip == "YES" || skip == "v2";
    if (q.malformed) q.msn = q.part = -1;
    return q;
}

LlHlsDecision decide_ll_hls_request(const LlHlsPosition& pos, const LlHlsQuery& q) {
    // A playlist with only the open segment's parts lists no segment: hls.js
    // calls that empty (levelEmptyError) and backs off, so a plain request
    // made before the first segment is complete waits for it.
    if (!q.blocking()) return pos.last_msn < 0 ? LlHlsDecision::kWait : LlHlsDecision::kReady;
    const int64_t open_msn = pos.last_msn + 1;
    if (q.msn > pos.last_msn + 2) return LlHlsDecision::kBadRequest;
    if (q.msn < open_msn) return LlHlsDecision::kReady;
    if (q.part < 0) return LlHlsDecision::kWait;  // the whole segment: once it is complete
    if (q.msn == open_msn) {
        if (q.part < pos.open_parts) return LlHlsDecision::kReady;
        if (q.part >= pos.open_parts + kLlHlsAdvancePartLimit) return LlHlsDecision::kBadRequest;
        return LlHlsDecision::kWait;
    }
    // The segment after the open one: only its first parts are near enough.
    if (q.part >= kLlHlsAdvancePartLimit) return LlHlsDecision::kBadRequest;
    return LlHlsDecision::kWait;
}

int64_t ll_hls_block_limit_us(int64_t target_duration_s) {
    return 3 * (target_duration_s < 1 ? 1 : target_duration_s) * 1000000;
}

LlHlsDecision decide_ll_hls_request(const LlHlsPosition& pos, const LlHlsQuery& q, int64_t waited_us,
                                    int64_t target_duration_s) {
    LlHlsDecision d = decide_ll_hls_request(pos, q);
    if (d == LlHlsDecision::kWait && waited_us >= ll_hls_block_limit_us(target_duration_s)) {
        return LlHlsDecision::kTimedOut;
    }
    return d;
}

}  // namespace srs

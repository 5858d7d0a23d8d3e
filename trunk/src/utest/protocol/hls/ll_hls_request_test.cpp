// Tests for the LL-HLS request rules: the query directives and the
// ready / wait / 400 decision against a playlist position (no clock: the
// decision is pure, the waiting is the caller's).
#include <gtest/gtest.h>

#include "protocol/hls/ll_hls_request.hpp"

using namespace srs;

TEST(LlHlsQuery, ParsesDirectives) {
    LlHlsQuery q = parse_ll_hls_query("12", "3", "YES");
    EXPECT_FALSE(q.malformed);
    EXPECT_EQ(12, q.msn);
    EXPECT_EQ(3, q.part);
    EXPECT_TRUE(q.skip);
    EXPECT_TRUE(q.blocking());

    q = parse_ll_hls_query("", "", "");
    EXPECT_FALSE(q.malformed);
    EXPECT_FALSE(q.blocking());
    EXPECT_FALSE(q.skip);
    EXPECT_TRUE(parse_ll_hls_query("", "", "v2").skip);
    EXPECT_FALSE(parse_ll_hls_query("", "", "yes").skip);  // the spec's value is upper case
}

TEST(LlHlsQuery, RefusesBrokenDirectives) {
    EXPECT_TRUE(parse_ll_hls_query("", "2", "").malformed);  // _HLS_part without _HLS_msn
    EXPECT_TRUE(parse_ll_hls_query("-1", "", "").malformed);
    EXPECT_TRUE(parse_ll_hls_query("1x", "", "").malformed);
    EXPECT_TRUE(parse_ll_hls_query("5", "a", "").malformed);
    EXPECT_TRUE(parse_ll_hls_query("9999999999999999999999", "", "").malformed);
    LlHlsQuery q = parse_ll_hls_query("1x", "", "");
    EXPECT_FALSE(q.blocking());
}

TEST(LlHlsDecision, ReadyWaitOrBadRequest) {
    LlHlsPosition pos;
    pos.last_msn = 10;   // segment 11 is open
    pos.open_parts = 2;  // parts 0 and 1 of segment 11 are listed
    auto decide = [&](const char* msn, const char* part) {
        return decide_ll_hls_request(pos, parse_ll_hls_query(msn, part, ""));
    };
    EXPECT_EQ(LlHlsDecision::kReady, decide("", ""));       // not blocking
    EXPECT_EQ(LlHlsDecision::kReady, decide("10", ""));     // a complete segment
    EXPECT_EQ(LlHlsDecision::kReady, decide("3", "7"));     // long gone: the playlist as it is
    EXPECT_EQ(LlHlsDecision::kReady, decide("11", "1"));    // a listed part
    EXPECT_EQ(LlHlsDecision::kWait, decide("11", "2"));     // the next part
    EXPECT_EQ(LlHlsDecision::kWait, decide("11", "4"));     // within the advance limit
    EXPECT_EQ(LlHlsDecision::kBadRequest, decide("11", "5"));
    EXPECT_EQ(LlHlsDecision::kWait, decide("11", ""));      // segment 11 once complete
    EXPECT_EQ(LlHlsDecision::kWait, decide("12", "0"));     // the first part of the next segment
    EXPECT_EQ(LlHlsDecision::kWait, decide("12", ""));
    EXPECT_EQ(LlHlsDecision::kBadRequest, decide("12", "3"));
    EXPECT_EQ(LlHlsDecision::kBadRequest, decide("13", ""));  // > last + 2
    EXPECT_EQ(LlHlsDecision::kBadRequest, decide("1000", "0"));
}

TEST(LlHlsDecision, BeforeTheFirstSegment) {
    LlHlsPosition pos;  // nothing complete, no part yet
    EXPECT_EQ(LlHlsDecision::kWait, decide_ll_hls_request(pos, parse_ll_hls_query("0", "0", "")));
    EXPECT_EQ(LlHlsDecision::kWait, decide_ll_hls_request(pos, parse_ll_hls_query("1", "", "")));
    EXPECT_EQ(LlHlsDecision::kBadRequest, decide_ll_hls_request(pos, parse_ll_hls_query("2", "", "")));
    // A plain request too: a playlist with no complete segment is empty to hls.js.
    EXPECT_EQ(LlHlsDecision::kWait, decide_ll_hls_request(pos, parse_ll_hls_query("", "", "")));
    pos.open_parts = 3;
    EXPECT_EQ(LlHlsDecision::kWait, decide_ll_hls_request(pos, parse_ll_hls_query("", "", "YES")));
    EXPECT_EQ(LlHlsDecision::kTimedOut, decide_ll_hls_request(pos, parse_ll_hls_query("", "", ""), 3000000, 1));
    pos.last_msn = 0;  // the first segment is complete
    EXPECT_EQ(LlHlsDecision::kReady, decide_ll_hls_request(pos, parse_ll_hls_query("", "", "")));
}

// The parked request on a fake clock: each playlist change is one step; the
// request becomes ready exactly when the asked-for part is listed.
TEST(LlHlsDecision, BecomesReadyAsPartsArrive) {
    LlHlsPosition pos;
    pos.last_msn = 4;
    LlHlsQuery q = parse_ll_hls_query("6", "1", "");  // the second part of the segment after the open one
    int steps = 0;
    while (decide_ll_hls_request(pos, q) == LlHlsDecision::kWait && steps < 100) {
        // One part every step; five parts make a segment.
        if (++pos.open_parts == 5) {
            pos.last_msn++;
            pos.open_parts = 0;
        }
        steps++;
    }
    EXPECT_EQ(LlHlsDecision::kReady, decide_ll_hls_request(pos, q));
    EXPECT_EQ(5, pos.last_msn);
    EXPECT_EQ(2, pos.open_parts);
    EXPECT_EQ(7, steps);
}

// The time limit on a fake clock: a waiting request times out after 3 x the
// target duration; one that is ready or refused never does.
TEST(LlHlsDecision, TimesOutAfterThreeTargetDurations) {
    LlHlsPosition pos;
    pos.last_msn = 10;
    pos.open_parts = 2;
    LlHlsQuery wait = parse_ll_hls_query("11", "2", "");
    EXPECT_EQ(3000000, ll_hls_block_limit_us(1));
    EXPECT_EQ(6000000, ll_hls_block_limit_us(2));
    EXPECT_EQ(3000000, ll_hls_block_limit_us(0));  // a playlist without a target yet: 1 s
    EXPECT_EQ(LlHlsDecision::kWait, decide_ll_hls_request(pos, wait, 0, 1));
    EXPECT_EQ(LlHlsDecision::kWait, decide_ll_hls_request(pos, wait, 2999999, 1));
    EXPECT_EQ(LlHlsDecision::kTimedOut, decide_ll_hls_request(pos, wait, 3000000, 1));
    EXPECT_EQ(LlHlsDecision::kWait, decide_ll_hls_request(pos, wait, 3000000, 2));
    EXPECT_EQ(LlHlsDecision::kReady, decide_ll_hls_request(pos, parse_ll_hls_query("11", "1", ""), 9000000, 1));
    EXPECT_EQ(LlHlsDecision::kBadRequest,
              decide_ll_hls_request(pos, parse_ll_hls_query("13", "", ""), 9000000, 1));
}

// A publisher session: the stream is busy for a second publisher; no STUN
// for stun_timeout ends it (harness: rtc_session_harness.hpp).
#include "utest/app/rtc/rtc_session_harness.hpp"

using namespace srs;
using namespace srs::rtc_session_test;

TEST_F(RtcSessionTest, SecondPublisherIsBusyAndStunTimeoutEnds) {
    Pair a(true, 5011, &source_, &live_, server_cert_);
    ASSERT_TRUE(a.session->start(a.now).ok());
    Pair b(true, 5012, &source_, &live_, server_cert_);
    Error err = b.session->start(b.now);
    EXPECT_EQ(err.code(), kErrorRtcSourceBusy);
    b.session->detach();
    EXPECT_TRUE(source_.has_publisher());

    // No binding request for stun_timeout (30 s by default): the session ends.
    for (int i = 0; i < 40; i++) {
        a.now += kUsPerSecond;
        a.session->on_timer(a.now);
    }
    EXPECT_TRUE(a.session->dead());
    a.session->detach();
    EXPECT_FALSE(source_.has_publisher());
}

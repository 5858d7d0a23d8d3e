// RtcSignalling without sockets: an offer becomes a started session only when
// WebRTC is on, a second publisher of a stream is refused, and a DELETE
// needs the resource's token, also for a session that ended lately (60 s on
// the test's clock).
#include <gtest/gtest.h>

#include <memory>

#include "app/live/live_source.hpp"
#include "app/rtc/rtc_signalling.hpp"
#include "utest/app/conn/fake_live_context.hpp"
#include "utest/kernel/sdp/sdp_offers.hpp"

using namespace srs;
using namespace srs::utest;

namespace {

RtcServerOptions server_options() {
    RtcServerOptions o;
    o.enabled = true;
    o.udp_port = 8000;
    o.candidate = "192.0.2.10";
    return o;
}

RtcSessionRequest publish_request() {
    RtcSessionRequest r;
    r.publish = true;
    r.vhost = "__defaultVhost__";
    r.app = "live";
    r.stream = "s";
    r.offer = chrome_publish_offer();
    r.client_ip = "127.0.0.1";
    return r;
}

class RtcSignallingTest : public ::testing::Test {
  protected:
    void SetUp() override { ASSERT_TRUE(DtlsCertificate::create(DtlsKeyType::kEcdsaP256, &cert_).ok()); }

    FakeLiveContext ctx_{"listen 1935;\nvhost __defaultVhost__ { rtc { enabled on; } }\n"};
    RtcSourceManager sources_;
    RtcRoutingTable routes_;
    RtcSignalling signalling_{&ctx_, &sources_, &routes_};
    std::shared_ptr<DtlsCertificate> cert_;
};

}  // namespace

TEST_F(RtcSignallingTest, RefusesOffersUntilStarted) {
    RtcSessionAnswer answer;
    std::unique_ptr<RtcSession> session;
    Error err = signalling_.create_session(publish_request(), &answer, &session);
    EXPECT_EQ(err.code(), kErrorRtcDisabled);
    EXPECT_EQ(session, nullptr);
    EXPECT_EQ(signalling_.stats().sessions_refused, 1u);
    EXPECT_EQ(ctx_.sources().find("__defaultVhost__", "live", "s"), nullptr);  // nothing left behind
}

TEST_F(RtcSignallingTest, PublishThenDeleteWithTheToken) {
    signalling_.start(server_options(), cert_);
    RtcSessionAnswer answer;
    std::unique_ptr<RtcSession> session;
    Error err = signalling_.create_session(publish_request(), &answer, &session);
    ASSERT_TRUE(err.ok()) << err.describe();
    ASSERT_NE(session, nullptr);
    EXPECT_TRUE(session->publisher());
    EXPECT_FALSE(answer.token.empty());
    EXPECT_EQ(answer.token, session->params().token);
    EXPECT_EQ(answer.session_id.substr(0, answer.session_id.find(':')), session->username());
    EXPECT_NE(answer.sdp.find("a=ice-ufrag:" + session->username()), std::string::npos);
    EXPECT_EQ(signalling_.stats().sessions_created, 1u);
    LiveSource* live = ctx_.sources().find("__defaultVhost__", "live", "s");
    ASSERT_NE(live, nullptr);
    EXPECT_TRUE(live->publishing());
    routes_.add(session.get());  // as RtcServer does with what it is given

    // The stream has its publisher.
    RtcSessionAnswer second;
    std::unique_ptr<RtcSession> other;
    EXPECT_EQ(signalling_.create_session(publish_request(), &second, &other).code(), kErrorRtcSourceBusy);
    EXPECT_EQ(other, nullptr);

    const utime_t now = 50 * kUsPerSecond;
    bool closed = true;
    EXPECT_EQ(signalling_.delete_session(answer.session_id, "not-the-token", now, &closed).code(), kErrorRtcNoSession);
    EXPECT_FALSE(closed);
    EXPECT_FALSE(session->dead());
    EXPECT_EQ(signalling_.delete_session("nosuchufrag", answer.token, now, &closed).code(), kErrorRtcNoSession);

    // SRS's "ufrag:remote" and WHIP's bare ufrag name the same resource.
    Error del = signalling_.delete_session(answer.session_id, answer.token, now, &closed);
    EXPECT_TRUE(del.ok()) << del.describe();
    EXPECT_TRUE(closed);
    EXPECT_TRUE(session->dead());
    del = signalling_.delete_session(session->username(), answer.token, now, &closed);
    EXPECT_TRUE(del.ok()) << del.describe();
    EXPECT_FALSE(closed);  // over already

    // Reaped: a DELETE racing the close still succeeds for 60 s.
    session->detach();
    routes_.remove(session.get(), now);
    EXPECT_TRUE(signalling_.delete_session(answer.session_id, answer.token, now + 60 * kUsPerSecond, &closed).ok());
    EXPECT_EQ(signalling_.delete_session(answer.session_id, answer.token, now + 60 * kUsPerSecond + 1, &closed).code(),
              kErrorRtcNoSession);
    EXPECT_EQ(signalling_.delete_session(answer.session_id, "not-the-token", now, &closed).code(), kErrorRtcNoSession);
    sources_.release(session->source());
}

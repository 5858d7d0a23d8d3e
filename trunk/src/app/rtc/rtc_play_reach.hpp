// Whether a WebRTC player of a stream gets the stream's media, and why (not).
//
// A stream reaches WebRTC players when it is published over WebRTC (WHIP),
// or published another way (RTMP, an edge's pull) into a vhost with
// rtc { rtmp_to_rtc on; }, which bridges it as it is published. Without the
// bridge the server still admits WebRTC players, as SRS does, and they get
// nothing: the API's stream object ("webrtc"), the WHEP answer's header and
// the log say so (rtc_server.cpp asks this with the stream's facts).
#pragma once

#include <string>

namespace srs {

// What is known of one stream when the question is asked.
struct RtcPlayFacts {
    bool server_enabled = false;  // rtc_server is running
    std::string vhost;
    bool vhost_enabled = false;  // the vhost's rtc.enabled
    bool rtmp_to_rtc = false;    // the vhost's rtc.rtmp_to_rtc, as the conf says now
    bool published = false;      // the live source has a publisher (of any protocol)
    std::string how;             // how, as a phrase: "published over RTMP"; "" when unknown
    bool rtc_publisher = false;  // the stream's WebRTC source is fed: by a WHIP session or by the bridge
    bool bridged = false;        // by the bridge (rtmp_to_rtc made one at publish)
};

struct RtcPlayReach {
    // False only when a WebRTC player surely gets nothing now: WebRTC off,
    // or a publisher that does not reach WebRTC. A stream nobody publishes
    // yet is true: its players wait (reason says for which publisher).
    bool play = false;
    std::string reason;  // one sentence, for people: the API, the page, the log
    std::string hint;    // what would change it ("" when play): for the log
    bool waiting = false;  // nobody publishes the stream yet
};

RtcPlayReach rtc_play_reach(const RtcPlayFacts& facts);

}  // namespace srs

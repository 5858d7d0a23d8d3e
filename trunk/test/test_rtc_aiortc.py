"""WebRTC origin against an independent stack: aiortc (test/rtc_client.py)
publishes H.264 + Opus with WHIP or SRS's JSON API and plays with WHEP or
the JSON API, on loopback. The player decodes what it receives, so frames
decoded and their size prove the whole path: ICE-lite, DTLS, SRTP, RTP
forwarding; induced loss proves NACK; a late player proves the PLI on its
behalf; DELETE and stun_timeout prove sessions are freed.

In CI (CI=true) a missing aiortc fails the tests; elsewhere they skip."""
import json
import time
import urllib.parse

import pytest

import api_schema
from conftest import fd_count, wait_until
from rtc_env import api_delete, api_get, api_stream, require_aiortc, rtc_clients, start_rtc

FPS = 25
SIZE = (320, 240)


@pytest.fixture
def rtc_srs(srs):
    require_aiortc()
    return start_rtc(srs)


@pytest.fixture
def rtc():
    require_aiortc()
    from rtc_client import Rtc
    r = Rtc()
    yield r
    r.close()


def decoding(player, frames, timeout=10):
    assert wait_until(lambda: player.frames_decoded >= frames, timeout), \
        f"the player decoded {player.stats()} in {timeout}s"


def still_decoding(player, seconds=1.0, frames=5):
    before = player.frames_decoded
    time.sleep(seconds)
    return player.frames_decoded - before >= frames


def test_whip_publish_whep_play(rtc_srs, rtc):
    srs = rtc_srs
    pub = rtc.publish(srs.api, "live", "s1", size=SIZE, fps=FPS)
    assert pub.location and "action=delete" in pub.location and "session=" in pub.location, pub.location
    assert "a=ice-lite" in pub.answer and "a=setup:passive" in pub.answer, pub.answer
    assert "127.0.0.1 %d typ host" % srs.rtc_port in pub.answer, pub.answer
    player = rtc.play(srs.api, "live", "s1")
    decoding(player, 50)
    assert (player.width, player.height) == SIZE
    assert wait_until(lambda: player.audio_packets > 20, 5), player.stats()
    # SRS's other spelling of the WHEP endpoint.
    player2 = rtc.play(srs.api, "live", "s1", via="whip-play")
    decoding(player2, 25)
    # The API lists both kinds, and the stream counts them.
    assert wait_until(lambda: len(rtc_clients(srs, "s1", "rtc-play")) == 2, 5), rtc_clients(srs)
    assert len(rtc_clients(srs, "s1", "rtc-publish")) == 1, rtc_clients(srs)
    stream = api_stream(srs, "s1")
    assert stream is not None and stream["clients"] >= 3, stream
    assert stream.get("publish", {}).get("active") is True, stream
    (publisher,) = rtc_clients(srs, "s1", "rtc-publish")
    assert publisher["publish"] is True and publisher["id"] == stream["publish"]["cid"], (publisher, stream)
    data = api_get(srs, "/api/v1/clients?count=1000")
    assert not api_schema.errors(data, api_schema.SCHEMAS["/api/v1/clients"]), api_schema.errors(
        data, api_schema.SCHEMAS["/api/v1/clients"])


def test_json_api_publish_play(rtc_srs, rtc):
    from rtc_client import SignalingError, http
    srs = rtc_srs
    # CORS: a page on another origin may call the API.
    status, headers, _ = http("OPTIONS", f"http://{srs.api}/rtc/v1/publish/")
    assert status == 200 and headers.get("Access-Control-Allow-Origin") == "*", (status, dict(headers))
    pub = rtc.publish(srs.api, "live", "j1", via="json")
    for key in ("code", "server", "service", "pid", "sdp", "sessionid"):
        assert key in pub.reply, pub.reply
    assert pub.reply["code"] == 0 and pub.sessionid, pub.reply
    player = rtc.play(srs.api, "live", "j1", via="json")
    assert player.sessionid and player.sessionid != pub.sessionid
    decoding(player, 50)
    assert (player.width, player.height) == SIZE
    assert wait_until(lambda: rtc_clients(srs, "j1", "rtc-play") and rtc_clients(srs, "j1", "rtc-publish"), 5), \
        rtc_clients(srs)
    # A second publisher of the same stream, through the JSON API: HTTP 200, code 5020.
    with pytest.raises(SignalingError) as e:
        rtc.publish(srs.api, "live", "j1", via="json")
    assert e.value.status == 200 and e.value.code == 5020, e.value
    # A broken offer: a non-zero code, not a crash.
    status, _, text = http("POST", f"http://{srs.api}/rtc/v1/play/",
                           json.dumps({"api": "", "tid": "x", "streamurl": "webrtc://127.0.0.1/live/j1",
                                       "clientip": None, "sdp": "v=0\r\n"}), "application/json")
    assert status == 200 and json.loads(text)["code"] != 0, text
    assert still_decoding(player)


def test_json_api_takes_any_streamurl_scheme(rtc_srs, rtc):
    # SRS uses only host, app, stream and query of the streamurl: clients
    # written for it send http://, https:// and rtmp:// as well as webrtc://.
    srs = rtc_srs
    pub = rtc.publish(srs.api, "live", "anyscheme", via="json:http")
    assert pub.reply["code"] == 0, pub.reply
    players = [rtc.play(srs.api, "live", "anyscheme", via=f"json:{scheme}") for scheme in ("https", "rtmp")]
    for player in players:
        decoding(player, 25)
        assert (player.width, player.height) == SIZE
    assert len(rtc_clients(srs, "anyscheme", "rtc-play")) == 2, rtc_clients(srs)


def test_second_publisher_refused(rtc_srs, rtc):
    from rtc_client import SignalingError
    srs = rtc_srs
    rtc.publish(srs.api, "live", "dup")
    player = rtc.play(srs.api, "live", "dup")
    decoding(player, 25)
    with pytest.raises(SignalingError) as e:
        rtc.publish(srs.api, "live", "dup")
    assert e.value.status == 409, e.value
    assert len(rtc_clients(srs, "dup", "rtc-publish")) == 1, rtc_clients(srs)
    # The first publisher is untouched.
    assert still_decoding(player)


def test_delete_ends_sessions(rtc_srs, rtc):
    srs = rtc_srs
    api_get(srs, "/api/v1/clients")
    baseline = fd_count(srs.pid)
    pub = rtc.publish(srs.api, "live", "del")
    player = rtc.play(srs.api, "live", "del")
    decoding(player, 25)
    # WHEP DELETE of the player's Location.
    assert player.delete() == 200
    assert wait_until(lambda: not rtc_clients(srs, "del", "rtc-play"), 5), rtc_clients(srs)
    assert not still_decoding(player, 1.0, 3), "frames still arrive after the DELETE"
    # The API's DELETE of a client ends a WebRTC session too.
    player2 = rtc.play(srs.api, "live", "del")
    decoding(player2, 10)
    (cid,) = [c["id"] for c in rtc_clients(srs, "del", "rtc-play")]
    status, _ = api_delete(srs, f"/api/v1/clients/{urllib.parse.quote(cid)}")
    assert status == 200
    assert wait_until(lambda: not rtc_clients(srs, "del", "rtc-play"), 5), rtc_clients(srs)
    # WHIP DELETE of the publisher: the stream is gone.
    assert pub.delete() == 200
    assert wait_until(lambda: not rtc_clients(srs, "del"), 5), rtc_clients(srs)
    assert wait_until(lambda: (api_stream(srs, "del") or {}).get("publish", {}).get("active") is not True, 5)
    # Everything they held is freed.
    assert wait_until(lambda: fd_count(srs.pid) <= baseline, 5), (fd_count(srs.pid), baseline)
    # The stream may be published again.
    rtc.publish(srs.api, "live", "del")
    assert srs.alive()


def test_stun_timeout_frees_silent_session(srs, rtc):
    require_aiortc()
    start_rtc(srs, stun_timeout=3)
    pub = rtc.publish(srs.api, "live", "quiet")
    player = rtc.play(srs.api, "live", "quiet")
    decoding(player, 25)
    baseline_clients = len(rtc_clients(srs, "quiet"))
    assert baseline_clients == 2, rtc_clients(srs)
    player.silence()
    t0 = time.monotonic()
    assert not still_decoding(player, 0.5, 1), "silence() left the player's socket open"
    assert wait_until(lambda: not rtc_clients(srs, "quiet", "rtc-play"), 7), \
        f"the silent player is still listed {time.monotonic() - t0:.1f}s after it went quiet: {rtc_clients(srs)}"
    gone = time.monotonic() - t0
    assert gone >= 1.5, f"the player was dropped after {gone:.1f}s, before stun_timeout 3"
    # The publisher keeps its consent checks going: still there well past the timeout.
    time.sleep(2)
    assert len(rtc_clients(srs, "quiet", "rtc-publish")) == 1, rtc_clients(srs)
    assert pub.state == "connected"


def test_nack_recovers_induced_loss(rtc_srs, rtc):
    srs = rtc_srs
    pub = rtc.publish(srs.api, "live", "lossy", drop=0.05)
    player = rtc.play(srs.api, "live", "lossy")
    decoding(player, 25)
    sent0, dec0 = pub.frames_sent, player.frames_decoded
    time.sleep(8)
    sent1, dec1 = pub.frames_sent, player.frames_decoded
    assert pub.rtp_dropped >= 10, f"only {pub.rtp_dropped} of {pub.rtp_sent} packets were dropped"
    assert dec1 - dec0 >= 0.95 * (sent1 - sent0), (sent0, sent1, dec0, dec1, player.stats())
    gaps = player.seq_gaps(settle=100)
    assert not gaps, f"{len(gaps)} video packets never reached the player: {gaps[:20]}"


def test_joining_player_starts_at_a_keyframe_fast(rtc_srs, rtc):
    srs = rtc_srs
    rtc.publish(srs.api, "live", "join")
    first = rtc.play(srs.api, "live", "join")
    decoding(first, 10)
    # aiortc's encoder makes a keyframe only at the start and when asked (PLI):
    # 3 s in, only the server's PLI on the new player's behalf brings one soon.
    time.sleep(3)
    late = rtc.play(srs.api, "live", "join")
    assert wait_until(lambda: late.first_frame_at is not None, 5), late.stats()
    assert late.first_keyframe_at is not None and late.first_keyframe_at <= 0.5, late.stats()
    assert late.first_frame_at <= 1.0, late.stats()
    decoding(late, 25)


def test_dtls_roles_both_ways(srs, rtc):
    """With rtc.dtls_role active the server takes the DTLS client role for an
    actpass offer (aiortc is then the DTLS server); media flows the same."""
    require_aiortc()
    start_rtc(srs, dtls_role="active")
    pub = rtc.publish(srs.api, "live", "roles")
    assert "a=setup:active" in pub.answer, pub.answer
    player = rtc.play(srs.api, "live", "roles")
    assert "a=setup:active" in player.answer, player.answer
    decoding(player, 25)
    assert (player.width, player.height) == SIZE
    assert "dtls:start:client" in srs.log(), srs.log()[-3000:]


def test_reuseport_and_drop_for_pt(srs, rtc):
    """rtc_server { reuseport 2; } and rtc { drop_for_pt PT; }: two UDP sockets
    on the port, and the publisher's audio payload type dropped: the player
    decodes video and gets no audio."""
    require_aiortc()
    start_rtc(srs, server_extra="  reuseport 2;\n", vhost_extra="    drop_for_pt 96;\n")
    assert "(2 sockets)" in srs.log(), srs.log()[-2000:]
    pub = rtc.publish(srs.api, "live", "rsa")
    assert "a=rtpmap:96 opus/48000/2" in pub.offer, pub.offer  # aiortc's Opus payload type
    player = rtc.play(srs.api, "live", "rsa")
    decoding(player, 25)
    assert player.audio_packets == 0, player.stats()

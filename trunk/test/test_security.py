"""vhost security (allow/deny by client address) and refer (the RTMP pageUrl)
against the real server: RTMP publish and play, HTTP-FLV (IPv4, IPv6 and
IPv4-mapped clients), WHIP/WHEP and SRS's JSON API, a SIGHUP that changes the
rules, `-t` on broken rules, and refer at connect and at play.

Clients come from different loopback addresses (127.0.0.1, .2, .3 and ::1)
by binding their sockets: ffmpeg/ffprobe from 127.0.0.1 where the rules
allow it, the small RTMP speaker of rtmp_raw.py, http.client and aiortc's
offer posted from the others."""
import http.client
import json
import signal
import socket
import subprocess

import pytest

from conftest import SRS, TRUNK, can_connect, free_port, wait_until
from media import Publisher, probe_streams
from rtmp_raw import RawRtmp

RULES = """  security {
    enabled on;
    allow publish 127.0.0.1;
    allow play 127.0.0.0/24;
    allow play ::1;
    deny play 127.0.0.3;
  }
"""


def ipv6_loopback():
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


def http_get(port, path, source, host="127.0.0.1", read=3):
    """(status, first bytes of the body) of GET http://host:port/path from `source`."""
    conn = http.client.HTTPConnection(host, port, timeout=5, source_address=(source, 0))
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        return r.status, r.read(read) if r.status == 200 else r.read()
    finally:
        conn.close()


def post(port, path, body, ctype, source):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5, source_address=(source, 0))
    try:
        conn.request("POST", path, body=body, headers={"Content-Type": ctype})
        r = conn.getresponse()
        return r.status, r.getheader("Content-Type"), r.read().decode(errors="replace")
    finally:
        conn.close()


def rtmp_status(port, stream, source, page_url=None, tc_url=None):
    """What the server answers an RTMP player from `source` that connects and
    plays `stream`: the status code it sends first (connect's _result or
    _error, else play's onStatus), and whether it then closes the connection."""
    r = RawRtmp(port, source=source)
    try:
        r.handshake()
        r.connect("live", tc_url=tc_url or f"rtmp://127.0.0.1:{port}/live", page_url=page_url)
        got = r.wait_status([b"NetConnection.Connect.Success", b"NetConnection.Connect.Rejected"])
        if got != b"NetConnection.Connect.Success":
            return got, r.closed_by_server(3)
        r.play(stream)
        got = r.wait_status([b"NetStream.Play.Start", b"NetStream.Play.Failed"])
        return got, got != b"NetStream.Play.Start" and r.closed_by_server(3)
    finally:
        r.close()


def write_conf(srs, http_port, http_listen, rules):
    srs.write_conf(srs.base_conf().replace("vhost __defaultVhost__ {\n}\n", "") +
                   f"http_server {{\n  enabled on;\n  listen {http_listen};\n  dir {srs.workdir};\n}}\n"
                   "vhost __defaultVhost__ {\n  http_remux {\n    enabled on;\n  }\n" + rules + "}\n")


def test_rtmp_and_http_flv_rules_and_reload(srs, media):
    v6 = ipv6_loopback()
    http_port = free_port()
    # On [::] (dual stack) IPv4 clients arrive as ::ffff:127.0.0.x and must
    # still match the IPv4 rules.
    write_conf(srs, http_port, f"[::]:{http_port}" if v6 else str(http_port), RULES)
    srs.start()
    assert wait_until(lambda: can_connect(http_port), 5), srs.log()[-2000:]
    pub = Publisher(media, f"rtmp://127.0.0.1:{srs.rtmp_port}/live/s")
    try:
        assert wait_until(lambda: "RTMP fmle-publish __defaultVhost__/live/s" in srs.log(), 10), srs.log()[-2000:]
        # Publish: 127.0.0.1 is allowed (ffmpeg above), 127.0.0.2 matches no allow rule.
        r = RawRtmp(srs.rtmp_port, source="127.0.0.2")
        try:
            r.handshake()
            r.publish("other")
            assert r.wait_status([b"NetStream.Publish.Start", b"NetStream.Publish.Denied"]) == \
                b"NetStream.Publish.Denied"
            assert r.closed_by_server(3)
        finally:
            r.close()
        assert wait_until(lambda: 'publish from 127.0.0.2 refused: no "allow publish" rule' in srs.log(), 5), \
            srs.log()[-2000:]

        # RTMP play: ffprobe from 127.0.0.1 reads the stream; 127.0.0.2 is in
        # the allowed /24; 127.0.0.3 hits the deny rule first.
        streams = probe_streams(f"rtmp://127.0.0.1:{srs.rtmp_port}/live/s")
        assert "video" in streams and "audio" in streams, streams
        assert rtmp_status(srs.rtmp_port, "s", "127.0.0.2") == (b"NetStream.Play.Start", False)
        assert rtmp_status(srs.rtmp_port, "s", "127.0.0.3") == (b"NetStream.Play.Failed", True)
        assert wait_until(lambda: 'refused by rule "deny play 127.0.0.3"' in srs.log(), 5), srs.log()[-2000:]

        # HTTP-FLV: the same rules, 403 when refused.
        status, head = http_get(http_port, "/live/s.flv", "127.0.0.1")
        assert (status, head) == (200, b"FLV"), (status, head)
        status, _ = http_get(http_port, "/live/s.flv", "127.0.0.3")
        assert status == 403
        # Refused before the server says whether the stream exists.
        status, _ = http_get(http_port, "/live/nothing.flv", "127.0.0.3")
        assert status == 403
        log = srs.log()
        assert "HTTP-FLV /live/s.flv refused (403)" in log and 'deny play 127.0.0.3' in log, log[-2000:]
        if v6:
            assert "from ::ffff:127.0.0.3 refused" in log, log[-2000:]
            status, head = http_get(http_port, "/live/s.flv", "::1", host="::1")
            assert (status, head) == (200, b"FLV"), (status, head)

        # SIGHUP with one more deny rule: new clients get the new rules, the
        # publisher (admitted before) keeps publishing.
        write_conf(srs, http_port, f"[::]:{http_port}" if v6 else str(http_port),
                   RULES.replace("deny play 127.0.0.3;", "deny play 127.0.0.3;\n    deny play 127.0.0.2;\n"
                                 "    deny play ::1;"))
        srs.signal(signal.SIGHUP)
        assert wait_until(lambda: "reload: vhost.__defaultVhost__.security.deny changed" in srs.log(), 5), \
            srs.log()[-2000:]
        assert rtmp_status(srs.rtmp_port, "s", "127.0.0.2") == (b"NetStream.Play.Failed", True)
        if v6:
            assert http_get(http_port, "/live/s.flv", "::1", host="::1")[0] == 403
            assert 'refused by rule "deny play ::1"' in srs.log()
        assert rtmp_status(srs.rtmp_port, "s", "127.0.0.1") == (b"NetStream.Play.Start", False)
        assert pub.alive()
    finally:
        pub.stop()
    if not v6:
        pytest.skip("no IPv6 loopback: the ::1 and IPv4-mapped cases were not exercised")


def offer_sdp(rtc, publish):
    """A real offer from aiortc (H.264/VP8 video + Opus), as a WHIP/WHEP client sends."""
    from aiortc import RTCConfiguration, RTCPeerConnection

    async def go():
        pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        direction = "sendonly" if publish else "recvonly"
        pc.addTransceiver("audio", direction=direction)
        pc.addTransceiver("video", direction=direction)
        await pc.setLocalDescription(await pc.createOffer())
        sdp = pc.localDescription.sdp
        await pc.close()
        return sdp
    return rtc.run(go(), 10)


def test_webrtc_rules(srs):
    from rtc_env import require_aiortc, start_rtc
    require_aiortc()
    from rtc_client import Rtc
    start_rtc(srs, vhost_body=RULES)
    rtc = Rtc()
    try:
        # Allowed from 127.0.0.1: WHIP publish and WHEP play connect.
        pub = rtc.publish(srs.api, "live", "w1")
        player = rtc.play(srs.api, "live", "w1")
        assert pub.state == "connected" and player.state == "connected"

        # WHIP from 127.0.0.2: no allow rule for it: 403 with SRS's code 1054.
        status, ctype, body = post(srs.api_port, "/rtc/v1/whip/?app=live&stream=w2", offer_sdp(rtc, True),
                                   "application/sdp", "127.0.0.2")
        assert status == 403 and ctype.startswith("application/json"), (status, ctype, body)
        assert json.loads(body)["code"] == 1054, body
        # WHEP from 127.0.0.3: the deny rule: 403 with 1053.
        status, ctype, body = post(srs.api_port, "/rtc/v1/whep/?app=live&stream=w1", offer_sdp(rtc, False),
                                   "application/sdp", "127.0.0.3")
        assert status == 403 and json.loads(body)["code"] == 1053, (status, body)
        # SRS's JSON API answers 200 with the code; the body's clientip does not
        # change who the client is.
        req = json.dumps({"api": f"http://127.0.0.1:{srs.api_port}/rtc/v1/play/", "tid": "t1",
                          "streamurl": "webrtc://127.0.0.1/live/w1", "clientip": "127.0.0.1",
                          "sdp": offer_sdp(rtc, False)})
        status, _, body = post(srs.api_port, "/rtc/v1/play/", req, "application/json", "127.0.0.3")
        assert status == 200 and json.loads(body)["code"] == 1053, (status, body)
        req = req.replace("/rtc/v1/play/", "/rtc/v1/publish/")
        status, _, body = post(srs.api_port, "/rtc/v1/publish/", req, "application/json", "127.0.0.1")
        # Allowed to publish from 127.0.0.1, but w1 has a publisher already.
        assert json.loads(body)["code"] not in (1053, 1054), body
        log = srs.log()
        assert "WHIP /live/w2 refused (403)" in log and 'no "allow publish" rule' in log, log[-2000:]
        assert "WHEP /live/w1 refused (403)" in log and 'refused by rule "deny play 127.0.0.3"' in log, log[-2000:]
    finally:
        rtc.close()


def test_refer(srs):
    srs.start(srs.base_conf() + "vhost refer.test {\n  refer {\n    enabled on;\n    all a.com;\n"
              "    play p.a.com;\n  }\n}\n")
    port = srs.rtmp_port
    tc = f"rtmp://refer.test:{port}/live"
    # The pageUrl's host ends with a.com: connect passes; play needs p.a.com.
    assert rtmp_status(port, "s", "127.0.0.1", page_url="http://p.a.com/x.html", tc_url=tc) == \
        (b"NetStream.Play.Start", False)
    assert rtmp_status(port, "s", "127.0.0.1", page_url="http://www.a.com/x.html", tc_url=tc) == \
        (b"NetStream.Play.Failed", True)
    assert wait_until(lambda: 'refer: pageUrl "http://www.a.com/x.html" (host "www.a.com") is on none of '
                              'refer.play [p.a.com]' in srs.log(), 5), srs.log()[-2000:]
    # Another domain, a query that only mentions a.com, or no pageUrl: refused at connect.
    for page in ("http://evil.com/", "http://evil.com/?a.com", "", None):
        assert rtmp_status(port, "s", "127.0.0.1", page_url=page, tc_url=tc) == \
            (b"NetConnection.Connect.Rejected", True), page
    assert 'refer: pageUrl "http://evil.com/" (host "evil.com") is on none of refer.all [a.com]' in srs.log()
    # The default vhost has no refer: no pageUrl is fine there.
    assert rtmp_status(port, "s", "127.0.0.1") == (b"NetStream.Play.Start", False)


@pytest.mark.parametrize("rule, says", [
    ("allow play 10.0.0.0/33;", "vhost.security.allow play 10.0.0.0/33: target must be all, an IP address or a "
                                "CIDR network: prefix length"),
    ("deny publish 1.2.3;", "vhost.security.deny publish 1.2.3: target must be all, an IP address or a CIDR "
                            "network: \"1.2.3\" is not an IPv4 or IPv6 address"),
    ("allow watch all;", "vhost.security.allow watch all: action \"watch\" is not publish or play"),
])
def test_check_refuses_broken_rules(srs, rule, says):
    conf = srs.base_conf().replace("vhost __defaultVhost__ {\n}\n", "") + \
        f"vhost __defaultVhost__ {{\n  security {{\n    enabled on;\n    {rule}\n  }}\n}}\n"
    srs.write_conf(conf)
    line = conf.splitlines().index(f"    {rule}") + 1
    r = subprocess.run([str(SRS), "-t", "-c", str(srs.conf_file)], cwd=TRUNK, capture_output=True, text=True,
                       timeout=10)
    out = r.stdout + r.stderr
    assert r.returncode != 0, out
    assert f"{srs.conf_file}:{line}: {says}" in out, out

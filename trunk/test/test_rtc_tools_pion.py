"""Our WebRTC load tools against a server that is not ours (issue 23): a small
Pion WHIP/WHEP server (test/pion_server), a full ICE agent that checks the
pair itself before it uses it, and that answers with its own choice among the
codecs offered (or, told to, takes only some H.264 profiles). sb_rtc_publish
publishes to it over WHIP, sb_rtc_load plays from it over WHEP; both sides
count what went through. The same two tools
against our own server close the file: the Chromium-like offers and the full
ICE side must not change what they do there."""
import json
import re
import subprocess
import urllib.error
import urllib.request

import pytest

import pion_server
from conftest import TRUNK, stop_process, wait_until
from rtc_env import rtc_clients, start_rtc
from test_browser import require

PUBLISH = TRUNK / "objs" / "sb_rtc_publish"
LOAD = TRUNK / "objs" / "sb_rtc_load"


@pytest.fixture(scope="session")
def pion_server_bin():
    """objs/srs-pion-server, built once per session from test/pion_server."""
    try:
        return pion_server.build()
    except pion_server.PionUnavailable as e:
        require(False, f"{e}; install Go (the machine's go, or sh 3rdparty/install.sh test reports it)")


def last_json(text):
    for line in reversed(text.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    raise AssertionError(f"no JSON line in: {text[-3000:]}")


def start_publisher(url, media, seconds):
    return subprocess.Popen([str(PUBLISH), "-r", url, "--ffmpeg", str(media), "-t", str(seconds), "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish_publisher(proc, seconds):
    try:
        out, err = proc.communicate(timeout=seconds + 30)
    finally:
        stop_process(proc)
    assert proc.returncode == 0, out[-3000:] + err[-3000:]
    return out, last_json(out)


def run_load(url, clients, seconds):
    r = subprocess.run([str(LOAD), "-c", str(clients), "-r", url, "-t", str(seconds), "--json"],
                       capture_output=True, text=True, timeout=seconds + 60)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return last_json(r.stdout)


def check_publisher(out, res):
    assert res["ok"] is True, out[-3000:]
    assert res["video_packets"] > 50 and res["audio_packets"] > 50, res
    # Every datagram the server sent was taken: its connectivity checks were
    # answered (issue 23 saw "refused datagrams 20" here).
    assert res["refused_datagrams"] == 0, out[-3000:]
    m = re.search(r"connected in [\d.]+ ms \(([^)]*)\)", out)
    assert m, out[-3000:]
    return m.group(1)


def check_players(res, clients):
    assert res["clients"] == clients and res["alive"] == clients and res["failed"] == 0, res
    assert res["sessions"] == clients and res["reconnects"] == 0, res
    assert res["video_frames"] > 10 * clients and res["audio_frames"] > 10 * clients, res
    assert res["per_client_video_frames_min"] > 10, res
    assert res["first_video_keyframe_ok"] == clients and res["first_video_keyframe_bad"] == 0, res
    assert res["decrypt_failures"] == 0 and res["refused_datagrams"] == 0, res
    assert res["rtcp_received"] > 0 and res["rr_sent"] > 0, res
    assert res["verify_ok"] is True, res


def test_publish_to_pion_over_whip(pion_server_bin, media):
    with pion_server.PionServer(pion_server_bin) as pion:
        proc = start_publisher(pion.whip_url("p1"), media, 4)
        out, res = finish_publisher(proc, 4)
        milestones = check_publisher(out, res)
        # Pion checked the pair itself: we answered its checks, and the DTLS
        # handshake (Pion is the DTLS client) finished on that pair.
        answered = re.search(r"answered:(\d+)", milestones)
        assert answered and int(answered.group(1)) >= 1, milestones
        assert "srtp:SRTP_" in milestones, milestones

        [s] = pion.sessions(role="publish", stream="p1")
        assert s["connected"] and s["dtls_connected"], s
        assert "prflx" in s["selected_pair"], s  # our address, learned from our check
        assert s["video_in"] > 0 and s["audio_in"] > 0, s
        # Loopback: what we sent arrived (a few may still be in flight at the end).
        assert 0.9 * res["packets"] <= s["rtp_in"] <= res["packets"], (s, res)
        # The PT we sent under is the H.264 packetization-mode 1 entry Pion chose
        # from our offer (the stream's High profile), and Opus.
        codecs = " ".join(s["codecs"])
        assert "video/H264" in codecs and "packetization-mode=1" in codecs and "profile-level-id=64" in codecs, s
        assert "audio/opus" in codecs, s


def old_play_offer():
    """A recvonly offer as sb_rtc_load wrote it before issue 23: one H.264
    entry, 42e01f."""
    fp = ":".join(["AB"] * 32)

    def section(kind, mid, pt, lines):
        return (f"m={kind} 9 UDP/TLS/RTP/SAVPF {pt}\r\nc=IN IP4 0.0.0.0\r\na=mid:{mid}\r\na=ice-ufrag:abcd1234\r\n"
                f"a=ice-pwd:0123456789abcdefghijklmn\r\na=fingerprint:sha-256 {fp}\r\na=setup:actpass\r\n"
                "a=recvonly\r\na=rtcp-mux\r\n" + lines)
    return ("v=0\r\no=- 1 2 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0 1\r\n"
            + section("audio", "0", 111, "a=rtpmap:111 opus/48000/2\r\na=fmtp:111 minptime=10;useinbandfec=1\r\n")
            + section("video", "1", 106, "a=rtpmap:106 H264/90000\r\n"
                      "a=fmtp:106 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f\r\n"))


def post_sdp(url, sdp):
    req = urllib.request.Request(url, data=sdp.encode(), headers={"Content-Type": "application/sdp"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")


def test_play_from_pion_over_whep(pion_server_bin, media):
    """A server that takes only Main and High H.264 (as picky as issue 23's):
    the one-profile offer of before is refused, the Chromium-like one plays."""
    clients = 3
    with pion_server.PionServer(pion_server_bin, h264="4d001f,64001f") as pion:
        pub = start_publisher(pion.whip_url("p2"), media, 10)
        try:
            assert wait_until(lambda: any(s["video_in"] > 0 for s in pion.sessions(role="publish", stream="p2")),
                              15), pion.stats()
            status, body = post_sdp(pion.whep_url("p2"), old_play_offer())
            assert status == 400 and "codecs not supported" in body, (status, body)
            res = run_load(pion.whep_url("p2"), clients, 4)
        finally:
            out, pres = finish_publisher(pub, 10)
        check_publisher(out, pres)
        check_players(res, clients)
        assert res["deletes_ok"] == clients, res  # WHEP DELETE on the Location Pion gave

        players = pion.sessions(role="play", stream="p2")
        assert len(players) == clients, players
        sent = 0
        for s in players:
            # Pion connects only once its own check on the pair was answered:
            # each player answered them as a full ICE agent.
            assert s["connected"] and s["dtls_connected"] and s["ended"], s
            assert "prflx" in s["selected_pair"], s
            assert s["rtp_out"] > 50 and s["rtcp_in"] > 0, s  # media out, our receiver reports in
            sent += s["rtp_out"]
        # Every packet Pion sent arrived, bar the last ones before DELETE.
        assert 0.9 * sent <= res["rtp_packets"] <= sent, (sent, res)


def test_the_same_tools_on_our_server(srs, media):
    """sb_rtc_publish over WHIP and sb_rtc_load over WHEP on our (ICE-lite)
    server: the Chromium-like offers are answered with one codec each, and
    the tools still connect, send and verify."""
    clients = 3
    start_rtc(srs)
    whip = f"http://{srs.api}/rtc/v1/whip/?app=live&stream=tools"
    whep = f"http://{srs.api}/rtc/v1/whep/?app=live&stream=tools"
    pub = start_publisher(whip, media, 10)
    try:
        assert wait_until(lambda: rtc_clients(srs, "tools", "rtc-publish"), 15), srs.log()[-3000:]
        res = run_load(whep, clients, 4)
    finally:
        out, pres = finish_publisher(pub, 10)
    milestones = check_publisher(out, pres)
    assert "answered:0" in milestones, milestones  # ICE-lite: no checks of its own
    check_players(res, clients)

"""sb_rtc_publish -c N (issue 23): N WHIP sessions from one process, each with
its own ICE/DTLS/SRTP, SSRCs and stream name (%d in the URL), relaying one
ffmpeg RTP source. The server (ASAN build) must list every stream as
publishing with its received bytes growing, and a WHEP player
(sb_rtc_load) of a random one of them must decrypt everything and see
keyframes, and an aiortc player of another decodes the video; with loss on
purpose, the server's NACKs are answered."""
import json
import random
import subprocess
import time

from conftest import TRUNK, stop_process, wait_until
from rtc_env import api_get, require_aiortc, start_rtc

PUBLISH = TRUNK / "objs" / "sb_rtc_publish"
LOAD = TRUNK / "objs" / "sb_rtc_load"


def last_json(text):
    assert "AddressSanitizer" not in text and "LeakSanitizer" not in text, text[-3000:]
    lines = [l for l in text.splitlines() if l.startswith("{")]
    assert lines, text[-3000:]
    return json.loads(lines[-1])


def streams_by_name(srs, prefix):
    return {s["name"]: s for s in api_get(srs, "/api/v1/streams?count=1000")["streams"]
            if s.get("name", "").startswith(prefix)}


def publishing(srs, prefix, n):
    try:
        got = streams_by_name(srs, prefix)
    except OSError:
        return False
    return len(got) == n and all(s.get("publish", {}).get("active") for s in got.values())


def whip(srs, stream):
    return f"http://{srs.api}/rtc/v1/whip/?app=live&stream={stream}"


def test_five_publishers_one_process(srs, media):
    require_aiortc()
    from rtc_client import Rtc
    start_rtc(srs)
    n = 5
    pub = subprocess.Popen([str(PUBLISH), "-c", str(n), "-s", "500", "-r", whip(srs, "many%d"), "--ffmpeg",
                            str(media), "-t", "20", "-m", "2000", "--json"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert wait_until(lambda: publishing(srs, "many", n), 15), streams_by_name(srs, "many")
        names = sorted(streams_by_name(srs, "many"))
        assert names == [f"many{i}" for i in range(n)], names
        # Every stream's bytes in grow.
        before = {k: s["recv_bytes"] for k, s in streams_by_name(srs, "many").items()}
        time.sleep(2.5)
        after = streams_by_name(srs, "many")
        for name in names:
            assert after[name]["recv_bytes"] > before[name] + 50_000, (name, before[name], after[name])
            assert after[name]["publish"]["active"], after[name]
        # One WHEP player of a random stream: decrypts every packet, starts at
        # a keyframe and sees the next ones (2 s GOP).
        pick = random.choice(names)
        whep = f"http://{srs.api}/rtc/v1/whep/?app=live&stream={pick}"
        r = subprocess.run([str(LOAD), "-c", "1", "-r", whep, "-t", "6", "-m", "2000", "--json"],
                           capture_output=True, text=True, timeout=40)
        play = last_json(r.stdout)
        assert r.returncode == 0, r.stdout[-3000:]
        assert play["verify_ok"] is True and play["first_video_keyframe_ok"] == 1, play
        assert play["keyframes"] >= 2 and play["video_frames"] > 60, play
        assert play["decrypt_failures"] == 0, play
        # An independent client (aiortc) of another one decodes the video.
        other = random.choice([n for n in names if n != pick])
        with Rtc() as rtc:
            player = rtc.play(srs.api, "live", other)
            assert wait_until(lambda: player.frames_decoded > 25, 10), player.stats()
            assert (player.width, player.height) == (320, 240), player.stats()
        out, _ = pub.communicate(timeout=40)
    finally:
        stop_process(pub)
    assert pub.returncode == 0, out[-3000:]
    summary = last_json(out)
    assert summary["ok"] is True and summary["clients"] == n and summary["connected"] == n, summary
    assert summary["failed"] == 0 and summary["sessions"] == n, summary
    assert summary["connected_ms"]["samples"] == n, summary
    # Every source packet went to every session once it was connected.
    source = summary["source_video_packets"] + summary["source_audio_packets"]
    assert summary["packets"] >= 0.8 * n * source, summary
    assert summary["send_drops"] == 0 and summary["refused_datagrams"] == 0, summary
    assert summary["sr_sent"] >= n * 10, summary
    assert 0 < summary["tool_cpu_percent"] < 100, summary
    # The sessions ended with the tool: the server drops them.
    assert wait_until(lambda: not streams_by_name(srs, "many") or
                      not any(s["publish"]["active"] for s in streams_by_name(srs, "many").values()), 15)


def test_loss_on_purpose_is_repaired_per_session(srs, media):
    start_rtc(srs)
    pub = subprocess.Popen([str(PUBLISH), "-c", "3", "-r", whip(srs, "lossy%d"), "--ffmpeg", str(media),
                            "--loss", "5", "-t", "8", "-m", "2000", "--json"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = pub.communicate(timeout=40)
    finally:
        stop_process(pub)
    summary = last_json(out)
    assert pub.returncode == 0 and summary["connected"] == 3, out[-3000:]
    assert summary["dropped_on_purpose"] > 50, summary
    # The server asked for what was dropped, per session (its own SSRCs and
    # sequence numbers), and got it from the one shared ring. Not all of it
    # is asked for: only video has NACK feedback (the drops fall on audio and
    # video alike, in proportion), and what was dropped in the last moments
    # of the run is not asked for before the tool stops.
    video_share = summary["video_packets"] / max(1, summary["video_packets"] + summary["audio_packets"])
    video_dropped = summary["dropped_on_purpose"] * video_share
    assert summary["nacks"] > 10 and summary["nacks_answered"] > 0.3 * video_dropped, summary
    assert summary["nacks_not_kept"] == 0, summary


def test_refused_session_is_counted_and_retried(srs, media):
    """Two sessions of one stream through SRS's publish API (webrtc://, no %d):
    the server takes one and refuses the other (already publishing); the tool
    logs it as rejected, keeps trying after -e ms, and exits 1."""
    start_rtc(srs)
    pub = subprocess.Popen([str(PUBLISH), "-c", "2", "-e", "1000", "-r", f"webrtc://{srs.api}/live/same", "--ffmpeg",
                            str(media), "-t", "5", "-m", "2000", "--json"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = pub.communicate(timeout=40)
    finally:
        stop_process(pub)
    summary = last_json(out)
    assert pub.returncode == 1 and summary["ok"] is False, out[-3000:]
    assert summary["connected"] == 1 and summary["failed"] == 1, summary
    assert summary["errors"]["rejected"] >= 2 and summary["reconnects"] >= 1, summary
    assert "rejected: publish API" in out, out[-3000:]
    assert summary["packets"] > 200, summary  # the accepted one relayed all along


def test_bad_arguments_exit_2():
    for args in (["-c", "0", "-r", "http://127.0.0.1:1/rtc/v1/whip/?app=live&stream=s"],
                 ["-c", "2", "-r", "ftp://x/y"],
                 ["-c", "2", "--max-signalling", "0", "-r", "http://127.0.0.1:1/rtc/v1/whip/?app=a&stream=s"]):
        r = subprocess.run([str(PUBLISH)] + args, capture_output=True, text=True, timeout=10)
        assert r.returncode == 2, (args, r.stdout, r.stderr)

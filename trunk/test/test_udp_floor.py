"""sb_udp_floor, the kernel's floor under the WebRTC benchmark, at a tiny
scale: every player socket gets the stream's packet rate, GSO changes the
number of messages and not the number of datagrams, --srtp gives each player
its own SRTP bytes (decrypted by the receiver with that player's key), and
bad arguments are refused. (Its numbers are for docs/benchmark.md, not
asserted here.)"""
import json
import subprocess

from conftest import TRUNK

TOOL = TRUNK / "objs" / "sb_udp_floor"


def run(*args):
    out = subprocess.run([str(TOOL), *args], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_packet_rate_and_gso_messages():
    # 530 kbps at 25 fps: 2650-byte frames in three packets; 50 audio packets a second.
    plain = run("-c", "20", "-t", "2")
    gso = run("-c", "20", "-t", "2", "--gso")
    for r in (plain, gso):
        assert r["players"] == 20
        assert r["send_errors"] == 0
        assert r["video_packets_per_frame"] == 3
        assert 120 <= r["packets_per_player_s"] <= 130, r  # 25 x 3 + 50
        assert r["cpu"] > 0
    # Without GSO a message is a datagram; with it, a frame's three are one.
    # (seconds is the measured wall time, so the rate times it is the count.)
    sent = plain["packets_per_player_s"] * plain["seconds"] * 20
    assert abs(plain["messages"] - sent) <= 0.01 * sent, plain
    assert gso["messages"] < plain["messages"] * 0.65
    for r in (plain, gso):
        assert r["srtp"] is False and r["players_verified"] == -1
        # One frame's fan-out is timed for every frame (25 a second).
        assert 0 < r["frame_fanout_ms"]["p50"] <= r["frame_fanout_ms"]["max"], r


def test_srtp_gives_each_player_its_own_packets():
    for extra in ([], ["--gso"]):
        r = run("-c", "20", "-t", "2", "--srtp", *extra)
        assert r["srtp"] is True
        assert r["srtp_errors"] == 0 and r["send_errors"] == 0, r
        assert 120 <= r["packets_per_player_s"] <= 130, r
        # The receiver decrypted each player's first datagram with that
        # player's key and found its SSRC and the payload's bytes.
        assert r["players_verified"] == 20, r


def test_bad_arguments_are_refused():
    for args in (["-c", "0"], ["--mtu", "9000"], ["--nope"], ["-c"]):
        out = subprocess.run([str(TOOL), *args], capture_output=True, text=True, timeout=10)
        assert out.returncode == 2, args
        assert "argument" in out.stderr

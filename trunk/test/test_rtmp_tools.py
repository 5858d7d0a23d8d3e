"""The RTMP load tools against our server: sb_rtmp_load (players that verify
what they receive) and sb_rtmp_publish (publishers looping an FLV file).
Every process started here is stopped by PID in a finally block."""
import json
import os
import signal
import subprocess
import time

import pytest

from conftest import TRUNK, free_port, wait_until
from conftest import stop_process as stop

LOAD = TRUNK / "objs" / "sb_rtmp_load"
PUBLISH = TRUNK / "objs" / "sb_rtmp_publish"

FPS = 25


def start_ffmpeg_publisher(port, seconds=10, stream="livestream"):
    return subprocess.Popen(
        ["ffmpeg", "-nostdin", "-loglevel", "error", "-re",
         "-f", "lavfi", "-i", f"testsrc=size=768x320:rate={FPS}",
         "-f", "lavfi", "-i", "sine",
         "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "50", "-b:v", "500k",
         "-c:a", "aac", "-t", str(seconds), "-f", "flv", f"rtmp://127.0.0.1:{port}/live/{stream}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def run_load(args, timeout=20):
    r = subprocess.run([str(LOAD)] + args, cwd=TRUNK, capture_output=True, text=True, timeout=timeout)
    lines = [l for l in r.stdout.splitlines() if l.strip()]
    summary = json.loads(lines[-1]) if lines and lines[-1].startswith("{") else None
    return r, summary


def stream_has_video(port, stream="livestream"):
    _, s = run_load(["-c", "1", "-r", f"rtmp://127.0.0.1:{port}/live/{stream}", "-t", "1", "--json"])
    return s is not None and s["video_frames"] > 0


def test_load_players_verify_a_live_stream(srs):
    assert LOAD.exists(), "build the tools first (make)"
    srs.start(srs.base_conf())
    ffmpeg = start_ffmpeg_publisher(srs.rtmp_port, seconds=12)
    try:
        assert wait_until(lambda: stream_has_video(srs.rtmp_port), timeout=8, interval=0.2), \
            f"the stream never came: {srs.log()[-2000:]}"
        seconds = 4
        r, s = run_load(["-c", "5", "-r", f"rtmp://127.0.0.1:{srs.rtmp_port}/live/livestream",
                         "-t", str(seconds), "-m", "1000", "--json"])
        assert r.returncode == 0, r.stdout + r.stderr
        assert s is not None, r.stdout
        assert s["clients"] == 5
        assert s["alive"] == 5
        assert s["failed"] == 0
        assert s["first_video_keyframe_ok"] == 5
        assert s["ts_monotonic_violations"] == 0
        assert sum(s["errors"].values()) == 0, s["errors"]
        # 25 fps for 4 s, plus up to one cached GOP (2 s) at the start; generous.
        assert s["per_client_video_frames_min"] >= FPS * seconds * 0.6, s
        assert s["per_client_video_frames_max"] <= FPS * (seconds + 2) * 1.3, s
        assert s["audio_frames"] > 0 and s["keyframes"] >= 5
        assert s["kbps"] > 5 * 200
        # Periodic report lines, one a second.
        assert sum(1 for l in r.stdout.splitlines() if "clients=5 alive=" in l) >= 3, r.stdout
    finally:
        stop(ffmpeg)


def tool_reads(proc):
    """Read syscalls of a running tool so far (/proc/PID/io syscr)."""
    for line in open(f"/proc/{proc.pid}/io"):
        if line.startswith("syscr:"):
            return int(line.split()[1])
    raise AssertionError("no syscr")


def test_load_read_wait_batches_reads(srs):
    """--read-wait: against a server that writes message by message
    (min_latency on), the players read in batches, with far fewer read calls,
    and still verify every message."""
    srs.start(srs.base_conf().replace("vhost __defaultVhost__ {\n}", "vhost __defaultVhost__ {\n  min_latency on;\n}"))
    ffmpeg = start_ffmpeg_publisher(srs.rtmp_port, seconds=20)
    try:
        assert wait_until(lambda: stream_has_video(srs.rtmp_port), timeout=8, interval=0.2), srs.log()[-2000:]
        reads = {}
        for wait in (0, 200):
            load = subprocess.Popen([str(LOAD), "-c", "5", "-r", f"rtmp://127.0.0.1:{srs.rtmp_port}/live/livestream",
                                     "-t", "5", "-m", "100000", "--json", "--read-wait", str(wait)],
                                    cwd=TRUNK, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                time.sleep(1.5)
                r0 = tool_reads(load)
                time.sleep(3)
                reads[wait] = tool_reads(load) - r0
                out, err = load.communicate(timeout=15)
            finally:
                stop(load)
            assert load.returncode == 0, out + err
            s = json.loads(out.strip().splitlines()[-1])
            assert s["alive"] == 5 and s["failed"] == 0 and s["verify_ok"], s
            assert s["per_client_video_frames_min"] >= FPS * 5 * 0.6, s
        # ~70 messages a second to each of 5 players: one read each without the wait.
        assert reads[0] > 5 * 40 * 3 * 0.5, reads
        assert reads[200] < reads[0] / 4, reads
    finally:
        stop(ffmpeg)


def test_publish_tool_feeds_several_streams(srs, tmp_path):
    assert PUBLISH.exists(), "build the tools first (make)"
    flv = tmp_path / "small.flv"
    subprocess.run(
        ["ffmpeg", "-nostdin", "-loglevel", "error", "-y",
         "-f", "lavfi", "-i", f"testsrc=size=320x240:rate={FPS}", "-f", "lavfi", "-i", "sine",
         "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "25", "-b:v", "300k",
         "-c:a", "aac", "-t", "2", "-f", "flv", str(flv)],
        check=True, timeout=20)
    srs.start(srs.base_conf())
    pub = subprocess.Popen(
        [str(PUBLISH), "-c", "2", "-i", str(flv), "-r", f"rtmp://127.0.0.1:{srs.rtmp_port}/live/s%d",
         "-t", "25", "-m", "1000", "--json"],
        cwd=TRUNK, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for i in range(2):
            assert wait_until(lambda: stream_has_video(srs.rtmp_port, f"s{i}"), timeout=8, interval=0.2)
            probe = subprocess.run(
                ["ffprobe", "-v", "error", "-show_entries", "stream=codec_name", "-of", "csv",
                 f"rtmp://127.0.0.1:{srs.rtmp_port}/live/s{i}"],
                capture_output=True, text=True, timeout=10)
            assert "h264" in probe.stdout and "aac" in probe.stdout, probe.stdout + probe.stderr
        # Players of a looping file still see timestamps that only grow.
        r, s = run_load(["-c", "2", "-r", f"rtmp://127.0.0.1:{srs.rtmp_port}/live/s%d", "-t", "3", "--json"])
        assert r.returncode == 0, r.stdout + r.stderr
        assert s["alive"] == 2 and s["ts_monotonic_violations"] == 0 and s["first_video_keyframe_ok"] == 2, s
        # SIGINT ends it with a summary.
        os.kill(pub.pid, signal.SIGINT)
        out, err = pub.communicate(timeout=10)
        assert pub.returncode == 0, out + err
        summary = json.loads(out.strip().splitlines()[-1])
        assert summary["clients"] == 2
        assert summary["alive"] == 2
        assert summary["failed"] == 0
        assert summary["video_frames"] > 0 and summary["audio_frames"] > 0
        assert summary["loops"] >= 2, summary  # the 2 s file looped
    finally:
        stop(pub)


def test_load_counts_failures_and_retries():
    port = free_port()  # nobody listens
    r, s = run_load(["-c", "2", "-r", f"rtmp://127.0.0.1:{port}/live/none", "-t", "1.2", "-e", "200",
                     "--json"], timeout=10)
    assert r.returncode == 0, r.stdout + r.stderr  # failures to connect are not verification failures
    assert s["alive"] == 0 and s["failed"] == 2
    assert s["errors"]["connect"] >= 4, s
    assert s["reconnects"] >= 2, s


def test_tools_reject_bad_arguments():
    for tool, args in [(LOAD, []), (LOAD, ["-c", "x", "-r", "rtmp://127.0.0.1/a/b"]),
                       (LOAD, ["-r", "rtmp://host.example/a/b", "-t", "0.1"]),
                       (PUBLISH, ["-r", "rtmp://127.0.0.1/a/b"]),
                       (PUBLISH, ["-i", "/nonexistent.flv", "-r", "rtmp://127.0.0.1/a/b"])]:
        r = subprocess.run([str(tool)] + args, capture_output=True, text=True, timeout=10)
        assert r.returncode in (1, 2), (tool, args, r.stdout, r.stderr)

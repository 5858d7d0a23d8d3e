"""Test media and real clients: ffmpeg publishers and ffprobe players."""
import os
import signal
import subprocess
import time
from pathlib import Path

FFMPEG = "ffmpeg"
FFPROBE = "ffprobe"


def make_test_flv(path: Path, seconds=20, size="320x240", fps=25, gop_seconds=2):
    """H.264 (yuv420p, High) + AAC stereo 44.1 kHz, fixed GOP, as FLV."""
    if path.exists():
        return path
    cmd = [FFMPEG, "-hide_banner", "-loglevel", "error", "-y",
           "-f", "lavfi", "-i", f"testsrc=size={size}:rate={fps}",
           "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=44100",
           "-t", str(seconds), "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-profile:v", "high",
           "-g", str(fps * gop_seconds), "-keyint_min", str(fps * gop_seconds), "-sc_threshold", "0",
           "-b:v", "300k", "-c:a", "aac", "-b:a", "64k", "-ac", "2", "-f", "flv", str(path)]
    subprocess.run(cmd, check=True, timeout=120)
    return path


class Publisher:
    """ffmpeg publishing a file in real time, looped, until stopped."""

    def __init__(self, media: Path, url: str, loop=True, extra=None):
        cmd = [FFMPEG, "-hide_banner", "-loglevel", "error", "-re"]
        if loop:
            cmd += ["-stream_loop", "-1"]
        cmd += ["-i", str(media), "-c", "copy"] + (extra or []) + ["-f", "flv", url]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        if self.proc.stderr:
            err = self.proc.stderr.read()
            self.proc.stderr.close()
            return err
        return ""

    def wait(self, timeout):
        return self.proc.wait(timeout=timeout)


def probe_streams(url, timeout=15):
    """{'video': {...}, 'audio': {...}} from ffprobe."""
    r = subprocess.run([FFPROBE, "-v", "error", "-show_entries",
                        "stream=codec_type,codec_name,width,height,sample_rate,channels,profile",
                        "-of", "json", url], capture_output=True, text=True, timeout=timeout)
    import json
    data = json.loads(r.stdout or "{}")
    out = {}
    for s in data.get("streams", []):
        if s.get("codec_type") in ("video", "audio"):
            out[s["codec_type"]] = s
    return out


def probe_packets(url, seconds, stream="v", timeout=30):
    """[(pts_time, flags)] of the packets ffprobe reads in `seconds` of playing."""
    r = subprocess.run([FFPROBE, "-v", "error", "-select_streams", stream, "-show_entries",
                        "packet=pts_time,dts_time,flags", "-of", "csv=p=0",
                        "-read_intervals", f"%+{seconds}", url],
                       capture_output=True, text=True, timeout=timeout)
    packets = []
    for line in r.stdout.splitlines():
        parts = line.split(",")
        if len(parts) >= 3 and parts[0] not in ("", "N/A"):
            packets.append((float(parts[0]), parts[2]))
    return packets


def wait_for_publish(srs, stream="/live/livestream", timeout=15):
    from conftest import wait_until
    assert wait_until(lambda: f"fmle-publish __defaultVhost__{stream}" in srs.log(), timeout), srs.log()[-3000:]


def make_noise_flv(path: Path, seconds=10, bitrate="8M"):
    """A high-bitrate stream (noise), to fill socket buffers quickly."""
    if path.exists():
        return path
    cmd = [FFMPEG, "-hide_banner", "-loglevel", "error", "-y",
           "-f", "lavfi", "-i", "color=c=gray:s=320x240:r=25,noise=alls=60:allf=t",
           "-f", "lavfi", "-i", "sine", "-t", str(seconds), "-c:v", "libx264", "-preset", "ultrafast",
           "-b:v", bitrate, "-pix_fmt", "yuv420p", "-g", "50", "-c:a", "aac", "-f", "flv", str(path)]
    subprocess.run(cmd, check=True, timeout=120)
    return path

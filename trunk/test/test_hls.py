"""HLS on disk (docs/hls.md): ffmpeg publishes H.264+AAC over RTMP, ffprobe and
ffmpeg read what the server wrote (over its HTTP server, or the files), the
playlist is checked with the m3u8 parser and by RFC 8216's rules, the window
slides with clean-up, hooks tell each segment, dispose deletes the files, keys
encrypt segments that ffmpeg decrypts, audio-only and video-only publishers
and one with a timestamp jump."""
import http.client
import json
import math
import subprocess
import time
from pathlib import Path

import m3u8
import pytest

from conftest import can_connect, free_port, wait_until
from hooks_server import HooksServer
from media import Publisher, probe_streams, wait_for_publish

FFPROBE = "ffprobe"
FFMPEG = "ffmpeg"


def start(srs, hls_body, hooks=None, env=None):
    """A server whose HTTP server serves its workdir, where HLS goes too."""
    srs.http_port = free_port()
    conf = srs.base_conf().replace("vhost __defaultVhost__ {\n}\n", "")
    conf += f"http_server {{\n  enabled on;\n  listen {srs.http_port};\n  dir {srs.workdir};\n}}\n"
    hook_block = ""
    if hooks:
        hook_block = (f"  http_hooks {{\n    enabled on;\n    on_hls {hooks.url('/ok/hls')};\n"
                      f"    on_hls_notify {hooks.url('/huge/notify')}?ts=[ts_url]&app=[app];\n  }}\n")
    conf += (f"vhost __defaultVhost__ {{\n  hls {{\n    enabled on;\n    hls_path {srs.workdir};\n"
             f"{hls_body}  }}\n{hook_block}}}\n")
    srs.write_conf(conf)
    srs.start(env=env)
    assert wait_until(lambda: can_connect(srs.http_port), 5), srs.log()[-2000:]
    return srs


def http_get(port, path, timeout=5):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


def media_playlist(port, path, sessions):
    """GET of a media playlist as a player does it: with hls_ctx on (SRS's
    default) the first answer is a master playlist naming the session's media
    playlist, which later polls then ask for directly."""
    status, body = http_get(port, sessions.get(path, path))
    if status == 200 and b"#EXT-X-STREAM-INF" in body:
        sessions[path] = [l for l in body.decode().splitlines() if l and not l.startswith("#")][0]
        assert sessions[path].startswith(path + "?hls_ctx="), body
        status, body = http_get(port, sessions[path])
    return status, body


def check_rfc8216(text):
    """The playlist's rules: EXTINF rounded <= TARGETDURATION, no ENDLIST (live),
    SRS's shape (version, ', no desc'). Returns the parsed playlist."""
    pl = m3u8.loads(text)
    assert text.startswith("#EXTM3U\n"), text
    assert "#EXT-X-ENDLIST" not in text
    assert pl.target_duration is not None
    for seg in pl.segments:
        assert round(seg.duration) <= pl.target_duration, text
    for line in text.splitlines():
        if line.startswith("#EXTINF:"):
            assert line.endswith(", no desc"), line
            assert len(line.split(":")[1].split(",")[0].split(".")[1]) == 3, line
    return pl


def vod_copy(playlist: Path, name="vod.m3u8"):
    """The playlist with an ENDLIST next to it, so ffmpeg reads every segment
    once and ends (a live playlist is read from its live edge, forever)."""
    out = playlist.parent / name
    out.write_text(playlist.read_text() + "#EXT-X-ENDLIST\n")
    return out


def probe_format(url, extra=None, timeout=30):
    r = subprocess.run([FFPROBE, "-v", "error"] + (extra or []) +
                       ["-show_entries", "format=duration,probe_score:stream=codec_name,codec_type",
                        "-of", "json", url], capture_output=True, text=True, timeout=timeout)
    return json.loads(r.stdout or "{}")


def decoded_seconds(url, extra=None, timeout=60):
    """Seconds of video ffmpeg decodes from url (frames / 25), and its stderr."""
    r = subprocess.run([FFMPEG, "-hide_banner", "-v", "error"] + (extra or []) +
                       ["-i", url, "-map", "0:v:0?", "-map", "0:a:0?", "-f", "null", "-"],
                       capture_output=True, text=True, timeout=timeout)
    return r.returncode, r.stderr


def seg_files(d: Path, ext):
    return sorted(p.name for p in d.glob(f"*.{ext}"))


def test_ts_window_cleanup_hooks_probe_and_dispose(srs, media):
    hooks = HooksServer().start()
    try:
        start(srs, "    hls_fragment 2;\n    hls_window 6;\n    hls_dispose 3;\n    hls_nb_notify 100;\n", hooks=hooks)
        pub = Publisher(media, f"rtmp://127.0.0.1:{srs.rtmp_port}/live/livestream?k=v")
        live = srs.workdir / "live"
        m3u8_path = live / "livestream.m3u8"
        try:
            wait_for_publish(srs)
            seen = {}  # seq -> uri, across every playlist read
            last_seq = -1
            sessions = {}
            deadline = time.monotonic() + 16
            while time.monotonic() < deadline:
                status, body = media_playlist(srs.http_port, "/live/livestream.m3u8", sessions)
                if status == 200:
                    text = body.decode()
                    pl = check_rfc8216(text)
                    assert pl.version == 3
                    seq = pl.media_sequence
                    assert seq >= last_seq, "the media sequence went back"
                    for i, seg in enumerate(pl.segments):
                        assert seen.setdefault(seq + i, seg.uri) == seg.uri, "a sequence number changed its segment"
                    last_seq = seq
                    # hls_cleanup: segments that left the window are gone from disk.
                    for old in range(0, seq):
                        assert not (live / f"livestream-{old}.ts").exists(), (old, text)
                    if seq >= 3:
                        break
                time.sleep(0.5)
            assert last_seq >= 3, f"the window never slid: {seen} {srs.log()[-2000:]}"
            # Continuity: every number seen from 0, no hole.
            assert sorted(seen) == list(range(len(seen)))
            # A 2 s GOP with hls_fragment 2: 2 s segments (SRS #3191 gives 4 s).
            assert 1.9 <= m3u8.loads(m3u8_path.read_text()).segments[0].duration <= 2.1
            # ffprobe plays the live playlist over HTTP.
            info = probe_format(f"http://127.0.0.1:{srs.http_port}/live/livestream.m3u8")
            codecs = {s["codec_type"]: s["codec_name"] for s in info.get("streams", [])}
            assert codecs == {"video": "h264", "audio": "aac"}, info
            assert info["format"]["probe_score"] >= 90
        finally:
            pub.stop()
        # on_hls: SRS's body per segment, in order; on_hls_notify GETs.
        assert wait_until(lambda: len(hooks.of("on_hls")) >= 4, 5)
        bodies = [r.json for r in hooks.of("on_hls")]
        b = bodies[0]
        assert list(b.keys())[:7] == ["server_id", "service_id", "action", "client_id", "ip", "vhost", "app"]
        assert b["stream"] == "livestream" and b["param"] == "?k=v"
        assert b["file"] == f"{srs.workdir}/live/livestream-0.ts"
        assert b["url"] == "livestream-0.ts"
        assert b["m3u8"] == f"{srs.workdir}/live/livestream.m3u8"
        assert b["m3u8_url"] == "live/livestream.m3u8"
        assert isinstance(b["seq_no"], int) and isinstance(b["duration"], float)
        assert [x["seq_no"] for x in bodies] == list(range(len(bodies)))
        assert b["stream_url"] == "/live/livestream" and b["cwd"]
        notes = [r for r in hooks.of(path="/huge/notify") if r.method == "GET"]
        assert notes and "ts=livestream-0.ts" in notes[0].query and "app=live" in notes[0].query
        # hls_nb_notify: 100 bytes of a 64 MB answer are read, then the connection closes.
        assert wait_until(lambda: "/huge/notify" in srs.log() and "read 100 of its body" in srs.log(), 5), \
            [l for l in srs.log().splitlines() if "on_hls_notify" in l][:3]
        # hls_dispose 3: the playlist and the segments go a few seconds after the unpublish.
        assert m3u8_path.exists()
        assert wait_until(lambda: not m3u8_path.exists() and not seg_files(live, "ts"), 8), seg_files(live, "ts")
        assert "files disposed of" in srs.log()
    finally:
        hooks.stop()


def publish_then_wait(srs, media, stream, seconds, segment, extra=()):
    """Publishes `seconds` of media as live/<stream> and waits for the
    playlist to list `segment`; returns the playlist's path and ffmpeg's
    stderr."""
    pub = Publisher(media, f"rtmp://127.0.0.1:{srs.rtmp_port}/live/{stream}", loop=False,
                    extra=["-t", str(seconds), *extra])
    try:
        pub.wait(30)
    finally:
        err = pub.stop()
    m3u8_path = srs.workdir / "live" / f"{stream}.m3u8"
    assert wait_until(lambda: m3u8_path.exists() and segment in m3u8_path.read_text(), 5), \
        (err or "") + srs.log()[-2000:]
    return m3u8_path, err


def test_fmp4_codecs_duration_and_probe(srs, media):
    start(srs, "    hls_fragment 2;\n    hls_window 60;\n    hls_use_fmp4 on;\n    hls_dispose 0;\n")
    m3u8_path, _ = publish_then_wait(srs, media, "livestream", 8, "livestream-3.m4s")
    live = m3u8_path.parent
    text = m3u8_path.read_text()
    pl = check_rfc8216(text)
    assert pl.version == 7
    assert '#EXT-X-MAP:URI="livestream/init.mp4"' in text
    assert (live / "livestream" / "init.mp4").exists()
    assert sum(s.duration for s in pl.segments) >= 0.9 * 8
    assert not list(live.glob("*.tmp")), "a segment left under its temporary name"
    # Over HTTP, as a player: the codecs, the probe score.
    info = probe_format(f"http://127.0.0.1:{srs.http_port}/live/livestream.m3u8")
    codecs = {s["codec_type"]: s["codec_name"] for s in info.get("streams", [])}
    assert codecs == {"video": "h264", "audio": "aac"}, info
    assert info["format"]["probe_score"] >= 90
    # Every segment, read as VOD: >= 90 % of what was published, decoded without error.
    vod = vod_copy(m3u8_path)
    info = probe_format(str(vod))
    assert float(info["format"]["duration"]) >= 0.9 * 8, info
    rc, err = decoded_seconds(str(vod))
    assert rc == 0 and "error" not in err.lower(), err
    # hls_dispose 0: the files outlive the server.
    srs.stop()
    assert m3u8_path.exists() and (live / "livestream-0.m4s").exists()


def test_keys_decrypted_by_ffmpeg(srs, media):
    start(srs, "    hls_fragment 2;\n    hls_window 60;\n    hls_keys on;\n    hls_fragments_per_key 2;\n"
               "    hls_dispose 0;\n")
    m3u8_path, _ = publish_then_wait(srs, media, "livestream", 9, "livestream-3.ts")
    live = m3u8_path.parent
    text = m3u8_path.read_text()
    keys = [l for l in text.splitlines() if l.startswith("#EXT-X-KEY")]
    assert keys[0].startswith('#EXT-X-KEY:METHOD=AES-128,URI="livestream-0.key",IV=0x')
    assert len(keys[0].split("IV=0x")[1]) == 32
    assert any('URI="livestream-2.key"' in k for k in keys), text
    assert (live / "livestream-0.key").stat().st_size == 16
    seg = (live / "livestream-0.ts").read_bytes()
    assert len(seg) % 16 == 0 and not (seg[0] == 0x47 and seg[188] == 0x47), "the segment is not encrypted"
    # ffmpeg fetches the keys over HTTP and decrypts every segment.
    vod_copy(m3u8_path)
    url = f"http://127.0.0.1:{srs.http_port}/live/vod.m3u8"
    info = probe_format(url)
    codecs = {s["codec_type"]: s["codec_name"] for s in info.get("streams", [])}
    assert codecs == {"video": "h264", "audio": "aac"}, info
    assert float(info["format"]["duration"]) >= 0.9 * 9, info
    rc, err = decoded_seconds(url)
    assert rc == 0 and "error" not in err.lower(), err


def test_audio_only_with_env_fragment(srs, media):
    # The conf says 10 s; the environment says 1 s: audio-only segments are 1 x aof_ratio (2.1 s).
    start(srs, "    hls_fragment 10;\n    hls_window 60;\n    hls_vcodec vn;\n",
          env={"SRS_VHOST_HLS_HLS_FRAGMENT": "1", "SRS_VHOST_HLS_HLS_DTS_DIRECTLY": "off"})
    m3u8_path, _ = publish_then_wait(srs, media, "audio", 7, "audio-1.ts", extra=["-vn"])
    pl = check_rfc8216(m3u8_path.read_text())
    for seg in pl.segments[:-1]:
        assert 2.05 <= seg.duration <= 2.2, m3u8_path.read_text()
    assert pl.target_duration == 3  # ceil(2.1x)
    info = probe_format(str(vod_copy(m3u8_path)))
    assert {s["codec_type"] for s in info["streams"]} == {"audio"}, info
    assert float(info["format"]["duration"]) >= 0.9 * 7
    # hls_dts_directly off: audio DTS counted from samples, so within a
    # segment every AAC frame is 1024 samples after the one before, to the
    # ms the muxer takes (never a stamp's own jitter).
    seg = str(srs.workdir / "live" / "audio-1.ts")
    r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "stream=sample_rate",
                        "-of", "csv=p=0", seg], capture_output=True, text=True, timeout=30)
    rate = int(r.stdout.split()[0])
    r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "packet=pts",
                        "-of", "csv=p=0", seg], capture_output=True, text=True, timeout=30)
    pts = [int(x.strip(",")) for x in r.stdout.split() if x.strip(",").isdigit()]
    steps = {b - a for a, b in zip(pts, pts[1:])}
    assert len(pts) > 50 and all(abs(d - 1024 * 90000 / rate) <= 90 for d in steps), (rate, sorted(steps))
    # hls_dispose (120 s by default) is also applied at quit: SIGTERM deletes the files.
    srs.stop()
    assert not m3u8_path.exists() and not list((srs.workdir / "live").glob("audio-*.ts"))


def test_video_only_and_timestamp_jump(srs, media):
    start(srs, "    hls_fragment 2;\n    hls_window 60;\n    hls_acodec an;\n    hls_dispose 0;\n")
    # 4 s in, every timestamp jumps 60 s ahead: the source's jitter correction
    # keeps the stream continuous, so no segment is 60 s long.
    jump = "setts=pts='if(gte(DTS*TB,4),PTS+60/TB,PTS)':dts='if(gte(DTS*TB,4),DTS+60/TB,DTS)'"
    m3u8_path, err = publish_then_wait(srs, media, "video", 8, "video-2.ts", extra=["-an", "-bsf:v", jump])
    pl = check_rfc8216(m3u8_path.read_text())
    # The correction shortens the jump to a frame's time, so the GOP across it
    # is a few ms short of 2 s and the cut waits for the next keyframe: at
    # worst two GOPs, never the 60 s of the jump.
    assert pl.target_duration <= 4, m3u8_path.read_text()
    assert all(s.duration <= 4.1 for s in pl.segments), m3u8_path.read_text()
    info = probe_format(str(vod_copy(m3u8_path)))
    assert {s["codec_type"] for s in info["streams"]} == {"video"}, info
    assert float(info["format"]["duration"]) >= 0.9 * 8 - 0.5, info


def test_whip_publisher_gives_hls_without_discontinuity(srs):
    """WebRTC in (aiortc over WHIP, rtc_to_rtmp): the bridge sends the H.264
    sequence header again with keyframes, which is no codec change, so the
    playlist has no EXT-X-DISCONTINUITY (SRS #4695 puts one before every
    segment)."""
    from rtc_env import require_aiortc, start_rtc
    require_aiortc()
    from rtc_client import Rtc
    hls = (f"  hls {{\n    enabled on;\n    hls_path {srs.workdir};\n    hls_fragment 1;\n    hls_window 60;\n"
           "    hls_dispose 0;\n  }\n")
    start_rtc(srs, vhost_extra="    rtc_to_rtmp on;\n    pli_for_rtmp 1;\n", vhost_body=hls)
    m3u8_path = srs.workdir / "live" / "whip.m3u8"
    rtc = Rtc()
    try:
        rtc.publish(srs.api, "live", "whip")
        assert wait_until(lambda: m3u8_path.exists() and "whip-3.ts" in m3u8_path.read_text(), 20), \
            srs.log()[-3000:]
    finally:
        rtc.close()
    text = m3u8_path.read_text()
    pl = check_rfc8216(text)
    assert len(pl.segments) >= 4
    assert "#EXT-X-DISCONTINUITY" not in text, text
    info = probe_format(str(vod_copy(m3u8_path)))
    codecs = {s["codec_type"]: s["codec_name"] for s in info.get("streams", [])}
    assert codecs == {"video": "h264", "audio": "aac"}, info

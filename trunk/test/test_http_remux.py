"""HTTP-TS, HTTP-MP3 and HTTP-AAC (http_remux mounts ending in .ts, .mp3,
.aac) with real clients: ffmpeg publishes the bench-like H.264+AAC stream and
an MP3-audio stream; ffprobe/ffmpeg read what the server sends.

One server holds four vhosts, one per mount (SRS allows one mount per vhost):
the default vhost serves .ts, mp3.test .mp3 (fast_cache 1), aac.test .aac and
ts2.test .ts with on_play/on_stop hooks, tsa.test .ts with has_video off. Probe scores are compared with
ffmpeg's own muxer output for the same stream (mpegts 50, mp3/adts 51 is the
most ffprobe gives these formats: they have no strong signature)."""
import http.client
import json
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import can_connect, free_port, stop_process, wait_until
from hooks_server import HooksServer
from media import FFMPEG, FFPROBE, Publisher

RECORD_S = 6


def make_mp3_flv(path: Path, seconds=20):
    """MP3 (libmp3lame, 44.1 kHz stereo) alone, as FLV."""
    if not path.exists():
        subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                        "sine=frequency=440:sample_rate=44100", "-t", str(seconds), "-c:a", "libmp3lame", "-b:a",
                        "64k", "-ac", "2", "-f", "flv", str(path)], check=True, timeout=120)
    return path


@pytest.fixture(scope="module")
def mp3_media(tmp_path_factory):
    return make_mp3_flv(tmp_path_factory.mktemp("mp3media") / "mp3.flv")


@pytest.fixture(scope="module")
def hooks():
    s = HooksServer().start()
    yield s
    s.stop()


def remux_conf(srs, hooks):
    conf = srs.base_conf().replace("vhost __defaultVhost__ {\n}\n", "")
    conf += f"http_server {{\n  enabled on;\n  listen {srs.http_port};\n  dir {srs.workdir};\n}}\n"
    conf += f"http_api {{\n  enabled on;\n  listen {srs.api_port};\n}}\n"

    def vhost(name, mount, extra=""):
        return (f"vhost {name} {{\n  http_remux {{\n    enabled on;\n    mount {mount};\n{extra}  }}\n"
                + ("" if name != "ts2.test" else
                   f"  http_hooks {{\n    enabled on;\n    on_play {hooks.url('/ok/play')};\n"
                   f"    on_stop {hooks.url('/ok/stop')};\n  }}\n") + "}\n")
    conf += vhost("__defaultVhost__", "[vhost]/[app]/[stream].ts")
    conf += vhost("mp3.test", "[app]/[stream].mp3", "    fast_cache 1;\n")
    conf += vhost("aac.test", "[app]/[stream].aac")
    conf += vhost("ts2.test", "[app]/[stream].ts")
    conf += vhost("tsa.test", "[app]/[stream].ts", "    has_video off;\n    guess_has_av off;\n")
    return conf


@pytest.fixture(scope="module")
def live(tmp_path_factory, media, mp3_media, hooks):
    from conftest import SrsProcess, stop_and_check
    srs = SrsProcess(tmp_path_factory.mktemp("remux"))
    srs.http_port, srs.api_port = free_port(), free_port()
    srs.start(remux_conf(srs, hooks))
    assert wait_until(lambda: can_connect(srs.http_port), 5), srs.log()[-2000:]
    rtmp = f"rtmp://127.0.0.1:{srs.rtmp_port}/live"
    pubs = [Publisher(media, f"{rtmp}/s"),
            Publisher(media, f"{rtmp}?vhost=aac.test/s"),
            Publisher(media, f"{rtmp}?vhost=mp3.test/s"),
            Publisher(mp3_media, f"{rtmp}?vhost=mp3.test/m"),
            Publisher(media, f"{rtmp}?vhost=ts2.test/s"),
            Publisher(media, f"{rtmp}?vhost=tsa.test/s")]
    try:
        assert wait_until(lambda: srs.log().count("fmle-publish") >= 6, 15), srs.log()[-3000:]
        time.sleep(2.5)  # a GOP in the cache, mid-GOP for the late joiners
        yield srs
    finally:
        for p in pubs:
            p.stop()
        stop_and_check([srs])


def url(srs, path):
    return f"http://127.0.0.1:{srs.http_port}{path}"


def probe(target, timeout=20):
    r = subprocess.run([FFPROBE, "-v", "error", "-show_entries",
                        "stream=codec_type,codec_name:format=probe_score,format_name", "-of", "json", target],
                       capture_output=True, text=True, timeout=timeout)
    data = json.loads(r.stdout or "{}")
    codecs = {s["codec_type"]: s["codec_name"] for s in data.get("streams", [])}
    return codecs, int(data.get("format", {}).get("probe_score", 0)), data.get("format", {}).get("format_name")


def record(target, out: Path, seconds=RECORD_S):
    """ffmpeg copies the live stream to Matroska for `seconds` of wall time."""
    p = subprocess.Popen([FFMPEG, "-hide_banner", "-v", "error", "-y", "-i", target, "-c", "copy", "-f", "matroska",
                          str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(seconds)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=10)
    finally:
        stop_process(p)
    return err


def packets(path: Path, stream):
    r = subprocess.run([FFPROBE, "-v", "error", "-select_streams", stream, "-show_entries",
                        "packet=pts_time,duration_time,flags", "-of", "csv=p=0", str(path)],
                       capture_output=True, text=True, timeout=30)
    rows = [line.split(",") for line in r.stdout.splitlines() if line and not line.startswith("N/A")]
    return [(float(a), float(b) if b not in ("", "N/A") else 0.0, c) for a, b, c in rows]


def span(pkts):
    return pkts[-1][0] + pkts[-1][1] - pkts[0][0] if pkts else 0.0


def reference(tmp: Path, src: Path, fmt, ext, extra):
    """ffmpeg's own muxer on the same input, probed from a file: the score to match."""
    out = tmp / f"ref{ext}"
    subprocess.run([FFMPEG, "-hide_banner", "-v", "error", "-y", "-i", str(src), "-t", "5", "-c", "copy"] + extra
                   + ["-f", fmt, str(out)], check=True, timeout=60)
    return probe(str(out))[1]


@pytest.mark.parametrize("path,fmt,ext,want,rates", [
    ("/live/s.ts", "mpegts", ".ts", {"video": "h264", "audio": "aac"}, {"v": 25, "a": 44100 / 1024}),
    ("/live/m.mp3?vhost=mp3.test", "mp3", ".mp3", {"audio": "mp3"}, {"a": 44100 / 1152}),
    ("/live/s.aac?vhost=aac.test", "adts", ".aac", {"audio": "aac"}, {"a": 44100 / 1024}),
])
def test_formats_play_with_ffmpeg(live, media, mp3_media, tmp_path, path, fmt, ext, want, rates):
    srs = live
    codecs, score, _ = probe(url(srs, path))
    assert codecs == want, (codecs, srs.log()[-2000:])
    src = mp3_media if ext == ".mp3" else media
    ref = reference(tmp_path, src, fmt, ext, ["-vn"] if ext != ".ts" else [])
    assert score >= ref, (score, ref)
    # What a player gets in RECORD_S seconds: >= 90 % of that much media, per track.
    out = tmp_path / "rec.mkv"
    err = record(url(srs, path), out)
    assert "rror" not in err, err
    for stream, rate in rates.items():
        pkts = packets(out, stream)
        assert span(pkts) >= 0.9 * RECORD_S, (stream, span(pkts), len(pkts))
        assert len(pkts) >= 0.9 * RECORD_S * rate, (stream, len(pkts))


def test_ts_late_joiner_decodes_from_its_first_keyframe(live):
    srs = live
    target = url(srs, "/live/s.ts")
    r = subprocess.run([FFPROBE, "-v", "error", "-select_streams", "v", "-show_entries", "packet=flags", "-of",
                        "csv=p=0", "-read_intervals", "%+#5", target], capture_output=True, text=True, timeout=20)
    flags = r.stdout.split()
    assert flags and flags[0].startswith("K"), flags
    d = subprocess.run([FFMPEG, "-hide_banner", "-v", "error", "-t", "4", "-i", target, "-f", "null", "-"],
                       capture_output=True, text=True, timeout=30)
    assert d.returncode == 0 and d.stderr.strip() == "", d.stderr[-2000:]


def test_ts_pmt_follows_has_video(live):
    """has_video off (no guessing): the TS player gets a PMT and PES of audio only."""
    codecs, _, fmt = probe(url(live, "/live/s.ts?vhost=tsa.test"))
    assert (codecs, fmt) == ({"audio": "aac"}, "mpegts"), codecs


def test_mp3_of_an_aac_stream_gets_the_id3_tag_then_eof(live):
    """SRS's MP3 encoder refuses the first non-MP3 audio frame: 200, the ID3
    tag, then the connection closes; the log says why."""
    srs = live
    conn = http.client.HTTPConnection("127.0.0.1", srs.http_port, timeout=10)
    try:
        conn.request("GET", "/live/s.mp3?vhost=mp3.test")
        r = conn.getresponse()
        assert r.status == 200 and r.getheader("Content-Type") == "audio/mpeg"
        body = r.read()  # returns at EOF: the server closed
    finally:
        conn.close()
    assert body == b"ID3\x03\x00\x00\x00\x00\x00\x0a" + b"\x00" * 10, body[:64]
    assert wait_until(lambda: "MP3 needs MP3 audio, the stream has AAC" in srs.log(), 5), srs.log()[-2000:]


def first_bytes_after(srs, path, seconds):
    conn = http.client.HTTPConnection("127.0.0.1", srs.http_port, timeout=10)
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        assert r.status == 200
        r.fp.raw._sock.settimeout(0.05)
        got, end = b"", time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                chunk = r.fp.read1(65536) if hasattr(r.fp, "read1") else r.read(4096)
            except OSError:
                continue
            got += chunk
        return got
    finally:
        conn.close()


def test_fast_cache_gives_audio_players_a_head_start(live):
    """mp3.test has fast_cache 1: ~1 s of MP3 (64 kbps: ~8000 bytes) at once;
    aac.test has 0 and starts live (its first merged write is 350 ms away)."""
    srs = live
    mp3 = first_bytes_after(srs, "/live/m.mp3?vhost=mp3.test", 0.25)
    aac = first_bytes_after(srs, "/live/s.aac?vhost=aac.test", 0.25)
    assert len(mp3) >= 20 + 0.8 * 8000, len(mp3)
    assert len(aac) < 0.3 * 8000, len(aac)


def test_ts_hooks_and_api_list_the_player(live, hooks):
    srs = live
    hooks.reset()
    p = subprocess.Popen([FFMPEG, "-hide_banner", "-v", "error", "-i", url(srs, "/live/s.ts?vhost=ts2.test&k=v"),
                          "-c", "copy", "-f", "null", "-"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert wait_until(lambda: hooks.of("on_play"), 10), srs.log()[-2000:]
        play = hooks.of("on_play")[0].json
        assert (play["vhost"], play["app"], play["stream"], play["param"]) == ("ts2.test", "live", "s",
                                                                               "?vhost=ts2.test&k=v"), play

        def players():
            with urllib.request.urlopen(f"http://127.0.0.1:{srs.api_port}/api/v1/clients?count=100", timeout=5) as r:
                return [c for c in json.load(r)["clients"] if c.get("type") == "flv-play"]
        assert wait_until(lambda: players(), 5)
        c = players()[0]
        assert (c["url"], c["publish"]) == ("/live/s", False), c
        assert c["tcUrl"].endswith("/live"), c
        assert not hooks.of("on_stop")
    finally:
        stop_process(p)
    assert wait_until(lambda: hooks.of("on_stop"), 10), srs.log()[-2000:]
    assert hooks.of("on_stop")[0].json["stream"] == "s"


def test_ts_paths_that_name_no_stream_are_static_files(live):
    """The .ts mount must not hide HLS segments: a path that matches the mount
    but names no published stream is the static server's."""
    srs = live
    seg = Path(srs.workdir) / "live" / "s-1.ts"
    seg.parent.mkdir(exist_ok=True)
    seg.write_bytes(b"\x47" + b"\x00" * 187)
    with urllib.request.urlopen(url(srs, "/live/s-1.ts"), timeout=5) as r:
        assert r.status == 200 and r.read() == seg.read_bytes()
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(url(srs, "/live/nosuch.ts"), timeout=5)
    assert e.value.code == 404
    # A mount's other formats are not served: .flv on a .ts vhost is a 404.
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(url(srs, "/live/s.flv"), timeout=5)
    assert e.value.code == 404

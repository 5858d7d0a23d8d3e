"""hls_ctx: HLS players as sessions (SRS's contract, srs-hls-dvr-hooks.md 1c).

ffmpeg's own hls muxer writes a live playlist and segments into the server's
html dir (so these tests do not depend on our muxer); ffprobe plays the
server's master playlist and follows the session's URIs; the hooks server
(hooks_server.py) sees on_play and on_stop; the HTTP API lists and kicks the
hls-play clients."""
import http.client
import json
import shutil
import subprocess
import time

import pytest

from conftest import can_connect, free_port, stop_process, wait_until
from hooks_server import HooksServer
from media import FFMPEG, FFPROBE

STREAM = "/live/livestream.m3u8"
COMMON = ["server_id", "service_id", "action", "client_id", "ip", "vhost", "app"]
PLAY_FIELDS = COMMON + ["stream", "tcUrl", "param", "pageUrl", "stream_url"]


@pytest.fixture(scope="module")
def html(tmp_path_factory, media):
    """A dir with live/livestream.m3u8 that ffmpeg keeps writing (2 s segments)."""
    d = tmp_path_factory.mktemp("hlsctx_html")
    (d / "live").mkdir()
    proc = subprocess.Popen([FFMPEG, "-hide_banner", "-loglevel", "error", "-re", "-stream_loop", "-1",
                             "-i", str(media), "-c", "copy", "-f", "hls", "-hls_time", "1", "-hls_list_size", "5",
                             "-hls_flags", "delete_segments", str(d / "live" / "livestream.m3u8")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        m3u8 = d / "live" / "livestream.m3u8"
        assert wait_until(lambda: m3u8.exists() and m3u8.read_text().count(".ts") >= 2, 15), "ffmpeg wrote no HLS"
        yield d
    finally:
        stop_process(proc)


@pytest.fixture
def hooks():
    s = HooksServer().start()
    yield s
    s.stop()


def start(srs, html, vhosts):
    """vhosts: name -> extra body; each gets hls on with hls_window 2."""
    srs.http_port = free_port()
    srs.api_port = free_port()
    conf = srs.base_conf().replace("vhost __defaultVhost__ {\n}\n", "")
    conf += (f"http_server {{\n  enabled on;\n  listen {srs.http_port};\n  dir {html};\n  crossdomain on;\n}}\n"
             f"http_api {{\n  enabled on;\n  listen {srs.api_port};\n}}\n")
    for name, body in vhosts.items():
        conf += f"vhost {name} {{\n  hls {{\n    enabled on;\n    hls_window 2;\n  }}\n{body}}}\n"
    srs.write_conf(conf)
    srs.start()
    assert wait_until(lambda: can_connect(srs.http_port), 5), srs.log()[-2000:]
    return srs


def get(port, path, method="GET", headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path, headers=headers or {})
        r = conn.getresponse()
        return r.status, dict((k.lower(), v) for k, v in r.getheaders()), r.read()
    finally:
        conn.close()


def clients(srs):
    status, _, body = get(srs.api_port, "/api/v1/clients")
    assert status == 200
    return {c["id"]: c for c in json.loads(body)["clients"] if c["type"] == "hls-play"}


def new_session(srs, path=STREAM, headers=None):
    status, head, body = get(srs.http_port, path, headers=headers)
    assert status == 200, (status, body)
    text = body.decode()
    lines = text.split("\n")
    assert lines[0] == "#EXTM3U" and lines[1] == "#EXT-X-STREAM-INF:BANDWIDTH=1,AVERAGE-BANDWIDTH=1", text
    assert text.endswith("\n") and len(lines) == 4, text
    ctx = lines[2].split("hls_ctx=")[1].split("&")[0]
    return ctx, lines[2], head


def segment_uris(playlist):
    return [l for l in playlist.splitlines() if l and not l.startswith("#")]


def test_session_play_count_and_expire(srs, html, hooks):
    start(srs, html, {"__defaultVhost__": f"  http_hooks {{\n    enabled on;\n    on_play {hooks.url('/ok')};\n"
                                          f"    on_stop {hooks.url('/ok')};\n  }}\n"})
    # The first request: a master playlist of one variant with a new session.
    ctx, variant, head = new_session(srs, STREAM + "?token=abc", {"Referer": "http://page.test/p.html"})
    assert len(ctx) == 8 and ctx.isalnum()
    assert variant == f"{STREAM}?hls_ctx={ctx}&token=abc"
    assert head["content-type"] == "application/vnd.apple.mpegurl"
    assert head["cache-control"] == "no-cache"
    assert head["access-control-allow-origin"] == "*"
    # on_play came before the answer, with SRS's fields and the session as client_id.
    plays = hooks.of("on_play")
    assert len(plays) == 1
    body = plays[0].json
    assert list(body.keys())[:len(COMMON)] == COMMON
    assert set(PLAY_FIELDS) <= set(body.keys())
    assert body["client_id"] == ctx and body["app"] == "live" and body["stream"] == "livestream"
    assert body["param"] == "?token=abc" and body["pageUrl"] == "http://page.test/p.html"
    assert body["stream_url"] == "/live/livestream"
    listed = clients(srs)
    assert set(listed) == {ctx}
    assert listed[ctx]["url"] == "/live/livestream" and listed[ctx]["send_bytes"] == 0

    # The session's playlist: every segment URI carries the session.
    status, head, body = get(srs.http_port, variant)
    assert status == 200 and head["cache-control"] == "no-cache"
    uris = segment_uris(body.decode())
    assert uris and all(u.endswith(f".ts?hls_ctx={ctx}") for u in uris), body
    status, head, seg = get(srs.http_port, "/live/" + uris[-1])
    assert status == 200 and head["content-type"] == "video/MP2T" and seg[0] == 0x47
    assert wait_until(lambda: clients(srs)[ctx]["send_bytes"] == len(seg), 3)

    # ffprobe plays the master URL: it follows the variant and segments with its own session.
    r = subprocess.run([FFPROBE, "-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time",
                        "-of", "csv=p=0", "-read_intervals", "%+3", f"http://127.0.0.1:{srs.http_port}{STREAM}"],
                       capture_output=True, text=True, timeout=30)
    packets = [l for l in r.stdout.splitlines() if l.strip()]
    assert len(packets) >= 25, r.stderr[-2000:]
    listed = clients(srs)
    others = [c for i, c in listed.items() if i != ctx]
    assert len(others) == 1 and others[0]["send_bytes"] > 0, listed
    assert len(hooks.of("on_play")) == 2

    # Our session keeps asking: its bytes grow and the 30 s rate shows them.
    deadline = time.monotonic() + 15
    before = clients(srs)[ctx]["send_bytes"]
    kbps = 0
    while time.monotonic() < deadline and kbps == 0:
        _, _, body = get(srs.http_port, variant)
        for u in segment_uris(body.decode())[-2:]:
            get(srs.http_port, "/live/" + u)
        kbps = clients(srs)[ctx]["kbps"]["send_30s"]
        time.sleep(0.5)
    assert clients(srs)[ctx]["send_bytes"] > before
    assert kbps > 0

    # No requests for 2 x hls_window (4 s): on_stop with the on_play body (less
    # pageUrl, which SRS's on_stop has not), the clients gone.
    t0 = time.monotonic()
    assert wait_until(lambda: len(hooks.of("on_stop")) == 2, 10), srs.log()[-2000:]
    assert time.monotonic() - t0 >= 3
    stops = {r.json["client_id"]: r.json for r in hooks.of("on_stop")}
    assert ctx in stops
    first_play = hooks.of("on_play")[0].json
    assert stops[ctx]["action"] == "on_stop" and "pageUrl" not in stops[ctx]
    assert {k: v for k, v in stops[ctx].items() if k != "action"} == \
        {k: v for k, v in first_play.items() if k not in ("action", "pageUrl")}
    assert clients(srs) == {}


def test_refused_before_any_playlist_byte(srs, html, hooks):
    start(srs, html, {
        "__defaultVhost__": "",
        "deny.test": "  security {\n    enabled on;\n    deny play all;\n  }\n",
        "hook.test": f"  http_hooks {{\n    enabled on;\n    on_play {hooks.url('/code1')};\n  }}\n",
    })
    status, _, body = get(srs.http_port, STREAM + "?vhost=deny.test")
    assert status == 403 and b"#EXTM3U" not in body
    assert not hooks.of("on_play")
    status, _, body = get(srs.http_port, STREAM + "?vhost=hook.test")
    assert status == 403 and b"#EXTM3U" not in body
    assert len(hooks.of("on_play")) == 1
    assert clients(srs) == {}
    # The default vhost (no rules, no hooks) lets a player in.
    ctx, _, _ = new_session(srs)
    assert set(clients(srs)) == {ctx}
    # A playlist that does not exist makes no session.
    status, _, _ = get(srs.http_port, "/live/nothere.m3u8")
    assert status == 404 and set(clients(srs)) == {ctx}


def test_kick_unknown_gone_and_off(srs, html):
    gone = html / "live" / "gone.m3u8"
    shutil.copy(html / "live" / "livestream.m3u8", gone)
    try:
        start(srs, html, {"__defaultVhost__": "", "off.test": "  hls {\n    hls_ctx off;\n  }\n",
                          "nots.test": "  hls {\n    hls_ts_ctx off;\n  }\n"})
        # Kick: the session leaves the list at once and gets SRS's 404 after.
        ctx, variant, _ = new_session(srs)
        status, _, _ = get(srs.api_port, f"/api/v1/clients/{ctx}", method="DELETE")
        assert status == 200
        assert clients(srs) == {}
        status, _, body = get(srs.http_port, variant)
        assert status == 404 and f"HLS stream {ctx} is EOF".encode() in body

        # An unknown ctx: a new session under that id (SRS keeps the player's id).
        ctx2, variant2, _ = new_session(srs, STREAM + "?hls_ctx=Player42")
        assert ctx2 == "Player42" and variant2 == f"{STREAM}?hls_ctx=Player42"
        assert set(clients(srs)) == {"Player42"}
        # An id that is not safe to keep gets one of ours.
        ctx3, _, _ = new_session(srs, STREAM + "?hls_ctx=%3Cscript%3E")
        assert ctx3 != "<script>" and len(ctx3) == 8

        # The stream's playlist is gone (disposed): a known session gets 404.
        ctx4, variant4, _ = new_session(srs, "/live/gone.m3u8")
        gone.unlink()
        status, _, _ = get(srs.http_port, variant4)
        assert status == 404

        # hls_ctx off: the file as it is, no session.
        n = len(clients(srs))
        status, head, body = get(srs.http_port, STREAM + "?vhost=off.test")
        assert status == 200 and b"#EXT-X-TARGETDURATION" in body and b"hls_ctx" not in body
        assert head["cache-control"] == "no-cache"
        assert len(clients(srs)) == n

        # Keep-alive players fetch the playlist again and again: the head and
        # the body leave in one write, so no answer waits for a delayed ACK
        # (~40 ms each when the head went alone).
        conn = http.client.HTTPConnection("127.0.0.1", srs.http_port, timeout=10)
        t0 = time.monotonic()
        for _ in range(20):
            conn.request("GET", STREAM + "?vhost=off.test")
            r = conn.getresponse()
            assert r.status == 200 and b"#EXTM3U" in r.read()
        elapsed = time.monotonic() - t0
        conn.close()
        assert elapsed < 0.5, f"20 keep-alive playlist requests took {elapsed:.3f} s"

        # hls_ts_ctx off: a session is made, its playlist is the plain file (as SRS).
        ctx5, variant5, _ = new_session(srs, STREAM + "?vhost=nots.test")
        status, _, body = get(srs.http_port, variant5)
        assert status == 200 and b"#EXT-X-TARGETDURATION" in body and b"hls_ctx" not in body
        assert ctx5 in clients(srs)
    finally:
        if gone.exists():
            gone.unlink()


def test_sessions_do_not_use_up_max_connections(srs, html):
    """Sessions are bounded by max_connections among themselves, and leave
    the TCP connections' share alone (as SRS counts connections only)."""
    limit = 4
    base_conf = srs.base_conf
    srs.base_conf = lambda: base_conf().replace("max_connections 1000;", f"max_connections {limit};")
    start(srs, html, {"__defaultVhost__": ""})
    ids = []
    for _ in range(limit):
        ids.append(new_session(srs)[0])
        time.sleep(0.2)  # the closed connection leaves the registry
    assert set(clients(srs)) == set(ids)
    time.sleep(0.2)
    # One more player: its connection is accepted (4 sessions are not 4
    # connections) and refused as a session.
    status, _, body = get(srs.http_port, STREAM)
    assert status == 503 and b"#EXTM3U" not in body
    # Known sessions are still served.
    status, _, body = get(srs.http_port, f"{STREAM}?hls_ctx={ids[0]}")
    assert status == 200 and f"hls_ctx={ids[0]}".encode() in body
    assert f"max_connections={limit}" in srs.log()


def test_fmp4_session_counts_init_and_segments(srs, html, media):
    """fMP4 HLS (ffmpeg's -hls_segment_type fmp4): the EXT-X-MAP init URI and
    the .m4s URIs carry the session; ffprobe plays through the master."""
    m3u8 = html / "live" / "fm.m3u8"
    ff = subprocess.Popen([FFMPEG, "-hide_banner", "-loglevel", "error", "-re", "-stream_loop", "-1", "-i", str(media),
                           "-c", "copy", "-f", "hls", "-hls_time", "1", "-hls_list_size", "5", "-hls_segment_type",
                           "fmp4", "-hls_fmp4_init_filename", "fm_init.mp4", "-hls_flags", "delete_segments",
                           str(m3u8)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        assert wait_until(lambda: m3u8.exists() and m3u8.read_text().count(".m4s") >= 2, 15), "no fMP4 HLS"
        start(srs, html, {"__defaultVhost__": ""})
        ctx, variant, _ = new_session(srs, "/live/fm.m3u8")
        status, _, body = get(srs.http_port, variant)
        text = body.decode()
        assert status == 200 and f'#EXT-X-MAP:URI="fm_init.mp4?hls_ctx={ctx}"' in text, text
        uris = segment_uris(text)
        assert uris and all(u.endswith(f".m4s?hls_ctx={ctx}") for u in uris), text
        status, head, init = get(srs.http_port, f"/live/fm_init.mp4?hls_ctx={ctx}")
        assert status == 200 and head["content-type"] == "video/mp4" and init[4:8] == b"ftyp"
        status, head, seg = get(srs.http_port, "/live/" + uris[-1])
        assert status == 200 and head["content-type"] == "video/iso.segment"
        assert wait_until(lambda: clients(srs)[ctx]["send_bytes"] == len(init) + len(seg), 3)

        streams = subprocess.run([FFPROBE, "-v", "error", "-show_entries", "stream=codec_type,codec_name",
                                  "-of", "json", f"http://127.0.0.1:{srs.http_port}/live/fm.m3u8"],
                                 capture_output=True, text=True, timeout=30)
        codecs = {s["codec_type"]: s["codec_name"] for s in json.loads(streams.stdout or "{}").get("streams", [])}
        assert codecs.get("video") == "h264" and codecs.get("audio") == "aac", streams.stderr[-2000:]
        others = [c for i, c in clients(srs).items() if i != ctx]
        assert len(others) == 1 and others[0]["send_bytes"] > 0
    finally:
        stop_process(ff)

"""HLS from memory and Low-Latency HLS (docs/hls.md, "HLS from memory" and
"Low-Latency HLS"): ffmpeg publishes H.264+AAC with a 1 s GOP; the LL-HLS
playlist is checked with the m3u8 parser and by RFC 8216bis's rules, blocking
reloads are timed, bad requests get 400 or 404, ffprobe/ffmpeg read the stream,
nothing is written under hls_path (the folder and strace say so), and 10,000
parked blocking requests whose players hang up are freed (fd count, RSS)."""
import http.client
import json
import re
import socket
import subprocess
import time
from pathlib import Path

import m3u8
import pytest

from conftest import ASAN_STRICT, SrsProcess, can_connect, fd_count, free_port, rss_kb, stop_and_check, wait_until
from media import Publisher, make_test_flv

PLAYLIST = "/live/s.m3u8"


def http_get(port, path, timeout=10):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        return r.status, r.read(), dict(r.getheaders())
    finally:
        conn.close()


def start_server(workdir: Path, hls_body: str, extra="", env=None):
    srs = SrsProcess(workdir)
    srs.http_port = free_port()
    srs.hls_dir = workdir / "html"
    srs.hls_dir.mkdir()
    conf = srs.base_conf().replace("vhost __defaultVhost__ {\n}\n", "").replace("max_connections 1000;",
                                                                                "max_connections 3000;")
    conf += f"http_server {{\n  enabled on;\n  listen {srs.http_port};\n  dir {srs.hls_dir};\n}}\n{extra}"
    conf += (f"vhost __defaultVhost__ {{\n  hls {{\n    enabled on;\n    hls_path {srs.hls_dir};\n"
             f"{hls_body}  }}\n}}\n")
    srs.write_conf(conf)
    srs.start(env=env)
    assert wait_until(lambda: can_connect(srs.http_port), 5), srs.log()[-2000:]
    return srs


def playlist(srs, query=""):
    status, body, headers = http_get(srs.http_port, PLAYLIST + query)
    assert status == 200, (status, body)
    return body.decode(), headers


def complete_segments(text):
    return len(re.findall(r"^#EXTINF:", text, re.M))


@pytest.fixture(scope="module")
def gop1(tmp_path_factory):
    """10 s of H.264 (1 s GOP) + AAC; publishers loop it."""
    return make_test_flv(tmp_path_factory.mktemp("llmedia") / "gop1.flv", seconds=10, size="160x120",
                         gop_seconds=1)


@pytest.fixture(scope="module")
def ll(tmp_path_factory, gop1):
    """One LL-HLS server (conf/llhls.conf's hls block) with a publisher, for the module."""
    media = gop1
    srs = start_server(tmp_path_factory.mktemp("llhls"),
                       "    hls_ll on;\n    hls_use_fmp4 on;\n    hls_storage memory;\n    hls_fragment 1;\n"
                       "    hls_part 0.2;\n    hls_window 20;\n    hls_ctx off;\n",
                       # ASAN holds freed memory in a 256 MB quarantine by default, which
                       # would hide whether RSS comes back: a small one here.
                       env={"ASAN_OPTIONS": ASAN_STRICT + ":quarantine_size_mb=4"})
    pub = Publisher(media, f"rtmp://127.0.0.1:{srs.rtmp_port}/live/s")
    srs.publisher = pub
    try:
        # Seven complete segments: enough for a delta update (6 x 1 s target).
        assert wait_until(lambda: complete_segments(http_get(srs.http_port, PLAYLIST)[1].decode()) >= 8, 40), \
            srs.log()[-3000:]
        yield srs
    finally:
        if srs.publisher:  # the stall test stops it itself
            srs.publisher.stop()
        stop_and_check([srs])


def test_playlist_rules(ll):
    text, headers = playlist(ll)
    assert headers.get("Cache-Control") == "no-cache"
    assert headers.get("Content-Type") == "application/vnd.apple.mpegurl"
    pl = m3u8.loads(text)
    assert pl.version == 9
    assert pl.server_control.can_block_reload == "YES"
    target = pl.part_inf.part_target
    assert target == pytest.approx(0.2)
    assert pl.server_control.part_hold_back >= 3 * target - 1e-9
    assert pl.server_control.can_skip_until >= 6 * pl.target_duration
    assert pl.preload_hint is not None and pl.preload_hint.hint_type == "PART"
    complete = [s for s in pl.segments if s.uri]
    assert len(complete) >= 7
    # PDT on every segment, the open one too (the parser gives the open one none: counted by hand).
    open_segment = 1 if pl.segments and not pl.segments[-1].uri else 0
    assert len(re.findall(r"^#EXT-X-PROGRAM-DATE-TIME:", text, re.M)) == len(complete) + open_segment, text
    assert all(s.program_date_time is not None for s in complete), text
    dependent = 0
    for s in pl.segments:
        for i, p in enumerate(s.parts):
            assert p.duration <= target + 1e-6, text
            # Each segment starts at a keyframe: its first part is independent.
            if i == 0:
                assert p.independent == "YES", text
            dependent += p.independent != "YES"
    assert dependent > 0, text  # a 1 s GOP in 200 ms parts: most parts have no keyframe
    for s in complete:
        assert round(s.duration) <= pl.target_duration
        if s.parts:
            assert sum(p.duration for p in s.parts) == pytest.approx(s.duration, abs=0.002)
    # PDTs are the wall clock of each segment's start: increasing, the newest a moment ago.
    for a, b in zip(complete, complete[1:]):
        assert b.program_date_time > a.program_date_time
    age = time.time() - complete[-1].program_date_time.timestamp()
    assert -0.5 < age < complete[-1].duration + 3, age
    # Parts are listed for the newest segments only, and the open segment's parts are last.
    assert not complete[0].parts and complete[-1].parts
    # Media sequence continuity: a later playlist lists the same numbers for the same URIs.
    time.sleep(1.2)
    later = m3u8.loads(playlist(ll)[0])
    seq = {s.uri: pl.media_sequence + i for i, s in enumerate(pl.segments) if s.uri}
    for i, s in enumerate(later.segments):
        if s.uri in seq:
            assert later.media_sequence + i == seq[s.uri]
    assert later.media_sequence + len([s for s in later.segments if s.uri]) > \
        pl.media_sequence + len(complete)


def position(text):
    """(last complete msn, parts of the open segment)."""
    pl = m3u8.loads(text)
    complete = [s for s in pl.segments if s.uri]
    open_parts = len(pl.segments[-1].parts) if pl.segments and not pl.segments[-1].uri else 0
    return pl.media_sequence + len(complete) - 1, open_parts


def test_blocking_reload(ll):
    text, _ = playlist(ll)
    last, parts = position(text)
    msn, part = last + 1, parts  # the next part
    t0 = time.monotonic()
    status, body, headers = http_get(ll.http_port, f"{PLAYLIST}?_HLS_msn={msn}&_HLS_part={part}")
    took = time.monotonic() - t0
    assert status == 200
    assert headers.get("Cache-Control") == "no-cache"
    assert took < 0.2 + 0.5, took  # one part (200 ms) plus slack
    body = body.decode()
    after_last, after_parts = position(body)
    assert after_last > last or after_parts > part, body
    # The asked-for part is in the answer (or its segment is complete).
    assert f"s-{msn}.part{part}.m4s" in body or f"\ns-{msn}.m4s\n" in body, body
    # The preload hint's part: a GET waits until it is written, then gets it.
    hint = m3u8.loads(body).preload_hint.uri
    t0 = time.monotonic()
    status, part_body, _ = http_get(ll.http_port, f"/live/{hint}")
    assert status == 200 and part_body[4:8] == b"styp" and b"moof" in part_body, status
    assert time.monotonic() - t0 < 0.2 + 0.5
    # A request for a whole segment ahead waits for it to complete (~1 s GOP).
    t0 = time.monotonic()
    status, body, _ = http_get(ll.http_port, f"{PLAYLIST}?_HLS_msn={after_last + 1}")
    assert status == 200 and f"\ns-{after_last + 1}.m4s\n" in body.decode()
    assert time.monotonic() - t0 < 2.5


def test_bad_requests(ll):
    text, _ = playlist(ll)
    last, _ = position(text)
    for query in (f"?_HLS_msn={last + 3}", f"?_HLS_msn={last + 1000}", "?_HLS_part=1",
                  f"?_HLS_msn={last + 1}&_HLS_part=x", "?_HLS_msn=-4"):
        t0 = time.monotonic()
        status, _, _ = http_get(ll.http_port, PLAYLIST + query)
        assert status == 400, query
        assert time.monotonic() - t0 < 0.5, query
    # Expired part (its segment is no longer among the newest), expired and future segments.
    pl = m3u8.loads(text)
    old = pl.media_sequence
    assert http_get(ll.http_port, f"/live/s-{old}.part0.m4s")[0] == 404
    assert http_get(ll.http_port, f"/live/s-{last + 50}.m4s")[0] == 404
    assert http_get(ll.http_port, f"/live/s-{last + 50}.part0.m4s")[0] == 404
    assert http_get(ll.http_port, "/live/nosuch.m3u8")[0] == 404
    # What is listed is served, from memory.
    status, body, headers = http_get(ll.http_port, f"/live/{pl.segments[-2].uri}")
    assert status == 200 and body[4:8] == b"styp"
    status, body, _ = http_get(ll.http_port, "/live/s/init.mp4")
    assert status == 200 and body[4:8] == b"ftyp"


def test_delta_update(ll):
    # A delta needs segments older than CAN-SKIP-UNTIL (6 x target) from the end.
    assert wait_until(lambda: "#EXT-X-SKIP:" in playlist(ll, "?_HLS_skip=YES")[0], 30)
    delta, _ = playlist(ll, "?_HLS_skip=YES")
    full, _ = playlist(ll)
    pl = m3u8.loads(delta)
    skipped = int(re.search(r"^#EXT-X-SKIP:SKIPPED-SEGMENTS=(\d+)$", delta, re.M).group(1))
    assert skipped >= 1, delta
    # The skipped segments are left out of the delta, and the full playlist lists them.
    newest_skipped = f"s-{pl.media_sequence + skipped - 1}.m4s"
    assert f"\n{newest_skipped}\n" not in delta
    assert f"\n{newest_skipped}\n" in full or m3u8.loads(full).media_sequence > pl.media_sequence + skipped - 1
    assert "#EXT-X-MAP:" in delta  # the remaining segments still name their init segment
    # The listed segments continue the numbering: the skipped ones count.
    listed = [s for s in pl.segments if s.uri]
    assert listed[0].uri == f"s-{pl.media_sequence + skipped}.m4s"
    # RFC 8216bis: what is left covers at least CAN-SKIP-UNTIL.
    assert sum(s.duration for s in listed) >= pl.server_control.can_skip_until - 1e-6, delta
    # A blocking delta request gets a delta too.
    last, parts = position(full)
    status, body, _ = http_get(ll.http_port, f"{PLAYLIST}?_HLS_msn={last + 1}&_HLS_part={parts}&_HLS_skip=YES")
    assert status == 200 and "#EXT-X-SKIP:" in body.decode()


def test_ffmpeg_reads_and_nothing_on_disk(ll, tmp_path):
    url = f"http://127.0.0.1:{ll.http_port}{PLAYLIST}"
    strace_log = tmp_path / "strace.log"
    # -y names each fd's file, so a write into hls_path would show its path.
    tracer = subprocess.Popen(["strace", "-f", "-qq", "-y", "-s", "0", "-e",
                               "trace=openat,open,creat,write,writev,pwrite64,rename,renameat,renameat2",
                               "-o", str(strace_log), "-p", str(ll.pid)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        r = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name,codec_type", "-of", "json",
                            url], capture_output=True, text=True, timeout=30)
        codecs = {s["codec_type"]: s["codec_name"] for s in json.loads(r.stdout)["streams"]}
        assert codecs == {"video": "h264", "audio": "aac"}, r.stderr
        out = tmp_path / "read.mp4"
        seconds = 5
        subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-i", url, "-t", str(seconds),
                        "-c", "copy", str(out)], check=True, timeout=40)
        r = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "json", str(out)],
                           capture_output=True, text=True, timeout=20)
        assert float(json.loads(r.stdout)["format"]["duration"]) >= 0.9 * seconds
    finally:
        tracer.terminate()
        tracer.wait(timeout=10)
    # Nothing under hls_path: not the folder, not a single open or rename there.
    assert list(ll.hls_dir.rglob("*")) == []
    trace = strace_log.read_text()
    assert "TCP" in trace or "socket:" in trace, trace[:2000]  # strace saw the server answer over sockets
    assert str(ll.hls_dir) not in trace, [line for line in trace.splitlines() if str(ll.hls_dir) in line][:5]


def test_parked_requests_that_disconnect_are_freed(ll):
    """10,000 blocking requests in batches of 1,000, each batch parked then dropped."""
    batch_size = 1000
    port = ll.http_port
    base_fds = fd_count(ll.pid)
    rss_first = None
    t_start = time.monotonic()
    for batch in range(10):
        last, _ = position(playlist(ll)[0])
        # Two segments ahead: parked ~1-2 s, longer than the batch lives.
        request = (f"GET {PLAYLIST}?_HLS_msn={last + 2}&_HLS_part=0 HTTP/1.1\r\nHost: x\r\n\r\n").encode()
        socks = []
        try:
            for _ in range(batch_size):
                s = socket.create_connection(("127.0.0.1", port), timeout=5)
                s.sendall(request)
                socks.append(s)
            # Accepted and parked (a loaded machine accepts slowly).
            assert wait_until(lambda: fd_count(ll.pid) >= base_fds + 0.95 * batch_size, 20), \
                (fd_count(ll.pid), base_fds)
        finally:
            for s in socks:
                s.close()
        # Each parked coroutine sees its player gone at the next part or within 250 ms;
        # the bound is for a machine shared with other builds (normally well under 1 s).
        assert wait_until(lambda: fd_count(ll.pid) <= base_fds + 5, 30), (batch, fd_count(ll.pid), base_fds)
        if batch == 0:
            rss_first = rss_kb(ll.pid)
        assert time.monotonic() - t_start < 240
    rss_end = rss_kb(ll.pid)
    print(f"parked 10 x {batch_size}: fds {base_fds} -> {fd_count(ll.pid)}, RSS after the first batch "
          f"{rss_first} KB, after the last {rss_end} KB, {time.monotonic() - t_start:.1f} s")
    # No per-request growth: 9,000 more requests cost less than 2 KB each.
    assert rss_end - rss_first < 18 * 1024, (rss_first, rss_end)
    # The server still answers blocking reloads.
    last, parts = position(playlist(ll)[0])
    assert http_get(port, f"{PLAYLIST}?_HLS_msn={last + 1}&_HLS_part={parts}")[0] == 200


def test_memory_storage_classic_hls(srs_factory, gop1):
    """hls_storage memory without LL: SRS's TS playlist, served from memory, no disk;
    hls_ctx (on by default) gives the player its session playlist from memory."""
    srs = start_server_with(srs_factory("mem"), "    hls_storage memory;\n    hls_fragment 1;\n    hls_window 10;\n")
    pub = Publisher(gop1, f"rtmp://127.0.0.1:{srs.rtmp_port}/live/s")
    try:
        assert wait_until(lambda: http_get(srs.http_port, PLAYLIST)[0] == 200, 20)
        master = http_get(srs.http_port, PLAYLIST)[1].decode()
        assert "#EXT-X-STREAM-INF" in master, master
        variant = [l for l in master.splitlines() if l and not l.startswith("#")][0]
        session_url = "/live/" + variant.split("/")[-1]
        assert "hls_ctx=" in session_url
        assert wait_until(lambda: complete_segments(http_get(srs.http_port, session_url)[1].decode()) >= 3, 20)
        text = http_get(srs.http_port, session_url)[1].decode()
        assert text.startswith("#EXTM3U\n#EXT-X-VERSION:3\n") and "#EXT-X-PART" not in text
        # A blocking directive on a classic playlist is ignored: answered at once.
        t0 = time.monotonic()
        assert http_get(srs.http_port, session_url + "&_HLS_msn=100000")[0] == 200
        assert time.monotonic() - t0 < 0.5
        seg = [l for l in text.splitlines() if ".ts" in l][-1]
        assert "hls_ctx=" in seg  # the session's segment URIs carry its id
        status, body, _ = http_get(srs.http_port, "/live/" + seg)
        assert status == 200 and body[0] == 0x47
        r = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name", "-of", "json",
                            f"http://127.0.0.1:{srs.http_port}{PLAYLIST}"], capture_output=True, text=True,
                           timeout=30)
        assert {s["codec_name"] for s in json.loads(r.stdout)["streams"]} == {"h264", "aac"}
        assert list(srs.hls_dir.rglob("*")) == []
    finally:
        pub.stop()


def start_server_with(srs, hls_body):
    srs.http_port = free_port()
    srs.hls_dir = srs.workdir / "html"
    srs.hls_dir.mkdir()
    conf = srs.base_conf().replace("vhost __defaultVhost__ {\n}\n", "")
    conf += f"http_server {{\n  enabled on;\n  listen {srs.http_port};\n  dir {srs.hls_dir};\n}}\n"
    conf += (f"vhost __defaultVhost__ {{\n  hls {{\n    enabled on;\n    hls_path {srs.hls_dir};\n"
             f"{hls_body}  }}\n}}\n")
    srs.write_conf(conf)
    srs.start()
    assert wait_until(lambda: can_connect(srs.http_port), 5), srs.log()[-2000:]
    return srs


def test_stalled_stream_answers_the_playlist_after_the_limit(ll):
    """Runs last on the module's server: the publisher stops, a blocking request
    is held 3 x the target duration, then gets the playlist as it is (200)."""
    ll.publisher.stop()
    ll.publisher = None
    # The unpublish closes the open segment: wait for that playlist.
    time.sleep(1.0)
    text, _ = playlist(ll)
    last, _ = position(text)
    target = m3u8.loads(text).target_duration
    t0 = time.monotonic()
    status, body, headers = http_get(ll.http_port, f"{PLAYLIST}?_HLS_msn={last + 1}", timeout=3 * target + 10)
    took = time.monotonic() - t0
    assert status == 200 and headers.get("Cache-Control") == "no-cache"
    assert position(body.decode())[0] == last  # nothing new: the current playlist
    assert 3 * target - 0.3 <= took < 3 * target + 2, (took, target)

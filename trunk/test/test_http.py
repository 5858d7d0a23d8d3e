"""HTTP server: HTTP-FLV with real players, static files, the API skeleton,
and hostile HTTP clients."""
import json
import os
import socket
import struct
import threading
import time
import urllib.request

import pytest

import api_schema
from conftest import free_port, wait_until
from media import Publisher, probe_packets, probe_streams, wait_for_publish


def http_conf(srs, http_port, api_port=None, extra_vhost="", dir_=None):
    api_port = api_port or free_port()
    vhost = "vhost __defaultVhost__ {\n  http_remux {\n    enabled on;\n    mount [vhost]/[app]/[stream].flv;\n  }\n" \
        + extra_vhost + "}\n"
    conf = srs.base_conf().replace("vhost __defaultVhost__ {\n}\n", "").replace("max_connections 1000;",
                                                                                 "max_connections 10000;")
    conf += f"http_server {{\n  enabled on;\n  listen {http_port};\n  dir {dir_ or srs.workdir};\n}}\n"
    conf += f"http_api {{\n  enabled on;\n  listen {api_port};\n}}\n" + vhost
    return conf


@pytest.fixture
def http_live(srs, media):
    port = free_port()
    srs.http_port = port
    srs.start(http_conf(srs, port))
    pub = Publisher(media, f"rtmp://127.0.0.1:{srs.rtmp_port}/live/livestream")
    wait_for_publish(srs)
    yield srs, pub
    pub.stop()


def flv_url(srs, stream="livestream"):
    return f"http://127.0.0.1:{srs.http_port}/live/{stream}.flv"


def read_flv_tags(port, path, seconds, results, index, slow=False):
    """Reads an HTTP-FLV stream for `seconds`; records (video tags, monotonic, first video keyframe)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    buf = b""
    while b"\r\n\r\n" not in buf:
        buf += s.recv(4096)
    head, buf = buf.split(b"\r\n\r\n", 1)
    ok_status = head.startswith(b"HTTP/1.1 200")
    deadline = time.monotonic() + seconds
    while len(buf) < 13:
        buf += s.recv(65536)
    assert buf[:3] == b"FLV"
    buf = buf[13:]
    video, last_ts, monotonic, first_key = 0, {8: -1, 9: -1}, True, None
    while time.monotonic() < deadline:
        data = s.recv(65536)
        if not data:
            break
        buf += data
        while len(buf) >= 11:
            ttype = buf[0]
            size = struct.unpack(">I", b"\x00" + buf[1:4])[0]
            ts = struct.unpack(">I", b"\x00" + buf[4:7])[0] | (buf[7] << 24)
            if len(buf) < 11 + size + 4:
                break
            body = buf[11:11 + size]
            if ttype in (8, 9):
                if ts < last_ts[ttype]:
                    monotonic = False
                last_ts[ttype] = ts
            if ttype == 9 and size > 1 and body[1] == 1:  # AVC NALU, not a sequence header
                video += 1
                if first_key is None:
                    first_key = (body[0] >> 4) == 1
            buf = buf[11 + size + 4:]
    s.close()
    results[index] = (ok_status, video, monotonic, first_key)


def test_http_flv_plays_with_ffprobe(http_live):
    srs, _ = http_live
    streams = probe_streams(flv_url(srs))
    assert streams["video"]["codec_name"] == "h264"
    assert (streams["video"]["width"], streams["video"]["height"]) == (320, 240)
    assert streams["audio"]["codec_name"] == "aac"
    packets = probe_packets(flv_url(srs), 4)
    assert len(packets) > 60 and packets[0][1].startswith("K")


def test_http_flv_unknown_stream_is_404(http_live):
    srs, _ = http_live
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(flv_url(srs, "nosuchstream"), timeout=5)
    assert e.value.code == 404


def test_100_flv_players_every_frame_in_order(http_live):
    srs, _ = http_live
    results = [None] * 100
    threads = [threading.Thread(target=read_flv_tags, args=(srs.http_port, "/live/livestream.flv", 6, results, i))
               for i in range(100)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert all(r is not None for r in results)
    assert all(r[0] for r in results)
    assert all(r[2] for r in results), "timestamps went back"
    assert all(r[3] for r in results), "a player did not start at a keyframe"
    counts = [r[1] for r in results]
    assert min(counts) >= 6 * 25 * 0.7, counts
    assert max(counts) - min(counts) <= 30, counts


def flv_header_and_tag_types(port, path, seconds):
    """The FLV header's flags byte and the set of tag types seen in `seconds`."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    buf = b""
    while b"\r\n\r\n" not in buf:
        buf += s.recv(4096)
    head, buf = buf.split(b"\r\n\r\n", 1)
    assert head.startswith(b"HTTP/1.1 200"), head
    deadline = time.monotonic() + seconds
    while len(buf) < 13:
        buf += s.recv(65536)
    assert buf[:3] == b"FLV"
    flags, buf, types = buf[4], buf[13:], set()
    while time.monotonic() < deadline:
        while len(buf) >= 11:
            size = struct.unpack(">I", b"\x00" + buf[1:4])[0]
            if len(buf) < 11 + size + 4:
                break
            types.add(buf[0])
            buf = buf[11 + size + 4:]
        data = s.recv(65536)
        if not data:
            break
        buf += data
    s.close()
    return flags, types


@pytest.mark.parametrize("remux,publish_extra,want_flags,want_types", [
    # guess_has_av (default on): an audio-only stream announces audio only.
    ("", ["-vn"], 0x04, {8, 18}),
    # The conf decides without guessing; unannounced tracks are dropped...
    ("guess_has_av off; has_audio off;", [], 0x01, {9, 18}),
    # ...unless drop_if_not_match is off.
    ("guess_has_av off; has_audio off; drop_if_not_match off;", [], 0x01, {8, 9, 18}),
])
def test_http_flv_header_tracks(srs, media, remux, publish_extra, want_flags, want_types):
    port = free_port()
    srs.http_port = port
    conf = http_conf(srs, port).replace("mount [vhost]/[app]/[stream].flv;",
                                        "mount [vhost]/[app]/[stream].flv;\n    " + remux)
    srs.start(conf)
    pub = Publisher(media, f"rtmp://127.0.0.1:{srs.rtmp_port}/live/livestream", extra=publish_extra)
    try:
        wait_for_publish(srs)
        time.sleep(1)  # the source has carried media: guess_has_av can tell
        flags, types = flv_header_and_tag_types(port, "/live/livestream.flv", 3)
        assert flags == want_flags
        assert types == want_types
    finally:
        pub.stop()


def test_flv_player_that_never_reads_is_shrunk(srs, big_media):
    port = free_port()
    srs.http_port = port
    srs.start(http_conf(srs, port, extra_vhost="  play {\n    queue_length 2;\n  }\n"))
    pub = Publisher(big_media, f"rtmp://127.0.0.1:{srs.rtmp_port}/live/livestream")
    try:
        wait_for_publish(srs)
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET /live/livestream.flv HTTP/1.1\r\nHost: x\r\n\r\n")
        assert wait_until(lambda: "player queue over 2000 ms" in srs.log(), 20), srs.log()[-2000:]
        results = [None]
        read_flv_tags(port, "/live/livestream.flv", 3, results, 0)
        assert results[0][1] > 10
        assert pub.alive()
        s.close()
    finally:
        pub.stop()


def test_static_files_ranges_and_traversal(srs, tmp_path):
    root = tmp_path / "html"
    (root / "sub").mkdir(parents=True)
    (root / "index.html").write_text("<h1>hello</h1>")
    (root / "sub" / "data.json").write_text('{"a":1}')
    (tmp_path / "secret.txt").write_text("secret")
    os.symlink(tmp_path / "secret.txt", root / "link.txt")
    port = free_port()
    srs.start(http_conf(srs, port, dir_=root))
    base = f"http://127.0.0.1:{port}"
    r = urllib.request.urlopen(base + "/", timeout=5)
    assert r.read() == b"<h1>hello</h1>" and r.headers["Content-Type"].startswith("text/html")
    r = urllib.request.urlopen(base + "/sub/data.json", timeout=5)
    assert r.headers["Content-Type"].startswith("application/json")
    req = urllib.request.Request(base + "/index.html", headers={"Range": "bytes=1-3"})
    r = urllib.request.urlopen(req, timeout=5)
    assert r.status == 206 and r.read() == b"h1>" and r.headers["Content-Range"] == "bytes 1-3/14"
    for bad in ["/link.txt", "/../secret.txt", "/%2e%2e/secret.txt", "/sub/..%2f..%2fsecret.txt", "/nope.html"]:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(f"GET {bad} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while True:
            part = s.recv(4096)
            if not part:
                break
            data += part
        s.close()
        assert b"secret" not in data, bad
        assert data.startswith(b"HTTP/1.1 4"), (bad, data[:40])


def test_large_cold_static_file_while_a_player_plays(http_live, tmp_path):
    """A 32 MB file not in the page cache is read off the coroutine thread:
    its bytes arrive intact and an FLV player keeps receiving meanwhile."""
    srs, _ = http_live
    big = srs.workdir / "big.bin"
    data = os.urandom(1 << 20) * 32
    big.write_bytes(data)
    fd = os.open(big, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
    results = [None]
    player = threading.Thread(target=read_flv_tags, args=(srs.http_port, "/live/livestream.flv", 5, results, 0))
    player.start()
    try:
        r = urllib.request.urlopen(f"http://127.0.0.1:{srs.http_port}/big.bin", timeout=30)
        got = r.read()
        assert len(got) == len(data) and got == data
        req = urllib.request.Request(f"http://127.0.0.1:{srs.http_port}/big.bin",
                                     headers={"Range": "bytes=20000000-20000009"})
        assert urllib.request.urlopen(req, timeout=10).read() == data[20000000:20000010]
    finally:
        player.join(30)
    ok, video, monotonic, first_key = results[0]
    assert ok and monotonic and first_key and video >= 5 * 25 * 0.7, results[0]


def read_response(sock, buf=b""):
    """One HTTP/1.1 answer off a keep-alive socket: (status line, headers, body, rest of buf)."""
    while b"\r\n\r\n" not in buf:
        part = sock.recv(65536)
        if not part:
            raise ConnectionError(f"closed before a head: {buf[:80]!r}")
        buf += part
    head, buf = buf.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
    length = int(headers.get("content-length", "0"))
    while len(buf) < length:
        part = sock.recv(1 << 20)
        if not part:
            break  # the caller compares what arrived with what was promised
        buf += part
    return lines[0], headers, buf[:length], buf[length:]


def server_fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def test_static_files_by_sendfile_on_one_keepalive_connection(srs, tmp_path):
    """Files go out with sendfile: a 5 MB file (more than a socket buffer
    holds), a range of it, an empty file, a HEAD and a missing file, all on
    one keep-alive connection, each answer intact and the next one after it."""
    root = tmp_path / "html"
    root.mkdir()
    data = os.urandom(5 * (1 << 20) + 17)
    (root / "big.ts").write_bytes(data)
    (root / "empty.ts").write_bytes(b"")
    port = free_port()
    srs.start(http_conf(srs, port, dir_=root))
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    rest = b""
    for i in range(3):
        s.sendall(b"GET /big.ts HTTP/1.1\r\nHost: x\r\n\r\n")
        status, headers, body, rest = read_response(s, rest)
        assert status == "HTTP/1.1 200 OK" and headers["content-type"] == "video/MP2T", (status, headers)
        assert body == data, (i, len(body))
    s.sendall(b"GET /big.ts HTTP/1.1\r\nHost: x\r\nRange: bytes=4000000-4999999\r\n\r\n")
    status, headers, body, rest = read_response(s, rest)
    assert status.startswith("HTTP/1.1 206") and headers["content-range"] == f"bytes 4000000-4999999/{len(data)}"
    assert body == data[4000000:5000000]
    s.sendall(b"GET /empty.ts HTTP/1.1\r\nHost: x\r\n\r\n")
    status, headers, body, rest = read_response(s, rest)
    assert status == "HTTP/1.1 200 OK" and headers["content-length"] == "0" and body == b""
    s.sendall(b"GET /nope.ts HTTP/1.1\r\nHost: x\r\n\r\n")
    status, headers, body, rest = read_response(s, rest)
    assert status.startswith("HTTP/1.1 404"), status
    # HEAD: the length of the file, no body; the next GET's answer follows at once.
    s.sendall(b"HEAD /big.ts HTTP/1.1\r\nHost: x\r\n\r\nGET /empty.ts HTTP/1.1\r\nHost: x\r\n\r\n")
    while b"\r\n\r\n" not in rest:
        rest += s.recv(65536)
    head, rest = rest.split(b"\r\n\r\n", 1)
    assert head.startswith(b"HTTP/1.1 200") and f"Content-Length: {len(data)}".encode() in head, head
    status, headers, body, rest = read_response(s, rest)
    assert status == "HTTP/1.1 200 OK" and body == b"" and rest == b""
    s.close()


def test_static_file_that_shrinks_or_a_client_that_leaves_mid_file(srs, tmp_path):
    """A file cut short while it is being sent closes the connection (its
    promised length cannot be kept) with a log line; clients that close in
    the middle of a file cost nothing: no hang, no file descriptor left, and
    the server answers the next client (LeakSanitizer checks at the stop)."""
    root = tmp_path / "html"
    root.mkdir()
    data = os.urandom(1 << 20) * 48  # far more than the socket buffers hold
    (root / "big.ts").write_bytes(data)
    port = free_port()
    srs.start(http_conf(srs, port, dir_=root))
    # One answer first: the root folder's own descriptor is opened then, and kept.
    urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/big.ts", method="HEAD"), timeout=10)
    base_fds = server_fds(srs.pid)
    # Clients that read a little and close.
    for _ in range(20):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
        s.sendall(b"GET /big.ts HTTP/1.1\r\nHost: x\r\n\r\n")
        got = 0
        while got < 100000:
            got += len(s.recv(65536))
        s.close()
    # The file shrinks while a slow reader is in the middle of it.
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
    s.sendall(b"GET /big.ts HTTP/1.1\r\nHost: x\r\n\r\n")
    first = s.recv(65536)
    assert first.startswith(b"HTTP/1.1 200") and f"Content-Length: {len(data)}".encode() in first
    os.truncate(root / "big.ts", 3 << 20)
    got, t0 = len(first), time.monotonic()
    while True:
        part = s.recv(1 << 20)
        if not part:
            break
        got += len(part)
        assert time.monotonic() - t0 < 20, "the connection was not closed"
    s.close()
    assert got < len(data)
    assert wait_until(lambda: "the file ended" in srs.log(), 5), srs.log()[-2000:]
    # Every connection above is gone from the server; the next client is served.
    assert wait_until(lambda: server_fds(srs.pid) <= base_fds, 10), (server_fds(srs.pid), base_fds)
    r = urllib.request.urlopen(f"http://127.0.0.1:{port}/big.ts", timeout=10)
    assert r.read() == data[:3 << 20]


def memory_files(pid):
    """The sealed memory files (memfd "hls") the server holds open."""
    n = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            n += os.readlink(f"/proc/{pid}/fd/{fd}").startswith("/memfd:hls")
        except OSError:
            pass
    return n


def test_memory_segments_by_sendfile_and_their_files_freed(srs, media, tmp_path):
    """hls_storage memory: a segment goes out of a sealed memory file with
    sendfile, the same bytes every time on one keep-alive connection (and
    HEAD, and a 404 after it); the memory files follow the window: those of
    segments the store dropped are closed."""
    root = tmp_path / "html"
    root.mkdir()
    port = free_port()
    hls = ("  hls {\n    enabled on;\n    hls_storage memory;\n    hls_fragment 2;\n    hls_window 4;\n"
           f"    hls_path {root};\n    hls_ctx off;\n    hls_ts_ctx off;\n  }}\n")
    srs.start(http_conf(srs, port, extra_vhost=hls, dir_=root))
    pub = Publisher(media, f"rtmp://127.0.0.1:{srs.rtmp_port}/live/livestream")
    try:
        def listed():
            try:
                text = urllib.request.urlopen(f"http://127.0.0.1:{port}/live/livestream.m3u8", timeout=5).read()
            except OSError:
                return []
            return [line for line in text.decode().splitlines() if line.endswith(".ts")]
        assert wait_until(lambda: len(listed()) >= 2, 30), srs.log()[-2000:]
        seg = "/live/" + listed()[-1]
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        rest, bodies = b"", []
        for _ in range(3):
            s.sendall(f"GET {seg} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            status, headers, body, rest = read_response(s, rest)
            assert status == "HTTP/1.1 200 OK" and headers["content-type"] == "video/MP2T", (status, headers)
            assert len(body) == int(headers["content-length"]) > 16384 and body[0] == 0x47
            bodies.append(body)
        assert bodies[0] == bodies[1] == bodies[2]
        s.sendall(f"HEAD {seg} HTTP/1.1\r\nHost: x\r\n\r\nGET /live/nope-1.ts HTTP/1.1\r\nHost: x\r\n\r\n"
                  .encode())
        while b"\r\n\r\n" not in rest:
            rest += s.recv(65536)
        head, rest = rest.split(b"\r\n\r\n", 1)
        assert head.startswith(b"HTTP/1.1 200") and f"Content-Length: {len(bodies[0])}".encode() in head, head
        status, _, _, rest = read_response(s, rest)
        assert status.startswith("HTTP/1.1 404") and rest == b"", status
        s.close()
        assert memory_files(srs.pid) >= 1
        # Every new segment fetched once for 14 s: the window (4 s, 2 s
        # segments) moves on, the files of dropped segments are closed.
        seen, deadline = set(), time.monotonic() + 14
        while time.monotonic() < deadline:
            for name in listed():
                if name not in seen:
                    seen.add(name)
                    assert len(urllib.request.urlopen(f"http://127.0.0.1:{port}/live/{name}", timeout=5).read()) > 0
            time.sleep(0.3)
        assert len(seen) >= 6, seen
        held = memory_files(srs.pid)
        assert 1 <= held <= len(listed()) + 2, (held, listed())
    finally:
        pub.stop()


def test_api_versions_and_unknown_path(srs):
    port, api = free_port(), free_port()
    srs.start(http_conf(srs, port, api_port=api))
    assert wait_until(lambda: "API listen" in srs.log())
    data = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{api}/api/v1/versions", timeout=5).read())
    assert data["code"] == 0 and data["pid"] == str(srs.pid)
    assert data["data"]["major"] == 7 and "version" in data["data"]
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(f"http://127.0.0.1:{api}/api/v1/nope", timeout=5)
    assert e.value.code == 404


def test_api_methods_as_srs(srs):
    # SRS's handlers check the method only for streams, vhosts (GET) and
    # clients (GET, DELETE kicks); every other endpoint answers whatever the
    # method, and tools written for SRS POST to /api/v1/versions with a body.
    port, api = free_port(), free_port()
    srs.start(http_conf(srs, port, api_port=api))
    assert wait_until(lambda: "API listen" in srs.log())
    for method in ["POST", "PUT", "DELETE", "PATCH"]:
        for path in ["/api/v1/versions", "/api/v1/summaries", "/api/v1/rusages", "/api/v1/meminfos",
                     "/api/v1/features", "/api/v1/", "/api/"]:
            body = b'{"action":"version"}' if method in ("POST", "PUT", "PATCH") else None
            req = urllib.request.Request(f"http://127.0.0.1:{api}{path}", data=body, method=method,
                                         headers={"Content-Type": "application/json"})
            r = urllib.request.urlopen(req, timeout=5)
            data = json.loads(r.read())
            assert r.status == 200 and data["code"] == 0, (method, path)
            if path == "/api/v1/versions":
                assert data["data"]["major"] == 7
    for path, method in [("/api/v1/streams", "POST"), ("/api/v1/streams", "DELETE"), ("/api/v1/vhosts", "POST"),
                         ("/api/v1/clients", "PUT"), ("/api/v1/clients", "DELETE")]:
        assert api_get(api, path, method=method)[0] == 405, (method, path)
    # An unknown client is 404 (a DELETE kicks only a client that exists).
    assert api_get(api, "/api/v1/clients/nosuch", method="DELETE")[0] == 404


def _raw_http(port, payload, timeout=5):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(payload)
    except (BrokenPipeError, ConnectionResetError):
        pass
    data = b""
    try:
        while True:
            part = s.recv(4096)
            if not part:
                break
            data += part
    except (ConnectionResetError, socket.timeout):
        pass
    s.close()
    return data


def test_hostile_http_clients(http_live):
    srs, _ = http_live
    port = srs.http_port
    assert _raw_http(port, b"GET / HTTP/1.1\r\nX: " + b"a" * (1 << 20) + b"\r\n\r\n").startswith(b"HTTP/1.1 431")
    many = b"".join(b"X-%d: v\r\n" % i for i in range(10000))
    assert _raw_http(port, b"GET / HTTP/1.1\r\n" + many + b"\r\n").startswith(b"HTTP/1.1 431")
    assert _raw_http(port, b"G\x01T / HTTP/1.1\r\n\r\n").startswith(b"HTTP/1.1 400")
    assert _raw_http(port, b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n").startswith(b"HTTP/1.1 400")
    # Slowloris: a header trickling in does not stop anybody else.
    slow = socket.create_connection(("127.0.0.1", port))
    slow.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
    results = [None]
    read_flv_tags(port, "/live/livestream.flv", 2, results, 0)
    assert results[0][1] > 10
    slow.close()


def test_5000_idle_keepalive_connections(http_live):
    srs, _ = http_live
    port = srs.http_port
    conns = []
    try:
        for _ in range(5000):
            conns.append(socket.create_connection(("127.0.0.1", port)))
        time.sleep(0.5)
        data = _raw_http(port, b"GET /api/v1/versions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert data.startswith(b"HTTP/1.1"), data[:40]
    finally:
        for c in conns:
            c.close()
    results = [None]
    read_flv_tags(port, "/live/livestream.flv", 2, results, 0)
    assert results[0][1] > 10


# ---- the HTTP API ----

ENVELOPE = ["code", "server", "service", "pid"]


def api_get(port, path, method="GET", headers=None):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method, headers=headers or {})
    try:
        r = urllib.request.urlopen(req, timeout=5)
        return r.status, r.read().decode(), r.headers
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(), e.headers


@pytest.fixture
def api_live(srs, media):
    port, api = free_port(), free_port()
    srs.http_port, srs.api_port = port, api
    conf = http_conf(srs, port, api_port=api).replace(
        f"http_api {{\n  enabled on;\n  listen {api};\n}}",
        f"http_api {{\n  enabled on;\n  listen {api};\n  raw_api {{\n    enabled on;\n    allow_reload on;\n  }}\n}}")
    srs.start(conf)
    pub = Publisher(media, f"rtmp://127.0.0.1:{srs.rtmp_port}/live/livestream")
    wait_for_publish(srs)
    assert wait_until(lambda: "video H264" in srs.log())
    yield srs, pub
    pub.stop()


def test_api_streams_and_clients_shapes(api_live):
    srs, _ = api_live
    code, body, _ = api_get(srs.api_port, "/api/v1/streams")
    data = json.loads(body)
    assert code == 200 and list(data)[:4] == ENVELOPE and data["code"] == 0
    s = data["streams"][0]
    assert not api_schema.errors(data, api_schema.SCHEMAS["/api/v1/streams"])
    assert s["name"] == "livestream" and s["app"] == "live" and s["url"] == "/live/livestream"
    assert s["publish"]["active"] is True and s["publish"]["cid"]
    assert s["video"] == {"codec": "H264", "profile": "High", "level": s["video"]["level"], "width": 320,
                          "height": 240}
    assert s["audio"]["codec"] == "AAC" and s["audio"]["sample_rate"] == 44100 and s["audio"]["channel"] == 2
    one = json.loads(api_get(srs.api_port, f"/api/v1/streams/{s['id']}")[1])
    assert one["stream"]["id"] == s["id"]
    assert api_get(srs.api_port, "/api/v1/streams/vid-nosuch")[0] == 404

    clients = json.loads(api_get(srs.api_port, "/api/v1/clients")[1])["clients"]
    pub = [c for c in clients if c["publish"]]
    assert pub and pub[0]["type"] == "fmle-publish"
    assert pub[0]["tcUrl"] == f"rtmp://127.0.0.1:{srs.rtmp_port}/live" == s["tcUrl"]
    assert pub[0]["id"] == s["publish"]["cid"] and pub[0]["stream"] == s["id"]

    vhosts = json.loads(api_get(srs.api_port, "/api/v1/vhosts")[1])["vhosts"]
    assert vhosts[0]["name"] == "__defaultVhost__" and vhosts[0]["streams"] == 1
    assert api_get(srs.api_port, "/api/v1/streams", method="POST")[0] == 405
    assert api_get(srs.api_port, "/api/v1/nosuch")[0] == 404
    for path in ["/api/", "/api/v1/", "/api/v1/versions", "/api/v1/features"]:
        code, body, _ = api_get(srs.api_port, path)
        assert code == 200 and list(json.loads(body))[:4] == ENVELOPE, path


def test_api_every_endpoint_matches_its_schema(api_live):
    """Every endpoint's JSON against test/api_schema.py, with a publisher and
    an HTTP-FLV player on the server; errors keep the envelope."""
    srs, _ = api_live
    results = [None]
    player = threading.Thread(target=read_flv_tags, args=(srs.http_port, "/live/livestream.flv", 4, results, 0))
    player.start()
    try:
        def listed(kind):
            return json.loads(api_get(srs.api_port, f"/api/v1/{kind}")[1])[kind]
        assert wait_until(lambda: any(c["type"] == "flv-play" for c in listed("clients")), 10)
        ids = {"vhost": listed("vhosts")[0]["id"], "stream": listed("streams")[0]["id"],
               "client": [c for c in listed("clients") if c["type"] == "flv-play"][0]["id"]}
        for path, schema in api_schema.SCHEMAS.items():
            url = path.format(**ids)
            code, body, headers = api_get(srs.api_port, url)
            assert code == 200 and headers["Content-Type"].startswith("application/json"), url
            data = json.loads(body)
            assert list(data)[:4] == ENVELOPE, url
            problems = api_schema.errors(data, schema)
            assert not problems, (url, problems)
        # Only players and publishers are clients, not the API calls themselves.
        assert {c["type"] for c in listed("clients")} == {"flv-play", "fmle-publish"}
        summary = json.loads(api_get(srs.api_port, "/api/v1/summaries")[1])["data"]["self"]
        assert "-c" in summary["argv"].split()
        for url, method, code in [("/api/v1/nosuch", "GET", 404), ("/api/v1/streams/vid-nosuch", "GET", 404),
                                  ("/api/v1/clients/nosuch", "GET", 404), ("/api/v1/streams", "POST", 405),
                                  ("/api/v1/vhosts", "PUT", 405), ("/api/v1/clients", "POST", 405)]:
            got, body, _ = api_get(srs.api_port, url, method=method)
            assert got == code, url
            problems = api_schema.errors(json.loads(body), api_schema.ERROR_SCHEMAS[code])
            assert not problems, (url, problems)
    finally:
        player.join(30)


def test_api_schema_checker_catches_mistakes():
    """The checker itself: a wrong type, a missing field, an extra field, a bad enum."""
    good = {"code": 0, "server": "vid-abc", "service": "abc1", "pid": "12", "data": {
        "major": 7, "minor": 0, "revision": 0, "version": "7.0.0"}}
    schema = api_schema.SCHEMAS["/api/v1/versions"]
    assert api_schema.errors(good, schema) == []
    bad = json.loads(json.dumps(good))
    bad["pid"] = 12
    del bad["data"]["minor"]
    bad["data"]["extra"] = 1
    bad["data"]["major"] = 6
    found = " ".join(api_schema.errors(bad, schema))
    for want in ["$.pid: int is not string", "missing 'minor'", "unexpected 'extra'", "6 not in [7]"]:
        assert want in found, found


def test_api_kick_client(api_live):
    srs, _ = api_live
    results = [None]
    t = threading.Thread(target=read_flv_tags, args=(srs.http_port, "/live/livestream.flv", 30, results, 0))
    t.start()
    try:
        def flv_client():
            clients = json.loads(api_get(srs.api_port, "/api/v1/clients")[1])["clients"]
            return [c for c in clients if c["type"] == "flv-play"]
        assert wait_until(flv_client, 10)
        cid = flv_client()[0]["id"]
        assert api_get(srs.api_port, f"/api/v1/clients/{cid}", method="DELETE")[0] == 200
        t.join(10)
        assert not t.is_alive(), "the kicked player's connection stayed open"
        assert wait_until(lambda: not [c for c in flv_client() if c["id"] == cid], 10)
    finally:
        t.join(30)


def test_api_jsonp_and_injection(api_live):
    srs, _ = api_live
    code, body, headers = api_get(srs.api_port, "/api/v1/versions?callback=cb_1")
    assert code == 200 and body.startswith("cb_1({") and body.endswith("})")
    assert headers["Content-Type"].startswith("text/javascript")
    code, body, _ = api_get(srs.api_port, "/api/v1/versions?callback=alert(document.cookie)//")
    assert code == 400 and "alert" not in body


def test_api_raw_reload(api_live):
    srs, _ = api_live
    data = json.loads(api_get(srs.api_port, "/api/v1/raw?rpc=raw")[1])
    assert data["code"] == 0 and data["http_api"]["raw_api"]["allow_reload"] is True
    data = json.loads(api_get(srs.api_port, "/api/v1/raw?rpc=reload")[1])
    assert data["code"] == 0
    assert wait_until(lambda: "reload done" in srs.log())


def test_api_basic_auth(srs):
    port, api = free_port(), free_port()
    conf = http_conf(srs, port, api_port=api).replace(
        f"listen {api};\n}}", f"listen {api};\n  auth {{\n    enabled on;\n    username admin;\n"
                              f"    password secret;\n  }}\n}}")
    srs.start(conf)
    assert wait_until(lambda: "API listen" in srs.log())
    assert api_get(api, "/api/v1/versions")[0] == 401
    import base64
    good = {"Authorization": "Basic " + base64.b64encode(b"admin:secret").decode()}
    bad = {"Authorization": "Basic " + base64.b64encode(b"admin:wrong").decode()}
    assert api_get(api, "/api/v1/versions", headers=bad)[0] == 401
    assert api_get(api, "/api/v1/versions", headers=good)[0] == 200
    # The scheme is case-insensitive (RFC 7617); the credentials are strict base64.
    lower = {"Authorization": "basic " + base64.b64encode(b"admin:secret").decode()}
    assert api_get(api, "/api/v1/versions", headers=lower)[0] == 200
    for broken in ("Basic YWRtaW46c2VjcmV", "Basic YWRtaW46c2VjcmV0=!", "Basic", "Bearer YWRtaW46c2VjcmV0"):
        assert api_get(api, "/api/v1/versions", headers={"Authorization": broken})[0] == 401, broken


def test_api_shares_the_http_port(srs):
    port = free_port()
    srs.start(http_conf(srs, port, api_port=port))
    assert wait_until(lambda: "HTTP listen" in srs.log())
    code, body, _ = api_get(port, "/api/v1/versions")
    assert code == 200 and json.loads(body)["data"]["major"] == 7


def test_api_json_with_names_that_are_not_utf8(srs):
    """A stream published under a name that is not UTF-8: the API still answers
    valid JSON (and valid UTF-8), the bad bytes shown as U+FFFD, and the server
    stays up (nlohmann's dump() throws on such bytes unless told to replace)."""
    from rtmp_raw import RawRtmp, amf0_number, amf0_string, chunk
    port, api = free_port(), free_port()
    srs.start(http_conf(srs, port, api_port=api))
    assert wait_until(lambda: "API listen" in srs.log())
    name = b"bad\xffname\xc3"
    c = RawRtmp(srs.rtmp_port)
    try:
        c.handshake()
        c.connect()
        c.send(chunk(3, 20, amf0_string("createStream") + amf0_number(2) + b"\x05"))
        raw_name = b"\x02" + struct.pack(">H", len(name)) + name
        c.send(chunk(8, 20, amf0_string("publish") + amf0_number(3) + b"\x05" + raw_name + amf0_string("live"),
                     stream_id=1))

        def streams():
            code, body, _ = api_get(api, "/api/v1/streams")  # decode() raises on invalid UTF-8
            assert code == 200
            return json.loads(body)["streams"]
        assert wait_until(lambda: streams(), 10), srs.log()[-2000:]
        names = [st["name"] for st in streams()]
        assert names == ["bad\ufffdname\ufffd"], names
        assert api_get(api, "/api/v1/clients")[0] == 200
    finally:
        c.close()
    assert api_get(api, "/api/v1/versions")[0] == 200


def test_api_proc_endpoints(api_live):
    srs, _ = api_live
    fields = {
        "/api/v1/rusages": ["ok", "sample_time", "ru_utime", "ru_stime", "ru_maxrss"],
        "/api/v1/self_proc_stats": ["ok", "sample_time", "percent", "pid", "comm", "state", "ppid", "utime",
                                    "stime", "rss", "num_threads"],
        "/api/v1/system_proc_stats": ["ok", "sample_time", "percent", "user", "nice", "sys", "idle", "iowait",
                                      "irq", "softirq", "steal", "guest"],
        "/api/v1/meminfos": ["ok", "sample_time", "percent_ram", "percent_swap", "MemActive", "RealInUse",
                             "NotInUse", "MemTotal", "MemFree", "Buffers", "Cached", "SwapTotal", "SwapFree"],
    }
    for path, names in fields.items():
        data = json.loads(api_get(srs.api_port, path)[1])
        assert list(data)[:4] == ENVELOPE and data["code"] == 0, path
        assert set(names) <= set(data["data"]), (path, set(names) - set(data["data"]))
    self_stat = json.loads(api_get(srs.api_port, "/api/v1/self_proc_stats")[1])["data"]
    assert self_stat["pid"] == srs.pid
    summary = json.loads(api_get(srs.api_port, "/api/v1/summaries")[1])["data"]
    assert summary["ok"] is True
    assert summary["self"]["pid"] == srs.pid and summary["system"]["conn_srs"] >= 1
    for k in ["version", "pid", "ppid", "argv", "cwd", "mem_kbyte", "mem_percent", "cpu_percent", "srs_uptime"]:
        assert k in summary["self"], k

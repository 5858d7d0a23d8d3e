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

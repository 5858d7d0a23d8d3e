"""Forward (vhost forward): ffmpeg publishes to ours, ours publishes the
stream again to Debian's nginx-rtmp (started here on loopback, its own conf,
pid and error log in a temp dir), ffprobe plays it from nginx-rtmp. The
destination dies and comes back while our own RTMP players keep playing;
the block form with two destinations; the on_forward backend (a small HTTP
server in a thread) that names the destinations, or none."""
import json
import os
import signal
import socket
import struct
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import rtmp_raw
from conftest import fd_count, free_port, stop_process, wait_until
from media import Publisher, probe_streams
from test_edge import load, rtmp_url

NGINX = Path("/usr/sbin/nginx")
RTMP_MODULE = Path("/usr/lib/nginx/modules/ngx_rtmp_module.so")

pytestmark = pytest.mark.skipif(not (NGINX.exists() and RTMP_MODULE.exists()),
                                reason="nginx with libnginx-mod-rtmp is not installed")


class NginxRtmp:
    """One nginx-rtmp (one process, application live) on a free loopback port."""

    def __init__(self, work: Path):
        self.work = work
        work.mkdir(exist_ok=True)
        self.port = free_port()
        self.proc = None

    def start(self):
        conf = self.work / "nginx.conf"
        conf.write_text(f"""load_module {RTMP_MODULE};
worker_processes 1;
daemon off;
master_process off;
error_log {self.work}/nginx-error.log;
pid {self.work}/nginx.pid;
events {{ worker_connections 256; }}
rtmp {{ server {{ listen 127.0.0.1:{self.port}; application live {{ live on; }} }} }}
""")
        self.proc = subprocess.Popen([str(NGINX), "-c", str(conf), "-p", str(self.work)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        from conftest import can_connect
        assert wait_until(lambda: can_connect(self.port) or self.proc.poll() is not None, 10)
        assert self.proc.poll() is None, (self.work / "nginx-error.log").read_text()
        return self

    def kill(self):
        stop_process(self.proc)  # SIGKILL by PID: a destination that dies
        self.proc = None

    def url(self, stream="livestream"):
        return f"rtmp://127.0.0.1:{self.port}/live/{stream}"


@pytest.fixture
def nginx_factory(tmp_path):
    started = []

    def make(name):
        n = NginxRtmp(tmp_path / name)
        started.append(n)
        return n.start()

    yield make
    for n in started:
        if n.proc:
            n.kill()


def start_ours(srs, vhost_body):
    conf = (f"listen {srs.rtmp_port};\nmax_connections 1000;\ndaemon off;\npid {srs.pid_file};\n"
            f"srs_log_tank file;\nsrs_log_file {srs.log_file};\n"
            f"vhost __defaultVhost__ {{\n{vhost_body}\n}}\n")
    srs.start(conf)
    return srs


def decodable(url, timeout=12):
    """ffprobe sees H.264 video (with its size) and AAC audio at url."""
    try:
        s = probe_streams(url, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False
    v, a = s.get("video", {}), s.get("audio", {})
    return v.get("codec_name") == "h264" and v.get("width") == 320 and a.get("codec_name") == "aac"


def test_forward_to_nginx_rtmp_survives_its_restart(srs, nginx_factory, media):
    nginx = nginx_factory("n1")
    # SRS's old one-line form, as in its benchmark conf.
    start_ours(srs, f"forward 127.0.0.1:{nginx.port};")
    pub = Publisher(media, rtmp_url(srs))
    try:
        assert wait_until(lambda: "forward __defaultVhost__/live/livestream to" in srs.log(), 15), srs.log()[-3000:]
        assert decodable(nginx.url()), srs.log()[-3000:]
        # Our own players play across the destination's outage.
        run = load(srs, 2, 16)
        time.sleep(2)
        nginx.kill()
        assert wait_until(lambda: "again in 3s" in srs.log(), 10), srs.log()[-3000:]
        time.sleep(3)  # down a while: refused connects are retried
        nginx.start()
        back = time.monotonic()
        assert wait_until(lambda: srs.log().count(f"to rtmp://127.0.0.1:{nginx.port}/live/livestream started") >= 2,
                          5), srs.log()[-3000:]
        print(f"forward resumed {time.monotonic() - back:.1f}s after nginx-rtmp came back")
        assert decodable(nginx.url()), srs.log()[-3000:]
        code, s = run.result()
        assert code == 0, s
        assert s["alive"] == 2 and s["failed"] == 0 and s["reconnects"] == 0, s
        assert s["per_client_video_frames_min"] >= 25 * 12, s  # ~16 s at 25 fps, no gap
        assert pub.alive()
    finally:
        pub.stop()
    assert wait_until(lambda: "to rtmp://127.0.0.1:%d/live/livestream stopped" % nginx.port in srs.log(), 10)


def test_forward_block_two_destinations_keeps_param(srs, nginx_factory, media):
    a, b = nginx_factory("a"), nginx_factory("b")
    start_ours(srs, f"forward {{ enabled on; destination 127.0.0.1:{a.port} 127.0.0.1:{b.port}; }}")
    pub = Publisher(media, rtmp_url(srs, "s1") + "?token=abc")
    try:
        for n in (a, b):
            assert wait_until(lambda: f"to rtmp://127.0.0.1:{n.port}/live/s1?token=abc started" in srs.log(), 15), \
                srs.log()[-3000:]
            assert decodable(n.url("s1")), srs.log()[-3000:]
    finally:
        pub.stop()


class Hook(BaseHTTPRequestHandler):
    bodies = []
    answers = {}  # stream -> list of (status, body); the last one repeats

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Hook.bodies.append(body)
        queue = Hook.answers.get(body.get("stream"), [(200, {"code": 0, "data": {"urls": []}})])
        status, answer = queue.pop(0) if len(queue) > 1 else queue[0]
        data = json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def test_forward_backend_names_the_destinations(srs, nginx_factory, media):
    nginx = nginx_factory("n")
    hook = ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=hook.serve_forever, daemon=True).start()
    hook_url = f"http://127.0.0.1:{hook.server_address[1]}/api/v1/forward"
    target = nginx.url("fromhook")
    Hook.bodies.clear()
    # The first answer fails: the backend is asked again 3 s later.
    Hook.answers = {"a": [(500, {"code": 1}), (200, {"code": 0, "data": {"urls": [target]}})],
                    "empty": [(200, {"code": 0, "data": {"urls": []}})]}
    start_ours(srs, f"forward {{ enabled on; backend {hook_url}; }}")
    pubs = []
    try:
        pubs.append(Publisher(media, rtmp_url(srs, "a") + "?k=v"))
        assert wait_until(lambda: f"to {target} started" in srs.log(), 15), srs.log()[-3000:]
        assert "asked again in 3s" in srs.log()
        assert decodable(target), srs.log()[-3000:]
        b = [x for x in Hook.bodies if x["stream"] == "a"]
        assert len(b) == 2, Hook.bodies
        assert list(b[0]) == ["server_id", "service_id", "action", "client_id", "ip", "vhost", "app", "tcUrl",
                              "stream", "param"], b[0]
        assert b[0]["action"] == "on_forward" and b[0]["app"] == "live" and b[0]["param"] == "?k=v", b[0]
        assert b[0]["vhost"] == "__defaultVhost__" and b[0]["ip"] == "127.0.0.1", b[0]
        assert b[0]["tcUrl"].startswith(f"rtmp://127.0.0.1:{srs.rtmp_port}/live"), b[0]
        # An empty list forwards nothing.
        pubs.append(Publisher(media, rtmp_url(srs, "empty")))
        assert wait_until(lambda: "/live/empty: backend" in srs.log() and "gave no url" in srs.log(), 10), \
            srs.log()[-3000:]
        time.sleep(1)
        assert "forward __defaultVhost__/live/empty to" not in srs.log()
    finally:
        for p in pubs:
            p.stop()
        hook.shutdown()
        hook.server_close()


# ---- destinations that misbehave ----

class BadDestination:
    """A TCP server on loopback that plays a broken RTMP destination, one mode
    for every connection it accepts; `accepted` keeps the monotonic time of
    each, so a test sees the forwarder's retries. Every socket and thread it
    makes ends at stop()."""

    MODES = ("random", "garbage_chunks", "close_mid_handshake", "stall", "chatter", "flood_media",
             "garbage_after_publish")

    def __init__(self, mode):
        assert mode in self.MODES
        self.mode = mode
        self.accepted = []
        self.done = threading.Event()
        self.lock = threading.Lock()
        self.conns = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.listener.settimeout(0.2)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def destination(self):
        return f"127.0.0.1:{self.port}"

    def stop(self):
        self.done.set()
        self.thread.join(5)
        with self.lock:
            for c in self.conns:
                c.close()
        self.listener.close()

    def _serve(self):
        workers = []
        while not self.done.is_set():
            try:
                conn, _ = self.listener.accept()
            except socket.timeout:
                continue
            except OSError:
                break
            self.accepted.append(time.monotonic())
            with self.lock:
                self.conns.append(conn)
            t = threading.Thread(target=self._talk, args=(conn,), daemon=True)
            t.start()
            workers.append(t)
        for t in workers:
            t.join(5)

    def _recv_exact(self, conn, n):
        buf = b""
        while len(buf) < n and not self.done.is_set():
            try:
                part = conn.recv(n - len(buf))
            except socket.timeout:
                continue
            if not part:
                raise ConnectionError("closed")
            buf += part
        return buf

    def _handshake(self, conn):
        c0c1 = self._recv_exact(conn, 1537)
        s1 = b"\x00" * 8 + os.urandom(1528)
        conn.sendall(b"\x03" + s1 + c0c1[1:])  # S0 S1, S2 echoes C1
        self._recv_exact(conn, 1536)  # C2

    def _flood(self, conn, seconds=20):
        """Random bytes until the peer closes (or a bound in time)."""
        end = time.monotonic() + seconds
        while not self.done.is_set() and time.monotonic() < end:
            conn.sendall(os.urandom(4096))
            time.sleep(0.005)

    def _talk(self, conn):
        conn.settimeout(0.2)
        try:
            if self.mode == "random":
                self._recv_exact(conn, 1537)
                conn.sendall(b"\x47")  # not RTMP's version byte, whatever follows
                self._flood(conn)
            elif self.mode == "garbage_chunks":
                self._handshake(conn)
                self._flood(conn)
            elif self.mode == "close_mid_handshake":
                self._recv_exact(conn, 1537)
                conn.sendall(b"\x03" + b"\x00" * 700)
                conn.close()
            elif self.mode == "stall":
                # Takes what comes, answers nothing, never closes.
                while not self.done.is_set():
                    try:
                        if not conn.recv(65536):
                            break
                    except socket.timeout:
                        pass
            elif self.mode == "chatter":
                # A valid handshake, then pings forever and never an answer
                # to connect: each read finds something, no timeout fires.
                self._handshake(conn)
                while not self.done.is_set():
                    conn.sendall(rtmp_raw.chunk(2, 4, struct.pack(">HI", 6, int(time.monotonic()))))
                    time.sleep(0.3)
            elif self.mode == "flood_media":
                # A valid handshake, then 1 MB video messages instead of an
                # answer to connect, until the forwarder hangs up.
                self._handshake(conn)
                conn.sendall(rtmp_raw.chunk(2, 1, struct.pack(">I", 65536)))
                frame = b"\x27\x01" + os.urandom(1024 * 1024)
                for i in range(200):
                    if self.done.is_set():
                        break
                    conn.sendall(rtmp_raw.chunk(6, 9, frame, stream_id=1, timestamp=40 * i, chunk_size=65536))
            elif self.mode == "garbage_after_publish":
                # The answers to connect (1), createStream (4) and publish, as
                # nginx-rtmp gives them, then a second of media, then garbage.
                self._handshake(conn)
                ok = rtmp_raw.amf0_object({"level": "status", "code": "NetConnection.Connect.Success"})
                start = rtmp_raw.amf0_object({"level": "status", "code": "NetStream.Publish.Start"})
                conn.sendall(rtmp_raw.chunk(3, 20, rtmp_raw.amf0_string("_result") + rtmp_raw.amf0_number(1)
                                            + b"\x05" + ok))
                conn.sendall(rtmp_raw.chunk(3, 20, rtmp_raw.amf0_string("_result") + rtmp_raw.amf0_number(4)
                                            + b"\x05" + rtmp_raw.amf0_number(1)))
                conn.sendall(rtmp_raw.chunk(5, 20, rtmp_raw.amf0_string("onStatus") + rtmp_raw.amf0_number(0)
                                            + b"\x05" + start, stream_id=1))
                end = time.monotonic() + 1
                while time.monotonic() < end and not self.done.is_set():
                    try:
                        if not conn.recv(65536):
                            return
                    except socket.timeout:
                        pass
                self._flood(conn)
        except (ConnectionError, OSError):
            pass  # the forwarder hung up: what it should do


def test_forward_bad_destinations_retried_source_undisturbed(srs, nginx_factory, media):
    """Seven broken destinations and one good one (nginx-rtmp) on one stream:
    every broken one gets its own log line and a retry 3 s later; the good
    one and our own players see nothing of it; the fixture's ASAN check
    finds no leak at exit."""
    bad = {m: BadDestination(m) for m in BadDestination.MODES}
    good = nginx_factory("good")
    dests = " ".join([f"127.0.0.1:{good.port}"] + [b.destination() for b in bad.values()])
    start_ours(srs, f"forward {{ enabled on; destination {dests}; }}")
    pub = Publisher(media, rtmp_url(srs))
    try:
        assert wait_until(lambda: f"to rtmp://127.0.0.1:{good.port}/live/livestream started" in srs.log(), 15), \
            srs.log()[-3000:]
        run = load(srs, 2, 14)
        fds = None
        # Each kind of failure, in the words the log gives it.
        # Random chunks fail the decoder, or, when they happen to announce a
        # long message, run into the setup deadline.
        words = {"random": ["S0 version 71"], "garbage_chunks": ["connect rtmp://", "no answer within"],
                 "close_mid_handshake": ["read handshake : read: peer closed"],
                 "stall": ["read handshake : read: timed out"], "chatter": ["no answer within 8s"],
                 "flood_media": ["bytes) before the answer 1"], "garbage_after_publish": [": read : ", ": send : "]}
        for mode, b in bad.items():
            url = f"to rtmp://127.0.0.1:{b.port}/live/livestream:"
            assert wait_until(lambda: len(b.accepted) >= 2, 16), (mode, b.accepted, srs.log()[-4000:])
            lines = [line for line in srs.log().splitlines() if url in line and "again in 3s" in line]
            assert lines, (mode, srs.log()[-4000:])
            assert any(w in lines[0] for w in words[mode]), (mode, lines[0])
            print(mode, "->", lines[0].split("]", 5)[-1].strip())
            if fds is None:
                fds = fd_count(srs.pid)
        # Retried every 3 s: the second connection comes at least 3 s after
        # the first one failed (the first attempt itself takes up to its
        # timeouts, so only the lower bound is fixed).
        for mode, b in bad.items():
            assert b.accepted[1] - b.accepted[0] >= 2.9, (mode, b.accepted)
        assert decodable(good.url()), srs.log()[-3000:]
        code, s = run.result()
        assert code == 0, s
        assert s["alive"] == 2 and s["failed"] == 0 and s["reconnects"] == 0, s
        assert s["per_client_video_frames_min"] >= 25 * 11, s  # ~14 s at 25 fps, no gap
        assert pub.alive()
        # Retries do not pile up sockets.
        assert fd_count(srs.pid) <= fds + 4, (fds, fd_count(srs.pid))
    finally:
        pub.stop()
        for b in bad.values():
            b.stop()
    assert wait_until(lambda: srs.log().count("/live/livestream stopped") >= 8, 10), srs.log()[-3000:]

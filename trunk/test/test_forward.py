"""Forward (vhost forward): ffmpeg publishes to ours, ours publishes the
stream again to Debian's nginx-rtmp (started here on loopback, its own conf,
pid and error log in a temp dir), ffprobe plays it from nginx-rtmp. The
destination dies and comes back while our own RTMP players keep playing;
the block form with two destinations; the on_forward backend (a small HTTP
server in a thread) that names the destinations, or none."""
import json
import os
import signal
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from conftest import free_port, stop_process, wait_until
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

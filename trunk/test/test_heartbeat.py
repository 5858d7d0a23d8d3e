"""heartbeat { }: the server POSTs a JSON report every interval to a manager.
A Python HTTP server stands in for the manager; a manager that is down,
answers garbage or stalls must not hurt the server (RTMP still plays)."""
import json
import socket
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conftest import free_port, stop_process, wait_until, TRUNK
from media import Publisher, wait_for_publish


class Collector:
    """A manager that records each POST (time, path, headers, parsed JSON)."""

    def __init__(self, status=200):
        self.posts = []
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                n = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(n)
                collector.posts.append((time.monotonic(), self.path, dict(self.headers), json.loads(body)))
                out = b'{"code":0}'
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *args):
                pass

        self.port = free_port()
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class RawManager:
    """A TCP manager that answers every connection with `reply` (garbage), or
    holds it open without a byte (stall)."""

    def __init__(self, reply=None):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.port = free_port()
        self.sock.bind(("127.0.0.1", self.port))
        self.sock.listen(64)
        self.reply = reply
        self.accepted = 0
        self.held = []
        self.running = True
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def loop(self):
        self.sock.settimeout(0.2)
        while self.running:
            try:
                c, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            if self.reply is None:
                self.held.append(c)  # stall: never answer
            else:
                try:
                    c.recv(65536)
                    c.sendall(self.reply)
                finally:
                    c.close()

    def close(self):
        self.running = False
        self.thread.join(timeout=2)
        for c in self.held:
            c.close()
        self.sock.close()


def heartbeat_conf(srs, url, interval=0.5, summaries="off", ports="off", api_port=None, http_port=None):
    api_port = api_port or free_port()
    http_port = http_port or free_port()
    extra = (f"http_api {{ enabled on; listen {api_port}; }}\n"
             f"http_server {{ enabled on; listen {http_port}; }}\n"
             f"heartbeat {{ enabled on; interval {interval}; url {url}; device_id \"dev-42\"; "
             f"summaries {summaries}; ports {ports}; }}\n")
    return srs.base_conf(extra), api_port, http_port


def test_heartbeat_shape_interval_and_device_id(srs):
    mgr = Collector()
    try:
        conf, api_port, http_port = heartbeat_conf(srs, f"http://127.0.0.1:{mgr.port}/api/v1/servers")
        srs.start(conf)
        assert wait_until(lambda: len(mgr.posts) >= 5, timeout=10), srs.log()[-2000:]
        t, path, headers, body = mgr.posts[0]
        assert path == "/api/v1/servers"
        assert headers["Content-Type"] == "application/json"
        assert body["device_id"] == "dev-42"
        socket.inet_aton(body["ip"])  # an IPv4 address
        assert body["pid"] == str(srs.pid)
        assert body["server"] and body["service"]
        assert "summaries" not in body and "rtmp" not in body
        # One interval after the previous report ended (plus the POST's own time).
        gaps = sorted(b[0] - a[0] for a, b in zip(mgr.posts, mgr.posts[1:]))
        assert all(0.4 < g < 1.5 for g in gaps), gaps
        assert 0.45 < gaps[len(gaps) // 2] < 0.8, gaps
    finally:
        mgr.close()


def test_heartbeat_ports_and_summaries(srs):
    mgr = Collector()
    try:
        conf, api_port, http_port = heartbeat_conf(srs, f"http://localhost:{mgr.port}/api/v1/servers",
                                                   interval=0.3, summaries="on", ports="on")
        srs.start(conf)
        assert wait_until(lambda: len(mgr.posts) >= 1, timeout=10), srs.log()[-2000:]
        body = mgr.posts[0][3]
        assert body["rtmp"] == [str(srs.rtmp_port)]
        assert body["http"] == [str(http_port)]
        assert body["api"] == [str(api_port)]
        assert "rtc" not in body  # rtc_server is off
        data = body["summaries"]["data"]
        assert data["ok"] is True
        assert data["self"]["pid"] == srs.pid
        assert "system" in data
    finally:
        mgr.close()


@pytest.mark.parametrize("manager", ["down", "garbage", "stall", "500"])
def test_bad_manager_does_not_hurt_the_server(srs, media, manager):
    mgr = None
    if manager == "down":
        url = f"http://127.0.0.1:{free_port()}/api/v1/servers"
    elif manager == "garbage":
        mgr = RawManager(reply=b"\x00\xffnot http at all\r\n\r\n" * 10)
        url = f"http://127.0.0.1:{mgr.port}/x"
    elif manager == "stall":
        mgr = RawManager(reply=None)
        url = f"http://127.0.0.1:{mgr.port}/x"
    else:
        mgr = Collector(status=500)
        url = f"http://127.0.0.1:{mgr.port}/x"
    pub = None
    try:
        conf, _, _ = heartbeat_conf(srs, url, interval=0.3)
        srs.start(conf)
        pub = Publisher(media, f"rtmp://127.0.0.1:{srs.rtmp_port}/live/livestream")
        wait_for_publish(srs)
        # Several heartbeats fail while a player reads the stream.
        load = TRUNK / "objs" / "sb_rtmp_load"
        player = subprocess.run([str(load), "-c", "5", "-r", f"rtmp://127.0.0.1:{srs.rtmp_port}/live/livestream",
                                 "-t", "4", "-m", "100000", "--json"], capture_output=True, text=True, timeout=60)
        assert player.returncode == 0, player.stdout + player.stderr
        s = json.loads(player.stdout.strip().splitlines()[-1])
        assert s["alive"] == 5 and s["failed"] == 0, s
        assert s["per_client_video_frames_min"] >= 4 * 25 * 0.7, s
        assert srs.alive()
        assert "heartbeat:" in srs.log()
        if manager != "500":
            assert "WARN" in srs.log() or "warn" in srs.log().lower()
        if isinstance(mgr, RawManager):
            assert mgr.accepted >= 2
        if manager == "stall":
            # A stalled POST is cut at min(interval, 3 s): the reports keep coming.
            assert mgr.accepted >= 5, mgr.accepted
    finally:
        if pub:
            pub.stop()
        if mgr:
            mgr.close()

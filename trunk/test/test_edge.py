"""The edge (vhost cluster { mode remote; }): real servers on free ports, real
ffmpeg publishers, the project's load player, and small Python fake origins
for what a real origin never does (RTMP 302, garbage)."""
import json
import os
import socket
import struct
import subprocess
import threading
import time
import urllib.request

import pytest

from conftest import TRUNK, free_port, stop_process, wait_until
from media import Publisher, probe_streams
from rtmp_raw import amf0_number, amf0_string, chunk

LOAD = TRUNK / "objs" / "sb_rtmp_load"


def start_server(srs, vhost_body="", extra="", api=True, http=False):
    """A server whose __defaultVhost__ holds `vhost_body`; API (and HTTP) on free ports."""
    srs.api_port = free_port() if api else None
    srs.http_port = free_port() if http else None
    conf = (f"listen {srs.rtmp_port};\nmax_connections 1000;\ndaemon off;\npid {srs.pid_file};\n"
            f"srs_log_tank file;\nsrs_log_file {srs.log_file};\n{extra}\n")
    if api:
        conf += f"http_api {{\n enabled on;\n listen {srs.api_port};\n}}\n"
    if http:
        conf += f"http_server {{\n enabled on;\n listen {srs.http_port};\n dir ./objs/nginx/html;\n}}\n"
        vhost_body += "\nhttp_remux { enabled on; mount [vhost]/[app]/[stream].flv; }\n"
    conf += f"vhost __defaultVhost__ {{\n{vhost_body}\n}}\n"
    srs.start(conf)
    return srs


def edge_body(*origins, more=""):
    return f"cluster {{\n mode remote;\n origin {' '.join(origins)};\n {more}\n}}\n"


def api(srs, path):
    with urllib.request.urlopen(f"http://127.0.0.1:{srs.api_port}{path}", timeout=5) as r:
        return json.loads(r.read())


def clients_of(srs, kind):
    return [c for c in api(srs, "/api/v1/clients?count=1000")["clients"] if c["type"] == kind]


def rtmp_url(srs, stream="livestream", app="live"):
    return f"rtmp://127.0.0.1:{srs.rtmp_port}/{app}/{stream}"


def load(srs, clients, seconds, stream="livestream"):
    """Runs sb_rtmp_load in the background; .result() is its JSON summary."""
    proc = subprocess.Popen([str(LOAD), "-c", str(clients), "-r", rtmp_url(srs, stream), "-t", str(seconds),
                             "-m", "100000", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    class Run:
        def result(self, timeout=seconds + 60):
            try:
                out, err = proc.communicate(timeout=timeout)
            finally:
                stop_process(proc)
            print(err[-3000:])
            return proc.returncode, json.loads(out.strip().splitlines()[-1])

        def stop(self):
            stop_process(proc)
    return Run()


def wait_pulling(edge, timeout=20):
    assert wait_until(lambda: "edge: pulling" in edge.log(), timeout), edge.log()[-3000:]


# ---- pull: one upstream per edge, shared by every player, ended by the last ----

def test_two_edges_fifty_players_each_one_upstream_each(srs_factory, media):
    origin = start_server(srs_factory("origin"))
    edges = [start_server(srs_factory(f"edge{i}"), edge_body(f"127.0.0.1:{origin.rtmp_port}")) for i in (1, 2)]
    pub = Publisher(media, rtmp_url(origin))
    try:
        assert wait_until(lambda: "fmle-publish __defaultVhost__/live/livestream" in origin.log(), 15)
        runs = [load(e, 50, 12) for e in edges]
        try:
            for e in edges:
                wait_pulling(e)
            time.sleep(3)
            # The origin sees exactly one player per edge.
            upstreams = clients_of(origin, "rtmp-play")
            assert len(upstreams) == 2, upstreams
            for e in edges:
                ingest = clients_of(e, "edge-ingest")
                assert len(ingest) == 1, ingest
                assert ingest[0]["publish"] is True and ingest[0]["url"] == "/live/livestream"
                assert len(clients_of(e, "rtmp-play")) == 50
                streams = api(e, "/api/v1/streams")["streams"]
                assert len(streams) == 1 and streams[0]["edge"] is True, streams
                assert streams[0]["origin"] == f"rtmp://127.0.0.1:{origin.rtmp_port}/live/livestream", streams
                assert streams[0]["publish"]["active"] is True
            # The origin's own stream has no edge fields (SRS's shape).
            assert "edge" not in api(origin, "/api/v1/streams")["streams"][0]
        finally:
            results = [r.result() for r in runs]
        for code, s in results:
            assert code == 0, s
            assert s["alive"] == 50 and s["failed"] == 0 and s["reconnects"] == 0, s
            assert s["ts_monotonic_violations"] == 0, s
            assert s["first_video_keyframe_ok"] == 50, s
        # The last player left: each edge ends its pull within ~3 s (+1 s reaper).
        assert wait_until(lambda: len(clients_of(origin, "rtmp-play")) == 0, 15), clients_of(origin, "rtmp-play")
        for e in edges:
            assert "stop its pull" in e.log()
            assert clients_of(e, "edge-ingest") == []
    finally:
        pub.stop()


def test_http_flv_player_starts_the_pull(srs_factory, media):
    origin = start_server(srs_factory("origin"))
    edge = start_server(srs_factory("edge"), edge_body(f"127.0.0.1:{origin.rtmp_port}"), http=True)
    pub = Publisher(media, rtmp_url(origin))
    try:
        assert wait_until(lambda: "fmle-publish __defaultVhost__/live/livestream" in origin.log(), 15)
        streams = probe_streams(f"http://127.0.0.1:{edge.http_port}/live/livestream.flv", timeout=30)
        assert "video" in streams and "audio" in streams, (streams, edge.log()[-3000:])
        assert "edge: pulling" in edge.log()
        # A stream the origin does not have yet: the edge still answers 200 and waits (no 404).
        req = urllib.request.urlopen(f"http://127.0.0.1:{edge.http_port}/live/other.flv", timeout=5)
        assert req.status == 200
        req.close()
    finally:
        pub.stop()


# ---- publish through the edge ----

def test_edge_publish_reaches_origin_players_with_token_traverse(srs_factory, media):
    origin = start_server(srs_factory("origin"))
    edge = start_server(srs_factory("edge"), edge_body(f"127.0.0.1:{origin.rtmp_port}", more="token_traverse on;"))
    pub = Publisher(media, rtmp_url(edge))
    try:
        assert wait_until(lambda: "edge: publishing" in edge.log(), 15), edge.log()[-3000:]
        assert "token traverse of" in edge.log()
        streams = probe_streams(rtmp_url(origin), timeout=30)
        assert "video" in streams and "audio" in streams, origin.log()[-3000:]
        # And a player on the edge pulls it back from the origin.
        streams = probe_streams(rtmp_url(edge), timeout=30)
        assert "video" in streams, edge.log()[-3000:]
        # The edge's own source is published only by its pull, not by the publisher.
        log = edge.log()
        assert "RTMP edge fmle-publish __defaultVhost__/live/livestream" in log
        assert log.count("published by") == log.count("started by cid="), log[-3000:]
    finally:
        pub.stop()


def test_token_traverse_refusal_refuses_the_publisher(srs_factory, media):
    # The origin refuses connect for a disabled vhost: the edge names it.
    origin = start_server(srs_factory("origin"), extra="vhost denied.test {\n enabled off;\n}\n")
    edge = start_server(srs_factory("edge"), edge_body(f"127.0.0.1:{origin.rtmp_port}",
                                                       more="token_traverse on;\n vhost denied.test;"))
    pub = Publisher(media, rtmp_url(edge), loop=False)
    try:
        code = pub.wait(30)
        assert code != 0
        assert "refused by token traverse" in edge.log(), edge.log()[-3000:]
        assert "vhost denied.test is disabled" in origin.log()
        assert "edge: publishing" not in edge.log()
    finally:
        pub.stop()


# ---- failures of the upstream ----

def test_unreachable_origin_then_reachable_one(srs_factory, media):
    origin = start_server(srs_factory("origin"))
    dead = free_port()
    edge = start_server(srs_factory("edge"), edge_body(f"127.0.0.1:{dead}", f"127.0.0.1:{origin.rtmp_port}"))
    pub = Publisher(media, rtmp_url(origin))
    try:
        assert wait_until(lambda: "fmle-publish __defaultVhost__/live/livestream" in origin.log(), 15)
        streams = probe_streams(rtmp_url(edge), timeout=40)
        assert "video" in streams, edge.log()[-3000:]
        log = edge.log()
        assert f"127.0.0.1:{dead}" in log and "edge: pulling" in log
    finally:
        pub.stop()


class FakeOrigin:
    """Accepts RTMP connections on a free port and runs `handler(sock)` for each, in a thread."""

    def __init__(self, handler):
        self.port = free_port()
        self.handler = handler
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", self.port))
        self.sock.listen(16)
        self.sock.settimeout(0.5)
        self.accepted = 0
        self.running = True
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def loop(self):
        deadline = time.time() + 120  # bounded, whatever the test does
        while self.running and time.time() < deadline:
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                break
            self.accepted += 1
            conn.settimeout(5)
            try:
                self.handler(conn)
            except OSError:
                pass
            finally:
                conn.close()

    def close(self):
        self.running = False
        self.thread.join(timeout=5)
        self.sock.close()


def recv_exact(conn, n):
    buf = b""
    while len(buf) < n:
        part = conn.recv(n - len(buf))
        if not part:
            raise ConnectionError("closed")
        buf += part
    return buf


def serve_handshake(conn):
    c0c1 = recv_exact(conn, 1537)
    conn.sendall(b"\x03" + b"\x00" * 8 + os.urandom(1528) + c0c1[1:])  # S0 S1, S2 = C1 echoed
    recv_exact(conn, 1536)


def amf0_obj(props):
    out = b"\x03"
    for k, v in props.items():
        out += struct.pack(">H", len(k)) + k.encode()
        if isinstance(v, dict):
            out += amf0_obj(v)
        elif isinstance(v, str):
            out += amf0_string(v)
        else:
            out += amf0_number(v)
    return out + b"\x00\x00\x09"


def test_rtmp_302_is_followed(srs_factory, media):
    origin = start_server(srs_factory("origin"))
    target = f"rtmp://127.0.0.1:{origin.rtmp_port}/live"

    def redirect(conn):
        serve_handshake(conn)
        time.sleep(0.2)
        conn.recv(4096)  # the connect command (tid 1)
        info = {"level": "error", "code": "NetConnection.Connect.Rejected", "description": "RTMP 302 Redirect",
                "ex": {"code": 302, "redirect": target}}
        conn.sendall(chunk(3, 20, amf0_string("_error") + amf0_number(1) + b"\x05" + amf0_obj(info)))
        time.sleep(0.5)

    fake = FakeOrigin(redirect)
    edge = start_server(srs_factory("edge"), edge_body(f"127.0.0.1:{fake.port}"))
    pub = Publisher(media, rtmp_url(origin))
    try:
        assert wait_until(lambda: "fmle-publish __defaultVhost__/live/livestream" in origin.log(), 15)
        streams = probe_streams(rtmp_url(edge), timeout=30)
        assert "video" in streams, edge.log()[-3000:]
        assert "RTMP 302 from" in edge.log()
        assert f"edge: pulling __defaultVhost__/live/livestream from {target}/livestream" in edge.log()
        assert fake.accepted >= 1
    finally:
        pub.stop()
        fake.close()


def test_origin_sending_garbage_is_retried_without_a_crash(srs_factory):
    def garbage(conn):
        serve_handshake(conn)
        conn.sendall(os.urandom(64 * 1024))
        time.sleep(0.2)

    def garbage_handshake(conn):
        conn.sendall(b"\x09" + os.urandom(5000))
        time.sleep(0.2)

    for handler in (garbage, garbage_handshake):
        fake = FakeOrigin(handler)
        edge = start_server(srs_factory(f"edge-{handler.__name__}"), edge_body(f"127.0.0.1:{fake.port}"))
        player = subprocess.Popen([str(LOAD), "-c", "2", "-r", rtmp_url(edge), "-t", "9", "--json"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            # Three tries, 3 s apart.
            assert wait_until(lambda: edge.log().count("edge: pull __defaultVhost__/live/livestream ended") >= 2,
                              20), edge.log()[-3000:]
            assert edge.alive()
            assert fake.accepted >= 2
        finally:
            stop_process(player)
            fake.close()
        assert edge.alive()
        # The pull ends with its players.
        assert wait_until(lambda: "stop its pull" in edge.log(), 15), edge.log()[-2000:]


def test_origin_killed_mid_stream_players_stay(srs_factory, media):
    a = start_server(srs_factory("a"), api=False)
    b = start_server(srs_factory("b"), api=False)
    edge = start_server(srs_factory("edge"), edge_body(f"127.0.0.1:{a.rtmp_port}", f"127.0.0.1:{b.rtmp_port}"))
    pub = Publisher(media, rtmp_url(a))
    pub2 = None
    try:
        assert wait_until(lambda: "fmle-publish __defaultVhost__/live/livestream" in a.log(), 15)
        run = load(edge, 3, 24)
        wait_pulling(edge)
        time.sleep(6)
        # The first origin dies; the encoder moves to the second.
        pub.stop()
        pub = None
        a.stop()
        pub2 = Publisher(media, rtmp_url(b))
        code, s = run.result()
        assert code == 0, s
        assert s["alive"] == 3 and s["failed"] == 0 and s["reconnects"] == 0 and s["sessions"] == 3, s
        assert s["ts_monotonic_violations"] == 0, s
        log = edge.log()
        assert f"from rtmp://127.0.0.1:{b.rtmp_port}/live/livestream" in log, log[-3000:]
        assert "upstream switched" in log
        # Frames kept coming after the switch: ~24 s at 25 fps minus the gap.
        assert s["per_client_video_frames_min"] >= 25 * 12, s
    finally:
        if pub:
            pub.stop()
        if pub2:
            pub2.stop()


def test_protocol_flv_pulls_over_http_flv(srs_factory, media):
    origin = start_server(srs_factory("origin"), http=True)
    # With protocol flv the origin entry names the origin's HTTP port.
    edge = start_server(srs_factory("edge"), edge_body(f"127.0.0.1:{origin.http_port}", more="protocol flv;"))
    pub = Publisher(media, rtmp_url(origin))
    try:
        assert wait_until(lambda: "fmle-publish __defaultVhost__/live/livestream" in origin.log(), 15)
        run = load(edge, 3, 8)
        code, s = run.result()
        assert code == 0, s
        assert s["alive"] == 3 and s["failed"] == 0 and s["ts_monotonic_violations"] == 0, s
        assert s["per_client_video_frames_min"] >= 8 * 25 * 0.6, s
        log = edge.log()
        assert f"from http://127.0.0.1:{origin.http_port}/live/livestream.flv" in log, log[-3000:]
        assert "HTTP-FLV play __defaultVhost__/live/livestream" in origin.log()
    finally:
        pub.stop()


def test_origin_vhost_from_cluster_vhost_and_follow_client(srs_factory, media):
    # The origin serves the stream on vhost v.test only; the edges name that
    # vhost to it: one by cluster.vhost, one by following its client.
    origin = start_server(srs_factory("origin"), extra="vhost v.test {\n}\n")
    by_conf = start_server(srs_factory("by-conf"), edge_body(f"127.0.0.1:{origin.rtmp_port}", more="vhost v.test;"))
    by_client = start_server(srs_factory("by-client"), edge_body(f"127.0.0.1:{origin.rtmp_port}",
                                                                 more="follow_client on;"))
    pub = Publisher(media, rtmp_url(origin) + "?vhost=v.test")
    try:
        assert wait_until(lambda: "fmle-publish v.test/live/livestream" in origin.log(), 15), origin.log()[-2000:]
        streams = probe_streams(rtmp_url(by_conf), timeout=30)
        assert "video" in streams, by_conf.log()[-3000:]
        streams = probe_streams(rtmp_url(by_client) + "?vhost=v.test", timeout=30)
        assert "video" in streams, by_client.log()[-3000:]
        assert "(vhost v.test)" in by_conf.log() and "(vhost v.test)" in by_client.log()
        assert f"tcUrl=rtmp://v.test:{origin.rtmp_port}/live, vhost=v.test" in origin.log()
    finally:
        pub.stop()

"""vhost.http_hooks against the real server and a hook server written for
the tests (hooks_server.py): the bodies of every action over RTMP, HTTP-FLV,
WHIP/WHEP and /rtc/v1 (fields, types, order), refusals per protocol and per
kind of failing answer (code 1, status 500, empty, not JSON, code "0", huge,
chunked forever, redirect loop, slow, never answering), on_stop, on_unpublish
and on_close only after a passed start, on_connect refusals, an edge calling
on_play, and the load point: 500 HTTP-FLV players joining while on_play
answers after 200 ms, then with the hook server gone (closed port, and a
port that accepts but never answers)."""
import asyncio
import http.client
import json
import signal
import socket
import subprocess
import sys
import time

import pytest

from conftest import TRUNK, can_connect, free_port, wait_until
from hooks_server import HooksServer
from media import Publisher, probe_streams
from rtmp_raw import RawRtmp, amf0_number, amf0_string, chunk
from test_http_client import local_host_name, make_ca_and_leaf, make_self_signed
from test_security import offer_sdp as offer

TIMEOUT_MS = 1000
COMMON = ["server_id", "service_id", "action", "client_id", "ip", "vhost", "app"]


@pytest.fixture
def hooks():
    s = HooksServer().start()
    yield s
    s.stop()


def hooks_block(urls, timeout_ms=TIMEOUT_MS):
    """An http_hooks block: `urls` maps a hook to a URL or a list of them."""
    lines = "".join(f"    {k} {' '.join(v) if isinstance(v, list) else v};\n" for k, v in urls.items())
    return f"  http_hooks {{\n    enabled on;\n{lines}    timeout {timeout_ms};\n  }}\n"


def write_conf(srs, vhosts, api=False):
    """vhosts: name -> body. HTTP server (and HTTP-FLV) on srs.http_port."""
    conf = srs.base_conf().replace("vhost __defaultVhost__ {\n}\n", "")
    conf += f"http_server {{\n  enabled on;\n  listen {srs.http_port};\n  dir {srs.workdir};\n}}\n"
    if api:
        conf += f"http_api {{\n  enabled on;\n  listen {srs.api_port};\n}}\n"
    for name, body in vhosts.items():
        conf += f"vhost {name} {{\n  http_remux {{\n    enabled on;\n    mount [app]/[stream].flv;\n  }}\n{body}}}\n"
    srs.write_conf(conf)


def start(srs, vhosts, api=False):
    srs.http_port = free_port()
    srs.api_port = free_port() if api else None
    write_conf(srs, vhosts, api)
    srs.start()
    assert wait_until(lambda: can_connect(srs.http_port), 5), srs.log()[-2000:]
    return srs


def flv_get(port, path, read=4096, timeout=5):
    """(status, first bytes) of GET path; reads up to `read` body bytes."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path, headers={"Referer": "http://page.test/player.html"})
        r = conn.getresponse()
        return r.status, r.read(read) if r.status == 200 else r.read()
    finally:
        conn.close()


def keys(body):
    return list(body.keys())


def test_rtmp_and_flv_bodies_and_lifecycle(srs, media, hooks):
    ok = hooks.url("/ok")
    start(srs, {"__defaultVhost__": hooks_block({
        "on_connect": ok, "on_close": ok, "on_publish": ok, "on_unpublish": ok,
        "on_play": [hooks.url("/ok/first"), hooks.url("/zero/second")], "on_stop": ok})})
    pub = Publisher(media, f"rtmp://127.0.0.1:{srs.rtmp_port}/live/s?token=abc")
    try:
        assert wait_until(lambda: hooks.of("on_publish"), 10), srs.log()[-3000:]
        assert wait_until(lambda: "fmle-publish __defaultVhost__/live/s" in srs.log(), 10), srs.log()[-2000:]
        streams = probe_streams(f"rtmp://127.0.0.1:{srs.rtmp_port}/live/s?k=v")
        assert "video" in streams, streams
        status, head = flv_get(srs.http_port, "/live/s.flv?f=1")
        assert status == 200 and head[:3] == b"FLV", (status, head[:20])
        assert wait_until(lambda: len(hooks.of("on_stop")) >= 2, 5), [r.raw for r in hooks.requests]
    finally:
        pub.stop()
    assert wait_until(lambda: hooks.of("on_unpublish") and len(hooks.of("on_close")) >= 2, 10), \
        [r.raw for r in hooks.requests]

    connect = hooks.of("on_connect")[0].json
    assert keys(connect) == COMMON + ["stream", "param", "tcUrl", "pageUrl"], connect
    assert connect["ip"] == "127.0.0.1" and connect["vhost"] == "__defaultVhost__" and connect["app"] == "live"
    assert connect["tcUrl"].startswith(f"rtmp://127.0.0.1:{srs.rtmp_port}/live"), connect
    assert connect["server_id"].startswith("vid-") and connect["service_id"] and connect["client_id"]

    publish = hooks.of("on_publish")[0].json
    # A new stream: no source yet, so no stream_id.
    assert keys(publish) == COMMON + ["tcUrl", "stream", "param", "stream_url"], publish
    assert publish["stream"] == "s" and publish["param"] == "?token=abc" and publish["stream_url"] == "/live/s"
    unpublish = hooks.of("on_unpublish")[0].json
    assert keys(unpublish) == COMMON + ["tcUrl", "stream", "param", "stream_url", "stream_id"], unpublish
    assert unpublish["client_id"] == publish["client_id"]

    plays = hooks.of("on_play")
    rtmp_plays = [r for r in plays if r.json["tcUrl"].startswith("rtmp://")]
    flv_plays = [r for r in plays if r.json["tcUrl"].startswith("http://")]
    # Both URLs, in conf order, for each player.
    assert [r.path for r in rtmp_plays] == ["/ok/first", "/zero/second"], [r.path for r in plays]
    assert [r.path for r in flv_plays] == ["/ok/first", "/zero/second"], [r.path for r in plays]
    play = rtmp_plays[0].json
    assert keys(play) == COMMON + ["stream", "tcUrl", "param", "pageUrl", "stream_url", "stream_id"], play
    assert play["param"] == "?k=v" and isinstance(play["stream_id"], str) and play["stream_id"], play
    flv = flv_plays[0].json
    assert flv["param"] == "?f=1" and flv["pageUrl"] == "http://page.test/player.html", flv
    assert flv["tcUrl"] == f"http://127.0.0.1:{srs.http_port}/live" and flv["stream_id"] == play["stream_id"], flv
    stop = hooks.of("on_stop")[0].json
    assert keys(stop) == COMMON + ["tcUrl", "stream", "param", "stream_url", "stream_id"], stop

    closes = {r.json["client_id"]: r.json for r in hooks.of("on_close")}
    assert keys(next(iter(closes.values()))) == COMMON + ["send_bytes", "recv_bytes"]
    publisher_close = closes[publish["client_id"]]
    player_close = closes[play["client_id"]]
    assert isinstance(publisher_close["recv_bytes"], int) and publisher_close["recv_bytes"] > 20000, publisher_close
    assert isinstance(player_close["send_bytes"], int) and player_close["send_bytes"] > 5000, player_close
    # Every hook call was logged with its URL.
    assert f"http_hooks: on_play {hooks.url('/zero/second')} ok" in srs.log()


def test_https_hooks_by_host_name(srs, media, tmp_path):
    """on_publish and on_play over https to a hook server named by DNS (the
    machine's host name, through the server's resolver), its certificate
    signed by a test CA given as http_client.ca_file; a failing answer over
    the same path still refuses, and a self-signed hook server is refused
    by the certificate check, with the reason in the log."""
    name, _ = local_host_name()
    tls_dir = tmp_path / "tls"
    tls_dir.mkdir()
    ca, leaf, leaf_key = make_ca_and_leaf(tls_dir, names=f"DNS:{name},IP:127.0.0.1")
    hooks = HooksServer(tls=(str(leaf), str(leaf_key))).start()
    rogue_dir = tmp_path / "rogue"
    rogue_dir.mkdir()
    rogue_cert, rogue_key = make_self_signed(rogue_dir)
    rogue = HooksServer(tls=(str(rogue_cert), str(rogue_key))).start()
    try:
        srs.http_port = free_port()
        write_conf(srs, {"__defaultVhost__": hooks_block({"on_publish": hooks.url("/ok", name),
                                                          "on_play": hooks.url("/ok", name)}, 3000),
                         "refused.test": hooks_block({"on_play": hooks.url("/code1", name)}, 3000),
                         "rogue.test": hooks_block({"on_play": rogue.url("/ok", name)}, 3000)})
        srs.write_conf(srs.conf_file.read_text() + f'http_client {{ ca_file "{ca}"; }}\n')
        srs.start()
        pub = Publisher(media, f"rtmp://127.0.0.1:{srs.rtmp_port}/live/s")
        try:
            assert wait_until(lambda: hooks.of("on_publish"), 10), srs.log()[-3000:]
            assert wait_until(lambda: "fmle-publish __defaultVhost__/live/s" in srs.log(), 10), srs.log()[-2000:]
            status, head = flv_get(srs.http_port, "/live/s.flv")
            assert status == 200 and head[:3] == b"FLV", (status, head[:20])
            assert hooks.of("on_play")[0].json["stream"] == "s"
            assert flv_get(srs.http_port, "/live/s.flv?vhost=refused.test")[0] == 403
            assert hooks.of(path="/code1"), [r.path for r in hooks.requests]
            assert flv_get(srs.http_port, "/live/s.flv?vhost=rogue.test")[0] == 403
            assert not rogue.requests
            assert "self-signed certificate" in srs.log(), srs.log()[-3000:]
        finally:
            pub.stop()
    finally:
        hooks.stop()
        rogue.stop()


# Kinds of failing answers: path, the code the JSON API answers with, and
# whether the refusal waits for the timeout.
BAD = [("/code1", 3064, False), ("/s500", 4005, False), ("/empty", 3008, False), ("/notjson", 3008, False),
       ("/codestr", 3064, False), ("/redirect", 4005, False), ("/huge", None, False), ("/chunked", None, True),
       ("/never", None, True), ("/slow/3000", None, True)]


def rtmp_play_status(port, vhost, stream):
    r = RawRtmp(port)
    try:
        r.handshake()
        r.connect("live", tc_url=f"rtmp://127.0.0.1:{port}/live?vhost={vhost}")
        got = r.wait_status([b"NetConnection.Connect.Success", b"NetConnection.Connect.Rejected"])
        if got != b"NetConnection.Connect.Success":
            return got, r.closed_by_server(3)
        r.play(f"{stream}?vhost={vhost}")  # as ffmpeg sends rtmp://host/app/stream?vhost=...
        got = r.wait_status([b"NetStream.Play.Start", b"NetStream.Play.Failed"], timeout=TIMEOUT_MS / 1000 + 4)
        return got, got != b"NetStream.Play.Start" and r.closed_by_server(3)
    finally:
        r.close()


def test_refusals_per_answer_kind(srs, media, hooks):
    vhosts = {}
    for path, _, _ in BAD:
        name = "bad" + path.replace("/", "-")
        vhosts[name] = hooks_block({"on_play": hooks.url(path), "on_stop": hooks.url("/ok/stop-" + name),
                                    "on_close": hooks.url("/ok/close-" + name)})
    vhosts["connect.refused"] = hooks_block({"on_connect": hooks.url("/code1"), "on_close": hooks.url("/ok/close-c")})
    vhosts["publish.refused"] = hooks_block({"on_publish": hooks.url("/s500"),
                                             "on_unpublish": hooks.url("/ok/unpublish")})
    start(srs, vhosts)
    limit = TIMEOUT_MS / 1000 + 1.5
    for path, _, waits in BAD:
        vhost = "bad" + path.replace("/", "-")
        t0 = time.monotonic()
        assert rtmp_play_status(srs.rtmp_port, vhost, "s") == (b"NetStream.Play.Failed", True), path
        took = time.monotonic() - t0
        assert took < limit, (path, took)
        if waits:
            assert took >= TIMEOUT_MS / 1000 * 0.8, (path, took)
        t0 = time.monotonic()
        status, _ = flv_get(srs.http_port, f"/live/s.flv?vhost={vhost}")
        assert status == 403, (path, status)
        assert time.monotonic() - t0 < limit, path
        assert f"http_hooks: on_play {hooks.url(path)} failed after" in srs.log(), (path, srs.log()[-2000:])
    log = srs.log()
    assert "status 500 (200 or 201 expected)" in log and "status 302" in log and "code 1 (0 expected)" in log
    assert "empty body" in log and "not JSON" in log and "not an integer" in log and "body over 65536" in log
    # A refused play never gets on_stop; its connection's on_close still comes
    # (on_connect had no URL: that step passed, as SRS).
    assert hooks.of(path="/ok/stop-") == [], [r.path for r in hooks.of(path="/ok/stop-")]
    assert wait_until(lambda: len(hooks.of(path="/ok/close-bad")) == len(BAD), 5)

    # on_connect refused: connect's _error (Connect.Rejected), closed, no on_close.
    assert rtmp_play_status(srs.rtmp_port, "connect.refused", "s") == (b"NetConnection.Connect.Rejected", True)
    # on_publish refused: NetStream.Publish.Denied, closed, no on_unpublish.
    r = RawRtmp(srs.rtmp_port)
    try:
        r.handshake()
        r.connect("live", tc_url=f"rtmp://127.0.0.1:{srs.rtmp_port}/live?vhost=publish.refused")
        r.sock.sendall(chunk(3, 20, amf0_string("createStream") + amf0_number(2) + b"\x05"))
        r.sock.sendall(chunk(8, 20, amf0_string("publish") + amf0_number(3) + b"\x05" + amf0_string("s?vhost=publish.refused")
                             + amf0_string("live"), stream_id=1))
        assert r.wait_status([b"NetStream.Publish.Start", b"NetStream.Publish.Denied"]) == b"NetStream.Publish.Denied"
        assert r.closed_by_server(3)
    finally:
        r.close()
    # ffmpeg gives up too.
    pub = Publisher(media, f"rtmp://127.0.0.1:{srs.rtmp_port}/live/s2?vhost=publish.refused", loop=False)
    try:
        assert pub.wait(15) != 0
    finally:
        pub.stop()
    time.sleep(0.3)
    assert hooks.of(path="/ok/close-c") == [] and hooks.of(path="/ok/unpublish") == []
    assert srs.alive()


def test_edge_calls_on_play(srs_factory, media, hooks):
    origin = srs_factory("origin")
    start(origin, {"__defaultVhost__": ""})
    edge = srs_factory("edge")
    start(edge, {"__defaultVhost__": f"  cluster {{\n    mode remote;\n    origin 127.0.0.1:{origin.rtmp_port};\n  }}\n"
                 + hooks_block({"on_play": hooks.url("/ok/edge"), "on_stop": hooks.url("/ok/edge-stop")})})
    pub = Publisher(media, f"rtmp://127.0.0.1:{origin.rtmp_port}/live/e")
    try:
        assert wait_until(lambda: "fmle-publish __defaultVhost__/live/e" in origin.log(), 10)
        status, head = flv_get(edge.http_port, "/live/e.flv", read=2000, timeout=15)
        assert status == 200 and head[:3] == b"FLV", status
        plays = hooks.of("on_play")
        assert len(plays) == 1 and plays[0].path == "/ok/edge", [r.raw for r in plays]
        assert plays[0].json["stream"] == "e" and plays[0].json["ip"] == "127.0.0.1"
        assert wait_until(lambda: hooks.of("on_stop"), 5)
    finally:
        pub.stop()


def post(port, path, body, ctype):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("POST", path, body=body, headers={"Content-Type": ctype})
        r = conn.getresponse()
        return r.status, r.read().decode(errors="replace")
    finally:
        conn.close()


def test_webrtc_hooks(srs, hooks):
    from rtc_env import require_aiortc, rtc_conf, api_ok
    require_aiortc()
    from rtc_client import Rtc, SignalingError
    ok = hooks.url("/ok")
    conf = rtc_conf(srs, vhost_body=hooks_block({"on_publish": ok, "on_unpublish": ok, "on_play": ok, "on_stop": ok}))
    for name, path in (("code1", "/code1"), ("s500", "/s500"), ("never", "/never")):
        conf += (f"vhost {name} {{\n  rtc {{\n    enabled on;\n  }}\n"
                 + hooks_block({"on_publish": hooks.url(path), "on_play": hooks.url(path),
                                "on_stop": hooks.url("/ok/stop"), "on_unpublish": hooks.url("/ok/unpublish")})
                 + "}\n")
    srs.start(conf)
    assert wait_until(lambda: api_ok(srs), 10), srs.log()[-2000:]
    srs.api = f"127.0.0.1:{srs.api_port}"
    rtc = Rtc()
    try:
        pub = rtc.publish(srs.api, "live", "w1")
        player = rtc.play(srs.api, "live", "w1")
        json_player = rtc.play(srs.api, "live", "w1?k=v", via="json")
        assert pub.state == "connected" and player.state == "connected" and json_player.state == "connected"
        publish = hooks.of("on_publish")[0].json
        assert keys(publish) == COMMON + ["tcUrl", "stream", "param", "stream_url"], publish
        assert publish["tcUrl"] == f"webrtc://127.0.0.1/live" and publish["param"] == "?app=live&stream=w1", publish
        plays = hooks.of("on_play")
        assert len(plays) == 2 and all(p.json["stream_id"] for p in plays), [p.raw for p in plays]
        assert plays[1].json["param"] == "?k=v" and plays[1].json["stream"] == "w1", plays[1].raw

        # Refusals: WHIP/WHEP 403 with SRS's code in JSON; the JSON API 200 with it.
        for vhost, code, limit in (("code1", 3064, 3), ("s500", 4005, 3), ("never", None, TIMEOUT_MS / 1000 + 2)):
            for path, publish_side in (("/rtc/v1/whip/", True), ("/rtc/v1/whep/", False)):
                t0 = time.monotonic()
                status, body = post(srs.api_port, f"{path}?app=live&stream=x&vhost={vhost}", offer(rtc, publish_side),
                                    "application/sdp")
                assert status == 403 and time.monotonic() - t0 < limit, (vhost, path, status, body)
                if code:
                    assert json.loads(body)["code"] == code, body
            req = json.dumps({"api": "x", "tid": "t", "streamurl": f"webrtc://127.0.0.1/live/x?vhost={vhost}",
                              "sdp": offer(rtc, False)})
            status, body = post(srs.api_port, "/rtc/v1/play/", req, "application/json")
            assert status == 200 and json.loads(body)["code"] != 0, body
            if code:
                assert json.loads(body)["code"] == code, body
        with pytest.raises(SignalingError):
            rtc.play(srs.api, "live", "x?vhost=code1", via="json")

        player.close()
        json_player.close()
        assert wait_until(lambda: len(hooks.of("on_stop")) == 2, 10), [r.raw for r in hooks.requests]
        pub.close()
        assert wait_until(lambda: hooks.of("on_unpublish"), 10)
        stop = hooks.of("on_stop")[0].json
        assert keys(stop) == COMMON + ["tcUrl", "stream", "param", "stream_url", "stream_id"], stop
        # The pair carries one client_id (the API connection's, as SRS).
        assert {s.json["client_id"] for s in hooks.of("on_stop")} == {p.json["client_id"] for p in plays}
        assert hooks.of(path="/ok/stop") == [] and hooks.of(path="/ok/unpublish") == []
    finally:
        rtc.close()


# The load point: raw asyncio HTTP-FLV readers, each timing its join.

async def flv_player(port, path, results, hold=None):
    """Connects, sends GET, reads until the FLV header and one whole tag
    header arrived (media): records (seconds to media, status)."""
    t0 = time.monotonic()
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 10)
    except (OSError, asyncio.TimeoutError) as e:
        results.append((None, f"connect {e!r}"))
        return
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 15)
        status = int(head.split(b" ", 2)[1])
        if status != 200:
            results.append((time.monotonic() - t0, status))
            return
        got = b""
        while len(got) < 13 + 11 + 200:  # FLV header, then a tag with media bytes
            part = await asyncio.wait_for(reader.read(65536), 15)
            if not part:
                break
            got += part
        results.append((time.monotonic() - t0, 200 if len(got) >= 224 else "short"))
        if hold is not None:
            await hold.wait()
    except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError) as e:
        results.append((time.monotonic() - t0, f"error {e!r}"))
    finally:
        writer.close()


def run_players(port, path, n):
    results = []

    async def go():
        await asyncio.gather(*(flv_player(port, path, results) for _ in range(n)))
    asyncio.run(go())
    return results


class Counter:
    """An HTTP-FLV player on a thread that counts the bytes it receives."""

    def __init__(self, port, path):
        import threading
        self.bytes = 0
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        self.done = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        try:
            while not self.done:
                data = self.sock.recv(65536)
                if not data:
                    break
                self.bytes += len(data)
        except OSError:
            pass

    def close(self):
        self.done = True
        self.sock.close()
        self.thread.join(5)


def test_load_slow_and_dead_hook_server(srs, media, tmp_path):
    hook_port = free_port()
    # The hook server in its own process, so its 500 threads and our readers do not share a GIL.
    server = subprocess.Popen([sys.executable, str(TRUNK / "test" / "hooks_server.py"), str(hook_port)],
                              stdout=subprocess.PIPE, text=True)
    dead = socket.socket()  # accepts into its backlog, never answers
    dead.bind(("127.0.0.1", 0))
    dead.listen(1024)
    dead_port = dead.getsockname()[1]
    counter = None
    pub = None
    try:
        assert server.stdout.readline().startswith("hooks server"), "the hook server did not start"
        slow = f"http://127.0.0.1:{hook_port}/slow/200"
        start(srs, {"__defaultVhost__": hooks_block({"on_play": slow})})
        pub = Publisher(media, f"rtmp://127.0.0.1:{srs.rtmp_port}/live/load")
        assert wait_until(lambda: "fmle-publish __defaultVhost__/live/load" in srs.log(), 10)
        counter = Counter(srs.http_port, "/live/load.flv")

        results = run_players(srs.http_port, "/live/load.flv", 500)
        bad = [r for r in results if r[1] != 200]
        assert not bad, bad[:5]
        joins = sorted(r[0] for r in results)
        p50, p99, worst = joins[len(joins) // 2], joins[int(len(joins) * 0.99)], joins[-1]
        print(f"500 players, on_play answering after 200 ms: join to media p50={p50 * 1000:.0f} ms "
              f"p99={p99 * 1000:.0f} ms max={worst * 1000:.0f} ms")
        assert len(joins) == 500 and worst < 1.2, (p50, p99, worst)
        assert joins[0] >= 0.19, joins[0]  # every one waited for its hook

        # The hook server gone: a closed port, then one that never answers.
        before = counter.bytes
        for url, floor in ((f"http://127.0.0.1:{free_port()}/x", 0.0),
                           (f"http://127.0.0.1:{dead_port}/x", TIMEOUT_MS / 1000 * 0.8)):
            write_conf(srs, {"__defaultVhost__": hooks_block({"on_play": url})})
            mark = srs.log().count("reload: ")
            srs.signal(signal.SIGHUP)
            assert wait_until(lambda: srs.log().count("reload: ") > mark, 5), srs.log()[-2000:]
            t0 = time.monotonic()
            had = counter.bytes
            results = run_players(srs.http_port, "/live/load.flv", 100)
            took = time.monotonic() - t0
            # The admitted player got media while these were refused (~15 KB/s stream).
            if took > 0.8:
                assert counter.bytes - had > 5000 * took, (had, counter.bytes, took)
            assert [r[1] for r in results] == [403] * 100, results[:5]
            times = sorted(r[0] for r in results)
            print(f"hook at {url}: 100 players refused in {times[0] * 1000:.0f}..{times[-1] * 1000:.0f} ms")
            assert times[-1] < TIMEOUT_MS / 1000 + 1.0 and times[0] >= floor, times
            assert took < TIMEOUT_MS / 1000 + 2
        # The player admitted before kept receiving media all along.
        time.sleep(0.5)
        assert counter.bytes > before + 20000, (before, counter.bytes)
        assert pub.alive() and srs.alive()
    finally:
        if counter:
            counter.close()
        if pub:
            pub.stop()
        dead.close()
        server.send_signal(signal.SIGINT)
        try:
            server.wait(5)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(5)
        server.stdout.close()

"""Origin cluster: two origins share a stream registry in a real redis-server
(started here on a free port, stopped by PID). Ownership, refusal of a second
publisher, release on unpublish, expiry after a crash, Redis going away and
coming back."""
import os
import shutil
import signal
import socket
import subprocess
import time

import pytest

from conftest import can_connect, free_port, stop_process, wait_until
from media import Publisher, wait_for_publish

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed")

KEY = "srs:stream:__defaultVhost__/live/x"


class Redis:
    """A throwaway redis-server: no persistence, so a restart comes back empty."""

    def __init__(self, port=None):
        self.port = port or free_port()
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
                                      "--save", "", "--appendonly", "no", "--loglevel", "warning"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        assert wait_until(lambda: can_connect(self.port), 10), "redis-server did not start"
        return self

    def stop(self):
        stop_process(self.proc)  # SIGKILL by PID, then reaped
        self.proc = None

    def command(self, *args, db=0):
        """One command over a raw socket (after SELECT db); returns the reply (str, int or None)."""
        commands = [("SELECT", db), args] if db else [args]
        wire = b""
        for cmd in commands:
            wire += f"*{len(cmd)}\r\n".encode()
            for a in cmd:
                b = str(a).encode()
                wire += b"$%d\r\n%s\r\n" % (len(b), b)
        with socket.create_connection(("127.0.0.1", self.port), timeout=3) as s:
            s.sendall(wire)
            f = s.makefile("rb")
            if db:
                assert f.readline() == b"+OK\r\n"
            line = f.readline().rstrip(b"\r\n")
            kind, rest = line[:1], line[1:].decode()
            if kind == b"+":
                return rest
            if kind == b"-":
                raise RuntimeError(rest)
            if kind == b":":
                return int(rest)
            if kind == b"$":
                n = int(rest)
                return None if n < 0 else f.read(n + 2)[:-2].decode()
            raise RuntimeError(f"unexpected reply {line!r}")


@pytest.fixture
def redis():
    r = Redis().start()
    yield r
    r.stop()


def registry_conf(srs, redis_port, ttl=10):
    return srs.base_conf(
        "stream_registry {\n"
        "    enabled on;\n"
        f"    redis redis://127.0.0.1:{redis_port}/0;\n"
        f"    ttl {ttl};\n"
        "    advertise 127.0.0.1;\n"
        "}\n")


def url(srs, stream="x"):
    return f"rtmp://127.0.0.1:{srs.rtmp_port}/live/{stream}"


def owner(srs):
    return f"rtmp://127.0.0.1:{srs.rtmp_port}"


def origins(srs_factory, redis, ttl=10):
    o1, o2 = srs_factory("o1"), srs_factory("o2")
    o1.start(registry_conf(o1, redis.port, ttl))
    o2.start(registry_conf(o2, redis.port, ttl))
    return o1, o2


def test_owner_registers_second_origin_refuses_unpublish_releases(srs_factory, redis, media):
    o1, o2 = origins(srs_factory, redis)
    pub = Publisher(media, url(o1))
    second = None
    try:
        wait_for_publish(o1, "/live/x")
        assert redis.command("GET", KEY) == owner(o1)
        pttl = redis.command("PTTL", KEY)
        assert 0 < pttl <= 10000, pttl

        second = Publisher(media, url(o2), loop=False)
        assert second.wait(timeout=20) != 0, "the second publisher was accepted"
        assert wait_until(lambda: "is owned by " + owner(o1) in o2.log(), 5), o2.log()[-3000:]
        assert "fmle-publish __defaultVhost__/live/x" not in o2.log()
        assert pub.alive(), "the first publisher must not be disturbed"
        assert redis.command("GET", KEY) == owner(o1)
    finally:
        pub.stop()
        if second:
            second.stop()
    assert wait_until(lambda: redis.command("GET", KEY) is None, 5), "unpublish did not delete the key"


def test_crashed_owner_expires_then_other_origin_accepts(srs_factory, redis, media):
    ttl = 4
    o1, o2 = origins(srs_factory, redis, ttl)
    pub = Publisher(media, url(o1))
    pub2 = None
    try:
        wait_for_publish(o1, "/live/x")
        assert redis.command("GET", KEY) == owner(o1)
        os.kill(o1.pid, signal.SIGKILL)
        o1.wait_exit(5)
        killed = time.monotonic()
        assert wait_until(lambda: redis.command("GET", KEY) is None, ttl + 2), "the key did not expire"
        assert time.monotonic() - killed <= ttl + 1
        pub2 = Publisher(media, url(o2))
        wait_for_publish(o2, "/live/x")
        assert redis.command("GET", KEY) == owner(o2)
    finally:
        pub.stop()
        if pub2:
            pub2.stop()


def test_redis_down_keeps_streams_playing_and_key_returns(srs_factory, redis, media, tmp_path):
    o1, o2 = origins(srs_factory, redis)
    pub = Publisher(media, url(o1))
    player = None
    try:
        wait_for_publish(o1, "/live/x")
        out = tmp_path / "played.flv"
        player = subprocess.Popen(["ffmpeg", "-hide_banner", "-loglevel", "error", "-i", url(o1), "-c", "copy",
                                   "-f", "flv", "-flush_packets", "1", str(out)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        assert wait_until(lambda: out.exists() and out.stat().st_size > 10000, 15), "the player got nothing"

        port = redis.port
        redis.stop()
        time.sleep(4)  # at least one refresh fails meanwhile
        size = out.stat().st_size
        time.sleep(3)
        assert out.stat().st_size > size + 20000, "the player stopped receiving while Redis was down"
        assert pub.alive() and player.poll() is None
        assert "cannot refresh" in o1.log(), o1.log()[-3000:]
        assert "unavailable" in o1.log() or "connect" in o1.log()
        # A new publish cannot be checked against the cluster: refused, with the reason in the log.
        refused = Publisher(media, url(o2, "y"), loop=False)
        assert refused.wait(timeout=20) != 0
        refused.stop()
        assert "cannot claim srs:stream:__defaultVhost__/live/y" in o2.log(), o2.log()[-3000:]

        # Same port, empty: the owner writes its key again within a refresh.
        back = Redis(port).start()
        redis.proc = back.proc  # the fixture stops it
        started = time.monotonic()
        assert wait_until(lambda: redis.command("GET", KEY) == owner(o1), 6), "the key did not come back"
        print(f"key re-registered {time.monotonic() - started:.2f} s after Redis came back")
        assert time.monotonic() - started <= 4
        assert pub.alive()
    finally:
        pub.stop()
        stop_process(player)


def test_environment_enables_the_registry_and_selects_the_database(srs, redis, media):
    env = {"SRS_STREAM_REGISTRY_ENABLED": "on",
           "SRS_STREAM_REGISTRY_REDIS": f"redis://127.0.0.1:{redis.port}/2",
           "SRS_STREAM_REGISTRY_ADVERTISE": "127.0.0.1"}
    srs.start(srs.base_conf(), env=env)
    pub = Publisher(media, url(srs))
    try:
        wait_for_publish(srs, "/live/x")
        assert wait_until(lambda: redis.command("GET", KEY, db=2) == owner(srs), 5)
        assert redis.command("GET", KEY) is None, "written to db 0, not the selected db 2"
    finally:
        pub.stop()
    assert wait_until(lambda: redis.command("GET", KEY, db=2) is None, 5)


def test_whip_publisher_claims_and_is_refused_by_the_other_origin(srs_factory, redis):
    """The WHIP path claims too (aiortc publishes, test/rtc_client.py)."""
    from rtc_env import api_ok, require_aiortc, rtc_conf
    require_aiortc()
    from rtc_client import Rtc, SignalingError
    servers = []
    for name in ("w1", "w2"):
        s = srs_factory(name)
        s.start(rtc_conf(s) + "stream_registry {\n  enabled on;\n"
                f"  redis redis://127.0.0.1:{redis.port}/0;\n  advertise 127.0.0.1;\n}}\n")
        assert wait_until(lambda: api_ok(s), 10), s.log()[-2000:]
        s.api = f"127.0.0.1:{s.api_port}"
        servers.append(s)
    w1, w2 = servers
    key = "srs:stream:__defaultVhost__/live/w"
    rtc = Rtc()
    try:
        rtc.publish(w1.api, "live", "w")
        assert redis.command("GET", key) == owner(w1)
        with pytest.raises(SignalingError) as e:
            rtc.publish(w2.api, "live", "w")
        assert e.value.status == 409, e.value
        assert "is owned by " + owner(w1) in w2.log(), w2.log()[-3000:]
    finally:
        rtc.close()
    assert wait_until(lambda: redis.command("GET", key) is None, 40), "the WHIP unpublish did not release the key"

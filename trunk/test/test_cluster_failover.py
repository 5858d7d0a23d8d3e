"""Origin cluster failover with a real redis-server (own free port, stopped by
PID): an origin plays a stream another origin owns by pulling it from the
owner; edges that ask the registry first survive the owner's crash; playing
streams survive Redis going away, and the owner's key comes back with it."""
import os
import shutil
import signal
import threading
import time
import urllib.error
import urllib.request

import pytest

from conftest import free_port, wait_until
from media import Publisher
from rtmp_recorder import RtmpRecorder
from test_stream_registry import Redis

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed")

STREAM = "fo"
KEY = f"srs:stream:__defaultVhost__/live/{STREAM}"
TTL = 10


@pytest.fixture
def redis():
    r = Redis().start()
    yield r
    r.stop()


def registry(redis_port, ttl=TTL):
    return ("stream_registry {\n    enabled on;\n"
            f"    redis redis://127.0.0.1:{redis_port}/0;\n    ttl {ttl};\n    advertise 127.0.0.1;\n}}\n")


def start_origin(srs, redis_port):
    return srs.start(srs.base_conf(registry(redis_port)))


def start_edge(srs, redis_port, *origins):
    conf = srs.base_conf(registry(redis_port)).replace(
        "vhost __defaultVhost__ {\n}",
        "vhost __defaultVhost__ {\n cluster {\n  mode remote;\n"
        f"  origin {' '.join(f'127.0.0.1:{o.rtmp_port}' for o in origins)};\n }}\n}}")
    return srs.start(conf)


def owner(srs):
    return f"rtmp://127.0.0.1:{srs.rtmp_port}"


def url(srs):
    return f"rtmp://127.0.0.1:{srs.rtmp_port}/live/{STREAM}"


class RestartingPublisher(threading.Thread):
    """ffmpeg -re -stream_loop -1 to each origin in turn, started again as soon
    as it ends (a refused publish ends at once), until stop()."""

    def __init__(self, media, origins):
        super().__init__(daemon=True)
        self.media, self.origins = media, origins
        self.current = None
        self.starts = []  # (monotonic, origin index)
        self._halt = threading.Event()

    def run(self):
        turn = 0
        while not self._halt.is_set():
            index = turn % len(self.origins)
            turn += 1
            self.current = Publisher(self.media, url(self.origins[index]))
            self.starts.append((time.monotonic(), index))
            while self.current.alive() and not self._halt.is_set():
                time.sleep(0.1)
            self.current.stop()
            self._halt.wait(0.3)  # not a busy loop against a dead origin

    def stop(self):
        self._halt.set()
        self.join(15)
        if self.current and self.current.alive():  # the thread did not get to it
            self.current.proc.kill()
            self.current.proc.wait(5)


def test_origin_pulls_a_stream_another_origin_owns(srs_factory, redis, media):
    o1, o2 = start_origin(srs_factory("o1"), redis.port), start_origin(srs_factory("o2"), redis.port)
    pub = Publisher(media, url(o1))
    player = RtmpRecorder(o2.rtmp_port, STREAM)
    try:
        assert wait_until(lambda: redis.command("GET", KEY) == owner(o1), 15), o1.log()[-3000:]
        player.start()
        assert wait_until(lambda: player.video_count() >= 50, 20), (player.error, o2.log()[-3000:])
        assert player.error is None
        assert f"owned by {owner(o1)}, pull it from there" in o2.log()
        assert player.backwards() == []
        # The owner is unchanged: o2 pulls, it does not claim.
        assert redis.command("GET", KEY) == owner(o1)
    finally:
        player.stop()
        pub.stop()


def test_origin_http_flv_player_pulls_from_the_owner_or_404s(srs_factory, redis, media):
    o1 = start_origin(srs_factory("o1"), redis.port)
    o2 = srs_factory("o2")
    o2.http_port = free_port()
    conf = o2.base_conf(registry(redis.port) + f"http_server {{\n enabled on;\n listen {o2.http_port};\n}}\n")
    o2.start(conf.replace("vhost __defaultVhost__ {\n}",
                          "vhost __defaultVhost__ {\n http_remux { enabled on; mount [vhost]/[app]/[stream].flv; }\n}"))
    pub = Publisher(media, url(o1))
    try:
        assert wait_until(lambda: redis.command("GET", KEY) == owner(o1), 15), o1.log()[-3000:]
        # Owned by o1: o2 answers with the stream, pulled from o1.
        with urllib.request.urlopen(f"http://127.0.0.1:{o2.http_port}/live/{STREAM}.flv", timeout=15) as r:
            assert r.status == 200
            got, deadline = b"", time.monotonic() + 15
            while len(got) < 100000 and time.monotonic() < deadline:
                got += r.read(16384)
        assert got[:3] == b"FLV" and len(got) >= 100000, len(got)
        # Owned by nobody: a 404 as before.
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(f"http://127.0.0.1:{o2.http_port}/live/nobody.flv", timeout=10)
        assert e.value.code == 404
    finally:
        pub.stop()


def test_owner_killed_edges_players_continue(srs_factory, redis, media):
    o1, o2 = start_origin(srs_factory("o1"), redis.port), start_origin(srs_factory("o2"), redis.port)
    e1 = start_edge(srs_factory("e1"), redis.port, o1, o2)
    e2 = start_edge(srs_factory("e2"), redis.port, o1, o2)
    publisher = RestartingPublisher(media, [o1, o2])
    players = [RtmpRecorder(e.rtmp_port, STREAM) for e in (e1, e2)]
    try:
        publisher.start()
        assert wait_until(lambda: redis.command("GET", KEY) == owner(o1), 15), o1.log()[-3000:]
        for p in players:
            p.start()
        assert wait_until(lambda: all(p.video_count() >= 100 for p in players), 30), \
            ([p.error for p in players], e1.log()[-3000:])

        os.kill(o1.pid, signal.SIGKILL)
        o1.wait_exit(5)
        killed = time.monotonic()
        # The publisher lands on o2 once o1's key expired; the edges follow.
        assert wait_until(lambda: redis.command("GET", KEY) == owner(o2), TTL + 15), o2.log()[-3000:]
        taken = time.monotonic() - killed
        resumed = lambda: all(p.video() and p.video()[-1][0] > killed + 1 and
                              p.video_count() > 0 for p in players)
        assert wait_until(resumed, 20), ([p.error for p in players], e1.log()[-3000:], o2.log()[-3000:])
        time.sleep(5)  # and they keep playing
        for p in players:
            assert p.error is None and not p.ended, p.error
            assert p.backwards() == [], p.backwards()[:5]
            assert p.video()[-1][0] > time.monotonic() - 2, "the player stopped receiving"
        gaps = [p.max_video_gap() for p in players]
        print(f"owner killed: o2 owns the stream {taken:.1f} s later; media gap on the edges "
              f"{gaps[0]:.1f} s and {gaps[1]:.1f} s (ttl {TTL})")
        assert max(gaps) <= 15, gaps
        assert "a local publisher takes" in o2.log() or "pull it from there" not in o2.log()
    finally:
        for p in players:
            p.stop()
        publisher.stop()


def test_redis_killed_and_back_streams_play_key_returns(srs_factory, redis, media):
    o1, o2 = start_origin(srs_factory("o1"), redis.port), start_origin(srs_factory("o2"), redis.port)
    e1 = start_edge(srs_factory("e1"), redis.port, o1, o2)
    pub = Publisher(media, url(o1))
    players = [RtmpRecorder(e1.rtmp_port, STREAM), RtmpRecorder(o2.rtmp_port, STREAM)]
    try:
        assert wait_until(lambda: redis.command("GET", KEY) == owner(o1), 15), o1.log()[-3000:]
        for p in players:
            p.start()
        assert wait_until(lambda: all(p.video_count() >= 50 for p in players), 30), \
            ([p.error for p in players], e1.log()[-3000:], o2.log()[-3000:])

        port = redis.port
        redis.stop()
        counts = [p.video_count() for p in players]
        time.sleep(7)  # two refreshes fail meanwhile
        for p, before in zip(players, counts):
            assert p.error is None and not p.ended, p.error
            assert p.video_count() >= before + 100, "a player stopped receiving while Redis was down"
        assert pub.alive()

        back = Redis(port).start()
        redis.proc = back.proc  # the fixture stops it
        started = time.monotonic()
        assert wait_until(lambda: redis.command("GET", KEY) == owner(o1), 6), "the key did not come back"
        took = time.monotonic() - started
        print(f"key back {took:.2f} s after Redis restarted")
        assert took <= 3.5
        for p in players:
            assert p.error is None and p.backwards() == []
    finally:
        for p in players:
            p.stop()
        pub.stop()

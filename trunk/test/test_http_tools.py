"""sb_http_load, the HTTP-FLV player load tool: against our server (a live
stream, a missing one, a stream that goes away and comes back) and against a
small fake server here that sends close-delimited or chunked FLV and closes
at a tag boundary or inside a tag. Every process started here is stopped by
PID in a finally block; the fake server's threads end with it."""
import json
import random
import socket
import subprocess
import threading
import time

import pytest

from conftest import TRUNK, free_port, wait_until
from conftest import stop_process as stop
from media import Publisher, wait_for_publish

LOAD = TRUNK / "objs" / "sb_http_load"

FPS = 25  # the media fixture's frame rate


def summary_of(stdout):
    lines = [l for l in stdout.splitlines() if l.strip()]
    return json.loads(lines[-1]) if lines and lines[-1].startswith("{") else None


def run_load(args, timeout=20):
    r = subprocess.run([str(LOAD)] + args, cwd=TRUNK, capture_output=True, text=True, timeout=timeout)
    return r, summary_of(r.stdout)


def http_flv_conf(srs, http_port):
    conf = srs.base_conf().replace("vhost __defaultVhost__ {\n}\n", "")
    return conf + (f"http_server {{\n  enabled on;\n  listen {http_port};\n  dir {srs.workdir};\n}}\n"
                   "vhost __defaultVhost__ {\n  http_remux {\n    enabled on;\n"
                   "    mount [vhost]/[app]/[stream].flv;\n  }\n}\n")


@pytest.fixture
def http_srs(srs):
    srs.http_port = free_port()
    srs.start(http_flv_conf(srs, srs.http_port))
    assert wait_until(lambda: _can_connect(srs.http_port)), srs.log()[-2000:]
    return srs


def _can_connect(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def flv_url(srs, stream="livestream"):
    return f"http://127.0.0.1:{srs.http_port}/live/{stream}.flv"


def test_http_load_players_verify_a_live_stream(http_srs, media):
    assert LOAD.exists(), "build the tools first (make)"
    srs = http_srs
    pub = Publisher(media, f"rtmp://127.0.0.1:{srs.rtmp_port}/live/livestream")
    try:
        wait_for_publish(srs)
        seconds = 4
        r, s = run_load(["-c", "5", "-r", flv_url(srs), "-t", str(seconds), "-m", "1000", "--json"])
        assert r.returncode == 0, r.stdout + r.stderr
        assert s is not None, r.stdout
        assert s["clients"] == 5 and s["alive"] == 5 and s["failed"] == 0, s
        assert s["sessions"] == 5 and s["reconnects"] == 0, s
        assert s["first_video_keyframe_ok"] == 5 and s["first_video_keyframe_bad"] == 0, s
        assert s["ts_monotonic_violations"] == 0 and s["verify_ok"] is True, s
        assert sum(s["errors"].values()) == 0 and s["http_status"] == {}, s
        # 25 fps for 4 s, plus up to one cached GOP (2 s) at the start; generous.
        assert s["per_client_video_frames_min"] >= FPS * seconds * 0.6, s
        assert s["per_client_video_frames_max"] <= FPS * (seconds + 2) * 1.3, s
        assert s["audio_frames"] > 0 and s["keyframes"] >= 5 and s["data_messages"] >= 5, s
        assert s["kbps"] > 5 * 150, s
        # Periodic report lines, one a second, in sb_rtmp_load's format.
        assert sum(1 for l in r.stdout.splitlines() if "clients=5 alive=5, time=" in l) >= 3, r.stdout
    finally:
        pub.stop()


def test_http_load_counts_404_as_rejected(http_srs):
    r, s = run_load(["-c", "2", "-r", flv_url(http_srs, "nothing"), "-t", "1.2", "-e", "200", "--json"],
                    timeout=10)
    # A refusal is a failure, not a verification failure: exit code 0.
    assert r.returncode == 0, r.stdout + r.stderr
    assert s["alive"] == 0 and s["failed"] == 2 and s["sessions"] == 0, s
    assert s["errors"]["rejected"] >= 4 and s["errors"]["rejected"] == sum(s["errors"].values()), s
    assert s["http_status"] == {"404": s["errors"]["rejected"]}, s
    assert s["reconnects"] >= 2 and s["verify_ok"] is True, s
    assert "rejected: HTTP 404" in r.stdout + r.stderr


def test_http_load_follows_an_unpublish_and_republish(http_srs, media):
    """The server ends the responses when the stream goes away (a normal end);
    the players come back, get 404 while it is gone, and play again."""
    srs = http_srs
    url = f"rtmp://127.0.0.1:{srs.rtmp_port}/live/livestream"
    pub = Publisher(media, url)
    load = None
    try:
        wait_for_publish(srs)
        load = subprocess.Popen([str(LOAD), "-c", "3", "-r", flv_url(srs), "-t", "10", "-d", "200", "-e", "300",
                                 "-m", "1000", "--json"], cwd=TRUNK, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        time.sleep(3)
        pub.stop()
        time.sleep(1)
        pub = Publisher(media, url)
        out, err = load.communicate(timeout=20)
        s = summary_of(out)
        assert load.returncode == 0, out + err
        assert s["alive"] == 3, s
        assert s["sessions"] >= 6 and s["reconnects"] >= 3, s
        # Every session, the ones after the republish too, began with a keyframe, in order.
        assert s["first_video_keyframe_ok"] == 3 and s["ts_monotonic_violations"] == 0, s
        # Only refusals while the stream was gone; the ends themselves were clean.
        assert s["errors"]["closed"] == 0 and s["errors"]["protocol"] == 0, s
        assert s["errors"]["rejected"] == sum(s["errors"].values()), s
    finally:
        stop(load)
        pub.stop()


# ---- a fake HTTP-FLV server ----

def flv_tag_ends(data):
    """Offsets just after each tag's PreviousTagSize in an FLV file."""
    ends, pos = [], 13
    while pos + 11 <= len(data):
        size = int.from_bytes(data[pos + 1:pos + 4], "big")
        pos += 11 + size + 4
        if pos > len(data):
            break
        ends.append(pos)
    return ends


class FakeFlvServer:
    """Answers every GET with the first `cut` bytes of an FLV file, then closes.
    mode: "close" (no length, HTTP/1.0), "chunked" (random chunk sizes, chunk
    extensions, a 100 Continue first, a trailer), "length" (Content-Length)."""

    def __init__(self, flv_bytes, cut, mode):
        self.body = flv_bytes[:cut]
        self.mode = mode
        self.port = free_port()
        self.served = 0
        self.stopping = threading.Event()
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", self.port))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.threads = [threading.Thread(target=self._accept, daemon=True)]
        self.threads[0].start()

    def _accept(self):
        deadline = time.monotonic() + 30  # bounded whatever happens
        while not self.stopping.is_set() and time.monotonic() < deadline and self.served < 200:
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            self.served += 1
            t = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            self.threads.append(t)
            t.start()

    def _serve(self, conn):
        try:
            conn.settimeout(5)
            conn.recv(4096)
            body = self.body
            if self.mode == "close":
                conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: video/x-flv\r\n\r\n")
                for i in range(0, len(body), 7000):
                    conn.sendall(body[i:i + 7000])
            elif self.mode == "length":
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
            else:
                rnd = random.Random(self.served)
                out = [b"HTTP/1.1 100 Continue\r\n\r\n",
                       b"HTTP/1.1 200 OK\r\nContent-Type: video/x-flv\r\nTransfer-Encoding: chunked\r\n\r\n"]
                i = 0
                while i < len(body):
                    part = body[i:i + rnd.randint(1, 3000)]
                    i += len(part)
                    out.append(b"%x;n=1\r\n" % len(part) + part + b"\r\n")
                out.append(b"0\r\nX-End: 1\r\n\r\n")
                conn.sendall(b"".join(out))
        except OSError:
            pass
        finally:
            conn.close()

    def stop(self):
        self.stopping.set()
        for t in self.threads:
            t.join(timeout=5)
        self.sock.close()


@pytest.mark.parametrize("mode,inside_tag", [("close", False), ("chunked", False), ("length", False),
                                             ("close", True)])
def test_http_load_reconnects_when_the_server_closes(media, mode, inside_tag):
    data = media.read_bytes()
    ends = flv_tag_ends(data)
    boundary = next(e for e in ends if e > 150_000)  # about 4 s of the 300 kbps file
    cut = boundary + 20 if inside_tag else boundary
    server = FakeFlvServer(data, cut, mode)
    try:
        r, s = run_load(["-c", "2", "-r", f"http://127.0.0.1:{server.port}/live/x.flv", "-t", "2", "-d", "100",
                         "-e", "100", "-m", "1000", "--json"], timeout=15)
        assert r.returncode == 0, r.stdout + r.stderr
        assert s["sessions"] >= 6 and s["reconnects"] >= 4, s
        assert s["first_video_keyframe_ok"] == 2 and s["ts_monotonic_violations"] == 0, s
        assert s["errors"]["protocol"] == 0 and s["verify_ok"] is True, s
        if inside_tag:
            # A body cut inside a tag is a failure of kind "closed", then a retry
            # (the sessions the end of the run interrupted are no failure).
            assert s["errors"]["closed"] == sum(s["errors"].values()), s
            assert s["errors"]["closed"] >= s["sessions"] - 2 and s["failed"] == 2, s
        else:
            # A body that ends between tags is the server ending the stream: no failure.
            assert sum(s["errors"].values()) == 0 and s["failed"] == 0, s
    finally:
        server.stop()


def test_http_load_fails_a_corrupt_flv_as_protocol(media):
    """A PreviousTagSize that does not match its tag ends the session as a
    protocol failure, and the exit code says verification failed."""
    data = bytearray(media.read_bytes())
    first_tag_size = int.from_bytes(data[14:17], "big")
    data[13 + 11 + first_tag_size + 3] ^= 0x01
    server = FakeFlvServer(bytes(data), flv_tag_ends(bytes(data))[20], "close")
    try:
        r, s = run_load(["-c", "1", "-r", f"http://127.0.0.1:{server.port}/a/b.flv", "-t", "1", "-e", "200",
                         "--json"], timeout=10)
        assert r.returncode == 1, r.stdout + r.stderr
        assert s["errors"]["protocol"] >= 2 and s["verify_ok"] is False, s
        assert "PreviousTagSize" in r.stdout + r.stderr
    finally:
        server.stop()


def test_http_load_rejects_bad_arguments():
    for args in [[], ["-c", "x", "-r", "http://127.0.0.1/a/b.flv"],
                 ["-r", "rtmp://127.0.0.1/live/a", "-t", "0.1"],
                 ["-r", "https://127.0.0.1/live/a.flv", "-t", "0.1"],
                 ["-r", "http://host.example/live/a.flv", "-t", "0.1"],
                 ["-r", "http://127.0.0.1:99999/live/a.flv", "-t", "0.1"]]:
        r = subprocess.run([str(LOAD)] + args, capture_output=True, text=True, timeout=10)
        assert r.returncode == 2, (args, r.stdout, r.stderr)

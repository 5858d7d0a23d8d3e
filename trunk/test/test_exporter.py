"""The Prometheus exporter (`exporter { enabled on; ... }`, GET /metrics)
against a real Prometheus (Debian's `prometheus` package: /usr/bin/prometheus
and promtool) started here on loopback with a temporary scrape config and
storage; the packaged service is never used.

srs_clients counts what SRS counts: every publisher and every player, once
it published or played; a port probe (the harness's own connect), an API call
or a scrape is not a client. With one ffmpeg publisher and N players it is
N + 1. Every process started here is stopped by PID in a finally block."""
import json
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

from conftest import TRUNK, can_connect, free_port, wait_until
from conftest import stop_process
from media import Publisher, wait_for_publish

LOAD = TRUNK / "objs" / "sb_rtmp_load"
PROMETHEUS = shutil.which("prometheus") or "/usr/bin/prometheus"
PROMTOOL = shutil.which("promtool") or "/usr/bin/promtool"
PLAYERS = 3


def exporter_block(port, enabled="on", label="L", tag="T"):
    return (f"exporter {{\n  enabled {enabled};\n  listen 127.0.0.1:{port};\n"
            f"  label {label};\n  tag {tag};\n}}\n")


def http(port, path, method="GET", timeout=5):
    """(status, headers, body text) of one request to the exporter."""
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        body = e.read().decode(errors="replace")
        e.close()
        return e.code, dict(e.headers), body


def parse_samples(text):
    """{'name{labels}': float} of an exposition (no timestamps here)."""
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, value = line.rsplit(" ", 1)
            out[key] = float(value)
    return out


def scrape(port):
    status, _, body = http(port, "/metrics")
    assert status == 200, body
    return parse_samples(body)


class Prometheus:
    """A Prometheus of our own on loopback, scraping `target` every second."""

    def __init__(self, workdir, target):
        self.port = free_port()
        conf = workdir / "prometheus.yml"
        conf.write_text(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
            "scrape_configs:\n  - job_name: srs\n    static_configs:\n"
            f"      - targets: ['{target}']\n")
        self.log = open(workdir / "prometheus.log", "w")
        self.proc = subprocess.Popen(
            [PROMETHEUS, f"--config.file={conf}", f"--storage.tsdb.path={workdir / 'prom-data'}",
             f"--web.listen-address=127.0.0.1:{self.port}", "--storage.tsdb.retention.time=1h"],
            stdout=self.log, stderr=subprocess.STDOUT, cwd=workdir)

    def ready(self):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/-/ready", timeout=1) as r:
                return r.status == 200
        except OSError:
            return False

    def query(self, expr):
        """The value of an instant query with one series, or None."""
        q = urllib.parse.urlencode({"query": expr})
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/api/v1/query?{q}", timeout=2) as r:
                data = json.loads(r.read())
        except OSError:
            return None
        result = data.get("data", {}).get("result", [])
        return float(result[0]["value"][1]) if len(result) == 1 else None

    def stop(self):
        stop_process(self.proc)
        self.log.close()


def test_prometheus_scrapes_clients_and_promtool_accepts(srs, media, tmp_path):
    assert LOAD.exists(), "build the tools first (make)"
    port = free_port()
    srs.start(srs.base_conf(extra=exporter_block(port)))
    assert wait_until(lambda: "exporter: Prometheus metrics at http://127.0.0.1:%d/metrics" % port in srs.log())
    pub = Publisher(media, f"rtmp://127.0.0.1:{srs.rtmp_port}/live/livestream")
    players = prom = None
    try:
        wait_for_publish(srs)
        players = subprocess.Popen(
            [str(LOAD), "-c", str(PLAYERS), "-r", f"rtmp://127.0.0.1:{srs.rtmp_port}/live/livestream",
             "-t", "40", "-m", "60000"], cwd=TRUNK, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        prom = Prometheus(tmp_path, f"127.0.0.1:{port}")
        assert wait_until(prom.ready, timeout=20, interval=0.2), (tmp_path / "prometheus.log").read_text()[-3000:]

        # Through Prometheus: the publisher and every player.
        want = PLAYERS + 1
        assert wait_until(lambda: prom.query("srs_clients") == want, timeout=20, interval=0.3), \
            (prom.query("srs_clients"), scrape(port))
        assert prom.query('srs_clients_by_type{type="rtmp-play"}') == PLAYERS
        assert prom.query('srs_clients_by_type{type="fmle-publish"}') == 1
        assert prom.query("srs_streams") == 1
        assert prom.query('srs_build_info{label="L",tag="T",version="7.0.0"}') == 1
        assert prom.query('up{job="srs"}') == 1

        # promtool's parser and linter accept the exposition as served.
        status, headers, body = http(port, "/metrics")
        assert status == 200
        assert headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
        r = subprocess.run([PROMTOOL, "check", "metrics"], input=body, capture_output=True, text=True, timeout=10)
        assert r.returncode == 0 and r.stdout.strip() == "" and r.stderr.strip() == "", \
            f"rc={r.returncode}\n{r.stdout}\n{r.stderr}\n{body}"

        before = scrape(port)
        assert before["srs_clients_total"] >= want
        assert before["srs_receive_bytes_total"] > 0 and before["srs_send_bytes_total"] > 0

        # The players leave: the gauges follow, the counters keep what was.
        stop_process(players)
        players = None
        assert wait_until(lambda: scrape(port)["srs_clients"] == 1, timeout=10), scrape(port)
        after = scrape(port)
        assert after['srs_clients_by_type{type="rtmp-play"}'] == 0
        assert after["srs_clients_total"] >= before["srs_clients_total"]
        assert after["srs_send_bytes_total"] >= before["srs_send_bytes_total"]
        assert after["srs_receive_bytes_total"] >= before["srs_receive_bytes_total"]
        assert wait_until(lambda: prom.query("srs_clients") == 1, timeout=10, interval=0.3)
    finally:
        stop_process(players)
        if prom:
            prom.stop()
        pub.stop()


def test_only_metrics_is_served(srs):
    port = free_port()
    srs.start(srs.base_conf(extra=exporter_block(port)))
    assert wait_until(lambda: can_connect(port))
    for path in ("/", "/metrics/", "/metricsx", "/api/v1/summaries", "/live/livestream.flv"):
        status, _, _ = http(port, path)
        assert status == 404, path
    status, headers, _ = http(port, "/metrics", method="POST")
    assert status == 405 and headers.get("Allow") == "GET, HEAD"
    status, _, body = http(port, "/metrics", method="HEAD")
    assert status == 200 and body == ""
    # A query string is fine (Prometheus sends none, curl users might).
    status, _, body = http(port, "/metrics?x=1")
    assert status == 200 and "# TYPE srs_clients gauge" in body
    # Keep-alive: two scrapes on one connection.
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        got = b""
        for _ in range(2):
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        deadline = time.monotonic() + 5
        while got.count(b"HTTP/1.1 200") < 2 and time.monotonic() < deadline:
            got += s.recv(65536)
        assert got.count(b"HTTP/1.1 200") == 2
    # Scrapes are not clients.
    m = scrape(port)
    assert m["srs_clients"] == 0 and m["srs_clients_total"] == 0


def test_client_errors_are_counted(srs):
    port = free_port()
    srs.start(srs.base_conf(extra=exporter_block(port)))
    assert wait_until(lambda: can_connect(port))
    # An RTMP client whose handshake is not RTMP at all: an error, not a close.
    with socket.create_connection(("127.0.0.1", srs.rtmp_port), timeout=5) as s:
        s.sendall(b"\x09" + b"\x00" * 1536)
        s.settimeout(5)
        try:
            while s.recv(4096):
                pass
        except OSError:
            pass
    assert wait_until(lambda: scrape(port)["srs_clients_errs_total"] == 1, timeout=5), srs.log()[-2000:]
    # It never published or played: an error, not a client (as SRS counts).
    m = scrape(port)
    assert m["srs_clients_total"] == 0 and m["srs_clients"] == 0


def test_exporter_off_listens_nowhere_and_reload_toggles_it(srs):
    port = free_port()
    srs.start(srs.base_conf(extra=exporter_block(port, enabled="off")))
    assert not can_connect(port)
    assert "exporter:" not in srs.log()

    # SIGHUP turns it on...
    srs.write_conf(srs.base_conf(extra=exporter_block(port)))
    srs.signal(signal.SIGHUP)
    assert wait_until(lambda: can_connect(port)), srs.log()[-2000:]
    assert 'label="L",tag="T"' in http(port, "/metrics")[2]
    # ...changes the label without reopening...
    srs.write_conf(srs.base_conf(extra=exporter_block(port, label="L2")))
    srs.signal(signal.SIGHUP)
    assert wait_until(lambda: 'label="L2",tag="T"' in http(port, "/metrics")[2]), srs.log()[-2000:]
    # ...moves it...
    port2 = free_port()
    srs.write_conf(srs.base_conf(extra=exporter_block(port2)))
    srs.signal(signal.SIGHUP)
    assert wait_until(lambda: can_connect(port2)), srs.log()[-2000:]
    assert wait_until(lambda: not can_connect(port))
    assert http(port2, "/metrics")[0] == 200
    # ...and turns it off.
    srs.write_conf(srs.base_conf(extra=exporter_block(port2, enabled="off")))
    srs.signal(signal.SIGHUP)
    assert wait_until(lambda: not can_connect(port2)), srs.log()[-2000:]
    assert "takes effect after a restart" not in srs.log()


def test_dropped_messages_of_a_player_that_never_reads(srs, big_media):
    port, http_port = free_port(), free_port()
    extra = exporter_block(port) + (
        f"http_server {{\n  enabled on;\n  listen {http_port};\n  dir {srs.workdir};\n}}\n")
    conf = srs.base_conf(extra=extra).replace(
        "vhost __defaultVhost__ {\n}\n",
        "vhost __defaultVhost__ {\n  http_remux {\n    enabled on;\n    mount [vhost]/[app]/[stream].flv;\n  }\n"
        "  play {\n    queue_length 1;\n  }\n}\n")
    srs.start(conf)
    pub = Publisher(big_media, f"rtmp://127.0.0.1:{srs.rtmp_port}/live/livestream")
    s = None
    try:
        wait_for_publish(srs)
        assert scrape(port)["srs_dropped_messages_total"] == 0
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(("127.0.0.1", http_port))
        s.sendall(b"GET /live/livestream.flv HTTP/1.1\r\nHost: x\r\n\r\n")
        assert wait_until(lambda: scrape(port)['srs_clients_by_type{type="flv-play"}'] == 1, timeout=5)
        assert wait_until(lambda: scrape(port)["srs_dropped_messages_total"] > 0, timeout=20), srs.log()[-2000:]
        s.close()
        s = None
        # The player is gone; what it dropped stays counted.
        assert wait_until(lambda: scrape(port)['srs_clients_by_type{type="flv-play"}'] == 0, timeout=10)
        dropped = scrape(port)["srs_dropped_messages_total"]
        assert dropped > 0
        assert scrape(port)["srs_clients"] == 1
    finally:
        if s:
            s.close()
        pub.stop()

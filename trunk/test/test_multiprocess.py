"""Several server processes on one machine sharing the RTMP port (SO_REUSEPORT),
each with its own pid file, API port and WebRTC UDP port (docs/cluster.md).

Without the edge feature, each process gets the stream from its own publisher:
the same ffmpeg input is published to every process on a port only that
process listens on (`listen SHARED OWN;`), and 300 players connect to the
shared port. Each process's /api/v1/clients must count its players; with
reuseport_balance the spread is within +-15 % of even."""
import json
import os
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import (TRUNK, SRS, ASAN_STRICT, SrsProcess, can_connect, free_port, stop_and_check,
                      wait_until)
from media import Publisher

LOAD = TRUNK / "objs" / "sb_rtmp_load"
SCRIPT = TRUNK / "scripts" / "srs-cluster.sh"


def running(pid):
    """The process exists and is not a zombie (PID 1 here may not reap orphans)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def api_get(port, path):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
        return json.loads(r.read())


def players_of(api_port):
    clients = api_get(api_port, "/api/v1/clients?count=2000")["clients"]
    return [c for c in clients if not c["publish"] and c["url"] == "/live/livestream"]


def start_peer(workdir, shared_port, balance):
    """A plain server listening on the shared port and on a port of its own."""
    s = SrsProcess(workdir)
    s.api_port = free_port()
    s.shared_port = shared_port
    extra = (f"reuseport_balance {balance};\n"
             f"http_api {{ enabled on; listen {s.api_port}; }}\n")
    conf = s.base_conf(extra).replace(f"listen {s.rtmp_port};", f"listen {shared_port} {s.rtmp_port};")
    return s.start(conf)


def run_spread(tmp_path, media, balance, players=300, seconds=8):
    shared = free_port()
    servers, pubs = [], []
    try:
        for k in range(3):
            d = tmp_path / f"p{k}"
            d.mkdir()
            servers.append(start_peer(d, shared, balance))
        for s in servers:
            pubs.append(Publisher(media, f"rtmp://127.0.0.1:{s.rtmp_port}/live/livestream"))
        for s in servers:
            assert wait_until(lambda: "fmle-publish __defaultVhost__/live/livestream" in s.log(), 15), s.log()[-2000:]
        load = subprocess.Popen([str(LOAD), "-c", str(players), "-r", f"rtmp://127.0.0.1:{shared}/live/livestream",
                                 "-t", str(seconds), "-m", "100000", "--json"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        counts = None
        try:
            # Midway, every player is connected: count them per process.
            assert wait_until(lambda: sum(len(players_of(s.api_port)) for s in servers) == players,
                              timeout=seconds + 10), [len(players_of(s.api_port)) for s in servers]
            counts = [len(players_of(s.api_port)) for s in servers]
            out, err = load.communicate(timeout=seconds + 60)
        finally:
            if load.poll() is None:
                load.kill()
                load.communicate()
        assert load.returncode == 0, out[-2000:] + err[-2000:]
        summary = json.loads(out.strip().splitlines()[-1])
        return counts, summary, servers
    finally:
        for p in pubs:
            p.stop()
        stop_and_check(servers)


def needs_bpf():
    """reuseport_balance loads a BPF program: CAP_BPF or root (Debian keeps
    unprivileged BPF off). Without it the server keeps the kernel's hash,
    which test_players_served_by_every_process_with_the_kernel_hash covers."""
    if os.geteuid() != 0:
        pytest.skip("reuseport_balance needs CAP_BPF (run as root)")


def test_300_players_spread_evenly_over_3_processes(tmp_path, media):
    needs_bpf()
    counts, s, servers = run_spread(tmp_path, media, balance=3)
    print("players per process:", counts)
    assert sum(counts) == 300
    # Every player verified: connected, keyframe first, timestamps in order, frames flowing.
    assert s["alive"] == 300 and s["failed"] == 0 and s["reconnects"] == 0, s
    assert s["first_video_keyframe_ok"] == 300, s
    assert s["ts_monotonic_violations"] == 0, s
    assert s["per_client_video_frames_min"] >= 8 * 25 * 0.6, s
    for c in counts:
        assert 85 <= c <= 115, counts
    for srv in servers:
        assert "reuseport_balance: connections in turn over 3 sockets" in srv.log()


def test_players_served_by_every_process_with_the_kernel_hash(tmp_path, media):
    # Without the balance program the kernel's hash decides: every process gets
    # some players and each counts its own; the spread is only Binomial(150, 1/3).
    counts, s, _ = run_spread(tmp_path, media, balance=0, players=150, seconds=5)
    print("players per process:", counts)
    assert sum(counts) == 150 and all(c > 0 for c in counts), counts
    assert s["alive"] == 150 and s["failed"] == 0, s


# ---- scripts/srs-cluster.sh ----

def consecutive_free(n, kind=socket.SOCK_STREAM):
    """A base such that base+1..base+n can all be bound (TCP or UDP)."""
    for _ in range(50):
        base = free_port(kind) - 1
        ok = True
        for k in range(1, n + 1):
            s = socket.socket(socket.AF_INET, kind)
            try:
                s.bind(("127.0.0.1", base + k))
            except OSError:
                ok = False
            finally:
                s.close()
        if ok:
            return base
    raise RuntimeError("no free port range")


def udp_port_taken(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.bind(("0.0.0.0", port))
        return False
    except OSError:
        return True
    finally:
        s.close()


def answer_candidate_port(api):
    """POSTs an aiortc WHEP offer to `api` (host:port) and returns the UDP
    port of the answer's host candidate; skips without aiortc."""
    from rtc_env import require_aiortc
    require_aiortc()
    from rtc_client import Player, Rtc, http, sdp_attr
    rtc = Rtc()
    probe = rtc.run(rtc._make(Player, api, "live", "livestream", "whep"), 5)

    async def offer():
        await probe.pc.setLocalDescription(await probe.pc.createOffer())
        return probe.pc.localDescription.sdp

    try:
        sdp = rtc.run(offer(), 10)
        status, _, answer = http("POST", f"http://{api}/rtc/v1/whep/?app=live&stream=livestream", sdp,
                                 "application/sdp")
        assert status == 201, (status, answer)
        return int(sdp_attr(answer, "candidate").split()[5])  # foundation comp udp prio IP PORT typ host
    finally:
        rtc.run(probe.pc.close(), 5)
        rtc.close()


def test_cluster_script_starts_reports_and_stops(tmp_path):
    origin_rtmp, origin_api, origin_http = free_port(), free_port(), free_port()
    edge_rtmp, edge_http = free_port(), free_port()
    origin_conf = (TRUNK / "conf" / "origin.conf").read_text()
    origin_conf = (origin_conf.replace("19350", str(origin_rtmp)).replace("19851", str(origin_api))
                   .replace("18080", str(origin_http)).replace("rtc_server {\n    enabled         on;",
                                                               "rtc_server {\n    enabled         off;"))
    edge_conf = (TRUNK / "conf" / "edge.conf").read_text()
    edge_conf = (edge_conf.replace("listen              1935;", f"listen              {edge_rtmp};")
                 .replace("listen          8080;", f"listen          {edge_http};")
                 .replace("127.0.0.1:19350", f"127.0.0.1:{origin_rtmp}")
                 # WebRTC players on the edges' vhost, to see each process's candidate.
                 .replace("    http_remux {", "    rtc {\n        enabled     on;\n    }\n    http_remux {", 1))
    (tmp_path / "origin.conf").write_text(origin_conf)
    (tmp_path / "edge.conf").write_text(edge_conf)
    run = tmp_path / "run"
    api_base = consecutive_free(3)
    rtc_base = consecutive_free(3, socket.SOCK_DGRAM)
    env = dict(os.environ, ORIGIN_CONF=str(tmp_path / "origin.conf"), EDGE_CONF=str(tmp_path / "edge.conf"),
               RUN_DIR=str(run), API_BASE=str(api_base), RTC_BASE=str(rtc_base), SRS_BIN=str(SRS))
    env.setdefault("ASAN_OPTIONS", ASAN_STRICT)
    # The origin conf names its own pid and log: point them into the run dir too.
    origin_conf = origin_conf.replace("./objs/origin.pid", str(run / "origin.pid")).replace(
        "./objs/origin.log", str(run / "origin.log"))
    (tmp_path / "origin.conf").write_text(origin_conf)

    def script(*args):
        return subprocess.run(["sh", str(SCRIPT)] + list(args), env=env, capture_output=True, text=True, timeout=120)

    pids = []
    try:
        r = script("start", "3")
        assert r.returncode == 0, r.stdout + r.stderr
        pid_files = [run / "origin.pid"] + [run / f"edge-{k}.pid" for k in (1, 2, 3)]
        for f in pid_files:
            assert f.exists(), r.stdout
            pids.append(int(f.read_text().strip()))
        assert len(set(pids)) == 4
        # Each process answers on its own API port with its own pid. The
        # script returns once every pid file is written, which is before the
        # listeners: a client (this test too) retries until they answer.
        for port in [origin_api] + [api_base + k for k in (1, 2, 3)]:
            assert wait_until(lambda: can_connect(port), 10), f"API port {port} never answered"
        assert wait_until(lambda: all("RTC: server listen" in (run / f"edge-{k}.log").read_text()
                                      for k in (1, 2, 3)), 10)
        assert api_get(origin_api, "/api/v1/summaries")["pid"] == str(pids[0])
        for k in (1, 2, 3):
            j = api_get(api_base + k, "/api/v1/summaries")
            assert j["pid"] == str(pids[k]), (k, j["pid"], pids)
            assert j["data"]["self"]["pid"] == pids[k]
            assert udp_port_taken(rtc_base + k), f"edge-{k} does not hold its WebRTC UDP port {rtc_base + k}"
            log = (run / f"edge-{k}.log").read_text()
            if os.geteuid() == 0:  # without CAP_BPF the edges warn and keep the hash
                assert "reuseport_balance: connections in turn over 3 sockets" in log
        # A WebRTC session must reach the process that answered its offer:
        # each edge's answer names its own UDP port.
        for k in (1, 2, 3):
            port = answer_candidate_port(f"127.0.0.1:{api_base + k}")
            print("edge", k, "candidate port", port, "expected", rtc_base + k)
            assert port == rtc_base + k, (k, port, rtc_base + k)
        # The edges share the RTMP and HTTP ports.
        assert can_connect(edge_rtmp) and can_connect(edge_http)
        st = script("status")
        assert st.returncode == 0, st.stdout + st.stderr
        assert st.stdout.count("running") == 4, st.stdout
        assert f"api {api_base + 2}" in st.stdout
        # A second start finds them running and starts nothing.
        again = script("start", "3")
        assert again.stdout.count("already runs") == 4, again.stdout
        stop = script("stop")
        assert stop.returncode == 0, stop.stdout + stop.stderr
        assert wait_until(lambda: not any(running(p) for p in pids), 15)
        assert not any(f.exists() for f in pid_files)
        assert script("status").stdout.strip() == ""
    finally:
        for p in pids:
            try:
                os.kill(p, 9)
            except ProcessLookupError:
                pass

#!/usr/bin/env python3
"""Edge benchmark: what an edge costs, and whether edge processes scale.

One run, everything on loopback, every process stopped by PID:
  1. origin:        N RTMP players on the origin directly (ffmpeg publishes
                    the bench stream to it): the origin's CPU;
  2. edge:          the same N players on an edge process pulling that stream
                    from the origin (vhost cluster { mode remote; }): the
                    edge's CPU, the origin's CPU (one upstream player);
  3. nginx-rtmp, same two rows: one worker playing N players, then a second
                    nginx-rtmp that pulls (application { pull rtmp://...; })
                    and plays them, as the same-run yardstick;
  4. two edges:     two edge processes sharing one RTMP port (SO_REUSEPORT),
                    N players: each process's CPU per player it carries,
                    against the single edge's figure of row 2.
The load tool (sb_rtmp_load) is pinned to core 0 in every row (taskset), so
the servers get the same share of the other core in each.

  python3 test/bench/edge_bench.py --srs objs/variants/release/objs/srs \\
      --load objs/variants/release/objs/sb_rtmp_load --clients 1000

Build the server with ./configure --sanitizer=off for numbers that mean anything.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TRUNK = HERE.parents[1]
sys.path.insert(0, str(HERE))
import rtmp_play_bench  # noqa: E402
from rtmp_play_bench import proc_cpu_seconds, proc_rss_kb, stop  # noqa: E402

ORIGIN, EDGE, NGINX_ORIGIN, NGINX_EDGE = 19481, 19482, 19483, 19484
STREAM = "live/livestream"


def conns_of(pid, port):
    """Established TCP connections on local `port` whose socket `pid` holds."""
    inodes = set()
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if link.startswith("socket:["):
                inodes.add(link[8:-1])
    except OSError:
        return 0
    n = 0
    for path in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(path) as f:
            next(f)
            for line in f:
                parts = line.split()
                if int(parts[1].split(":")[1], 16) == port and parts[3] == "01" and parts[9] in inodes:
                    n += 1
    return n


def srs_conf(work, name, port, extra=""):
    d = work / name
    d.mkdir(exist_ok=True)
    conf = d / "srs.conf"
    conf.write_text(f"listen {port};\nmax_connections 20000;\ndaemon off;\npid {d}/srs.pid;\n"
                    f"srs_log_tank file;\nsrs_log_file {d}/srs.log;\n"
                    f"vhost __defaultVhost__ {{\n{extra}}}\n")
    return conf


def start(cmd):
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def start_srs(binary, work, name, port, origin=None):
    extra = f"    cluster {{\n        mode remote;\n        origin 127.0.0.1:{origin};\n    }}\n" if origin else ""
    return start([binary, "-c", str(srs_conf(work, name, port, extra))])


def start_nginx(binary, work, name, port, pull_from=None):
    d = work / name
    d.mkdir(exist_ok=True)
    pull = f"pull rtmp://127.0.0.1:{pull_from}/live;" if pull_from else ""
    return rtmp_play_bench.start_nginx(binary, port, d, app_extra=pull)


def wait_listening(port, timeout=10):
    import socket
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.1)
    return False


def publish(media, port):
    return start(["ffmpeg", "-hide_banner", "-loglevel", "error", "-re", "-stream_loop", "-1", "-i", str(media),
                  "-c", "copy", "-f", "flv", f"rtmp://127.0.0.1:{port}/{STREAM}"])


def run_players(args, play_port, servers, ports):
    """Runs args.clients players of play_port (load tool on core 0) and
    samples each of `servers` (name -> Popen) over args.window s, with the
    connections it holds on its own port (ports: name -> port). Returns
    {name: {cpu, conns, rss_mb}} and the load tool's summary."""
    run_for = args.settle + args.window + 5
    cmd = [args.load, "-c", str(args.clients), "-r", f"rtmp://127.0.0.1:{play_port}/{STREAM}",
           "-s", str(args.spread), "-t", str(run_for), "-m", "100000", "--json"]
    if shutil.which("taskset") and os.cpu_count() > 1:
        cmd = ["taskset", "-c", "0"] + cmd
    load = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        time.sleep(args.settle)
        t0 = time.monotonic()
        c0 = {n: proc_cpu_seconds(p.pid) for n, p in servers.items()}
        time.sleep(args.window)
        t1 = time.monotonic()
        rows = {}
        for n, p in servers.items():
            rows[n] = {"cpu": 100.0 * (proc_cpu_seconds(p.pid) - c0[n]) / (t1 - t0),
                       "conns": conns_of(p.pid, ports[n]), "rss_mb": proc_rss_kb(p.pid) / 1024.0}
        out, _ = load.communicate(timeout=run_for + 30)
        summary = json.loads(out.strip().splitlines()[-1]) if out.strip() else {}
    finally:
        stop(load, signal.SIGINT)
    return rows, summary


def scenario(args, work, name, starts, publish_port, play_port, sample):
    """Starts the servers (list of (key, thunk, port)), the publisher, runs the
    players and stops everything. Returns the rows of the servers in `sample`."""
    procs = {}
    pub = None
    try:
        for key, thunk, port in starts:
            procs[key] = thunk()
            if not wait_listening(port):
                raise RuntimeError(f"{name}: {key} did not listen on {port}")
        pub = publish(args.media, publish_port)
        time.sleep(3)
        ports = {key: port for key, _, port in starts}
        rows, summary = run_players(args, play_port, {k: procs[k] for k in sample}, ports)
        for r in rows.values():
            r["alive"], r["verify_ok"], r["kbps"] = summary.get("alive"), summary.get("verify_ok"), summary.get("kbps")
        return rows
    finally:
        stop(pub, signal.SIGINT)
        for p in reversed(list(procs.values())):
            stop(p)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--srs", default="objs/srs")
    p.add_argument("--load", default="objs/sb_rtmp_load")
    p.add_argument("--nginx", default="/usr/sbin/nginx")
    p.add_argument("--media", default="objs/bench/bench.flv", help="made by test/bench/run if absent")
    p.add_argument("--clients", type=int, default=1000)
    p.add_argument("--spread", type=int, default=5000, help="ms to start the players over")
    p.add_argument("--settle", type=int, default=12, help="s after starting the load before sampling")
    p.add_argument("--window", type=int, default=20, help="s of CPU sampling")
    p.add_argument("--no-nginx", action="store_true")
    p.add_argument("--json", help="also write the rows to this file")
    args = p.parse_args()
    if not Path(args.media).exists():
        sys.exit(f"{args.media} is missing: run test/bench/run once, or pass --media")

    srs, nginx = args.srs, args.nginx
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        out["origin"] = scenario(args, work, "origin", [("origin", lambda: start_srs(srs, work, "o1", ORIGIN), ORIGIN)],
                                 ORIGIN, ORIGIN, ["origin"])["origin"]
        rows = scenario(args, work, "edge", [
            ("origin", lambda: start_srs(srs, work, "o2", ORIGIN), ORIGIN),
            ("edge", lambda: start_srs(srs, work, "e2", EDGE, origin=ORIGIN), EDGE)], ORIGIN, EDGE, ["edge", "origin"])
        out["edge"], out["edge_origin"] = rows["edge"], rows["origin"]
        if not args.no_nginx and Path(nginx).exists():
            out["nginx"] = scenario(args, work, "nginx", [
                ("nginx", lambda: start_nginx(nginx, work, "n1", NGINX_ORIGIN), NGINX_ORIGIN)],
                NGINX_ORIGIN, NGINX_ORIGIN, ["nginx"])["nginx"]
            rows = scenario(args, work, "nginx-edge", [
                ("nginx", lambda: start_nginx(nginx, work, "n2", NGINX_ORIGIN), NGINX_ORIGIN),
                ("nginx_edge", lambda: start_nginx(nginx, work, "n3", NGINX_EDGE, pull_from=NGINX_ORIGIN), NGINX_EDGE)],
                NGINX_ORIGIN, NGINX_EDGE, ["nginx_edge"])
            out["nginx_edge"] = rows["nginx_edge"]
        rows = scenario(args, work, "two edges", [
            ("origin", lambda: start_srs(srs, work, "o3", ORIGIN), ORIGIN),
            ("edge_a", lambda: start_srs(srs, work, "e3a", EDGE, origin=ORIGIN), EDGE),
            ("edge_b", lambda: start_srs(srs, work, "e3b", EDGE, origin=ORIGIN), EDGE)], ORIGIN, EDGE,
            ["edge_a", "edge_b"])
        out["edge_a"], out["edge_b"] = rows["edge_a"], rows["edge_b"]

    n = args.clients
    print(f"{'Row':<12} {'Players':>7} {'CPU%':>7} {'CPU%/1000 players':>18} {'Mem(MB)':>8} {'alive':>6}")
    for key, r in out.items():
        # The two-edge rows and the origin behind an edge count what they hold
        # (the origin: its upstream players, one per edge).
        players = r["conns"] if key.startswith("edge_") else n
        per_k = 1000.0 * r["cpu"] / players if players and key != "edge_origin" else 0.0
        r["players"], r["cpu_per_1000"] = players, per_k
        print(f"{key:<12} {players:>7} {r['cpu']:>7.1f} {per_k:>18.2f} {r['rss_mb']:>8.1f} {str(r['alive']):>6}")
    if out["origin"]["cpu"] > 0:
        print(f"edge / origin CPU = {out['edge']['cpu'] / out['origin']['cpu']:.2f} (target <= 1.10)")
    if "nginx" in out and out["nginx"]["cpu"] > 0:
        print(f"nginx-rtmp pull edge / nginx-rtmp origin CPU = {out['nginx_edge']['cpu'] / out['nginx']['cpu']:.2f}")
        print(f"ours / nginx-rtmp: origin {out['origin']['cpu'] / out['nginx']['cpu']:.2f}, "
              f"edge {out['edge']['cpu'] / max(0.01, out['nginx_edge']['cpu']):.2f}")
    single = out["edge"]["cpu_per_1000"]
    for key in ("edge_a", "edge_b"):
        if single > 0:
            print(f"{key}: {out[key]['players']} players, CPU per player {out[key]['cpu_per_1000'] / single:.2f} "
                  f"x the single edge's (target within 0.90-1.10)")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

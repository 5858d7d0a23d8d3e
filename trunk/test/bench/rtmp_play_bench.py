#!/usr/bin/env python3
"""RTMP play benchmark: our server and nginx-rtmp, same stream, same load, one run.

For each server in turn: publish the test stream (ffmpeg -c copy, looped, real
time), start N players with objs/sb_rtmp_load, let them settle, then sample the
server process's CPU (utime+stime from /proc over a fixed window), RSS,
connection count and bandwidth. Prints SRS-style rows and the ratios.

  python3 test/bench/rtmp_play_bench.py --srs objs/srs --load objs/sb_rtmp_load \
      --media bench.flv --clients 1000 [--nginx /usr/sbin/nginx]

Build the server with ./configure --sanitizer=off for numbers that mean anything.
Everything runs on loopback; every process started is stopped.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HZ = os.sysconf("SC_CLK_TCK")


def proc_cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / HZ


def proc_rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def memory_classes(pid):
    """RSS (KiB) of the process by kind of mapping, from /proc/PID/smaps:
    "stacks" (a read-write anonymous mapping right above a one-page
    PROT_NONE guard: our coroutine stacks, src/st/stack.c), "heap" (the brk
    heap and the other anonymous mappings: malloc), "file" (the binary and
    libraries) and "count" (how many stacks)."""
    out = {"stacks": 0, "heap": 0, "file": 0, "count": 0}
    prev_end, prev_guard = None, False
    cur = None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            head = line.split()
            if "-" in head[0] and len(head) >= 5 and ":" not in head[0]:
                lo, hi = (int(x, 16) for x in head[0].split("-"))
                perms, inode = head[1], head[4]
                name = head[5] if len(head) > 5 else ""
                if inode != "0" or name.startswith("/"):
                    cur = "file"
                elif perms.startswith("rw") and prev_guard and prev_end == lo:
                    cur = "stacks"
                    out["count"] += 1
                else:
                    cur = "heap"
                prev_guard = perms.startswith("---") and hi - lo == 4096 and inode == "0"
                prev_end = hi
            elif head[0] == "Rss:" and cur:
                out[cur] += int(head[1])
    return out


def tcp_conns(port):
    n = 0
    for path in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(path) as f:
                next(f)
                for line in f:
                    parts = line.split()
                    if int(parts[1].split(":")[1], 16) == port and parts[3] == "01":
                        n += 1
        except FileNotFoundError:
            pass
    return n


def stop(proc, sig=signal.SIGTERM):
    if proc and proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


def start_srs(binary, port, work, http_port=None, vhost_extra=""):
    """Our server on RTMP `port`; with http_port, its HTTP server too, serving
    HTTP-FLV at http://127.0.0.1:<http_port>/<app>/<stream>.flv. vhost_extra
    goes into the default vhost (e.g. "publish { mr on; }")."""
    conf = work / "srs.conf"
    http, remux = "", vhost_extra
    if http_port:
        http = f"http_server {{\n    enabled on;\n    listen {http_port};\n}}\n"
        remux += "    http_remux {\n        enabled on;\n        mount [vhost]/[app]/[stream].flv;\n    }\n"
    conf.write_text(f"listen {port};\nmax_connections 20000;\ndaemon off;\npid {work}/srs.pid;\n"
                    f"srs_log_tank file;\nsrs_log_file {work}/srs.log;\n{http}vhost __defaultVhost__ {{\n{remux}}}\n")
    return subprocess.Popen([binary, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def start_nginx(binary, port, work, app_extra=""):
    """nginx-rtmp (one worker, live on) on RTMP `port`; app_extra goes into
    application live (e.g. "pull rtmp://...;" for a pulling edge)."""
    conf = work / "nginx.conf"
    conf.write_text(f"""load_module /usr/lib/nginx/modules/ngx_rtmp_module.so;
worker_processes 1;
daemon off;
master_process off;
error_log {work}/nginx-error.log;
pid {work}/nginx.pid;
worker_rlimit_nofile 20000;
events {{ worker_connections 20000; }}
rtmp {{ server {{ listen {port}; chunk_size 60000; application live {{ live on; {app_extra} }} }} }}
""")
    return subprocess.Popen([binary, "-c", str(conf), "-p", str(work)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def measure_players(name, server, publish_url, load_binary, play_url, conn_port, args):
    """Publishes args.media to publish_url, then runs args.clients players of
    play_url with load_binary (sb_rtmp_load or sb_http_load: same options);
    after args.settle s samples the server's CPU over args.window s, then its
    RSS and the connections to conn_port. Stops the players and the publisher."""
    time.sleep(1)
    pub = subprocess.Popen(["ffmpeg", "-hide_banner", "-loglevel", "error", "-re", "-stream_loop", "-1", "-i",
                            args.media, "-c", "copy", "-f", "flv", publish_url], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    load = None
    try:
        time.sleep(3)
        idle_rss = proc_rss_kb(server.pid)
        run_for = args.settle + args.window + 5
        load = subprocess.Popen([load_binary, "-c", str(args.clients), "-r", play_url, "-s", str(args.spread),
                                 "-t", str(run_for), "-m", "100000", "--json"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        time.sleep(args.settle)
        c0, l0, t0 = proc_cpu_seconds(server.pid), proc_cpu_seconds(load.pid), time.monotonic()
        time.sleep(args.window)
        c1, l1, t1 = proc_cpu_seconds(server.pid), proc_cpu_seconds(load.pid), time.monotonic()
        rss = proc_rss_kb(server.pid)
        load_rss = proc_rss_kb(load.pid)
        conns = tcp_conns(conn_port)
        out, _ = load.communicate(timeout=run_for + 30)
        summary = json.loads(out.strip().splitlines()[-1]) if out.strip() else {}
    finally:
        stop(load, signal.SIGINT)
        stop(pub, signal.SIGINT)
    cpu = 100.0 * (c1 - c0) / (t1 - t0)
    return {
        "server": name, "cpu": cpu, "rss_mb": rss / 1024.0, "idle_rss_mb": idle_rss / 1024.0,
        "per_player_kb": (rss - idle_rss) / max(1, args.clients), "conns": conns,
        "load_cpu": 100.0 * (l1 - l0) / (t1 - t0), "alive": summary.get("alive"), "kbps": summary.get("kbps"),
        "failed": summary.get("failed"), "verify_ok": summary.get("verify_ok"), "load_rss_mb": load_rss / 1024.0,
    }


def measure(name, server, port, args):
    url = f"rtmp://127.0.0.1:{port}/live/livestream"
    return measure_players(name, server, url, args.load, url, port, args)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--srs", default="objs/srs")
    p.add_argument("--load", default="objs/sb_rtmp_load")
    p.add_argument("--nginx", default="/usr/sbin/nginx")
    p.add_argument("--media", required=True)
    p.add_argument("--clients", type=int, default=1000)
    p.add_argument("--spread", type=int, default=5000, help="ms to start all players over")
    p.add_argument("--settle", type=int, default=12, help="s after starting the load before sampling")
    p.add_argument("--window", type=int, default=20, help="s of CPU sampling")
    p.add_argument("--json", help="also write the rows to this file")
    args = p.parse_args()

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name in ("srs", "nginx-rtmp"):
            d = work / name
            d.mkdir()
            port = 19351 if name == "srs" else 19352
            server = start_srs(args.srs, port, d) if name == "srs" else start_nginx(args.nginx, port, d)
            try:
                rows.append(measure(name, server, port, args))
            finally:
                stop(server)

    print(f"{'Server':<11} {'Clients':>7} {'CPU%':>7} {'Mem(MB)':>8} {'KB/player':>9} {'Conn':>6} "
          f"{'ANbps(kbps)':>12} {'alive':>6} {'sbCPU%':>7}")
    for r in rows:
        print(f"{r['server']:<11} {args.clients:>7} {r['cpu']:>7.1f} {r['rss_mb']:>8.1f} {r['per_player_kb']:>9.1f} "
              f"{r['conns']:>6} {str(r['kbps']):>12} {str(r['alive']):>6} {r['load_cpu']:>7.1f}")
    ours, nginx = rows[0], rows[1]
    if nginx["cpu"] > 0:
        print(f"CPU ours/nginx-rtmp = {ours['cpu'] / nginx['cpu']:.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""HTTP-FLV against RTMP play on our server, one stream, one run.

Phases, each on a fresh server process (so each has its own idle baseline),
the same media published the same way (ffmpeg -re -stream_loop -1 -c copy),
the same player count, start spread, settle time and sampling window:

  1. our server, N RTMP players (objs/sb_rtmp_load)
  2. our server, N HTTP-FLV players (objs/sb_http_load) of the same stream
  3. nginx-rtmp, N RTMP players, for reference (skipped with --no-nginx or
     when nginx is not installed)

With --rounds R, phases 1 and 2 run R times each, in the order RTMP, HTTP-FLV,
HTTP-FLV, RTMP, RTMP, ... (so drift in the machine's load hits both alike),
and the ratios are of the medians.

For each: the server's CPU (utime+stime from /proc over the window), RSS,
KB per player over the idle process, connections, the players' bandwidth and
verification, the load tool's CPU. Then the ratios HTTP-FLV/RTMP.

  python3 test/bench/http_flv_bench.py --media bench.flv --clients 1000 [--rounds 3]

Build with ./configure --sanitizer=off for numbers that mean anything.
Everything runs on loopback; every process started is stopped by PID.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from rtmp_play_bench import measure_players, start_nginx, start_srs, stop  # noqa: E402

RTMP_PORT, HTTP_PORT, NGINX_PORT = 19361, 18361, 19362


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--srs", default="objs/srs")
    p.add_argument("--rtmp-load", default="objs/sb_rtmp_load")
    p.add_argument("--http-load", default="objs/sb_http_load")
    p.add_argument("--nginx", default="/usr/sbin/nginx")
    p.add_argument("--no-nginx", action="store_true", help="skip the nginx-rtmp reference phase")
    p.add_argument("--media", required=True)
    p.add_argument("--clients", type=int, default=1000)
    p.add_argument("--spread", type=int, default=5000, help="ms to start all players over")
    p.add_argument("--settle", type=int, default=12, help="s after starting the load before sampling")
    p.add_argument("--window", type=int, default=20, help="s of CPU sampling")
    p.add_argument("--rounds", type=int, default=1, help="RTMP and HTTP-FLV phases of our server, each (1..9)")
    p.add_argument("--json", help="also write the rows to this file")
    args = p.parse_args()
    if not 1 <= args.clients <= 20000 or args.window <= 0 or args.settle < 0 or not 1 <= args.rounds <= 9:
        p.error("--clients 1..20000, --window > 0, --settle >= 0, --rounds 1..9")

    rtmp_url = f"rtmp://127.0.0.1:{RTMP_PORT}/live/livestream"
    flv_url = f"http://127.0.0.1:{HTTP_PORT}/live/livestream.flv"
    nginx_url = f"rtmp://127.0.0.1:{NGINX_PORT}/live/livestream"
    ours_rtmp = ("ours", "RTMP", lambda d: start_srs(args.srs, RTMP_PORT, d, HTTP_PORT), args.rtmp_load, rtmp_url,
                 RTMP_PORT)
    ours_flv = ("ours", "HTTP-FLV", lambda d: start_srs(args.srs, RTMP_PORT, d, HTTP_PORT), args.http_load, flv_url,
                HTTP_PORT)
    phases = []
    for i in range(args.rounds):
        phases += [ours_rtmp, ours_flv] if i % 2 == 0 else [ours_flv, ours_rtmp]
    if not args.no_nginx and os.path.exists(args.nginx):
        phases.append(("nginx-rtmp", "RTMP", lambda d: start_nginx(args.nginx, NGINX_PORT, d), args.rtmp_load,
                       nginx_url, NGINX_PORT))

    load_before = os.getloadavg()[0]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (server_name, proto, start, load, play_url, conn_port) in enumerate(phases):
            d = Path(tmp) / f"phase{i}"
            d.mkdir()
            server = start(d)
            try:
                publish_url = nginx_url if server_name == "nginx-rtmp" else rtmp_url
                row = measure_players(server_name, server, publish_url, load, play_url, conn_port, args)
            finally:
                stop(server)
            row["protocol"] = proto
            rows.append(row)

    print(f"load average (1 min) before {load_before:.2f}, after {os.getloadavg()[0]:.2f} "
          f"(anything else running skews the CPU figures)")
    print(f"{'Server':<11} {'Protocol':<9} {'Players':>7} {'CPU%':>6} {'Mem(MB)':>8} {'Idle(MB)':>8} "
          f"{'KB/player':>9} {'Conn':>5} {'kbps':>9} {'alive':>5} {'verify':>6} {'sbCPU%':>6} {'sbRSS(MB)':>9}")
    for r in rows:
        print(f"{r['server']:<11} {r['protocol']:<9} {args.clients:>7} {r['cpu']:>6.1f} {r['rss_mb']:>8.1f} "
              f"{r['idle_rss_mb']:>8.1f} {r['per_player_kb']:>9.1f} {r['conns']:>5} {str(r['kbps']):>9} "
              f"{str(r['alive']):>5} {str(r['verify_ok']):>6} {r['load_cpu']:>6.1f} {r['load_rss_mb']:>9.1f}")
    ours = [r for r in rows if r["server"] == "ours"]
    nginx = [r for r in rows if r["server"] == "nginx-rtmp"]

    def median(proto, key):
        return statistics.median(r[key] for r in ours if r["protocol"] == proto)

    rtmp_cpu, flv_cpu = median("RTMP", "cpu"), median("HTTP-FLV", "cpu")
    rtmp_kb, flv_kb = median("RTMP", "per_player_kb"), median("HTTP-FLV", "per_player_kb")
    what = "medians of %d rounds: " % args.rounds if args.rounds > 1 else ""
    if args.rounds > 1:
        print(f"median CPU%: RTMP {rtmp_cpu:.1f}, HTTP-FLV {flv_cpu:.1f}; "
              f"median KB/player: RTMP {rtmp_kb:.1f}, HTTP-FLV {flv_kb:.1f}")
    if rtmp_cpu > 0:
        print(f"CPU HTTP-FLV/RTMP = {flv_cpu / rtmp_cpu:.2f} ({what}target <= 1.2)")
    if rtmp_kb > 0:
        print(f"KB/player HTTP-FLV/RTMP = {flv_kb / rtmp_kb:.2f}")
    if nginx and nginx[0]["cpu"] > 0:
        print(f"CPU ours RTMP/nginx-rtmp = {rtmp_cpu / nginx[0]['cpu']:.2f}, "
              f"ours HTTP-FLV/nginx-rtmp = {flv_cpu / nginx[0]['cpu']:.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    ok = all(r["alive"] == args.clients and r["verify_ok"] for r in ours)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Forward benchmark: SRS's own benchmark layout, measured in one run.

  ffmpeg --RTMP--> ours --forward--> nginx-rtmp
                    |                    |
        N sb_rtmp_load players   N sb_rtmp_load players

ffmpeg publishes the bench stream (objs/bench/bench.flv, looped, real time)
to our server, whose vhost says `forward 127.0.0.1:PORT;` (SRS's one-line
form); nginx-rtmp (Debian's nginx + libnginx-mod-rtmp, one worker, live on,
its own conf in a temp dir) receives the forward. Then N players on ours and
N on nginx-rtmp start together (two sb_rtmp_load processes, one per server),
and over the same window the script samples, from /proc/PID/stat and status:
  - CPU of each server, of each load tool and of ffmpeg;
  - each server's CPU before the players (the publisher and the forward
    only), its RSS then and with the players;
  - what the players received (the load tools' --json summaries: players
    alive, bytes and video frames per player, verification of keyframe
    first and timestamps in order), against what the stream carries;
  - the forward itself: one attempt, never retried during the run.

  cd trunk && test/bench/forward_bench.py                 # 1000 + 1000 players
  test/bench/forward_bench.py --clients 200 --out objs/bench/forward.md

Without --srs it builds the --sanitizer=off server and tools the way
test/bench/run does (objs/variants/release); never measure the ASAN build.
Everything listens on 127.0.0.1 and every process started is stopped by PID.
"""
import argparse
import json
import os
import platform
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TRUNK = HERE.parents[1]
sys.path.insert(0, str(HERE))
from bench_options import add_common_options, resolve_common  # noqa: E402
from rtmp_play_bench import proc_cpu_seconds, proc_rss_kb, stop  # noqa: E402

OURS_PORT, NGINX_PORT = 19391, 19392
STREAM = "live/livestream"
NGINX_MODULE = "/usr/lib/nginx/modules/ngx_rtmp_module.so"


def start_ours(binary, work, nginx_port):
    conf = work / "srs.conf"
    conf.write_text(f"listen 127.0.0.1:{OURS_PORT};\nmax_connections 20000;\ndaemon off;\npid {work}/srs.pid;\n"
                    f"srs_log_tank file;\nsrs_log_file {work}/srs.log;\n"
                    f"vhost __defaultVhost__ {{\n    forward 127.0.0.1:{nginx_port};\n}}\n")
    return subprocess.Popen([str(binary), "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def start_nginx(binary, work):
    """One worker, live on, chunk_size as the kit's nginx-rtmp (60000)."""
    conf = work / "nginx.conf"
    conf.write_text(f"""load_module {NGINX_MODULE};
worker_processes 1;
daemon off;
master_process off;
error_log {work}/nginx-error.log;
pid {work}/nginx.pid;
worker_rlimit_nofile 20000;
events {{ worker_connections 20000; }}
rtmp {{ server {{ listen 127.0.0.1:{NGINX_PORT}; chunk_size 60000; application live {{ live on; }} }} }}
""")
    return subprocess.Popen([binary, "-c", str(conf), "-p", str(work)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise RuntimeError(f"timed out waiting for {what}")


def listening(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def text(path):
    try:
        return Path(path).read_text(errors="replace")
    except FileNotFoundError:
        return ""


def players(load, port, args):
    run_for = args.settle + args.window + 5
    return subprocess.Popen([str(load), "-c", str(args.clients), "-r", f"rtmp://127.0.0.1:{port}/{STREAM}",
                             "-s", str(args.spread), "-t", str(run_for), "-m", "100000", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def summary_of(load, args):
    try:
        out, _ = load.communicate(timeout=args.settle + args.window + 60)
    except subprocess.TimeoutExpired:
        stop(load, signal.SIGINT)
        return {}
    lines = out.strip().splitlines()
    try:
        return json.loads(lines[-1]) if lines else {}
    except ValueError:
        return {}


def cpu_over(procs, seconds):
    """CPU % of each Popen in `procs` (name -> Popen) over the same `seconds`."""
    c0, t0 = {n: proc_cpu_seconds(p.pid) for n, p in procs.items()}, time.monotonic()
    time.sleep(seconds)
    t1 = time.monotonic()
    return {n: 100.0 * (proc_cpu_seconds(p.pid) - c0[n]) / (t1 - t0) for n, p in procs.items()}


def run_once(args, tools, media, work):
    ours_dir, nginx_dir = work / "ours", work / "nginx"
    ours_dir.mkdir()
    nginx_dir.mkdir()
    nginx = start_nginx(args.nginx, nginx_dir)
    ours = start_ours(args.srs, ours_dir, NGINX_PORT)
    pub = load_ours = load_nginx = None
    try:
        wait_for(lambda: listening(NGINX_PORT) and listening(OURS_PORT), 10, "both servers to listen")
        pub = subprocess.Popen(["ffmpeg", "-hide_banner", "-loglevel", "error", "-re", "-stream_loop", "-1", "-i",
                                str(media), "-c", "copy", "-f", "flv", f"rtmp://127.0.0.1:{OURS_PORT}/{STREAM}"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: re.search(r"forward \S+ to rtmp://\S+ started", text(ours_dir / "srs.log")), 15,
                 "the forward to start")
        time.sleep(2)
        # The publisher and the forward alone: what the forward costs ours,
        # what receiving it costs nginx-rtmp.
        idle_cpu = cpu_over({"ours": ours, "nginx": nginx}, args.idle_window)
        idle_rss = {"ours": proc_rss_kb(ours.pid), "nginx": proc_rss_kb(nginx.pid)}
        # Both sides' players start together.
        load_ours = players(tools / "sb_rtmp_load", OURS_PORT, args)
        load_nginx = players(tools / "sb_rtmp_load", NGINX_PORT, args)
        time.sleep(args.settle)
        cpu = cpu_over({"ours": ours, "nginx": nginx, "load_ours": load_ours, "load_nginx": load_nginx,
                        "ffmpeg": pub}, args.window)
        rss = {"ours": proc_rss_kb(ours.pid), "nginx": proc_rss_kb(nginx.pid)}
        sums = {"ours": summary_of(load_ours, args), "nginx": summary_of(load_nginx, args)}
        log = text(ours_dir / "srs.log")
    finally:
        for p in (load_ours, load_nginx):
            stop(p, signal.SIGINT)
        stop(pub, signal.SIGINT)
        stop(ours)
        stop(nginx)
    attempts = len(re.findall(r"forward \S+ to rtmp://\S+ started", log))
    retries = log.count("again in 3s")
    rows = []
    for name, label in (("ours", "ours (forwards to nginx-rtmp)"), ("nginx", "nginx-rtmp (fed by the forward)")):
        s = sums[name]
        clients = s.get("clients") or args.clients
        rows.append({
            "server": label, "players": args.clients, "alive": s.get("alive"), "failed": s.get("failed"),
            "reconnects": s.get("reconnects"), "verify_ok": s.get("verify_ok"), "cpu": cpu[name],
            "idle_cpu": idle_cpu[name], "rss_mb": rss[name] / 1024, "idle_rss_mb": idle_rss[name] / 1024,
            "kb_per_player": (rss[name] - idle_rss[name]) / max(1, args.clients),
            "kbps": s.get("kbps") or 0, "kbps_per_player": (s.get("kbps") or 0) / max(1, clients),
            "bytes_per_player": (s.get("bytes") or 0) / max(1, clients),
            "frames_min": s.get("per_client_video_frames_min"), "frames_max": s.get("per_client_video_frames_max"),
            "load_cpu": cpu["load_" + name]})
    return {"rows": rows, "ffmpeg_cpu": cpu["ffmpeg"], "forward_attempts": attempts, "forward_retries": retries}


def table(result, media_kbps):
    """The two rows (ours, nginx-rtmp) and the line under them, as markdown."""
    lines = ["| server | players | alive | CPU | CPU before players | RSS | KB/player | kbps per player "
             "(stream " + str(media_kbps) + ") | video frames per player | verified | load tool CPU |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in result["rows"]:
        lines.append(f"| {r['server']} | {r['players']} | {r['alive']} | {r['cpu']:.1f}% | {r['idle_cpu']:.1f}% | "
                     f"{r['rss_mb']:.0f}MB | {r['kb_per_player']:.1f} | {r['kbps_per_player']:.0f} | "
                     f"{r['frames_min']}-{r['frames_max']} | {r['verify_ok']} | {r['load_cpu']:.1f}% |")
    ours, nginx = result["rows"]
    ratio = f"{ours['cpu'] / nginx['cpu']:.2f}" if nginx["cpu"] > 0 else "-"
    lines += ["", f"CPU ours/nginx-rtmp: {ratio}; ffmpeg (publisher): {result['ffmpeg_cpu']:.1f}%; "
              f"forward attempts: {result['forward_attempts']} (retries: {result['forward_retries']})."]
    return "\n".join(lines)


def markdown(result, args, media_kbps, media):
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=TRUNK, capture_output=True,
                            text=True).stdout.strip()
    cpu_model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                      if line.startswith("model name")), "?")
    return "\n".join([f"Machine: {os.cpu_count()} CPUs ({cpu_model}), {platform.platform()}; commit {commit}; "
                      f"stream {media.name} ({media_kbps} kbps); window {args.window} s after {args.settle} s; "
                      f"players started over {args.spread} ms.", "",
                      "Command: `test/bench/forward_bench.py " + shlex.join(sys.argv[1:]) + "`", "",
                      table(result, media_kbps)])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_options(p, "forward.md", "sb_rtmp_load", spread=5000, settle=12, window=20,
                       settle_help="s after starting the players before sampling")
    p.add_argument("--clients", type=int, default=1000, help="players on each server")
    p.add_argument("--max", type=int, default=5000, help="upper bound of --clients")
    p.add_argument("--idle-window", type=int, default=5, help="s of CPU sampling before the players")
    args = p.parse_args()
    if not 1 <= args.clients <= args.max:
        sys.exit(f"--clients must be 1..{args.max} (--max)")
    if not (Path(args.nginx).exists() and Path(NGINX_MODULE).exists()):
        sys.exit("nginx-rtmp not found (3rdparty/install.sh bench installs it): this benchmark needs it")

    _, tools, media, kbps = resolve_common(args)
    with tempfile.TemporaryDirectory() as tmp:
        result = run_once(args, tools, media, Path(tmp))
    md = markdown(result, args, kbps, media)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(md + "\n")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    print(md)
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

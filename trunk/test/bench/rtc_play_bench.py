#!/usr/bin/env python3
"""WebRTC players against one published stream: the server's CPU and memory
per player and the players' time to first frame (issue 12's targets: at
most 0.05 % of a core and 64 KiB per player at 200 and 1,000 players, TTFF
p50 at most 300 ms).

  cd trunk && test/bench/rtc_play_bench.py --clients 100,200,1000
  test/bench/rtc_play_bench.py --srs objs/variants/release/objs/srs --tools-dir objs/variants/release/objs

One server process (built --sanitizer=off: by default the bench kit's
objs/variants/release, built by test/bench/run's build step when missing)
with WebRTC on loopback; one publisher, sb_rtc_publish, relaying ffmpeg's
RTP of the bench stream (768x320, ~600 kbps H.264 + Opus, 2 s GOP) into a
WHIP session, so publishing costs no encoding; then, for each player count,
sb_rtc_load players joining over --spread ms through WHEP. Once they all
play, the server's CPU (utime+stime from /proc over --window s) and RSS are
sampled; the load tool's JSON gives TTFF, gaps and decryption failures.

The publisher's GOP is fixed (ffmpeg cannot honour a PLI), so a player's
first frame waits for the next keyframe: TTFF here is bounded by the GOP.
With a publisher that honours PLIs (browsers, OBS, aiortc) the server's
keyframe request on the player's behalf makes it short: --ttff-publisher
aiortc measures that with test/rtc_client.py (which encodes, so its CPU
is not part of the table).

Every process started is stopped by PID; everything stays on loopback.
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
TRUNK = HERE.parents[1]
sys.path.insert(0, str(HERE))
from rtmp_play_bench import proc_cpu_seconds, proc_rss_kb, stop  # noqa: E402


def free_port(kind=socket.SOCK_STREAM):
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def api_get(port, path):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
        return json.loads(r.read())


def rtc_clients(port, kind):
    try:
        data = api_get(port, "/api/v1/clients?count=5000")
    except OSError:
        return 0
    return sum(1 for c in data.get("clients", []) if c.get("type") == kind)


def wait_until(pred, timeout, interval=0.2):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(interval)
    return pred()


def make_media(path):
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y",
                    "-f", "lavfi", "-i", "testsrc2=size=768x320:rate=25",
                    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
                    "-c:v", "libx264", "-preset", "veryfast", "-profile:v", "baseline", "-g", "50",
                    "-b:v", "550k", "-maxrate", "600k", "-bufsize", "600k",
                    "-c:a", "aac", "-b:a", "48k", "-t", "120", str(path)], check=True)
    return path


class Server:
    """One server with the API and WebRTC on loopback; rtc_extra goes into the vhost's rtc block."""

    def __init__(self, srs, workdir, rtc_extra=""):
        self.workdir = workdir
        self.rtmp = free_port()
        self.api = free_port()
        self.rtc = free_port(socket.SOCK_DGRAM)
        self.log = workdir / "srs.log"
        conf = workdir / "rtc.conf"
        conf.write_text(
            f"listen {self.rtmp};\nmax_connections 5000;\ndaemon off;\nsrs_log_tank file;\n"
            f"srs_log_file {self.log};\npid {workdir / 'srs.pid'};\n"
            f"http_api {{\n  enabled on;\n  listen {self.api};\n}}\n"
            f"rtc_server {{\n  enabled on;\n  listen {self.rtc};\n  candidate 127.0.0.1;\n}}\n"
            f"vhost __defaultVhost__ {{\n  rtc {{\n    enabled on;\n{rtc_extra}  }}\n}}\n")
        self.proc = subprocess.Popen([str(srs), "-c", str(conf)], cwd=TRUNK, stdout=subprocess.DEVNULL,
                                     stderr=open(workdir / "srs.stderr", "w"))
        assert wait_until(lambda: self.api_ok(), 10), "the server's API did not answer"

    def api_ok(self):
        try:
            api_get(self.api, "/api/v1/versions")
            return True
        except OSError:
            return False

    def whip(self, stream):
        return f"http://127.0.0.1:{self.api}/rtc/v1/whip/?app=live&stream={stream}"

    def whep(self, stream):
        return f"http://127.0.0.1:{self.api}/rtc/v1/whep/?app=live&stream={stream}"


def sample_cpu(pid, window):
    c0, t0 = proc_cpu_seconds(pid), time.monotonic()
    time.sleep(window)
    c1, t1 = proc_cpu_seconds(pid), time.monotonic()
    return 100.0 * (c1 - c0) / (t1 - t0)


def run_count(args, server, tools, n, idle_rss):
    duration = args.spread / 1000.0 + args.window + 25
    out = server.workdir / f"load-{n}.json"
    load = subprocess.Popen([str(tools / "sb_rtc_load"), "-c", str(n), "-r", server.whep("livestream"),
                             "-s", str(args.spread), "-t", str(int(duration)), "-m", "5000", "--json"],
                            stdout=open(out, "w"), stderr=subprocess.DEVNULL)
    try:
        joined = wait_until(lambda: rtc_clients(server.api, "rtc-play") >= n, args.spread / 1000.0 + 30, 1.0)
        time.sleep(3)  # the last joiners get their first keyframe
        t_cpu = proc_cpu_seconds(load.pid)
        cpu = sample_cpu(server.proc.pid, args.window)
        tool_cpu = 100.0 * (proc_cpu_seconds(load.pid) - t_cpu) / args.window
        rss = proc_rss_kb(server.proc.pid)
        playing = rtc_clients(server.api, "rtc-play")
        load.wait(timeout=duration + 30)
    finally:
        stop(load)
    summary = {}
    for line in out.read_text().splitlines()[::-1]:
        if line.startswith("{"):
            summary = json.loads(line)
            break
    wait_until(lambda: rtc_clients(server.api, "rtc-play") == 0, 30, 0.5)
    return {
        "players": n, "joined": joined, "playing": playing, "cpu": cpu, "cpu_per_player": cpu / max(n, 1),
        "rss_mb": rss / 1024.0, "kb_per_player": (rss - idle_rss) / max(n, 1), "tool_cpu": tool_cpu,
        "ttff": summary.get("ttff_ms", {}), "kbps": summary.get("kbps", 0),
        "gaps": summary.get("rtp_missing"), "decrypt_failures": summary.get("decrypt_failures"),
        "keyframe_first_ok": summary.get("first_video_keyframe_ok"), "errors": summary.get("errors", {}),
    }


def ttff_with_aiortc(args, server, tools):
    """TTFF with a publisher that honours PLIs (aiortc, 640x360): players join
    one by one over --spread ms, each the server's keyframe request on its
    behalf away from its first frame."""
    sys.path.insert(0, str(TRUNK / "test"))
    try:
        from rtc_client import Rtc
    except ImportError as e:
        return {"error": f"aiortc is not installed ({e})"}
    with Rtc() as rtc:
        rtc.publish(f"127.0.0.1:{server.api}", "live", "ttff", size=(640, 360), fps=25)
        time.sleep(2)
        out = server.workdir / "ttff.json"
        n = args.ttff_players
        r = subprocess.run([str(tools / "sb_rtc_load"), "-c", str(n), "-r", server.whep("ttff"), "-s",
                            str(args.spread), "-t", str(int(args.spread / 1000 + 8)), "--json"],
                           stdout=open(out, "w"), stderr=subprocess.DEVNULL, timeout=args.spread / 1000 + 60)
        lines = [l for l in out.read_text().splitlines() if l.startswith("{")]
        summary = json.loads(lines[-1]) if lines else {}
        return {"players": n, "ttff": summary.get("ttff_ms", {}), "first_packet": summary.get("first_packet_ms", {}),
                "verify_ok": summary.get("verify_ok"), "exit": r.returncode}


def run_floor(tools, n, window, srtp):
    """sb_udp_floor with GSO for n players over `window` s (with --srtp: and
    each player's AES-GCM), in the same sitting as the server's row."""
    cmd = [str(tools / "sb_udp_floor"), "-c", str(n), "-t", str(max(1, int(window))), "--gso"]
    if srtp:
        cmd.append("--srtp")
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=window + 60)
    if out.returncode != 0:
        return {"error": out.stderr.strip()[-300:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def srtp_profile(log):
    text = log.read_text(errors="replace") if log.exists() else ""
    for p in ("SRTP_AEAD_AES_128_GCM", "SRTP_AES128_CM_SHA1_80"):
        if p in text:
            return p
    return "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clients", default="100,200,1000")
    ap.add_argument("--window", type=float, default=20.0, help="CPU sampling window (s)")
    ap.add_argument("--spread", type=int, default=10000, help="players join over this many ms")
    ap.add_argument("--srs", default=str(TRUNK / "objs/variants/release/objs/srs"))
    ap.add_argument("--tools-dir", default=str(TRUNK / "objs/variants/release/objs"))
    ap.add_argument("--media", default=str(TRUNK / "objs/bench/rtc_bench.flv"))
    ap.add_argument("--max", type=int, default=3000, help="refuse player counts above this")
    ap.add_argument("--out", default=str(TRUNK / "objs/bench/rtc_results.md"))
    ap.add_argument("--no-floor", action="store_true",
                    help="skip sb_udp_floor (GSO, and GSO + SRTP) after each count")
    ap.add_argument("--ttff-players", type=int, default=50,
                    help="players of the TTFF run with an aiortc publisher (0: skip it)")
    args = ap.parse_args()
    counts = [int(c) for c in args.clients.split(",") if c]
    if any(c > args.max for c in counts):
        sys.exit(f"a count is above --max {args.max}")
    srs, tools = Path(args.srs), Path(args.tools_dir)
    if not all(f.exists() for f in (srs, tools / "sb_rtc_load", tools / "sb_rtc_publish")):
        # The bench kit's release build (a --sanitizer=off copy of the tree).
        import importlib.machinery
        import importlib.util
        loader = importlib.machinery.SourceFileLoader("bench_run", str(HERE / "run"))
        spec = importlib.util.spec_from_loader("bench_run", loader)
        run = importlib.util.module_from_spec(spec)
        loader.exec_module(run)
        print("building objs/variants/release (--sanitizer=off)...", flush=True)
        objs = run.build_release()
        srs, tools = objs / "srs", objs
    media = make_media(Path(args.media))
    workdir = Path(tempfile.mkdtemp(prefix="rtc-bench-"))
    server = Server(srs, workdir)
    pub = None
    ttff = None
    rows = []
    try:
        pub = subprocess.Popen([str(tools / "sb_rtc_publish"), "-r", server.whip("livestream"), "--ffmpeg",
                                str(media), "-t", "100000"], stdout=open(workdir / "pub.out", "w"),
                               stderr=subprocess.STDOUT)
        assert wait_until(lambda: rtc_clients(server.api, "rtc-publish") == 1, 20), \
            (workdir / "pub.out").read_text()[-2000:]
        time.sleep(3)
        idle = sample_cpu(server.proc.pid, 5)
        # Per player: over the server with its publisher and no player yet (an
        # upper bound for later counts: memory the allocator kept from an
        # earlier count is reused, not added).
        idle_rss = proc_rss_kb(server.proc.pid)
        pub_cpu0 = proc_cpu_seconds(pub.pid)
        t0 = time.monotonic()
        for n in counts:
            rows.append(run_count(args, server, tools, n, idle_rss))
            if not args.no_floor:
                rows[-1]["floor"] = run_floor(tools, n, args.window, False)
                rows[-1]["floor_srtp"] = run_floor(tools, n, args.window, True)
            print(json.dumps(rows[-1]), flush=True)
        pub_cpu = 100.0 * (proc_cpu_seconds(pub.pid) - pub_cpu0) / (time.monotonic() - t0)
        stop(pub)
        pub = None
        ttff = ttff_with_aiortc(args, server, tools) if args.ttff_players > 0 else None
        print(json.dumps({"ttff_with_aiortc": ttff}), flush=True)
    finally:
        stop(pub)
        stop(server.proc)
    profile = srtp_profile(server.log)
    lines = [f"WebRTC players of one stream (~600 kbps H.264 + Opus), {profile}, players joining over "
             f"{args.spread} ms, CPU over {args.window:.0f} s; server idle with the publisher: {idle:.1f} %; "
             f"publisher (sb_rtc_publish + ffmpeg relay) {pub_cpu:.1f} %.", "",
             "| players | playing | server CPU | CPU per player | RSS | per player | TTFF p50 / p90 | gaps | "
             "decrypt failures | load tool CPU |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        t = r["ttff"]
        lines.append(f"| {r['players']} | {r['playing']} | {r['cpu']:.1f} % | {r['cpu_per_player']:.3f} % | "
                     f"{r['rss_mb']:.0f} MB | {r['kb_per_player']:.0f} KiB | {t.get('p50', '-')} / "
                     f"{t.get('p90', '-')} ms | {r['gaps']} | {r['decrypt_failures']} | {r['tool_cpu']:.0f} % |")
    if ttff:
        t = ttff.get("ttff", {})
        lines += ["", f"TTFF with a publisher that honours PLIs (aiortc, 640x360), {ttff.get('players')} players "
                      f"joining over {args.spread} ms: p50 {t.get('p50', '-')} ms, p90 {t.get('p90', '-')} ms, "
                      f"max {t.get('max', '-')} ms" + (f" ({ttff['error']})" if "error" in ttff else "") + "."]
    floors = [r for r in rows if "cpu" in r.get("floor", {}) and "cpu" in r.get("floor_srtp", {})]
    if floors:
        lines += ["", "Against sb_udp_floor in the same run (GSO; + SRTP: each player's AES-GCM too; fan-out: "
                      "one video frame to every player, p50):", "",
                  "| players | ours per player | floor per player | floor + SRTP per player | ours / floor | "
                  "ours / (floor + SRTP) | floor fan-out p50 | floor + SRTP fan-out p50 |",
                  "|---|---|---|---|---|---|---|---|"]
        for r in floors:
            f, fs = r["floor"], r["floor_srtp"]
            lines.append(f"| {r['players']} | {r['cpu_per_player']:.4f} % | {f['cpu_per_player']:.4f} % | "
                         f"{fs['cpu_per_player']:.4f} % | {r['cpu'] / f['cpu']:.2f} x | {r['cpu'] / fs['cpu']:.2f} x | "
                         f"{f['frame_fanout_ms']['p50']:.2f} ms | {fs['frame_fanout_ms']['p50']:.2f} ms |")
    text = "\n".join(lines) + "\n"
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()

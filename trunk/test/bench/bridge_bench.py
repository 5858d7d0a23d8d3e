#!/usr/bin/env python3
"""The RTMP <-> WebRTC bridges under load (issue 13's performance rows).

  cd trunk && test/bench/bridge_bench.py --clients 1000

1. RTMP in, WebRTC out: ffmpeg publishes the bench stream (768x320, ~600
   kbps H.264 + AAC 48 kHz) over RTMP to a server with rtmp_to_rtc on, and
   sb_rtc_load plays it with N WHEP players: the server's CPU per player
   (the target is the WebRTC issue's, <= 0.05 % of a core), how many times
   the AAC -> Opus transcoder started (once per stream, not per player) and
   the players' TTFF.
2. WebRTC in, RTMP out: sb_rtc_publish relays the same stream into WHIP
   (rtc_to_rtmp on) and sb_rtmp_load plays it with N RTMP players; then the
   same N RTMP players of the same stream published with RTMP by ffmpeg, in
   the same run: CPU per player of the bridged stream within 10 % of the
   RTMP one.

One server process built --sanitizer=off (the bench kit's
objs/variants/release, built when missing), everything on loopback, every
process stopped by PID. Prints a markdown table (also written to --out).
"""
import argparse
import json
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TRUNK = HERE.parents[1]
sys.path.insert(0, str(HERE))
import rtc_play_bench  # noqa: E402
from rtc_play_bench import api_get, make_media, rtc_clients, wait_until  # noqa: E402
from rtmp_play_bench import proc_cpu_seconds, proc_rss_kb, stop  # noqa: E402


class Server(rtc_play_bench.Server):
    """rtc_play_bench's server with both bridges on."""

    def __init__(self, srs, workdir):
        super().__init__(srs, workdir, rtc_extra="    rtmp_to_rtc on;\n    rtc_to_rtmp on;\n    pli_for_rtmp 2;\n")

    def rtmp_url(self, stream):
        return f"rtmp://127.0.0.1:{self.rtmp}/live/{stream}"

    def published(self, stream):
        try:
            for s in api_get(self.api, "/api/v1/streams?count=100")["streams"]:
                if s.get("name") == stream and s.get("publish", {}).get("active"):
                    return True
        except OSError:
            pass
        return False


def last_json(path):
    for line in path.read_text().splitlines()[::-1]:
        if line.startswith("{"):
            return json.loads(line)
    return {}


def sample(server, load, window):
    c0, l0, t0 = proc_cpu_seconds(server.proc.pid), proc_cpu_seconds(load.pid), time.monotonic()
    time.sleep(window)
    c1, l1, t1 = proc_cpu_seconds(server.proc.pid), proc_cpu_seconds(load.pid), time.monotonic()
    return 100.0 * (c1 - c0) / (t1 - t0), 100.0 * (l1 - l0) / (t1 - t0)


def ffmpeg_rtmp(media, url):
    return subprocess.Popen(["ffmpeg", "-hide_banner", "-loglevel", "error", "-re", "-stream_loop", "-1", "-i",
                             str(media), "-c", "copy", "-f", "flv", url], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def rtmp_in_webrtc_out(args, server, tools, media):
    stream = "rtmp2rtc"
    pub = ffmpeg_rtmp(media, server.rtmp_url(stream))
    load = None
    try:
        assert wait_until(lambda: server.published(stream), 15), "ffmpeg did not publish"
        time.sleep(3)
        idle_cpu, _ = sample(server, pub, 5)
        idle_rss = proc_rss_kb(server.proc.pid)
        out = server.workdir / "rtc-load.json"
        duration = args.spread / 1000 + args.window + 25
        load = subprocess.Popen([str(tools / "sb_rtc_load"), "-c", str(args.clients), "-r", server.whep(stream),
                                 "-s", str(args.spread), "-t", str(int(duration)), "-m", "5000", "--json"],
                                stdout=open(out, "w"), stderr=subprocess.DEVNULL)
        joined = wait_until(lambda: rtc_clients(server.api, "rtc-play") >= args.clients, args.spread / 1000 + 30, 1)
        time.sleep(3)
        cpu, tool_cpu = sample(server, load, args.window)
        rss = proc_rss_kb(server.proc.pid)
        playing = rtc_clients(server.api, "rtc-play")
        load.wait(timeout=duration + 30)
        summary = last_json(out)
    finally:
        stop(load)
        stop(pub, signal.SIGINT)
    log = server.log.read_text(errors="replace")
    return {"players": args.clients, "joined": joined, "playing": playing, "idle_cpu": idle_cpu, "cpu": cpu,
            "cpu_per_player": (cpu - idle_cpu) / max(args.clients, 1), "rss_mb": rss / 1024,
            "kb_per_player": (rss - idle_rss) / max(args.clients, 1), "tool_cpu": tool_cpu,
            "transcoder_starts": log.count(f"RTC: bridge /live/{stream}: AAC -> Opus"),
            "ttff": summary.get("ttff_ms", {}), "gaps": summary.get("rtp_missing"),
            "decrypt_failures": summary.get("decrypt_failures")}


def rtmp_players(args, server, tools, stream, publisher):
    load = None
    try:
        assert wait_until(lambda: server.published(stream), 20), f"{stream} was not published"
        time.sleep(4)
        idle_cpu, _ = sample(server, publisher, 5)
        idle_rss = proc_rss_kb(server.proc.pid)
        run_for = args.settle + args.window + 5
        load = subprocess.Popen([str(tools / "sb_rtmp_load"), "-c", str(args.clients), "-r", server.rtmp_url(stream),
                                 "-s", str(args.spread), "-t", str(run_for), "-m", "100000", "--json"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        time.sleep(args.settle)
        cpu, tool_cpu = sample(server, load, args.window)
        rss = proc_rss_kb(server.proc.pid)
        out, _ = load.communicate(timeout=run_for + 30)
        summary = json.loads(out.strip().splitlines()[-1]) if out.strip() else {}
    finally:
        stop(load, signal.SIGINT)
        stop(publisher, signal.SIGINT)
    return {"stream": stream, "players": args.clients, "idle_cpu": idle_cpu, "cpu": cpu,
            "cpu_per_player": (cpu - idle_cpu) / max(args.clients, 1), "rss_mb": rss / 1024,
            "kb_per_player": (rss - idle_rss) / max(args.clients, 1), "tool_cpu": tool_cpu,
            "alive": summary.get("alive"), "verify_ok": summary.get("verify_ok"), "kbps": summary.get("kbps")}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clients", type=int, default=1000)
    ap.add_argument("--window", type=float, default=20.0)
    ap.add_argument("--spread", type=int, default=10000)
    ap.add_argument("--settle", type=int, default=15)
    ap.add_argument("--srs", default=str(TRUNK / "objs/variants/release/objs/srs"))
    ap.add_argument("--tools-dir", default=str(TRUNK / "objs/variants/release/objs"))
    ap.add_argument("--media", default=str(TRUNK / "objs/bench/rtc_bench.flv"))
    ap.add_argument("--out", default=str(TRUNK / "objs/bench/bridge_results.md"))
    ap.add_argument("--only", choices=["rtmp2rtc", "rtc2rtmp"], default=None)
    args = ap.parse_args()
    if args.clients > 3000:
        sys.exit("--clients above 3000 is refused")
    srs, tools = Path(args.srs), Path(args.tools_dir)
    if not all(f.exists() for f in (srs, tools / "sb_rtc_load", tools / "sb_rtc_publish", tools / "sb_rtmp_load")):
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
    workdir = Path(tempfile.mkdtemp(prefix="bridge-bench-"))
    server = Server(srs, workdir)
    a = b = c = None
    try:
        if args.only in (None, "rtmp2rtc"):
            a = rtmp_in_webrtc_out(args, server, tools, media)
            print(json.dumps(a), flush=True)
        if args.only in (None, "rtc2rtmp"):
            pub = subprocess.Popen([str(tools / "sb_rtc_publish"), "-r", server.whip("rtc2rtmp"), "--ffmpeg",
                                    str(media), "-t", "100000"], stdout=open(workdir / "pub.out", "w"),
                                   stderr=subprocess.STDOUT)
            b = rtmp_players(args, server, tools, "rtc2rtmp", pub)
            print(json.dumps(b), flush=True)
            c = rtmp_players(args, server, tools, "rtmp2rtmp", ffmpeg_rtmp(media, server.rtmp_url("rtmp2rtmp")))
            print(json.dumps(c), flush=True)
    finally:
        stop(server.proc)
    lines = []
    if a:
        t = a["ttff"]
        lines += [f"RTMP in (ffmpeg, H.264 + AAC), {a['players']} WebRTC players (sb_rtc_load, WHEP) joining over "
                  f"{args.spread} ms; CPU over {args.window:.0f} s; the server with the publisher and no player: "
                  f"{a['idle_cpu']:.1f} %.", "",
                  "| players | playing | server CPU | CPU per player | RSS | per player | transcoder starts | "
                  "TTFF p50 / p90 | gaps | load tool CPU |", "|---|---|---|---|---|---|---|---|---|---|",
                  f"| {a['players']} | {a['playing']} | {a['cpu']:.1f} % | {a['cpu_per_player']:.3f} % | "
                  f"{a['rss_mb']:.0f} MB | {a['kb_per_player']:.0f} KiB | {a['transcoder_starts']} | "
                  f"{t.get('p50', '-')} / {t.get('p90', '-')} ms | {a['gaps']} | {a['tool_cpu']:.0f} % |", ""]
    if b and c:
        ratio = b["cpu_per_player"] / c["cpu_per_player"] if c["cpu_per_player"] > 0 else float("nan")
        lines += [f"{b['players']} RTMP players (sb_rtmp_load) of a WebRTC-published stream (sb_rtc_publish, WHIP, "
                  "rtc_to_rtmp) and of the same stream published with RTMP (ffmpeg), same run:", "",
                  "| stream in | server CPU | idle (publisher only) | CPU per player | RSS | per player | alive | "
                  "load tool CPU |", "|---|---|---|---|---|---|---|---|"]
        for name, r in (("WebRTC (bridged)", b), ("RTMP", c)):
            lines.append(f"| {name} | {r['cpu']:.1f} % | {r['idle_cpu']:.1f} % | {r['cpu_per_player']:.4f} % | "
                         f"{r['rss_mb']:.0f} MB | {r['kb_per_player']:.0f} KiB | {r['alive']} | {r['tool_cpu']:.0f} % |")
        lines += ["", f"Per-player CPU, bridged / RTMP: {ratio:.2f}."]
    text = "\n".join(lines) + "\n"
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""WebRTC publishers (issue 23): what N WHIP publishers cost the server.

  cd trunk && test/bench/rtc_publish_bench.py                    # 100, 500, 1000 publishers
  test/bench/rtc_publish_bench.py --publishers 500 --window 30 --json out.json

For each count N, a fresh server process (built --sanitizer=off: by default
the bench kit's objs/variants/release, built by test/bench/run's build step
when missing) with WebRTC on loopback, and ONE sb_rtc_publish -c N process
relaying ffmpeg's RTP of the bench stream (768x320, ~600 kbps H.264 +
Opus, 2 s GOP) into N WHIP sessions live/p0 .. live/pN-1, joining over
--spread ms. Once the API lists all N streams publishing, after --settle s:
the server's CPU (utime+stime from /proc over --window s) and RSS growth
over the same server idle before the publishers came, both per publisher;
the tool's own CPU over the same window (it is not the server's); every
stream is verified by the API (publishing, bytes in growing over the
window). The tool's JSON gives connection times, NACKs answered, failures.

Targets (issue 23): <= 0.045 % of a core and <= 64 KiB per publisher.

Every process started is stopped by PID; everything stays on loopback.
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

HERE = Path(__file__).resolve().parent
TRUNK = HERE.parents[1]
sys.path.insert(0, str(HERE))
from rtc_play_bench import Server, api_get, make_media, sample_cpu, srtp_profile, wait_until  # noqa: E402
from rtmp_play_bench import proc_cpu_seconds, proc_rss_kb, stop  # noqa: E402

TARGET_CPU = 0.045  # % of a core per publisher
TARGET_KIB = 64


def streams(server, prefix="p"):
    """name -> the API's stream entry, for our publishers' streams."""
    try:
        data = api_get(server.api, "/api/v1/streams?count=5000")
    except OSError:
        return {}
    return {s["name"]: s for s in data.get("streams", []) if s.get("name", "").startswith(prefix)}


def publishing(entries):
    return sum(1 for s in entries.values() if s.get("publish", {}).get("active"))


def udp_rcvbuf_errors():
    """The machine's UDP datagrams dropped for a full receive buffer (/proc/net/snmp): loopback, so ours."""
    lines = [l.split() for l in open("/proc/net/snmp") if l.startswith("Udp:")]
    return int(dict(zip(lines[0][1:], lines[1][1:])).get("RcvbufErrors", 0))


def last_json(path):
    for line in path.read_text(errors="replace").splitlines()[::-1]:
        if line.startswith("{"):
            return json.loads(line)
    return {}


def run_count(args, srs, tools, media, n, workdir):
    d = workdir / f"n{n}"
    d.mkdir()
    server = Server(srs, d)
    tool = None
    try:
        time.sleep(2)
        idle_rss = proc_rss_kb(server.proc.pid)
        out = d / "publish.out"
        duration = args.spread / 1000.0 + args.settle + args.window + 60
        tool = subprocess.Popen([str(tools / "sb_rtc_publish"), "-c", str(n), "-s", str(args.spread),
                                 "-r", server.whip("p%d"), "--ffmpeg", str(media), "-t", str(int(duration)),
                                 "-m", "5000", "--json"], stdout=open(out, "w"), stderr=subprocess.STDOUT)
        joined = wait_until(lambda: publishing(streams(server)) >= n, args.spread / 1000.0 + 30, 1.0)
        time.sleep(args.settle)
        before = streams(server)
        t_cpu, t_wall, drops0 = proc_cpu_seconds(tool.pid), time.monotonic(), udp_rcvbuf_errors()
        cpu = sample_cpu(server.proc.pid, args.window)
        drops = udp_rcvbuf_errors() - drops0
        span = time.monotonic() - t_wall
        tool_cpu = 100.0 * (proc_cpu_seconds(tool.pid) - t_cpu) / span
        after = streams(server)
        rss = proc_rss_kb(server.proc.pid)
        tool_rss = proc_rss_kb(tool.pid)
        if args.perf_at == n:
            perf_record(server.proc.pid, d, args)
        # Verified by the API: publishing, and more bytes in than at the window's start.
        growing = sum(1 for k, s in after.items()
                      if s.get("publish", {}).get("active") and s.get("recv_bytes", 0) > before.get(k, {}).get(
                          "recv_bytes", 0))
        recv_kbps = sum(s.get("recv_bytes", 0) - before.get(k, {}).get("recv_bytes", 0)
                        for k, s in after.items()) * 8 / 1000.0 / span
        tool.send_signal(signal.SIGINT)  # the tool prints its summary and JSON, then exits
        try:
            tool.wait(timeout=60)
        except subprocess.TimeoutExpired:
            pass
        summary = last_json(out)
        profile = srtp_profile(server.log)
    finally:
        stop(tool)
        stop(server.proc)
    return {
        "publishers": n, "joined": joined, "publishing": publishing(after), "verified": growing,
        "cpu": cpu, "cpu_per_publisher": cpu / n, "rss_mb": rss / 1024.0, "idle_rss_mb": idle_rss / 1024.0,
        "kib_per_publisher": (rss - idle_rss) / n, "recv_kbps": recv_kbps, "tool_cpu": tool_cpu,
        "tool_rss_mb": tool_rss / 1024.0, "connected": summary.get("connected"), "failed": summary.get("failed"),
        "connected_ms": summary.get("connected_ms", {}), "nacks_answered": summary.get("nacks_answered"),
        "send_drops": summary.get("send_drops"), "rcvbuf_drops_in_window": drops, "tool_kbps": summary.get("kbps"),
        "errors": summary.get("errors", {}), "srtp": profile,
    }


def perf_record(pid, d, args):
    """perf record of the server over a few seconds (call graphs), its report kept next to the run."""
    data = d / "perf.data"
    r = subprocess.run(["perf", "record", "-g", "-F", "499", "-p", str(pid), "-o", str(data), "--", "sleep",
                        str(args.perf_seconds)], capture_output=True, text=True, timeout=args.perf_seconds + 60)
    if r.returncode != 0:
        print(f"perf record failed: {r.stderr[-500:]}", flush=True)
        return
    def perf_report(*extra):
        return subprocess.run(["perf", "report", "-i", str(data), "--no-children", "--stdio", "-g", "none"] +
                              list(extra), capture_output=True, text=True, timeout=300).stdout
    # Where the time goes by object (kernel, server, libcrypto, libc), then by function.
    report = perf_report("--sort", "dso") + perf_report("--percent-limit", "0.7")
    dest = Path(args.perf_out)
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(report)
    print(f"perf report of the server written to {dest}", flush=True)


def table(rows):
    lines = ["| publishers | publishing / verified (API) | server CPU | CPU per publisher | RSS | per publisher | "
             "bytes in (API) | tool CPU | tool RSS | connected p50 / p90 | failed | NACKs answered | UDP rcvbuf drops |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        c = r["connected_ms"] or {}
        lines.append(
            f"| {r['publishers']} | {r['publishing']} / {r['verified']} | {r['cpu']:.1f} % | "
            f"{r['cpu_per_publisher']:.3f} % | {r['rss_mb']:.1f} MB | {r['kib_per_publisher']:.1f} KiB | "
            f"{r['recv_kbps'] / 1000:.1f} Mbps | {r['tool_cpu']:.1f} % | {r['tool_rss_mb']:.0f} MB | "
            f"{c.get('p50', 0):.0f} / {c.get('p90', 0):.0f} ms | {r['failed']} | {r['nacks_answered']} | "
            f"{r['rcvbuf_drops_in_window']} |")
    return "\n".join(lines)


def run_all(args, srs, tools, workdir):
    media = make_media(Path(args.media))
    rows = []
    for n in args.counts:
        rows.append(run_count(args, srs, tools, media, n, workdir))
        print(json.dumps(rows[-1]), flush=True)
    srtp = rows[0]["srtp"] if rows else "?"
    head = (f"WebRTC publishers of one stream each (~600 kbps H.264 + Opus relayed by one sb_rtc_publish -c N), "
            f"{srtp}, joining over {args.spread} ms, CPU over {args.window:.0f} s after {args.settle:.0f} s; "
            f"a fresh server per count, RSS per publisher over the same server idle. Targets: <= {TARGET_CPU} % "
            f"of a core and <= {TARGET_KIB} KiB per publisher.")
    return "\n".join([head, "", table(rows), ""]), rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--publishers", default="100,500,1000")
    ap.add_argument("--window", type=float, default=20.0, help="CPU sampling window (s)")
    ap.add_argument("--settle", type=float, default=5.0, help="s after all publish before sampling")
    ap.add_argument("--spread", type=int, default=10000, help="publishers join over this many ms")
    ap.add_argument("--srs", default=str(TRUNK / "objs/variants/release/objs/srs"))
    ap.add_argument("--tools-dir", default=str(TRUNK / "objs/variants/release/objs"))
    ap.add_argument("--media", default=str(TRUNK / "objs/bench/rtc_bench.flv"))
    ap.add_argument("--max", type=int, default=3000, help="refuse publisher counts above this")
    ap.add_argument("--perf-at", type=int, default=0, help="perf record the server at this count (0: never)")
    ap.add_argument("--perf-seconds", type=int, default=10)
    ap.add_argument("--perf-out", default=str(TRUNK / "objs/bench/rtc_publish_perf.txt"))
    ap.add_argument("--out", default=str(TRUNK / "objs/bench/rtc_publish_results.md"))
    ap.add_argument("--json", help="write the rows as JSON here too")
    args = ap.parse_args()
    args.counts = [int(x) for x in args.publishers.split(",") if x.strip()]
    if not args.counts or any(c < 1 or c > args.max for c in args.counts):
        sys.exit(f"publisher counts must be 1..{args.max} (--max)")
    srs, tools = Path(args.srs), Path(args.tools_dir)
    if not all(f.exists() for f in (srs, tools / "sb_rtc_publish")):
        import importlib.machinery
        import importlib.util
        loader = importlib.machinery.SourceFileLoader("bench_run", str(HERE / "run"))
        spec = importlib.util.spec_from_loader("bench_run", loader)
        run = importlib.util.module_from_spec(spec)
        loader.exec_module(run)
        print("building objs/variants/release (--sanitizer=off)...", flush=True)
        objs = run.build_release()
        srs, tools = objs / "srs", objs
    with tempfile.TemporaryDirectory(prefix="rtc-publish-bench-") as tmp:
        md, rows = run_all(args, srs, tools, Path(tmp))
    md = "Command: `test/bench/rtc_publish_bench.py " + " ".join(sys.argv[1:]) + "`\n\n" + md
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(md)
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows}, indent=1))
    print()
    print(md)
    print(f"written to {args.out}")
    return 0 if all(r["publishing"] == r["publishers"] == r["verified"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

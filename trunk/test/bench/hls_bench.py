#!/usr/bin/env python3
"""HLS benchmark: what making HLS costs each server, and how fast each serves it.

Muxing (one table): N publishers (sb_rtmp_publish, the bench stream, streams
live/s0..s{N-1}) on each server, HLS off and then on, fresh server each time:
  - ours (vhost hls { enabled on; hls_fragment 2; hls_path TMP; });
  - nginx-rtmp (Debian's nginx + libnginx-mod-rtmp, one worker, live on,
    hls on; hls_path TMP; hls_fragment 2s;).
It samples each server's CPU (utime+stime of all its threads, /proc) over
--window s after --settle s, its RSS, and the publishers' own CPU; then (outside
the window) waits for every stream's playlist and counts playlists and the
segments they list, so a row says HLS was really made. "What HLS adds" is
CPU(on) - CPU(off) of the same server; the ratio ours/nginx-rtmp of it is the
number issue 22 sets a target for (<= 0.5), with ours on vs nginx-rtmp on.

Serving (a second table): one stream published in real time to ours with HLS
on (hls_window 60 s or more, hls_ctx off: every GET is a plain file, as
nginx serves it); ours serves the playlist at --url-path and its segments
over its HTTP server. The script
fetches that playlist and its newest segment from ours and puts byte-identical
copies at the same paths under a folder a plain nginx (the same binary, no
RTMP module, one worker, sendfile, no access log) serves. Then wrk (Debian's
package; keep-alive, --wrk-conns connections, one thread) GETs the segment, then
the playlist, from ours and then from nginx for --wrk-duration s each, both
servers pinned to CPU 0 and wrk to CPU 1 (taskset; no pinning on one CPU).
Rows: requests/s, MB/s, latency p50/p99, non-2xx answers and socket errors,
the server's and wrk's CPU over the run, and requests per second of the
server's own CPU (steadier than requests/s when other work shares its core).
The ratio is ours/nginx requests/s (target >= 0.8). --url-path and
--hls-extra (directives added to our hls block) let the same script measure
another way of serving HLS (e.g. from memory): nginx always gets copies of
what ours served.

  cd trunk && test/bench/hls_bench.py                      # 50 streams, wrk 10 s
  test/bench/hls_bench.py --streams 10 --wrk-duration 5 --out objs/bench/hls.md
  test/bench/run --clients '' --publishers '' --tool-capacity 0 --hls 50   # from the kit

Without --srs it builds the --sanitizer=off server and tools the way
test/bench/run does (objs/variants/release); never measure the ASAN build.
Everything listens on 127.0.0.1; every process started is stopped by its PID.
"""
import argparse
import asyncio
import datetime
import json
import os
import platform
import re
import resource
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
TRUNK = HERE.parents[1]
sys.path.insert(0, str(HERE))
from bench_options import add_common_options, resolve_common  # noqa: E402
from rtmp_play_bench import proc_cpu_seconds, proc_rss_kb, start_nginx, stop  # noqa: E402

RTMP_PORT, NGINX_RTMP_PORT, HTTP_PORT, NGINX_HTTP_PORT = 19381, 19382, 18381, 18382
NGINX_MODULE = "/usr/lib/nginx/modules/ngx_rtmp_module.so"
FRAGMENT = 2  # seconds, both servers
LL_PART = 0.2  # seconds, the LL-HLS layout's parts
SERVE_STREAM = "live/livestream"


def listening(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def wait_for(predicate, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def pinned(cpu):
    """A taskset prefix for CPU `cpu` (all threads inherit it); none on one CPU."""
    return ["taskset", "-c", str(cpu)] if (os.cpu_count() or 1) >= 2 and shutil.which("taskset") else []


def ours_conf(work, hls, http_dir=None, hls_extra=""):
    """Our server's conf: RTMP, optionally the HTTP server on http_dir, and the vhost's hls block."""
    http = f"http_server {{\n    enabled on;\n    listen 127.0.0.1:{HTTP_PORT};\n    dir {http_dir};\n}}\n" \
        if http_dir else ""
    block = (f"    hls {{\n        enabled on;\n        hls_fragment {FRAGMENT};\n        hls_path {hls};\n"
             f"{hls_extra}    }}\n") if hls else "    hls {\n        enabled off;\n    }\n"
    conf = work / "srs.conf"
    conf.write_text(f"listen 127.0.0.1:{RTMP_PORT};\nmax_connections 20000;\ndaemon off;\npid {work}/srs.pid;\n"
                    f"srs_log_tank file;\nsrs_log_file {work}/srs.log;\n{http}"
                    f"vhost __defaultVhost__ {{\n{block}}}\n")
    return conf


def start_ours(binary, work, hls, http_dir=None, hls_extra="", prefix=()):
    conf = ours_conf(work, hls, http_dir, hls_extra)
    return subprocess.Popen(list(prefix) + [str(binary), "-c", str(conf)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def start_nginx_http(binary, work, root, prefix=()):
    """Plain nginx serving `root`: one worker, sendfile, keep-alive without a request limit, no access log."""
    conf = work / "nginx-http.conf"
    conf.write_text(f"""worker_processes 1;
daemon off;
master_process off;
error_log {work}/nginx-http-error.log;
pid {work}/nginx-http.pid;
worker_rlimit_nofile 20000;
events {{ worker_connections 20000; }}
http {{
    types {{ application/vnd.apple.mpegurl m3u8; video/mp2t ts; video/iso.segment m4s; video/mp4 mp4; }}
    default_type application/octet-stream;
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 10000000;
    server {{
        listen 127.0.0.1:{NGINX_HTTP_PORT};
        root {root};
        location ~ \\.m3u8$ {{ add_header Cache-Control no-cache; }}
    }}
}}
""")
    return subprocess.Popen(list(prefix) + [binary, "-c", str(conf), "-p", str(work)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def hls_output(folder):
    """Playlists under `folder` and the segments they list (EXTINF lines)."""
    playlists, segments = 0, 0
    for m3u8 in Path(folder).rglob("*.m3u8"):
        try:
            text = m3u8.read_text(errors="replace")
        except FileNotFoundError:  # renamed over while we looked
            continue
        playlists += 1
        segments += text.count("#EXTINF:")
    return playlists, segments


def publishers(tools, port, n, args):
    """sb_rtmp_publish: n streams live/s0.., real time, looped; stopped with SIGINT after the window."""
    return subprocess.Popen([str(tools / "sb_rtmp_publish"), "-c", str(n), "-i", str(args.media), "-r",
                             f"rtmp://127.0.0.1:{port}/live/s%d", "-s", str(args.spread),
                             "-t", str(args.settle + args.window + 8 * FRAGMENT + 30), "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def summary_of(load):
    """SIGINT, then the tool's --json summary (its last line)."""
    if load.poll() is None:
        load.send_signal(signal.SIGINT)
    try:
        out, _ = load.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        stop(load)
        return {}
    lines = (out or "").strip().splitlines()
    try:
        return json.loads(lines[-1]) if lines else {}
    except ValueError:
        return {}


def mux_phase(server, hls, n, tools, args, work):
    """One muxing row: a fresh server, n publishers, HLS on or off."""
    d = Path(tempfile.mkdtemp(prefix=f"{server}-hls-{'on' if hls else 'off'}-", dir=work))
    folder = Path(tempfile.mkdtemp(prefix="hls-", dir=args.hls_root)) if args.hls_root else d / "hls"
    nginx = server == "nginx-rtmp"
    port = NGINX_RTMP_PORT if nginx else RTMP_PORT
    if nginx:
        extra = f"hls on; hls_path {folder}; hls_fragment {FRAGMENT}s;" if hls else ""
        proc = start_nginx(args.nginx, port, d, extra)
    else:
        proc = start_ours(args.srs, d, folder if hls else None)
    load = None
    try:
        if not wait_for(lambda: listening(port), 10):
            raise RuntimeError(f"{server} did not listen on {port} (logs in {d})")
        load = publishers(tools, port, n, args)
        time.sleep(args.settle)
        c0, l0, t0 = proc_cpu_seconds(proc.pid), proc_cpu_seconds(load.pid), time.monotonic()
        time.sleep(args.window)
        c1, l1, t1 = proc_cpu_seconds(proc.pid), proc_cpu_seconds(load.pid), time.monotonic()
        rss = proc_rss_kb(proc.pid)
        # Outside the window: every stream's playlist, for the row's proof.
        if hls:
            wait_for(lambda: hls_output(folder)[0] >= n, 4 * FRAGMENT + 5)
        playlists, segments = hls_output(folder)
        summary = summary_of(load)
    finally:
        stop(load, signal.SIGINT)
        stop(proc)
        if args.hls_root:
            shutil.rmtree(folder, ignore_errors=True)
    return {"server": server, "hls": hls, "streams": n, "cpu": 100.0 * (c1 - c0) / (t1 - t0),
            "rss_mb": rss / 1024, "playlists": playlists, "segments": segments,
            "alive": summary.get("alive"), "failed": summary.get("failed"),
            "load_cpu": 100.0 * (l1 - l0) / (t1 - t0)}


def run_muxing(args, tools, work, with_nginx):
    rows = []
    servers = ["ours"] + (["nginx-rtmp"] if with_nginx else [])
    for hls in (False, True):
        for server in servers:
            r = mux_phase(server, hls, args.streams, tools, args, work)
            print(f"{server:<10} HLS {'on ' if hls else 'off'} {r['streams']:>4} streams: CPU {r['cpu']:5.1f}%  "
                  f"{r['rss_mb']:6.1f} MB  playlists {r['playlists']}  segments {r['segments']}  "
                  f"publishers alive {r['alive']}", flush=True)
            rows.append(r)
    return rows


def http_get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as res:
        return res.status, res.headers.get("Content-Type", ""), res.read()


def playlist_segments(text):
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def newest_segment(url_path):
    """The playlist at url_path on ours (bytes) and the path of the newest segment it lists."""
    status, _, body = http_get(f"http://127.0.0.1:{HTTP_PORT}{url_path}")
    uris = playlist_segments(body.decode(errors="replace"))
    if status != 200 or not uris:
        return body, None
    joined = urllib.parse.urljoin(f"http://127.0.0.1:{HTTP_PORT}{url_path}", uris[-1])
    return body, urllib.parse.urlsplit(joined).path


def mirror(root, path, body):
    """A byte-identical copy of what ours served at `path`, for nginx."""
    dest = Path(root) / path.lstrip("/")
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".tmp")
    tmp.write_bytes(body)
    tmp.replace(dest)


UNITS = {"B": 1, "KB": 1024, "MB": 1024 ** 2, "GB": 1024 ** 3}
TIMES = {"us": 1e-3, "ms": 1.0, "s": 1000.0, "m": 60000.0}


def parse_wrk(out):
    """Requests, requests/s, MB/s, p50/p99 ms, non-2xx, socket errors from wrk --latency's report."""
    def num(pattern, cast=float, default=0):
        m = re.search(pattern, out, re.M)
        return cast(m.group(1)) if m else default

    def ms(pct):
        m = re.search(rf"^\s+{pct}%\s+([\d.]+)(us|ms|s|m)\s*$", out, re.M)
        return float(m.group(1)) * TIMES[m.group(2)] if m else None

    transfer = re.search(r"^Transfer/sec:\s+([\d.]+)(B|KB|MB|GB)", out, re.M)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    return {"requests": num(r"^\s+(\d+) requests in", int), "rps": num(r"^Requests/sec:\s+([\d.]+)"),
            "mbps": float(transfer.group(1)) * UNITS[transfer.group(2)] / 1024 ** 2 if transfer else 0.0,
            "p50_ms": ms(50), "p99_ms": ms(99), "non2xx": num(r"Non-2xx or 3xx responses: (\d+)", int),
            "socket_errors": sum(int(x) for x in errors.groups()) if errors else 0}


def children_cpu_seconds():
    """utime+stime of this script's children reaped so far (a finished wrk's CPU is only there)."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def wrk_run(server_name, proc, port, path, args):
    """wrk against one server; the server's and wrk's CPU over the same run."""
    cmd = pinned(1) + [args.wrk, "-t1", "-c", str(args.wrk_conns), "-d", f"{args.wrk_duration}s", "--latency",
                       "--timeout", "5s", f"http://127.0.0.1:{port}{path}"]
    c0, w0, t0 = proc_cpu_seconds(proc.pid), children_cpu_seconds(), time.monotonic()
    wrk = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = wrk.communicate(timeout=args.wrk_duration + 30)
    except subprocess.TimeoutExpired:
        stop(wrk, signal.SIGINT)
        out = ""
    c1, w1, t1 = proc_cpu_seconds(proc.pid), children_cpu_seconds(), time.monotonic()
    r = parse_wrk(out)
    r.update({"server": server_name, "path": path, "conns": args.wrk_conns, "cpu": 100.0 * (c1 - c0) / (t1 - t0),
              "wrk_cpu": 100.0 * (w1 - w0) / (t1 - t0), "raw": out})
    # Requests per second of the server's own CPU: steadier than requests/s
    # when other work shares the server's core.
    r["per_cpu_s"] = r["rps"] / (r["cpu"] / 100.0) if r["cpu"] > 0 else None
    return r


def run_serving(args, work, with_nginx, storage="disk"):
    """Ours serving one live stream's HLS from `storage` (disk: files under hls_path, memory: hls_storage
    memory), nginx serving copies of the same bytes from its disk; wrk against both."""
    ours_dir, ng_dir = work / f"serve-ours-{storage}", work / f"serve-nginx-{storage}"
    html, ng_root = ours_dir / "html", ng_dir / "html"
    for d in (html, ng_root):
        d.mkdir(parents=True)
    # hls_ctx off: every GET is a plain file, as nginx serves it. The window
    # keeps the segment picked for a kind of GET listed (and on disk) through
    # both of its wrk runs.
    window = max(60, 2 * args.wrk_duration + 30)
    directives = [f"hls_window {window}", "hls_ctx off", "hls_ts_ctx off"] + \
        (["hls_storage memory"] if storage == "memory" else []) + \
        [d.strip() for d in args.hls_extra.split(";") if d.strip()]
    extra = "".join(f"        {d};\n" for d in directives)
    ours = start_ours(args.srs, ours_dir, html, http_dir=html, hls_extra=extra, prefix=pinned(0))
    nginx = start_nginx_http(args.nginx, ng_dir, ng_root, prefix=pinned(0)) if with_nginx else None
    pub = None
    rows, checks = [], {}
    try:
        if not wait_for(lambda: listening(RTMP_PORT) and listening(HTTP_PORT), 10):
            raise RuntimeError(f"ours did not listen (logs in {ours_dir})")
        if nginx and not wait_for(lambda: listening(NGINX_HTTP_PORT), 10):
            raise RuntimeError(f"nginx did not listen (logs in {ng_dir})")
        pub = subprocess.Popen(pinned(1) + ["ffmpeg", "-hide_banner", "-loglevel", "error", "-re", "-stream_loop",
                                            "-1", "-i", str(args.media), "-c", "copy", "-f", "flv",
                                            f"rtmp://127.0.0.1:{RTMP_PORT}/{SERVE_STREAM}"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def ready():
            try:
                return newest_segment(args.url_path)[1] is not None
            except OSError:
                return False
        if not wait_for(ready, 6 * FRAGMENT + 10):
            raise RuntimeError(f"no playlist with a segment at {args.url_path} on ours (logs in {ours_dir})")
        for what in ("segment", "playlist"):
            # Fresh for each kind: the newest segment outlives both runs (the window above).
            playlist, segment = newest_segment(args.url_path)
            path = segment if what == "segment" else args.url_path
            status, ctype, body = http_get(f"http://127.0.0.1:{HTTP_PORT}{path}")
            if what == "segment":
                mirror(ng_root, args.url_path, playlist)
            mirror(ng_root, path, body)
            check = {"status": status, "bytes": len(body), "type": ctype}
            if nginx:
                n_status, n_ctype, n_body = http_get(f"http://127.0.0.1:{NGINX_HTTP_PORT}{path}")
                check.update({"nginx_status": n_status, "nginx_type": n_ctype, "same_bytes": n_body == body})
            checks[what] = check
            targets = [("ours", ours, HTTP_PORT)] + ([("nginx", nginx, NGINX_HTTP_PORT)] if nginx else [])
            for name, proc, port in targets:
                r = wrk_run(name, proc, port, path, args)
                r.update({"what": what, "bytes": len(body), "from": storage if name == "ours" else "disk",
                          "sitting": storage})
                print(f"{name:<6} {r['from']:<6} {what:<8} {len(body):>8} B: {r['rps']:10.0f} req/s  {r['mbps']:8.1f} MB/s  "
                      f"p99 {r['p99_ms']} ms  non-2xx {r['non2xx']}  errors {r['socket_errors']}  "
                      f"server CPU {r['cpu']:.0f}%  wrk CPU {r['wrk_cpu']:.0f}%", flush=True)
                rows.append(r)
    finally:
        stop(pub, signal.SIGINT)
        stop(ours)
        stop(nginx)
    return {"rows": rows, "checks": {storage: checks}}


# ---- LL-HLS clients parked on blocking playlist reloads ----

def parse_pdt(text):
    return datetime.datetime.fromisoformat(text.strip().replace("Z", "+00:00")).timestamp()


def ll_playlist_facts(text):
    """The (msn, part) a client asks for next (the part after the newest one listed) and, per listed part,
    when it ended by the playlist's own clock (its segment's EXT-X-PROGRAM-DATE-TIME plus the durations of
    the parts up to it)."""
    msn, part, seg_start, offset, ends = 0, 0, None, 0.0, {}
    for line in text.splitlines():
        if line.startswith("#EXT-X-MEDIA-SEQUENCE:"):
            msn = int(line.split(":", 1)[1])
        elif line.startswith("#EXT-X-SKIP:"):  # a delta update: the segments it leaves out
            m = re.search(r"SKIPPED-SEGMENTS=(\d+)", line)
            msn += int(m.group(1)) if m else 0
        elif line.startswith("#EXT-X-PROGRAM-DATE-TIME:"):
            seg_start, offset = parse_pdt(line.split(":", 1)[1]), 0.0
        elif line.startswith("#EXT-X-PART:"):
            m = re.search(r"DURATION=([\d.]+)", line)
            offset += float(m.group(1)) if m else 0.0
            if seg_start is not None:
                ends[(msn, part)] = seg_start + offset
            part += 1
        elif line.startswith("#EXTINF:"):
            duration = float(line.split(":", 1)[1].split(",")[0])
            seg_start = seg_start + duration if seg_start is not None else None
            msn, part, offset = msn + 1, 0, 0.0
    return (msn, part), ends


class ParkedState:
    """What the parked clients share: the playlist path, whether the window is on, and the tallies."""

    def __init__(self, path, skip):
        self.path = path
        self.query = "&_HLS_skip=YES" if skip else ""  # delta updates, as hls.js asks when the server offers them
        self.done = False
        self.measuring = False
        self.facts = {}  # playlist body -> ll_playlist_facts (every client gets the same bytes per part)
        self.answers = self.non200 = self.errors = self.connected = 0
        self.after_end = []  # s from a part's end (playlist clock) to its answer's arrival
        self.first = {}  # (msn, part) -> first arrival among the clients
        self.arrivals = []  # ((msn, part), arrival)

    def facts_of(self, body):
        f = self.facts.get(body)
        if f is None:
            if len(self.facts) > 64:
                self.facts.clear()
            f = self.facts[body] = ll_playlist_facts(body.decode("utf-8", "replace"))
        return f


async def parked_client(state, start):
    """One keep-alive client: asks for the next part's playlist (_HLS_msn/_HLS_part) as soon as the
    previous answer arrived, so it is parked on the server between parts."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", HTTP_PORT)
    except OSError:
        state.errors += 1
        return
    state.connected += 1
    want = start
    try:
        while not state.done:
            writer.write(f"GET {state.path}?_HLS_msn={want[0]}&_HLS_part={want[1]}{state.query} HTTP/1.1\r\n"
                         f"Host: 127.0.0.1\r\n\r\n".encode())
            head = await reader.readuntil(b"\r\n\r\n")
            m = re.search(rb"(?i)\r\ncontent-length:\s*(\d+)", head)
            body = await reader.readexactly(int(m.group(1)) if m else 0)
            now = time.time()
            if not head.startswith(b"HTTP/1.1 200"):
                state.non200 += 1
                await asyncio.sleep(LL_PART)
                continue
            nxt, ends = state.facts_of(body)
            if state.measuring:
                state.answers += 1
                if want in ends:
                    state.after_end.append(now - ends[want])
                state.first.setdefault(want, now)
                state.arrivals.append((want, now))
            want = nxt
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, OSError, ValueError):
        if not state.done:
            state.errors += 1
    finally:
        writer.close()


def percentile(values, pct):
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, int(round(pct / 100.0 * (len(values) - 1))))]


async def parked_window(args, proc, state, start):
    """Connects the clients, lets them settle, then samples the server's CPU over --ll-window s."""
    tasks = [asyncio.ensure_future(parked_client(state, start)) for _ in range(args.ll_clients)]
    await asyncio.sleep(max(2.0, args.ll_clients / 500.0))  # every client parked and answered at least once
    c0, s0, t0 = proc_cpu_seconds(proc.pid), resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
    state.measuring = True
    await asyncio.sleep(args.ll_window)
    state.measuring = False
    c1, s1, t1 = proc_cpu_seconds(proc.pid), resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
    state.done = True
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    client_cpu = (s1.ru_utime + s1.ru_stime) - (s0.ru_utime + s0.ru_stime)
    return 100.0 * (c1 - c0) / (t1 - t0), 100.0 * client_cpu / (t1 - t0), t1 - t0


def run_parked(args, work):
    """Ours with LL-HLS from memory (fMP4, parts of LL_PART s), ffmpeg publishing in real time, and
    --ll-clients keep-alive clients each re-issuing the blocking reload for the next part as soon as it is
    answered: the server's CPU with only the publisher, then with the parked clients."""
    d = work / "ll-ours"
    html = d / "html"
    html.mkdir(parents=True)
    extra = "".join(f"        {x};\n" for x in ["hls_ll on", "hls_use_fmp4 on", "hls_storage memory",
                                                  f"hls_part {LL_PART}", "hls_window 20", "hls_ctx off",
                                                  "hls_ts_ctx off"])
    ours = start_ours(args.srs, d, html, http_dir=html, hls_extra=extra, prefix=pinned(0))
    pub = None
    path = f"/{SERVE_STREAM}.m3u8"
    saved = os.sched_getaffinity(0)
    try:
        if not wait_for(lambda: listening(RTMP_PORT) and listening(HTTP_PORT), 10):
            raise RuntimeError(f"ours did not listen (logs in {d})")
        pub = subprocess.Popen(pinned(1) + ["ffmpeg", "-hide_banner", "-loglevel", "error", "-re", "-stream_loop",
                                            "-1", "-i", str(args.media), "-c", "copy", "-f", "flv",
                                            f"rtmp://127.0.0.1:{RTMP_PORT}/{SERVE_STREAM}"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        first = {}

        def ready():
            try:
                status, _, body = http_get(f"http://127.0.0.1:{HTTP_PORT}{path}")
            except OSError:
                return False
            first["facts"] = ll_playlist_facts(body.decode(errors="replace"))
            return status == 200 and first["facts"][1]
        if not wait_for(ready, 6 * FRAGMENT + 10):
            raise RuntimeError(f"no LL-HLS playlist with parts at {path} on ours (logs in {d})")
        # The server alone with its publisher, for what the clients add.
        idle_s = max(2, args.ll_window // 4)
        c0, t0 = proc_cpu_seconds(ours.pid), time.monotonic()
        time.sleep(idle_s)
        idle_cpu = 100.0 * (proc_cpu_seconds(ours.pid) - c0) / (time.monotonic() - t0)
        if pinned(1):
            os.sched_setaffinity(0, {1})
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft < args.ll_clients + 100:
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, args.ll_clients + 1000), hard))
        state = ParkedState(path, args.ll_skip)
        _, _, body = http_get(f"http://127.0.0.1:{HTTP_PORT}{path}")
        start = ll_playlist_facts(body.decode(errors="replace"))[0]
        cpu, client_cpu, elapsed = asyncio.run(parked_window(args, ours, state, start))
    finally:
        os.sched_setaffinity(0, saved)
        stop(pub, signal.SIGINT)
        stop(ours)
    spread = [t - state.first[k] for k, t in state.arrivals]
    parts = len(state.first)
    result = {"clients": args.ll_clients, "skip": args.ll_skip, "connected": state.connected, "window": args.ll_window,
              "idle_cpu": idle_cpu, "idle_window": idle_s, "cpu": cpu, "added_cpu": cpu - idle_cpu,
              "client_cpu": client_cpu, "answers": state.answers, "answers_per_s": state.answers / elapsed,
              "parts": parts, "answers_per_part": state.answers / parts if parts else 0,
              "non200": state.non200, "errors": state.errors,
              "after_end_p50_ms": None, "after_end_p99_ms": None,
              "spread_p50_ms": None, "spread_p99_ms": None}
    for name, values in (("after_end", state.after_end), ("spread", spread)):
        for pct in (50, 99):
            v = percentile(values, pct)
            result[f"{name}_p{pct}_ms"] = None if v is None else 1000.0 * v
    print(f"LL-HLS parked: {result['connected']}/{result['clients']} clients, {result['answers']} answers over "
          f"{parts} parts, server CPU {idle_cpu:.1f}% alone -> {cpu:.1f}% with them, client CPU "
          f"{client_cpu:.0f}%, answer after part end p50 {fmt(result['after_end_p50_ms'], '.0f')} ms", flush=True)
    return result


def parked_table(r):
    return "\n".join([
        "| Clients | connected | server CPU, publisher only | server CPU with the clients | what the clients add | "
        "answers/s | parts | answers per part | non-200 | errors | after the part's end p50 / p99 | "
        "spread across clients p50 / p99 | client CPU |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        f"| {r['clients']} | {r['connected']} | {r['idle_cpu']:.1f}% | {r['cpu']:.1f}% | {r['added_cpu']:+.1f} | "
        f"{r['answers_per_s']:.0f} | {r['parts']} | {r['answers_per_part']:.0f} | {r['non200']} | {r['errors']} | "
        f"{fmt(r['after_end_p50_ms'], '.0f')} / {fmt(r['after_end_p99_ms'], '.0f')} ms | "
        f"{fmt(r['spread_p50_ms'], '.1f')} / {fmt(r['spread_p99_ms'], '.1f')} ms | {r['client_cpu']:.0f}% |"])


def parked_summary(r):
    return (f"The parked clients add {r['added_cpu']:+.1f} points of a core to the server (target: < 10 % of a "
            f"core); an answer arrives {fmt(r['after_end_p50_ms'], '.0f')} ms (p50) after its part ended by the "
            f"playlist's clock (EXT-X-PROGRAM-DATE-TIME plus part durations: this includes the muxer waiting for "
            f"the frame that closes the part), and the clients of one part get it within "
            f"{fmt(r['spread_p99_ms'], '.1f')} ms (p99) of the first of them.")


def mux_table(rows):
    lines = ["| Server | HLS | Streams | CPU | Mem | Playlists | Segments listed | publishers alive | sb CPU |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['server']} | {'on' if r['hls'] else 'off'} | {r['streams']} | {r['cpu']:.1f}% | "
                     f"{r['rss_mb']:.0f}MB | {r['playlists']} | {r['segments']} | {r['alive']} | "
                     f"{r['load_cpu']:.1f}% |")
    return "\n".join(lines)


def mux_ratios(rows):
    """What HLS adds per server, ours/nginx-rtmp of it, and ours on vs nginx-rtmp on."""
    by = {(r["server"], r["hls"]): r for r in rows}
    added = {s: by[(s, True)]["cpu"] - by[(s, False)]["cpu"] for s in ("ours", "nginx-rtmp")
             if (s, True) in by and (s, False) in by}
    out = {"ours_added": added.get("ours"), "nginx_added": added.get("nginx-rtmp")}
    if "ours" in added and "nginx-rtmp" in added:
        out["added_ratio"] = added["ours"] / added["nginx-rtmp"] if added["nginx-rtmp"] > 0 else None
        nginx_on = by[("nginx-rtmp", True)]["cpu"]
        out["on_ratio"] = by[("ours", True)]["cpu"] / nginx_on if nginx_on > 0 else None
    return out


def fmt(x, spec=".2f", none="-"):
    return none if x is None else format(x, spec)


def mux_summary(ratios):
    return (f"What HLS adds: ours {fmt(ratios['ours_added'], '+.1f')} points, nginx-rtmp "
            f"{fmt(ratios['nginx_added'], '+.1f')} points; ours/nginx-rtmp of it: "
            f"{fmt(ratios.get('added_ratio'))} (target <= 0.5); CPU with HLS on, ours/nginx-rtmp: "
            f"{fmt(ratios.get('on_ratio'))} (target <= 1).")


def serve_table(result):
    lines = ["| Server | From | GET | Path | Bytes | Conns | Requests/s | MB/s | p50 | p99 | non-2xx | socket errors | "
             "server CPU | requests per CPU-second | wrk CPU |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in result["rows"]:
        lines.append(f"| {r['server']} | {r['from']} | {r['what']} | {r['path']} | {r['bytes']} | {r['conns']} | {r['rps']:.0f} | "
                     f"{r['mbps']:.1f} | {fmt(r['p50_ms'], '.2f')}ms | {fmt(r['p99_ms'], '.2f')}ms | {r['non2xx']} | "
                     f"{r['socket_errors']} | {r['cpu']:.0f}% | {fmt(r['per_cpu_s'], '.0f')} | {r['wrk_cpu']:.0f}% |")
    return "\n".join(lines)


def serve_ratios(result):
    """ours/nginx of requests/s and of requests per CPU-second, per storage of ours and kind of GET (each
    pair measured in the same sitting: nginx serves copies of what ours served in that sitting)."""
    out = {}
    for storage in result["storages"]:
        rows = [r for r in result["rows"] if r["sitting"] == storage]
        by = {(r["server"], r["what"]): r for r in rows}
        for what in ("segment", "playlist"):
            ours, nginx = by.get(("ours", what)), by.get(("nginx", what))
            if not ours:
                continue
            key = f"{storage}_{what}"
            out[key] = ours["rps"] / nginx["rps"] if nginx and nginx["rps"] > 0 else None
            out[key + "_per_cpu"] = (ours["per_cpu_s"] / nginx["per_cpu_s"]
                                     if nginx and ours["per_cpu_s"] and nginx["per_cpu_s"] else None)
    return out


def serve_summary(result):
    ratios = serve_ratios(result)
    lines = []
    for storage in result["storages"]:
        same = ", ".join(f"{w}: {c.get('same_bytes')}" for w, c in result["checks"].get(storage, {}).items())
        lines.append(f"Ours from {storage}, requests/s ours/nginx: segment {fmt(ratios.get(storage + '_segment'))}, "
                     f"playlist {fmt(ratios.get(storage + '_playlist'))} (target for segments from memory >= 0.8); "
                     f"per CPU-second: segment {fmt(ratios.get(storage + '_segment_per_cpu'))}, playlist "
                     f"{fmt(ratios.get(storage + '_playlist_per_cpu'))}; nginx served the same bytes ({same}).")
    return "\n\n".join(lines)


def markdown(mux_rows, serving, parked, args):
    """The HLS section of the kit's results: the tables and their ratio lines."""
    pin = "servers on CPU 0, wrk on CPU 1" if pinned(0) else "not pinned (one CPU)"
    where = f", HLS under {args.hls_root}" if args.hls_root else ""
    parts = []
    if mux_rows:
        parts += [f"### HLS muxing ({args.streams} streams, hls_fragment {FRAGMENT} s{where})", "",
                  mux_table(mux_rows), "", mux_summary(mux_ratios(mux_rows)), ""]
    if serving:
        parts += [f"### HLS serving (wrk, keep-alive, {args.wrk_conns} connections, {args.wrk_duration} s each, "
                  f"{pin}; ours: {args.url_path}, from {' and '.join(serving['storages'])}; nginx: copies on "
                  f"its disk)", "", serve_table(serving), "", serve_summary(serving), ""]
    if parked:
        asked = "delta updates (_HLS_skip=YES)" if parked["skip"] else "full playlists"
        parts += [f"### LL-HLS blocking reloads ({parked['clients']} keep-alive clients asking for {asked}, parts of "
                  f"{LL_PART} s, {parked['window']} s window, {'server on CPU 0, clients on CPU 1' if pinned(0) else 'not pinned'})",
                  "", parked_table(parked), "", parked_summary(parked), ""]
    return "\n".join(parts)


def run_serving_all(args, work, with_nginx):
    """One serving sitting per --serve-from storage; their rows in one table."""
    storages = [x.strip() for x in args.serve_from.split(",") if x.strip()]
    merged = {"rows": [], "checks": {}, "storages": storages}
    for storage in storages:
        one = run_serving(args, work, with_nginx, storage)
        merged["rows"] += one["rows"]
        merged["checks"].update(one["checks"])
    return merged


def run_all(args, tools, work):
    """Every layout asked for; the section's markdown and the raw results."""
    with_nginx = Path(args.nginx).exists() and Path(NGINX_MODULE).exists() and not args.no_nginx
    mux_rows = run_muxing(args, tools, work, with_nginx) if args.streams else []
    serving = run_serving_all(args, work, with_nginx) if args.wrk_duration else None
    parked = run_parked(args, work) if args.ll_clients else None
    return markdown(mux_rows, serving, parked, args), {
        "muxing": mux_rows, "muxing_ratios": mux_ratios(mux_rows), "serving": serving,
        "serving_ratios": serve_ratios(serving) if serving else {}, "parked": parked}


def add_options(p, prefix=""):
    """The options of the layout; under test/bench/run they all start with --hls- (prefix "hls-")."""
    p.add_argument(f"--{prefix}url-path", dest="url_path", default=f"/{SERVE_STREAM}.m3u8",
                   help="playlist path on our HTTP server for the serving runs (segments: from its URIs)")
    p.add_argument("--hls-extra", dest="hls_extra", default="",
                   help="directives added to our hls block, ';'-separated (e.g. to serve from memory)")
    p.add_argument("--hls-root", dest="hls_root", default=None,
                   help="folder the muxing runs write their HLS under (default: the run's temp folder; "
                        "e.g. /dev/shm to leave the file system's own cost out)")
    p.add_argument(f"--{prefix}wrk-duration", dest="wrk_duration", type=int, default=10,
                   help="s of each wrk run (0: no serving runs)")
    p.add_argument(f"--{prefix}wrk-conns", dest="wrk_conns", type=int, default=50,
                   help="wrk keep-alive connections")
    p.add_argument(f"--{prefix}wrk", dest="wrk", default=shutil.which("wrk") or "/usr/bin/wrk",
                   help="the wrk binary")
    p.add_argument(f"--{prefix}serve-from", dest="serve_from", default="disk,memory",
                   help="where ours keeps the HLS it serves, one serving sitting each: disk (files under "
                        "hls_path), memory (hls_storage memory); nginx always serves copies from its disk")
    p.add_argument(f"--{prefix}ll-clients", dest="ll_clients", type=int, default=1000,
                   help="LL-HLS clients parked on blocking playlist reloads (0: skip that layout)")
    p.add_argument(f"--{prefix}ll-skip", dest="ll_skip", action="store_true",
                   help="the parked clients ask for delta updates (_HLS_skip=YES) as hls.js does when the "
                        "playlist offers them (default: full playlists, the heavier answer)")
    p.add_argument(f"--{prefix}ll-window", dest="ll_window", type=int, default=20,
                   help="s of the parked clients' CPU window (and of the idle window before them: a quarter)")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_options(p, "hls.md", "sb_rtmp_publish", spread=2000, settle=10, window=20,
                       settle_help="s after starting the publishers before sampling")
    p.add_argument("--no-nginx", action="store_true")
    p.add_argument("--streams", type=int, default=50, help="published streams of the muxing runs (0: skip them)")
    p.add_argument("--max", type=int, default=2000, help="upper bound of --streams")
    add_options(p, prefix="")
    args = p.parse_args()
    if not 0 <= args.streams <= args.max:
        sys.exit(f"--streams must be 0..{args.max} (--max)")
    if args.wrk_duration and not Path(args.wrk).exists():
        sys.exit("wrk not found (3rdparty/install.sh bench installs it)")

    _, tools, args.media, kbps = resolve_common(args)
    with tempfile.TemporaryDirectory() as tmp:
        md, result = run_all(args, tools, Path(tmp))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=TRUNK, capture_output=True,
                            text=True).stdout.strip()
    cpu_model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                      if line.startswith("model name")), "?")
    md = "\n".join([f"Machine: {os.cpu_count()} CPUs ({cpu_model}), {platform.platform()}; commit {commit}; "
                    f"stream {args.media.name} ({kbps} kbps); muxing window {args.window} s after {args.settle} s.",
                    "", "Command: `test/bench/hls_bench.py " + shlex.join(sys.argv[1:]) + "`", "", md])
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(md)
    if args.json:
        for r in (result["serving"] or {}).get("rows", []):
            r.pop("raw", None)
        Path(args.json).write_text(json.dumps(result, indent=2, default=str))
    print(md)
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

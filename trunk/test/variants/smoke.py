"""Smoke tests of the instrumented builds (docs/performance.md), one per
variant: build it with test/variants/build.sh into objs/variants/NAME, run
the server there (the guide's commands run from trunk/, and the variant's
directory is a copy of trunk/), publish and play for a few seconds, quit it
with a signal and check that the tool's artefact exists and names our code.

    make variants      (or: python3 -m pytest -q -rA test/variants/smoke.py)

The valgrind variant is tested by test/test_valgrind.py.

The file name does not match test_*.py on purpose: the general pytest run
does not build the variants; `make test` runs `make variants` separately."""
import contextlib
import json
import os
import re
import signal
import subprocess
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import can_connect, free_port, wait_until
from media import Publisher, probe_packets

TRUNK = Path(__file__).resolve().parents[2]
BUILD = TRUNK / "test" / "variants" / "build.sh"
DEMO_SRC = TRUNK / "test" / "variants" / "gmd_demo.cpp"
# A demangled symbol of ours, as pprof and gprof print them.
OURS = re.compile(r"\bsrs::\w+")


def build(name):
    t0 = time.monotonic()
    r = subprocess.run(["sh", str(BUILD), name], capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, f"build {name} failed:\n{r.stdout}\n{r.stderr}"
    d = TRUNK / "objs" / "variants" / name
    print(f"[{name}] built in {time.monotonic() - t0:.0f} s: {d / 'objs' / 'srs'}")
    return d


def run(cmd, cwd, timeout=120, env=None, shell=False):
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=full_env,
                          shell=shell)


def top_lines(text, n=12):
    return "\n".join(text.splitlines()[:n])


class VariantServer:
    """objs/srs of one variant, started from the variant's directory with
    conf/console.conf's settings on free ports. The console log (stdout)
    goes to smoke.log; stderr to `stderr_name` (gmc.log for the heap
    checker, as in the guide)."""

    def __init__(self, vdir: Path, env=None, stderr_name="smoke.err"):
        self.vdir = vdir
        self.rtmp_port, self.api_port, self.http_port = free_port(), free_port(), free_port()
        console = (TRUNK / "conf" / "console.conf").read_text()
        conf = console.replace("listen              1935;", f"listen              {self.rtmp_port};")
        conf = conf.replace("listen          1985;", f"listen          {self.api_port};")
        conf = conf.replace("listen          8080;", f"listen          {self.http_port};")
        assert conf.count(str(self.rtmp_port)) and conf.count(str(self.api_port)) and conf.count(str(self.http_port))
        conf += f"pid ./objs/smoke.pid;\n"
        (vdir / "smoke.conf").write_text(conf)
        self.out_path = vdir / "smoke.log"
        self.err_path = vdir / stderr_name
        full_env = dict(os.environ)
        full_env.update(env or {})
        with open(self.out_path, "w") as out, open(self.err_path, "w") as err:
            self.proc = subprocess.Popen(["./objs/srs", "-c", "smoke.conf"], cwd=vdir, env=full_env, stdout=out,
                                         stderr=err)
        ok = wait_until(lambda: can_connect(self.rtmp_port) or self.proc.poll() is not None, 30)
        assert ok and self.proc.poll() is None, f"srs did not start: {self.log()[-2000:]} {self.err()[-2000:]}"

    def log(self):
        return self.out_path.read_text(errors="replace")

    def err(self):
        return self.err_path.read_text(errors="replace")

    def api(self, path):
        """(status, content type, body text)."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.api_port}{path}", timeout=10) as r:
                return r.status, r.headers.get("Content-Type", ""), r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get("Content-Type", ""), e.read().decode()

    def quit(self, signo, timeout=120):
        """Sends signo (by PID) and waits for a normal exit."""
        self.proc.send_signal(signo)
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"srs did not exit on signal {signo}: {self.log()[-2000:]}")
        assert code == 0, f"srs exited {code} on signal {signo}: {self.log()[-2000:]} {self.err()[-3000:]}"

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


@contextlib.contextmanager
def streaming(srv: VariantServer, media, seconds=4, players=3):
    """ffmpeg publishes over RTMP; ffprobes play it over HTTP-FLV (`players`
    of them) and RTMP (one) at the same time, for `seconds`. Yields the
    packet counts with the publisher still on: quitting the server inside
    the block quits it with a live stream (the heap profile then shows it,
    the heap checker checks that shutdown frees it)."""
    pub = Publisher(media, f"rtmp://127.0.0.1:{srv.rtmp_port}/live/livestream")
    try:
        assert wait_until(lambda: "fmle-publish" in srv.log() or not pub.alive(), 30), srv.log()[-2000:]
        assert pub.alive(), "ffmpeg stopped publishing"
        urls = [f"http://127.0.0.1:{srv.http_port}/live/livestream.flv"] * players
        urls.append(f"rtmp://127.0.0.1:{srv.rtmp_port}/live/livestream")
        with ThreadPoolExecutor(len(urls)) as pool:
            counts = list(pool.map(lambda url: len(probe_packets(url, seconds)), urls))
        assert min(counts) > 10, f"played {counts} packets (HTTP-FLV..., RTMP)"
        yield counts
    finally:
        pub.stop()


def clean(vdir: Path, *patterns):
    for pattern in patterns:
        for f in vdir.glob(pattern):
            f.unlink()


def check_tcmalloc_api(srv: VariantServer):
    status, ctype, text = srv.api("/api/v1/tcmalloc?page=summary")
    assert status == 200 and ctype.startswith("text/plain") and "MALLOC:" in text, (status, ctype, text[:500])
    status, _, text = srv.api("/api/v1/tcmalloc?page=api")
    data = json.loads(text)["data"]
    assert status == 200 and data["generic"]["current_allocated_bytes"] > 0, text
    assert abs(data["release_rate"] - 0.8) < 1e-9, text
    _, _, text = srv.api("/api/v1/")
    assert "tcmalloc" in json.loads(text)["urls"], text
    return data


def pprof_text(vdir: Path, glob):
    """The guide's command, through a shell for the glob."""
    r = run(f"./objs/pprof --text objs/srs {glob}", vdir, timeout=300, shell=True)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


# ---------------------------------------------------------------- variants


def idle_then_sigterm(vdir, pattern):
    """Removes the files matching pattern, runs the variant's server idle for
    a second and ends it with SIGTERM; returns it for its log."""
    clean(vdir, pattern)
    srv = VariantServer(vdir)
    try:
        time.sleep(1)
        srv.quit(signal.SIGTERM)
    finally:
        srv.kill()
    return srv


def test_gcp(big_media):
    vdir = build("gcp")
    clean(vdir, "gperf.srs.gcp*", "t.svg")
    # The server needs little CPU for a few seconds of streaming: sample at
    # up to 1000 Hz of CPU time instead of 100 (the kernel's tick caps it).
    srv = VariantServer(vdir, env={"CPUPROFILE_FREQUENCY": "1000"})
    try:
        # An 8 Mbps stream to several players: enough CPU for samples (100/s
        # of CPU time) in a few seconds.
        with streaming(srv, big_media, players=6) as played:
            check_tcmalloc_api(srv)
            srv.quit(signal.SIGINT)
    finally:
        srv.kill()
    assert "gcp: CPU profile written to gperf.srs.gcp" in srv.log()
    prof = vdir / "gperf.srs.gcp"
    assert prof.stat().st_size > 0
    text = pprof_text(vdir, "gperf.srs.gcp*")
    assert OURS.search(text), text[:3000]
    svg = run("./objs/pprof --svg ./objs/srs gperf.srs.gcp >t.svg", vdir, timeout=300, shell=True)
    assert svg.returncode == 0 and "<svg" in (vdir / "t.svg").read_text(errors="replace"), svg.stderr[-2000:]
    print(f"[gcp] played {played} packets; SIGINT; {prof.stat().st_size} bytes of profile; "
          f"t.svg {(vdir / 't.svg').stat().st_size} bytes")
    print("$ ./objs/pprof --text objs/srs gperf.srs.gcp*\n" + top_lines(text, 16))

    # SIGTERM ends the profile too.
    srv = idle_then_sigterm(vdir, "gperf.srs.gcp*")
    assert (vdir / "gperf.srs.gcp").exists() and "CPU profile written" in srv.log()
    print("[gcp] SIGTERM: gperf.srs.gcp written")


def test_gmp(media):
    vdir = build("gmp")
    clean(vdir, "gperf.srs.gmp*")
    srv = VariantServer(vdir)
    try:
        with streaming(srv, media) as played:
            check_tcmalloc_api(srv)
            srv.quit(signal.SIGINT)
    finally:
        srv.kill()
    files = sorted(p.name for p in vdir.glob("gperf.srs.gmp.*.heap"))
    assert len(files) >= 2, files  # one at the quit signal, one at exit
    text = pprof_text(vdir, "gperf.srs.gmp*")
    assert OURS.search(text), text[:3000]
    print(f"[gmp] played {played} packets; SIGINT; {files}")
    print("$ ./objs/pprof --text objs/srs gperf.srs.gmp*\n" + top_lines(text, 16))

    # SIGTERM dumps the profile too.
    srv = idle_then_sigterm(vdir, "gperf.srs.gmp*")
    assert list(vdir.glob("gperf.srs.gmp.*.heap")), srv.log()[-2000:]
    print("[gmp] SIGTERM: gperf.srs.gmp.*.heap written")


def test_gmc(media):
    vdir = build("gmc")
    clean(vdir, "gmc.log")
    # env PPROF_PATH=./objs/pprof HEAPCHECK=normal ./objs/srs -c conf/console.conf 2>gmc.log
    srv = VariantServer(vdir, env={"PPROF_PATH": "./objs/pprof", "HEAPCHECK": "normal"}, stderr_name="gmc.log")
    try:
        with streaming(srv, media) as played:
            check_tcmalloc_api(srv)
            srv.quit(signal.SIGINT, timeout=300)
    finally:
        srv.kill()
    log = (vdir / "gmc.log").read_text(errors="replace")
    assert "leak checker is active" in log, log[-3000:]
    assert "No leaks found" in log, log[-6000:]
    print(f"[gmc] played {played} packets; SIGINT\n$ cat gmc.log\n" + top_lines(log, 12))

    # SIGTERM ends in the check too.
    srv = VariantServer(vdir, env={"PPROF_PATH": "./objs/pprof", "HEAPCHECK": "normal"}, stderr_name="gmc.log")
    try:
        time.sleep(1)
        srv.quit(signal.SIGTERM, timeout=300)
    finally:
        srv.kill()
    assert "No leaks found" in (vdir / "gmc.log").read_text(errors="replace")
    print("[gmc] SIGTERM: No leaks found")


def demo_line(marker):
    for n, line in enumerate(DEMO_SRC.read_text().splitlines(), 1):
        if marker in line:
            return n
    raise AssertionError(marker)


def test_gmd(media):
    vdir = build("gmd")
    # The server with page fences: a publish/play cycle works, and it quits cleanly.
    srv = VariantServer(vdir, env={"TCMALLOC_PAGE_FENCE": "1"})
    try:
        with streaming(srv, media) as played:
            check_tcmalloc_api(srv)
            srv.quit(signal.SIGTERM)
    finally:
        srv.kill()
    assert "gmd: debug malloc with TCMALLOC_PAGE_FENCE=1" in srv.log()
    print(f"[gmd] TCMALLOC_PAGE_FENCE=1: played {played} packets; SIGTERM; exit 0")
    # The demo's bugs stop it on their own line.
    for bug, marker in (("overrun", "gmd: overrun"), ("use-after-free", "gmd: use-after-free")):
        plain = run(["./objs/gmd_demo", bug], vdir)
        assert plain.returncode == 1, (bug, plain.returncode)  # unnoticed without fences
        r = run(["gdb", "-q", "-batch", "-ex", "run", "-ex", "bt", "--args", "./objs/gmd_demo", bug], vdir,
                env={"TCMALLOC_PAGE_FENCE": "1"})
        where = f"gmd_demo.cpp:{demo_line(marker)}"
        assert "SIGSEGV" in r.stdout and f"{where}\n" in r.stdout, r.stdout[-3000:] + r.stderr[-2000:]
        frame0 = next(line for line in r.stdout.splitlines() if line.startswith("#0"))
        print(f"[gmd] demo {bug}: SIGSEGV at {where}\n  {frame0}")

    # SIGINT quits normally too.
    srv = VariantServer(vdir, env={"TCMALLOC_PAGE_FENCE": "1"})
    try:
        time.sleep(1)
        srv.quit(signal.SIGINT)
    finally:
        srv.kill()
    print("[gmd] SIGINT: exit 0")


def test_gprof(media):
    vdir = build("gprof")
    clean(vdir, "gmon.out")
    srv = VariantServer(vdir)
    try:
        with streaming(srv, media) as played:
            status, _, text = srv.api("/api/v1/tcmalloc")
            assert status == 404 and "--gperf=on" in text, (status, text)
            _, _, text = srv.api("/api/v1/")
            assert "tcmalloc" not in json.loads(text)["urls"], text
            srv.quit(signal.SIGINT)
    finally:
        srv.kill()
    assert (vdir / "gmon.out").exists(), srv.log()[-2000:]
    r = run(["gprof", "-b", "./objs/srs", "gmon.out"], vdir, timeout=300)
    assert r.returncode == 0 and OURS.search(r.stdout), r.stdout[:3000] + r.stderr[-2000:]
    print(f"[gprof] played {played} packets; SIGINT; gmon.out {(vdir / 'gmon.out').stat().st_size} bytes")
    print("$ gprof -b ./objs/srs gmon.out\n" + top_lines(r.stdout, 14))

    # SIGTERM writes gmon.out too.
    clean(vdir, "gmon.out")
    srv = VariantServer(vdir)
    try:
        time.sleep(1)
        srv.quit(signal.SIGTERM)
    finally:
        srv.kill()
    assert (vdir / "gmon.out").exists()
    print("[gprof] SIGTERM: gmon.out written")


def test_refused_combinations(tmp_path):
    """configure refuses what cannot work together, with a message."""
    cases = {
        "--gperf=on --sanitizer=on": "ASAN",
        "--gperf=on --gmc=on --gmd=on": "cannot be used together",
        "--gperf=on --gmc=on --gmp=on": "cannot be used together",
        "--gperf=on --gmd=on --gmp=on": "cannot be used together",
        "--gcp=on": "needs --gperf=on",
        "--gprof=on --sanitizer=on": "--sanitizer=off",
        "--gprof=on --gperf=on --gcp=on": "SIGPROF",
    }
    # A scratch copy: configure writes objs/ beside itself.
    subprocess.run(f"cp {TRUNK}/configure {TRUNK}/Makefile {tmp_path}/ && mkdir {tmp_path}/3rdparty && "
                   f"cp -r {TRUNK}/3rdparty/. {tmp_path}/3rdparty/", shell=True, check=True)
    for opts, message in cases.items():
        r = run(f"./configure {opts}", tmp_path, shell=True)
        assert r.returncode != 0 and message in r.stderr, (opts, r.stdout, r.stderr)
        print(f"./configure {opts}: {r.stderr.strip()}")
    for opts in ("--gperf=on --gcp=on", "--gprof=on", "--gperf=on --gcp=on --gmp=on", "--gperf=on --gmd=on --gcp=on"):
        r = run(f"./configure {opts}", tmp_path, shell=True)
        assert r.returncode == 0, (opts, r.stderr)
        mk = (tmp_path / "objs" / "config.mk").read_text()
        assert "-fno-omit-frame-pointer" in mk and "SANITIZER := off" in mk, mk

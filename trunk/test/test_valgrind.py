"""The valgrind API (/api/v1/valgrind) against the --valgrind=on variant
running under memcheck: the performance guide's incremental leak workflow
must end with "definitely lost: 0 (+0)" and no growth anywhere, with no
invalid reads or writes and a clean ERROR SUMMARY at exit; and the answer's
shape for every ?check= value (including "new", which valgrind 3.19 lacks).

The variant is built once per session (test/variants/build.sh valgrind, its
own copy of the tree). Without valgrind the tests skip, or fail under CI=true.
Every process started here is stopped by PID in a finally block."""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from conftest import SRS, TRUNK, can_connect, free_port, wait_until
from media import Publisher

BUILD = TRUNK / "test" / "variants" / "build.sh"
SUPP = TRUNK / "conf" / "valgrind.supp"  # glibc noise only, see the file
STREAM = "/live/livestream"
CATEGORIES = ("definitely lost", "indirectly lost", "possibly lost", "still reachable", "suppressed")
SUMMARY_LINE = re.compile(r"(definitely lost|indirectly lost|possibly lost|still reachable|suppressed): "
                          r"([\d,]+)(?: \(([+-][\d,]+)\))? bytes in ([\d,]+)(?: \(([+-][\d,]+)\))? blocks")
HELP = "?check=full|added|changed|new|quick"
SEE = "https://valgrind.org/docs/manual/mc-manual.html"
MACROS = {"full": "VALGRIND_DO_LEAK_CHECK", "quick": "VALGRIND_DO_QUICK_LEAK_CHECK",
          "added": "VALGRIND_DO_ADDED_LEAK_CHECK", "changed": "VALGRIND_DO_CHANGED_LEAK_CHECK",
          "new": "VALGRIND_DO_NEW_LEAK_CHECK"}


def _need(tool):
    if shutil.which(tool):
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"{tool} is required under CI")
    pytest.skip(f"{tool} is not installed")


@pytest.fixture(scope="session")
def valgrind_srs():
    """objs/variants/valgrind/objs/srs, built (or brought up to date) once;
    or the --valgrind=on server named by $SRS_VALGRIND_BINARY, as it is."""
    _need("valgrind")
    if os.environ.get("SRS_VALGRIND_BINARY"):
        return Path(os.environ["SRS_VALGRIND_BINARY"])
    r = subprocess.run(["sh", str(BUILD), "valgrind"], cwd=TRUNK, capture_output=True, text=True, timeout=1200)
    assert r.returncode == 0, r.stderr[-3000:]
    path = Path(r.stdout.strip().splitlines()[-1])
    assert path.is_file(), r.stdout
    return path


def has_new_leak_check():
    """Whether the installed headers have VALGRIND_DO_NEW_LEAK_CHECK (3.21+)."""
    try:
        return "VALGRIND_DO_NEW_LEAK_CHECK" in Path("/usr/include/valgrind/memcheck.h").read_text()
    except OSError:
        return False


def stop(proc, sig=signal.SIGKILL, timeout=5):
    """Stops a process we started, by PID, and reaps it."""
    if proc is None:
        return None
    if proc.poll() is None:
        os.kill(proc.pid, sig)
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.kill(proc.pid, signal.SIGKILL)
        return proc.wait(timeout=10)


def api(port, path, timeout=30):
    """(status, json) of a GET on the API."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


class VgServer:
    """The valgrind variant with its own conf on free ports, optionally under
    memcheck with the guide's options and its report in vg.log."""

    def __init__(self, binary, workdir: Path, memcheck=True, suppressions=False, rtc=False):
        self.binary, self.workdir, self.memcheck, self.suppressions = binary, workdir, memcheck, suppressions
        self.rtmp_port, self.api_port, self.http_port = free_port(), free_port(), free_port()
        # rtc: WebRTC on a free UDP port, RTMP streams bridged to it (AAC -> Opus).
        self.rtc_port = free_port(socket.SOCK_DGRAM) if rtc else None
        rtc_server = (f"rtc_server {{\n  enabled on;\n  listen {self.rtc_port};\n  candidate 127.0.0.1;\n}}\n"
                      if rtc else "")
        rtc_vhost = "  rtc {\n    enabled on;\n    rtmp_to_rtc on;\n  }\n" if rtc else ""
        self.vg_log = workdir / "vg.log"
        self.log_file = workdir / "srs.log"
        self.conf = workdir / "srs.conf"
        self.conf.write_text(
            f"listen {self.rtmp_port};\nmax_connections 1000;\ndaemon off;\n"
            f"pid {workdir / 'srs.pid'};\nsrs_log_tank file;\nsrs_log_file {self.log_file};\n"
            f"http_api {{\n  enabled on;\n  listen {self.api_port};\n}}\n"
            f"http_server {{\n  enabled on;\n  listen {self.http_port};\n  dir {workdir};\n}}\n"
            + rtc_server
            + "vhost __defaultVhost__ {\n  http_remux {\n    enabled on;\n"
            "    mount [vhost]/[app]/[stream].flv;\n  }\n" + rtc_vhost + "}\n")
        self.proc = None

    def start(self):
        cmd = [str(self.binary), "-c", str(self.conf)]
        if self.memcheck:
            cmd = ["valgrind", "--leak-check=full", "--show-leak-kinds=all", f"--log-file={self.vg_log}"] + cmd
            if self.suppressions:
                cmd.insert(1, f"--suppressions={SUPP}")
        self.proc = subprocess.Popen(cmd, cwd=TRUNK, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        assert wait_until(lambda: can_connect(self.api_port) or self.proc.poll() is not None, 90, 0.2), \
            "the server did not listen"
        assert self.proc.poll() is None, f"the server exited: {self.vg_text()[-3000:]}"
        return self

    def vg_text(self):
        try:
            return self.vg_log.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def log(self):
        try:
            return self.log_file.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def rtmp_url(self):
        return f"rtmp://127.0.0.1:{self.rtmp_port}{STREAM}"

    def streams(self):
        return api(self.api_port, "/api/v1/streams")[1]["streams"]

    def clients(self):
        return api(self.api_port, "/api/v1/clients")[1]["clients"]


def leak_summary(vg_text, n):
    """The LEAK SUMMARY of the server's check #n, as {category: (bytes,
    +bytes, blocks, +blocks)}, or None while it is not complete in the log."""
    marker = re.search(rf"srs: leak check=\S+ #{n} ", vg_text)
    if not marker:
        return None
    start = vg_text.find("LEAK SUMMARY:", marker.end())
    if start < 0:
        return None
    end = vg_text.find("suppressed:", start)
    if end < 0 or vg_text.find("\n", end) < 0:
        return None
    out = {}
    for m in SUMMARY_LINE.finditer(vg_text[start:vg_text.find("\n", end)]):
        num = lambda s: int(s.replace(",", "")) if s else 0
        out[m.group(1)] = (num(m.group(2)), num(m.group(3)), num(m.group(4)), num(m.group(5)))
    return out if set(out) == set(CATEGORIES) else None


def summary_text(vg_text, n):
    """The LEAK SUMMARY block of check #n as valgrind printed it."""
    marker = re.search(rf"srs: leak check=\S+ #{n} ", vg_text)
    start = vg_text.find("==", vg_text.rfind("\n", 0, vg_text.find("LEAK SUMMARY:", marker.end())) + 1)
    end = vg_text.find("\n", vg_text.find("suppressed:", start))
    return vg_text[start:end]


def grown_records(vg_text, n, limit=8000):
    """The loss records of check #n that grew, for a failure message."""
    marker = re.search(rf"srs: leak check=\S+ #{n} ", vg_text)
    if not marker:
        return ""
    end = vg_text.find("LEAK SUMMARY:", marker.end())
    records = re.split(r"\n==\d+== \n", vg_text[marker.end():end])
    grown = [r for r in records if re.search(r"\(\+[1-9][\d,]*\)", r)]
    return "\n\n".join(grown)[:limit]


def flat(summary):
    return all(v[1] == 0 and v[3] == 0 for v in summary.values())


def check_added(server, n, timeout=60):
    """Asks for check #n (added) and waits for its LEAK SUMMARY."""
    status, body = api(server.api_port, "/api/v1/valgrind?check=added")
    assert status == 200 and body["code"] == 0 and body["data"]["call"] == MACROS["added"], body
    summary = wait_until(lambda: leak_summary(server.vg_text(), n), timeout, 0.2)
    assert summary, f"check #{n} did not land in vg.log: {server.vg_text()[-2000:]}"
    return summary


def wait_source_freed(server, count, timeout=60):
    """Until the server logged freeing its count-th idle source and the API
    lists no stream and no client, then a few seconds more (the connections'
    coroutines are joined and freed by the manager)."""
    assert wait_until(lambda: server.log().count("free idle source") >= count, timeout, 0.5), \
        server.log()[-3000:]
    assert wait_until(lambda: not server.streams() and not server.clients(), timeout, 0.5), \
        (server.streams(), server.clients())
    time.sleep(3)


def wait_publishing(server, count=1, timeout=30):
    """Until the log says the count-th publish started (the API is not asked:
    the first phase must not be the one that runs its code for a stream)."""
    assert wait_until(lambda: server.log().count(f"source __defaultVhost__{STREAM} published by") >= count,
                      timeout, 0.3), server.log()[-3000:]


def test_incremental_leak_check_is_clean(valgrind_srs, media, tmp_path):
    """The guide's workflow: publish once and stop, check=added until stable,
    publish and play, stop, wait for the source to go, check=added: no new
    bytes anywhere; no memory errors during the session or at exit."""
    _need("ffmpeg")
    t0 = time.monotonic()
    mark = lambda what: print(f"[{time.monotonic() - t0:5.1f}s] {what}")
    server = VgServer(valgrind_srs, tmp_path, suppressions=True).start()
    procs = []
    try:
        mark("started under valgrind")
        # 1. Publish ~3 s and stop, so lazily made static state exists. Only
        #    the publish: whatever else phase 3 does first (playing, the API
        #    describing live streams and clients) must not leave memory behind.
        pub = Publisher(media, server.rtmp_url())
        procs.append(pub.proc)
        wait_publishing(server, 1)
        time.sleep(3)
        pub.stop()
        wait_source_freed(server, 1)
        mark("published once, source freed")

        # 2. check=added until two summaries in a row show no growth (at most 5).
        n, flat_in_a_row, calibration = 0, 0, []
        while flat_in_a_row < 2 and n < 5:
            n += 1
            summary = check_added(server, n)
            calibration.append(summary_text(server.vg_text(), n))
            flat_in_a_row = flat_in_a_row + 1 if flat(summary) else 0
            mark(f"check #{n}: {'flat' if flat(summary) else 'growing'}")
        assert flat_in_a_row == 2, "\n".join(calibration)
        before = summary_text(server.vg_text(), n)

        # 3. Publish and play (HTTP-FLV and RTMP) for a while, with the API
        #    describing the stream and its clients meanwhile, then stop.
        pub = Publisher(media, server.rtmp_url())
        procs.append(pub.proc)
        wait_publishing(server, 2)
        assert wait_until(lambda: any(s["publish"]["active"] for s in server.streams()), 30, 0.3)
        players = [subprocess.Popen(["ffmpeg", "-hide_banner", "-loglevel", "error", "-i", url, "-t", "6",
                                     "-c", "copy", "-f", "null", "-"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                   for url in (f"http://127.0.0.1:{server.http_port}{STREAM}.flv", server.rtmp_url())]
        procs += players
        assert wait_until(lambda: len([c for c in server.clients() if not c["publish"]]) == 2, 30, 0.3), \
            server.clients()
        assert api(server.api_port, "/api/v1/vhosts")[1]["vhosts"][0]["streams"] == 1
        for p in players:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
        pub.stop()
        for p in players:
            stop(p)

        mark("published and played")
        # 4. Wait for the source to be freed, then the incremental check.
        wait_source_freed(server, 2)
        mark("source freed")
        n += 1
        summary = check_added(server, n)
        after = summary_text(server.vg_text(), n)
        print("calibrated:\n" + before + "\nafter publish+play:\n" + after)
        for category in CATEGORIES:
            assert summary[category][1] == 0 and summary[category][3] == 0, \
                f"{category} grew:\n{after}\n{grown_records(server.vg_text(), n)}"
        assert summary["definitely lost"][0] == 0 and summary["indirectly lost"][0] == 0, after

        text = server.vg_text()
        assert "Invalid read" not in text and "Invalid write" not in text, text[-5000:]

        # 5. SIGINT: a normal exit, no errors.
        code = stop(server.proc, signal.SIGINT, timeout=120)
        mark("exited")
        assert code == 0, server.log()[-2000:]
        text = server.vg_text()
        assert "ERROR SUMMARY: 0 errors" in text, text[-5000:]
        assert "Invalid read" not in text and "Invalid write" not in text, text[-5000:]
    finally:
        for p in procs:
            stop(p)
        stop(server.proc)


def test_webrtc_rounds_have_no_memory_errors(valgrind_srs, media, tmp_path):
    """RTMP in with rtmp_to_rtc (AAC decoded, resampled and encoded to Opus),
    rounds of WHEP players (aiortc) that decode, then a normal exit: memcheck
    reports no error at all (uninitialised values included)."""
    _need("ffmpeg")
    from rtc_env import require_aiortc
    require_aiortc()
    from rtc_client import Rtc
    server = VgServer(valgrind_srs, tmp_path, suppressions=True, rtc=True).start()
    rtc = Rtc()
    procs = []
    try:
        pub = Publisher(media, server.rtmp_url())
        procs.append(pub.proc)
        wait_publishing(server, 1)
        app, name = STREAM.strip("/").split("/")
        for _ in range(2):
            players = [rtc.play(f"127.0.0.1:{server.api_port}", app, name, timeout=60) for _ in range(3)]
            for p in players:
                assert wait_until(lambda: p.frames_decoded >= 3 and p.audio_packets >= 3, 90, 0.5), p.stats()
            for p in players:
                p.close()
            assert wait_until(lambda: not [c for c in server.clients() if c["type"] == "rtc-play"], 60, 0.5), \
                server.clients()
        pub.stop()
        text = server.vg_text()
        assert "uninitialised" not in text and "Invalid read" not in text, text[-5000:]
        code = stop(server.proc, signal.SIGINT, timeout=120)
        assert code == 0, server.log()[-2000:]
        text = server.vg_text()
        assert "ERROR SUMMARY: 0 errors" in text, text[-5000:]
    finally:
        rtc.close()
        for p in procs:
            stop(p)
        stop(server.proc)


def test_live_session_objects_are_not_lost(valgrind_srs, media, tmp_path):
    """A full check in the middle of a publish with two players: everything
    alive (connections, the source, queues, what only coroutine stacks point
    to) must be reachable: nothing lost, definitely, indirectly or possibly."""
    _need("ffmpeg")
    server = VgServer(valgrind_srs, tmp_path, suppressions=True).start()
    procs = []
    try:
        pub = Publisher(media, server.rtmp_url())
        procs.append(pub.proc)
        wait_publishing(server)
        procs += [subprocess.Popen(["ffmpeg", "-hide_banner", "-loglevel", "error", "-i", url, "-t", "20",
                                    "-c", "copy", "-f", "null", "-"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                  for url in (f"http://127.0.0.1:{server.http_port}{STREAM}.flv", server.rtmp_url())]
        assert wait_until(lambda: len([c for c in server.clients() if not c["publish"]]) == 2, 30, 0.3), \
            server.clients()
        time.sleep(2)
        status, body = api(server.api_port, "/api/v1/valgrind?check=full")
        assert status == 200 and body["data"]["call"] == MACROS["full"], body
        summary = wait_until(lambda: leak_summary(server.vg_text(), 1), 60, 0.2)
        assert summary, server.vg_text()[-2000:]
        text = summary_text(server.vg_text(), 1)
        print(text)
        assert len([c for c in server.clients() if not c["publish"]]) == 2, "the players ended too soon"
        for category in ("definitely lost", "indirectly lost", "possibly lost"):
            assert summary[category][0] == 0, (category, server.vg_text()[-20000:])
        assert summary["still reachable"][0] > 0
    finally:
        for p in procs:
            stop(p)
        stop(server.proc)


def test_answer_shape_for_each_check(valgrind_srs, tmp_path):
    """Each ?check= value: the data fields, the macro, "new"'s fallback, and
    the check landing in vg.log (numbered in order) a moment later."""
    server = VgServer(valgrind_srs, tmp_path).start()
    try:
        cases = [("full", "full"), ("added", "added"), ("changed", "changed"), ("quick", "quick"),
                 ("new", "new"), ("", "full"), ("bogus", "full"), (None, "full")]
        for i, (value, check) in enumerate(cases, 1):
            path = "/api/v1/valgrind" + ("" if value is None else f"?check={value}")
            status, body = api(server.api_port, path)
            assert status == 200, body
            assert list(body)[:4] == ["code", "server", "service", "pid"] and body["code"] == 0, body
            data = body["data"]
            call = MACROS[check]
            if check == "new" and not has_new_leak_check():
                call = MACROS["added"]
                assert "VALGRIND_DO_NEW_LEAK_CHECK" in data.pop("fallback"), data
            assert data == {"check": check, "help": HELP, "see": SEE, "call": call}, data
            # The check runs after the answer, in the checker coroutine.
            assert wait_until(lambda: f"srs: leak check={check} #{i} {call}" in server.vg_text(), 60, 0.2), \
                server.vg_text()[-2000:]
            assert wait_until(lambda: f"valgrind leak check={check} #{i} done" in server.log(), 60, 0.2)
        status, _ = api(server.api_port, "/api/v1/valgrind", timeout=30)
        assert status == 200
        status, body = api(server.api_port, "/api/v1")
        assert "valgrind" in body["urls"], body
    finally:
        stop(server.proc)


def test_not_under_valgrind_says_so(valgrind_srs, tmp_path):
    """The valgrind build run directly: it answers, says it is not under
    valgrind, and the checker logs a warning instead of checking."""
    server = VgServer(valgrind_srs, tmp_path, memcheck=False).start()
    try:
        status, body = api(server.api_port, "/api/v1/valgrind?check=added")
        assert status == 200 and body["code"] == 0, body
        assert body["data"]["running_on_valgrind"] is False and body["data"]["check"] == "added", body
        assert wait_until(lambda: "valgrind leak check=added #1 skipped" in server.log(), 10), server.log()
    finally:
        stop(server.proc)


def test_default_build_answers_404_with_a_hint(srs):
    """objs/srs without --valgrind=on: the endpoint exists but says what is needed."""
    if not SRS.exists():
        pytest.skip("objs/srs is not built")
    srs.api_port = free_port()
    srs.start(srs.base_conf(f"http_api {{\n  enabled on;\n  listen {srs.api_port};\n}}\n"))
    features = api(srs.api_port, "/api/v1/features")[1]["data"]["options2"]
    if "--valgrind=on" in features:
        pytest.skip("objs/srs is a valgrind build")
    status, body = api(srs.api_port, "/api/v1/valgrind?check=added")
    assert status == 404 and body["code"] == 404, body
    assert "--valgrind=on" in body["error"], body

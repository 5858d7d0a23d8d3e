"""Black-box test harness: starts objs/srs with a temporary conf on free
loopback ports, drives it with real clients and stops it by PID.

The suite builds nothing: run `make` first (make test does)."""
import os
import random
import signal
import socket
import subprocess
import time
from pathlib import Path

import resource

import pytest

# Some tests hold a thousand sockets; lift the soft fd limit to the hard one.
_soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (_hard, _hard))

TRUNK = Path(__file__).resolve().parents[1]
SRS = TRUNK / "objs" / "srs"
# The strict ASAN run of SRS's performance guide (see SrsProcess.start).
ASAN_STRICT = "halt_on_error=1:detect_leaks=1"


_GIVEN_PORTS = set()


# The files `make test` runs alone, after the others ran two at a time
# (pytest-xdist): they measure time or CPU (latency, load points, floors),
# run the server under valgrind, drive Chromium, or run make in the tree.
SERIAL_FILES = {
    "test_asan.py", "test_bench_kit.py", "test_browser.py", "test_build.py", "test_console_page.py",
    "test_hls_browser.py", "test_hooks.py", "test_latency_tool.py", "test_rtc_browser.py", "test_rtc_dtls_loss.py",
    "test_rtc_flood.py", "test_udp_floor.py", "test_valgrind.py", "test_whip_chromium_sync.py",
}


def pytest_configure(config):
    config.addinivalue_line("markers", "serial: run alone (make test runs these after the parallel part)")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name in SERIAL_FILES or item.get_closest_marker("serial"):
            item.add_marker(pytest.mark.serial)



def _ephemeral_floor():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _port_range():
    """[floor, ceil) of the ports this process hands out. Under pytest-xdist
    each worker gets its own slice, so two workers never pick the same port
    between a pick and a server's bind (servers listen with SO_REUSEPORT and
    would share it)."""
    floor, ceil = 10000, max(12000, min(_ephemeral_floor(), 65536))
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    if worker.startswith("gw") and worker[2:].isdigit() and count > 1:
        width = (ceil - floor) // count
        floor += int(worker[2:]) * width
        ceil = floor + width
    return floor, ceil


_PORT_FLOOR, _PORT_CEIL = _port_range()
_PORT_RANDOM = random.Random(os.getpid())


def free_port(kind=socket.SOCK_STREAM):
    """A port nothing uses, below the kernel's ephemeral range and never one
    this run handed out before. Below the range because a client socket (ours
    probing a server, ffmpeg, urllib) takes its local port from that range:
    a port picked there could be taken as a client's source port between the
    pick and the server's bind, and the server would fail to listen (CI saw
    one: an API port refused). Never twice because a server whose RTMP and API
    ports collide shares them (SO_REUSEPORT) and mixes the protocols."""
    for _ in range(1000):
        port = _PORT_RANDOM.randrange(_PORT_FLOOR, _PORT_CEIL)
        if port in _GIVEN_PORTS:
            continue
        try:
            # Both protocols: a WebRTC server listens on TCP and UDP alike.
            for k in {kind, socket.SOCK_STREAM, socket.SOCK_DGRAM}:
                with socket.socket(socket.AF_INET, k) as s:
                    s.bind(("0.0.0.0", port))
        except OSError:
            continue
        _GIVEN_PORTS.add(port)
        return port
    raise RuntimeError("no free port in 1000 tries")


def wait_until(predicate, timeout=10.0, interval=0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    return predicate()


def can_connect(port, host="127.0.0.1"):
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def fd_count(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class SrsProcess:
    """One server under test. `conf` is the text of its config file; the
    rtmp port, pid file and log file are filled into it by the fixture."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.rtmp_port = free_port()
        self.pid_file = workdir / "srs.pid"
        self.log_file = workdir / "srs.log"
        self.conf_file = workdir / "srs.conf"
        self.stderr_file = workdir / "srs.stderr"
        self.proc = None
        self.pid = None

    def base_conf(self, extra="", daemon="off", tank="file"):
        return (
            f"listen {self.rtmp_port};\n"
            f"max_connections 1000;\n"
            f"daemon {daemon};\n"
            f"pid {self.pid_file};\n"
            f"srs_log_tank {tank};\n"
            f"srs_log_file {self.log_file};\n"
            f"{extra}\n"
            "vhost __defaultVhost__ {\n}\n"
        )

    def write_conf(self, text):
        self.conf_file.write_text(text)

    def start(self, conf=None, args=None, env=None, wait_port=True):
        if conf is not None:
            self.write_conf(conf)
        cmd = [str(SRS)] + (args if args is not None else ["-c", str(self.conf_file)])
        full_env = dict(os.environ)
        # The performance guide's strict ASAN run, for every server the
        # suite starts: any memory error stops it, leaks are reported at exit
        # (stop() ends it with SIGTERM so that exit happens), and
        # asan_reports() fails the test on either.
        full_env.setdefault("ASAN_OPTIONS", ASAN_STRICT)
        full_env.update(env or {})
        self.stderr = open(self.stderr_file, "a")
        self.proc = subprocess.Popen(cmd, cwd=TRUNK, env=full_env, stdout=subprocess.PIPE,
                                     stderr=self.stderr, text=True)
        self.pid = self.proc.pid
        if wait_port:
            assert wait_until(lambda: can_connect(self.rtmp_port) or self.proc.poll() is not None), \
                f"srs did not listen on {self.rtmp_port}: {self.log()}"
            assert self.proc.poll() is None, f"srs exited: {self.proc.poll()} {self.log()}"
        return self

    def log(self):
        try:
            return self.log_file.read_text()
        except FileNotFoundError:
            return ""

    def alive(self):
        if self.proc is not None and self.proc.poll() is not None:
            return False
        try:
            os.kill(self.pid, 0)
            return True
        except ProcessLookupError:
            return False

    def signal(self, signo):
        os.kill(self.pid, signo)

    def wait_exit(self, timeout=10):
        if self.proc is not None and self.proc.pid == self.pid:
            return self.proc.wait(timeout=timeout)
        assert wait_until(lambda: not self.alive(), timeout), "srs did not exit"
        return None

    def stop(self):
        """SIGTERM (a normal exit, so LeakSanitizer runs), SIGKILL if that hangs."""
        for signo, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 5)):
            if not (self.pid and self.alive()):
                break
            os.kill(self.pid, signo)
            try:
                self.wait_exit(wait)
            except Exception:
                pass
        if self.proc is not None:
            if self.proc.stdout:
                self.proc.stdout.close()
            self.stderr.close()

    def asan_reports(self):
        """AddressSanitizer/LeakSanitizer reports this server printed."""
        try:
            text = self.stderr_file.read_text(errors="replace")
        except FileNotFoundError:
            return ""
        return text if ("ERROR: AddressSanitizer" in text or "ERROR: LeakSanitizer" in text) else ""


def stop_process(proc):
    """Stops a client process a test started, by PID, and reaps it."""
    if proc is None:
        return
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    for stream in (proc.stdout, proc.stderr):
        if stream:
            stream.close()


def stop_and_check(servers):
    for s in servers:
        s.stop()
    reports = [s.asan_reports() for s in servers]
    reports = [r for r in reports if r]
    if reports:
        pytest.fail("the server printed sanitizer reports:\n" + "\n".join(r[:6000] for r in reports))


@pytest.fixture
def srs(tmp_path):
    server = SrsProcess(tmp_path)
    yield server
    stop_and_check([server])


@pytest.fixture
def srs_factory(tmp_path):
    servers = []

    def make(name):
        d = tmp_path / name
        d.mkdir()
        s = SrsProcess(d)
        servers.append(s)
        return s

    yield make
    stop_and_check(servers)


@pytest.fixture(scope="session")
def media(tmp_path_factory):
    """A 20 s H.264+AAC FLV with a 2 s GOP, made once per test session."""
    from media import make_test_flv
    d = tmp_path_factory.mktemp("media")
    return make_test_flv(d / "test.flv")


@pytest.fixture(scope="session")
def big_media(tmp_path_factory):
    """An ~8 Mbps stream, for tests that must fill socket buffers."""
    from media import make_noise_flv
    d = tmp_path_factory.mktemp("bigmedia")
    return make_noise_flv(d / "noise.flv")

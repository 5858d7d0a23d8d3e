"""Pion (github.com/pion/webrtc/v4) as a WebRTC *server* for the black-box
tests: the Go module in test/pion_server builds objs/srs-pion-server, a small
WHIP/WHEP forwarder that is a full ICE agent (Pion's default, not ICE-lite),
so our load tools can be tried against a server that is not ours (issue 23).

    path = build()                        # go build, once per session
    with PionServer(path) as pion:
        pion.whip_url("s1"), pion.whep_url("s1")
        pion.sessions(role="play")        # GET /stats, see test/pion_server/main.go

Built the way pion_client.py builds the client: the machine's Go
(GOTOOLCHAIN=local), modules from the proxy pinned by go.sum (the same
versions as test/pion), nothing vendored."""
import json
import re
import subprocess
import urllib.request

from conftest import TRUNK, free_port, stop_process, wait_until
from pion_client import PionUnavailable, go_command, go_env

SERVER_DIR = TRUNK / "test" / "pion_server"
SERVER_BIN = TRUNK / "objs" / "srs-pion-server"


def required_go():
    m = re.search(r"^go (\d+)\.(\d+)", (SERVER_DIR / "go.mod").read_text(), re.M)
    return (int(m.group(1)), int(m.group(2))) if m else (1, 0)


def build(timeout=600):
    """Builds objs/srs-pion-server; its path. PionUnavailable when there is no
    new enough Go; RuntimeError when the build itself fails."""
    go = go_command()
    if go is None:
        raise PionUnavailable("no go command (Go >= %d.%d): the Pion server cannot be built" % required_go())
    out = subprocess.run([go, "env", "GOVERSION"], capture_output=True, text=True, env=go_env(), timeout=60)
    m = re.match(r"go(\d+)\.(\d+)", out.stdout.strip())
    if not m or (int(m.group(1)), int(m.group(2))) < required_go():
        raise PionUnavailable(f"{go} is {out.stdout.strip() or out.stderr.strip()!r}; the Pion server needs "
                              "Go >= %d.%d" % required_go())
    SERVER_BIN.parent.mkdir(parents=True, exist_ok=True)
    r = subprocess.run([go, "build", "-o", str(SERVER_BIN), "."], cwd=SERVER_DIR, capture_output=True, text=True,
                       env=go_env(), timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"go build in {SERVER_DIR} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return SERVER_BIN


class PionServer:
    """One srs-pion-server on a free loopback port, stopped by its PID."""

    def __init__(self, path, log="error", h264=None):
        """h264: "4d001f,64001f" makes the server take only those H.264
        profiles (and refuse an offer without one, 400); None: Pion's default codecs."""
        self.port = free_port()
        args = [str(path), "--listen", f"127.0.0.1:{self.port}", "--log", log]
        if h264:
            args += ["--h264", h264]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if not wait_until(self._up, 10):
            self.stop()
            raise RuntimeError(f"srs-pion-server did not answer on {self.port}")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def _up(self):
        if self.proc.poll() is not None:
            raise RuntimeError(f"srs-pion-server exited {self.proc.returncode}: {self.proc.stderr.read()[-2000:]}")
        try:
            self.stats()
            return True
        except OSError:
            return False

    def whip_url(self, stream):
        return f"http://127.0.0.1:{self.port}/whip?stream={stream}"

    def whep_url(self, stream):
        return f"http://127.0.0.1:{self.port}/whep?stream={stream}"

    def stats(self):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/stats", timeout=5) as r:
            return json.loads(r.read())

    def sessions(self, role=None, stream=None):
        return [s for s in self.stats()["sessions"]
                if (role is None or s["role"] == role) and (stream is None or s["stream"] == stream)]

    def stop(self):
        """Stops the server by its PID; its stderr (Pion's log), for a failure message."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        err = self.proc.stderr.read() if self.proc.stderr and not self.proc.stderr.closed else ""
        stop_process(self.proc)
        return err

"""Pion (github.com/pion/webrtc/v4) as a WebRTC peer for the black-box tests:
the Go module in test/pion builds objs/srs-pion-client, a WHEP / JSON API
player that prints one JSON line (see test/pion/main.go).

    path = build()                                   # go build, once per session
    r = play(path, api, "live", "s1", dtls_role="passive", connect_to=("127.0.0.1", 4000))
    r["connected"], r["rtp_packets"], r["audio_packets"], ...

The modules come from the Go module proxy (go.sum pins them), fetched by
sh 3rdparty/install.sh test or by the first build; nothing is vendored. The
toolchain is the machine's own (GOTOOLCHAIN=local): go.mod's go line is the
oldest that builds it."""
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

from conftest import TRUNK

PION_DIR = TRUNK / "test" / "pion"
PION_BIN = TRUNK / "objs" / "srs-pion-client"


class PionUnavailable(Exception):
    """No Go toolchain that can build the client: the reason, for a skip."""


def go_command():
    """The go command: on PATH, else Go's default install place."""
    return shutil.which("go") or ("/usr/local/go/bin/go" if os.access("/usr/local/go/bin/go", os.X_OK) else None)


def go_env():
    env = dict(os.environ)
    env["GOTOOLCHAIN"] = "local"    # never fetch another toolchain: too old is a clear error
    # go.sum as committed; no VCS stamping (a fresh clone, a worktree, another owner's checkout).
    env["GOFLAGS"] = (env.get("GOFLAGS", "") + " -mod=readonly -buildvcs=false").strip()
    return env


def required_go():
    m = re.search(r"^go (\d+)\.(\d+)", (PION_DIR / "go.mod").read_text(), re.M)
    return (int(m.group(1)), int(m.group(2))) if m else (1, 0)


def build(timeout=600):
    """Builds objs/srs-pion-client (go's build cache makes a rebuild quick);
    its path. PionUnavailable when there is no new enough Go; RuntimeError
    when the build itself fails."""
    go = go_command()
    if go is None:
        raise PionUnavailable("no go command (Go >= %d.%d): the Pion peer cannot be built" % required_go())
    out = subprocess.run([go, "env", "GOVERSION"], capture_output=True, text=True, env=go_env(), timeout=60)
    m = re.match(r"go(\d+)\.(\d+)", out.stdout.strip())
    if not m or (int(m.group(1)), int(m.group(2))) < required_go():
        raise PionUnavailable(f"{go} is {out.stdout.strip() or out.stderr.strip()!r}; the Pion peer needs "
                              "Go >= %d.%d" % required_go())
    PION_BIN.parent.mkdir(parents=True, exist_ok=True)
    r = subprocess.run([go, "build", "-o", str(PION_BIN), "."], cwd=PION_DIR, capture_output=True, text=True,
                       env=go_env(), timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"go build in {PION_DIR} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return PION_BIN


def play_args(path, api, app, stream, via="whep", dtls_role="actpass", cert="default", no_nack=False,
              connect_to=None, timeout=15, duration=2.0, until_audio=0, until_video=0, log="error",
              streamurl_scheme="webrtc"):
    args = [str(path), "play", "--api", api, "--app", app, "--stream", stream, "--via", via,
            "--dtls-role", dtls_role, "--cert", cert, "--timeout", f"{timeout}s", "--duration", f"{duration}s",
            "--log", log]
    if until_audio or until_video:
        args += ["--until-audio", str(until_audio), "--until-video", str(until_video)]
    if no_nack:
        args.append("--no-nack")
    if streamurl_scheme != "webrtc":
        args += ["--streamurl-scheme", streamurl_scheme]
    if connect_to:
        args += ["--connect-to", "%s:%d" % tuple(connect_to)]
    return args


def parse_result(stdout):
    """The client's JSON line (the last line that parses)."""
    for line in reversed(stdout.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                continue
    return None


def play(path, api, app, stream, **kw):
    """Runs the client to its end; its JSON result with "exit_code" and
    "stderr" (Pion's log) added. The process is bounded by its own
    --timeout + --duration, and killed 30 s past that."""
    limit = kw.get("timeout", 15) + kw.get("duration", 2.0) + 30
    return finish(start_play(path, api, app, stream, **kw), timeout=limit)


def start_play(path, api, app, stream, **kw):
    """The client as a running process (for a bystander running beside a test);
    finish(proc) reads its result."""
    return subprocess.Popen(play_args(path, api, app, stream, **kw), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def finish(proc, timeout=60):
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate(timeout=10)
    res = parse_result(out) or {"connected": False, "error": f"no JSON result: {out[-2000:]}"}
    res["exit_code"] = proc.returncode
    res["stderr"] = err[-4000:]
    return res

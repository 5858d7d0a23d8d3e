"""The browser player: research/players/srs_player.html, installed by make
into objs/nginx/html/players with mpegts.js from npm, plays an HTTP-FLV
stream in headless Chromium. Chromium is driven through chromedriver's
W3C WebDriver HTTP interface with urllib: no Python dependency.

In CI (CI=true) a missing browser or mpegts.js fails the tests; elsewhere
they are skipped with the reason."""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from conftest import TRUNK, can_connect, free_port, wait_until
from media import Publisher, wait_for_publish

HTML_DIR = TRUNK / "objs" / "nginx" / "html"
MPEGTS_JS = HTML_DIR / "players" / "js" / "mpegts.js"
NPM_LOG = TRUNK / "objs" / "npm" / "npm.log"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def require(ok, reason):
    if ok:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(reason)
    pytest.skip(reason)


def require_npm_file(path, what):
    """A player script make copies from npm; without it `what` cannot play,
    and the reason is the tail of make's npm log."""
    if path.exists():
        return
    why = "make has not been run"
    if NPM_LOG.exists():
        lines = [line for line in NPM_LOG.read_text(errors="replace").splitlines() if line.strip()]
        why = " / ".join(lines[-3:]) or why
    require(False, f"{path.relative_to(TRUNK)} is missing, so {what} cannot play ({why}); "
                   "install nodejs and npm (sh 3rdparty/install.sh) and run make")


def require_player_files():
    require_npm_file(MPEGTS_JS, "the player")


class WebDriverError(Exception):
    pass


class Browser:
    """One chromedriver process and one headless Chromium session."""

    def __init__(self, workdir: Path, extra_args=()):
        self.workdir = workdir
        self.extra_args = list(extra_args)  # more Chromium flags (test_rtc_browser.py: fake camera)
        self.profile = Path(tempfile.mkdtemp(prefix="chromium-profile-", dir=workdir))
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = workdir / "chromedriver.log"
        self.proc = None
        self.session = None

    def _call(self, method, path, body=None, timeout=30):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json; charset=utf-8"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return json.loads(r.read() or b"{}").get("value")
        except urllib.error.HTTPError as e:
            text = e.read().decode(errors="replace")
            try:
                value = json.loads(text)["value"]
                text = f"{value.get('error')}: {value.get('message', '')[:2000]}"
            except (ValueError, KeyError, AttributeError):
                pass
            raise WebDriverError(f"{method} {path}: HTTP {e.code}: {text}") from None

    def start(self):
        self.proc = subprocess.Popen([CHROMEDRIVER, f"--port={self.port}", f"--log-path={self.log_path}"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        assert wait_until(lambda: can_connect(self.port) or self.proc.poll() is not None, 15), \
            "chromedriver did not listen"
        assert self.proc.poll() is None, f"chromedriver exited: {self.log()}"
        args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
                "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-extensions",
                "--autoplay-policy=no-user-gesture-required", "--window-size=1024,768",
                f"--user-data-dir={self.profile}"] + self.extra_args
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "pageLoadStrategy": "normal",
            "timeouts": {"script": 10000, "pageLoad": 20000, "implicit": 0},
            "goog:chromeOptions": {"binary": CHROMIUM, "args": args},
            "goog:loggingPrefs": {"browser": "ALL"},
        }}}
        value = self._call("POST", "/session", caps, timeout=60)
        self.session = value["sessionId"]
        return self

    def navigate(self, url):
        self._call("POST", f"/session/{self.session}/url", {"url": url})

    def run(self, script, *args):
        """Runs `script` as a function body in the page; returns its value."""
        return self._call("POST", f"/session/{self.session}/execute/sync", {"script": script, "args": list(args)})

    def new_window(self):
        """Opens a tab and switches to it; returns its handle."""
        handle = self._call("POST", f"/session/{self.session}/window/new", {"type": "tab"})["handle"]
        self.switch(handle)
        return handle

    def window(self):
        return self._call("GET", f"/session/{self.session}/window")

    def switch(self, handle):
        self._call("POST", f"/session/{self.session}/window", {"handle": handle})

    def console_errors(self):
        """SEVERE entries of the page's console since the last call (chromedriver's
        goog:loggingPrefs browser log; empty when the log is not enabled)."""
        try:
            entries = self._call("POST", f"/session/{self.session}/se/log", {"type": "browser"}) or []
        except WebDriverError:
            return []
        return [e.get("message", "") for e in entries if e.get("level") == "SEVERE"]

    def log(self):
        try:
            return self.log_path.read_text(errors="replace")[-3000:]
        except FileNotFoundError:
            return ""

    def _our_chromium_pids(self):
        """Chromium processes started with our profile dir (left over if chromedriver died)."""
        pids = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if str(self.profile).encode() in cmdline:
                pids.append(int(entry))
        return pids

    def quit(self):
        if self.session:
            try:
                self._call("DELETE", f"/session/{self.session}", timeout=15)
            except (OSError, WebDriverError):
                pass
            self.session = None
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        for pid in self._our_chromium_pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        wait_until(lambda: not self._our_chromium_pids(), 5)
        shutil.rmtree(self.profile, ignore_errors=True)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    require(os.access(CHROMIUM, os.X_OK), f"{CHROMIUM} not found: install Debian's chromium "
                                          "(sh 3rdparty/install.sh test)")
    require(os.access(CHROMEDRIVER, os.X_OK), f"{CHROMEDRIVER} not found: install Debian's chromium-driver "
                                              "(sh 3rdparty/install.sh test)")
    b = Browser(tmp_path_factory.mktemp("browser"))
    try:
        b.start()
        yield b
    finally:
        b.quit()


def player_conf(srs, http_port, api_port):
    conf = srs.base_conf().replace("vhost __defaultVhost__ {\n}\n", "")
    conf += (f"http_server {{\n  enabled on;\n  listen {http_port};\n  dir {HTML_DIR};\n  crossdomain on;\n}}\n"
             f"http_api {{\n  enabled on;\n  listen {api_port};\n}}\n"
             "vhost __defaultVhost__ {\n  http_remux {\n    enabled on;\n    mount [vhost]/[app]/[stream].flv;\n"
             "  }\n}\n")
    return conf


@pytest.fixture
def live(srs, media):
    """The server serving the built html dir, with the test media published."""
    require_player_files()
    srs.http_port, srs.api_port = free_port(), free_port()
    srs.start(player_conf(srs, srs.http_port, srs.api_port))
    pub = Publisher(media, f"rtmp://127.0.0.1:{srs.rtmp_port}/live/livestream")
    try:
        wait_for_publish(srs)
        yield srs
    finally:
        pub.stop()


def get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.headers.get("Content-Type", ""), r.read().decode(errors="replace")


def api_clients(srs):
    _, _, body = get(f"http://127.0.0.1:{srs.api_port}/api/v1/clients?count=100")
    return json.loads(body)["clients"]


# The page's video element as seen by the decoder.
STATE_JS = """
const v = document.getElementById('video');
const q = v.getVideoPlaybackQuality();
return {frames: q.totalVideoFrames, dropped: q.droppedVideoFrames, width: v.videoWidth, height: v.videoHeight,
        time: v.currentTime, paused: v.paused, ready: v.readyState, error: v.error ? v.error.message : null,
        status: document.getElementById('status').textContent, stats: document.getElementById('stats').textContent,
        mpegts: typeof mpegts !== 'undefined'};
"""

# The current frame drawn to a canvas: how many distinct colours (8 levels a
# channel) cover at least 0.5% of it, and a checksum of its pixels.
PIXELS_JS = """
const v = document.getElementById('video');
const c = document.createElement('canvas');
c.width = v.videoWidth; c.height = v.videoHeight;
const g = c.getContext('2d', {willReadFrequently: true});
g.drawImage(v, 0, 0);
const d = g.getImageData(0, 0, c.width, c.height).data;
const counts = new Map();
let sum = 0;
for (let i = 0; i < d.length; i += 4) {
    const key = (d[i] >> 5) * 64 + (d[i + 1] >> 5) * 8 + (d[i + 2] >> 5);
    counts.set(key, (counts.get(key) || 0) + 1);
    sum = (sum * 31 + d[i] + d[i + 1] * 7 + d[i + 2] * 13) % 1000000007;
}
const min = c.width * c.height * 0.005;
return {colours: [...counts.values()].filter(n => n >= min).length, checksum: sum};
"""


def poll(browser, predicate, timeout, what):
    """Polls the page's state until predicate(state) holds; fails with the last state."""
    deadline = time.monotonic() + timeout
    state = None
    while time.monotonic() < deadline:
        state = browser.run(STATE_JS)
        if predicate(state):
            return state
        time.sleep(0.25)
    pytest.fail(f"{what} within {timeout} s; page state: {state}")


def assert_plays(browser, srs, url):
    browser.navigate(url)
    state = browser.run(STATE_JS)
    assert state["mpegts"], f"mpegts.js did not load: {state}"
    h264 = browser.run("return MediaSource.isTypeSupported('video/mp4; codecs=\"avc1.64000d\"');")
    assert h264, "this Chromium cannot decode H.264 through Media Source Extensions"

    first = poll(browser, lambda s: s["frames"] > 25 and s["width"] > 0 and s["time"] > 0.5, 20,
                 "the page did not decode 25 frames")
    assert (first["width"], first["height"]) == (320, 240), first
    assert first["error"] is None, first
    # Still playing: 2 s later about 50 more frames, and the clock moved on.
    time.sleep(2)
    later = browser.run(STATE_JS)
    assert later["frames"] - first["frames"] >= 30, (first, later)
    assert later["time"] - first["time"] >= 1.2, (first, later)
    assert not later["paused"], later
    assert "decoded frames" in later["stats"] and "320x240" in later["stats"], later

    # Real pixels: testsrc is colour bars and a counter, so the frame has many
    # colours and changes from one second to the next.
    a = browser.run(PIXELS_JS)
    time.sleep(1)
    b = browser.run(PIXELS_JS)
    assert a["colours"] >= 6, a
    assert b["colours"] >= 6, b
    assert a["checksum"] != b["checksum"], "the picture did not change in 1 s"

    clients = api_clients(srs)
    assert any(c["type"] == "flv-play" for c in clients), clients
    return later


def test_landing_page_lists_players(live):
    status, ctype, body = get(f"http://127.0.0.1:{live.http_port}/")
    assert status == 200 and ctype.startswith("text/html"), (status, ctype)
    assert 'href="players/srs_player.html"' in body, body
    for path, want in [("/players/srs_player.html", "text/html"), ("/players/js/srs_player.js", "text/javascript"),
                       ("/players/js/mpegts.js", "text/javascript"), ("/players/js/hls.min.js", "text/javascript"),
                       ("/players/css/player.css", "text/css")]:
        status, ctype, _ = get(f"http://127.0.0.1:{live.http_port}{path}")
        assert status == 200 and ctype.startswith(want), (path, status, ctype)


def test_make_install_copies_players(tmp_path):
    require_player_files()
    r = subprocess.run(["make", "-s", "install", f"DESTDIR={tmp_path}", "PREFIX=/opt/srs"], cwd=TRUNK,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    html = tmp_path / "opt" / "srs" / "objs" / "nginx" / "html"
    assert 'href="players/srs_player.html"' in (html / "index.html").read_text()
    assert (html / "console" / "console.js").is_file()
    for name in ["srs_player.html", "js/srs_player.js", "js/mpegts.js", "js/hls.min.js", "css/player.css"]:
        assert (html / "players" / name).is_file(), name
    assert not (html / "players" / "package.json").exists()


def test_player_page_plays_http_flv(live, browser):
    port = live.http_port
    url = (f"http://127.0.0.1:{port}/players/srs_player.html?app=live&stream=livestream.flv"
           f"&server=127.0.0.1&port={port}&autostart=true&schema=http")
    state = assert_plays(browser, live, url)
    assert f"http://127.0.0.1:{port}/live/livestream.flv" in state["status"], state


def test_player_page_url_parameter_and_stop(live, browser):
    port = live.http_port
    stream = f"http://127.0.0.1:{port}/live/livestream.flv"
    assert_plays(browser, live, f"http://127.0.0.1:{port}/players/srs_player.html?url={urllib.parse.quote(stream, safe='')}&autostart=true")
    browser.run("document.getElementById('stop').click();")
    poll(browser, lambda s: s["status"] == "stopped", 5, "the page did not stop")
    assert wait_until(lambda: not any(c["type"] == "flv-play" for c in api_clients(live)), 10), \
        "the player's connection stayed open after Stop"

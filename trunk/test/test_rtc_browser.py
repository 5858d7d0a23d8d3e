"""The WebRTC pages in headless Chromium, served by the server's http_server
from objs/nginx/html/players (make installs them from research/players):
whip.html publishes Chromium's fake camera and microphone with WHIP and
whep.html plays it with WHEP in a second tab; rtc_publisher.html and
rtc_player.html do the same through SRS's JSON API. The player page's
getStats() summary (window.stats()) must show frames decoded at the fake
camera's size and audio packets received.

Chromium is test_browser.py's Browser, with the fake media devices and
loopback candidates allowed. In CI (CI=true) a missing Chromium fails the
tests; elsewhere they skip with the reason."""
import contextlib
import os
import time

import pytest

from conftest import wait_until
from rtc_env import rtc_clients, start_rtc
from test_browser import CHROMEDRIVER, CHROMIUM, HTML_DIR, Browser, require

RTC_ARGS = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
            "--allow-loopback-in-peer-connection", "--autoplay-policy=no-user-gesture-required",
            # Real host addresses in candidates, not mDNS names: nothing to resolve on loopback.
            "--disable-features=WebRtcHideLocalIpsWithMdns"]
PAGES = ["whip.html", "whep.html", "rtc_publisher.html", "rtc_player.html", "js/rtc_page.js"]


def require_pages():
    missing = [p for p in PAGES if not (HTML_DIR / "players" / p).is_file()]
    require(not missing, f"{', '.join(missing)} not installed in {HTML_DIR}/players: run make")


@contextlib.contextmanager
def running_rtc_browser(workdir, extra_args=()):
    """The WebRTC Chromium (RTC_ARGS) with more switches, quit on exit; e.g.
    fake_capture_files() to capture from files instead of the built-in pattern."""
    require(os.access(CHROMIUM, os.X_OK), f"{CHROMIUM} not found: install Debian's chromium "
                                          "(sh 3rdparty/install.sh test)")
    require(os.access(CHROMEDRIVER, os.X_OK), f"{CHROMEDRIVER} not found: install Debian's chromium-driver "
                                              "(sh 3rdparty/install.sh test)")
    b = Browser(workdir, RTC_ARGS + list(extra_args))
    try:
        b.start()
        yield b
    finally:
        b.quit()


def fake_capture_files(video, audio):
    """Switches that make the fake camera play a .y4m/.mjpeg file and the fake
    microphone a .wav file (both looped by Chromium)."""
    return [f"--use-file-for-fake-video-capture={video}", f"--use-file-for-fake-audio-capture={audio}"]


@pytest.fixture(scope="module")
def rtc_browser(tmp_path_factory):
    with running_rtc_browser(tmp_path_factory.mktemp("rtc-browser")) as b:
        yield b


@pytest.fixture
def rtc_web(srs):
    require_pages()
    return start_rtc(srs, http=True)


def page_state(browser):
    return browser.run("return {state: window.rtcState ? window.rtcState() : null, "
                       "stats: window.stats ? window.stats() : null, "
                       "video: [document.getElementById('video').videoWidth, "
                       "        document.getElementById('video').videoHeight]};")


def wait_page(browser, predicate, timeout, what):
    """Polls the page until predicate(state) holds; fails with what it saw."""
    last = {}

    def check():
        nonlocal last
        last = page_state(browser)
        # A page that reports an error (signalling refused, ICE failed) will not recover.
        return predicate(last) or (last["state"] or {}).get("error")
    if not wait_until(check, timeout, 0.25) or not predicate(last):
        pytest.fail(f"{what} (waited up to {timeout}s); the page shows {last}; console: {browser.console_errors()}")
    return last


def our_errors(browser):
    """Console errors that come from our pages (not e.g. a missing favicon)."""
    return [e for e in browser.console_errors() if "favicon" not in e]


def publish_and_play(srs, browser, publisher_url, player_url, stream):
    first = browser.window()
    browser.navigate(publisher_url)
    pub = wait_page(browser, lambda s: s["state"] and s["state"]["connection"] == "connected"
                    and s["stats"]["framesSent"] > 10, 20, "the publisher page did not publish")
    camera = pub["video"]
    assert camera[0] > 0 and camera[1] > 0, pub
    assert our_errors(browser) == []
    browser.new_window()
    try:
        browser.navigate(player_url)
        want = lambda s: (s["stats"]["framesDecoded"] > 50 and s["stats"]["audioPacketsReceived"] > 20
                          and [s["stats"]["frameWidth"], s["stats"]["frameHeight"]] == camera)
        got = wait_page(browser, want, 25, f"the player page did not decode 50 frames of {camera[0]}x{camera[1]} "
                                           "with audio")
        assert got["state"]["connection"] == "connected", got
        assert "h264" in (got["stats"]["videoCodec"] or "").lower(), got
        assert our_errors(browser) == []
        assert wait_until(lambda: rtc_clients(srs, stream, "rtc-play") and rtc_clients(srs, stream, "rtc-publish"),
                          5), rtc_clients(srs)
        # Still playing a second later: frames keep coming.
        before = got["stats"]["framesDecoded"]
        time.sleep(1.5)
        assert page_state(browser)["stats"]["framesDecoded"] > before + 10
        browser.run("window.rtcStop();")
    finally:
        browser.run("window.rtcStop && window.rtcStop();")
        browser._call("DELETE", f"/session/{browser.session}/window")
        browser.switch(first)
        browser.run("window.rtcStop && window.rtcStop();")
        browser.navigate("about:blank")


def test_whip_page_publishes_whep_page_plays(rtc_web, rtc_browser):
    srs = rtc_web
    base = f"http://127.0.0.1:{srs.http_port}/players"
    q = f"app=live&stream=b1&api=127.0.0.1:{srs.api_port}&autostart=true"
    publish_and_play(srs, rtc_browser, f"{base}/whip.html?{q}", f"{base}/whep.html?{q}", "b1")


def test_srs_api_pages_publish_and_play(rtc_web, rtc_browser):
    srs = rtc_web
    base = f"http://127.0.0.1:{srs.http_port}/players"
    url = f"webrtc://127.0.0.1:{srs.api_port}/live/b2"
    publish_and_play(srs, rtc_browser, f"{base}/rtc_publisher.html?url={url}&autostart=true",
                     f"{base}/rtc_player.html?url={url}&autostart=true", "b2")

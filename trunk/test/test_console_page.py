"""The landing page's console (research/console, installed by make as the
HTTP server root's index.html) and the WHIP page's choices, in headless
Chromium: the console lists a stream ffmpeg publishes over RTMP and its
publisher, shows the server's summary, builds the right HTTP-FLV and RTMP
URLs, kicks a client with its button, and its WHEP link plays (frames
decoded); whip.html publishes Chromium's fake camera in H.264 and at least
starts (or reports cleanly why not) in screen mode.

With the bridges on, ffmpeg's RTMP stream plays through the console's WHEP
link (rtmp_to_rtc) and whip.html's stream plays over HTTP-FLV with ffprobe
(rtc_to_rtmp). With rtmp_to_rtc off, an RTMP stream reaches no WebRTC
player: the API's stream says why ("webrtc"), the console offers no WHEP link
but that reason, whep.html (admitted, as SRS does) shows it instead of
"playing", and the server logs it, also when the publisher comes after the
player.

The browser is test_rtc_browser.py's (fake camera, loopback candidates); in
CI (CI=true) a missing Chromium or aiortc fails the tests, elsewhere they
skip with the reason."""
import re
import time

import pytest

from conftest import wait_until
from media import Publisher, probe_streams, wait_for_publish
from rtc_env import api_get, api_ok, api_stream, require_aiortc, rtc_clients, rtc_conf
from test_browser import HTML_DIR, require
from test_rtc_browser import our_errors, page_state, require_pages, rtc_browser, wait_page  # noqa: F401 (fixture)

CONSOLE_FILES = ["index.html", "console/console.js", "console/console.css"]
HTTP_REMUX = "  http_remux {\n    enabled on;\n    mount [vhost]/[app]/[stream].flv;\n  }\n"
# Why ffmpeg's RTMP stream reaches no WebRTC player in rtc_conf's vhost (rtmp_to_rtc off).
NO_BRIDGE = "published over RTMP and rtmp_to_rtc is off in vhost __defaultVhost__"


def start_console_srs(srs, vhost_extra=""):
    """The server with the API, WebRTC, the html dir and HTTP-FLV."""
    missing = [f for f in CONSOLE_FILES if not (HTML_DIR / f).is_file()]
    require(not missing, f"{', '.join(missing)} not installed in {HTML_DIR}: run make")
    require_pages()
    conf = rtc_conf(srs, http=True, vhost_extra=vhost_extra)
    assert conf.endswith("  }\n}\n"), conf
    conf = conf[:-len("}\n")] + HTTP_REMUX + "}\n"
    srs.start(conf)
    assert wait_until(lambda: api_ok(srs), 10), f"the HTTP API did not answer: {srs.log()[-2000:]}"
    srs.api = f"127.0.0.1:{srs.api_port}"
    return srs


@pytest.fixture
def web(srs):
    return start_console_srs(srs)


@pytest.fixture
def browser(rtc_browser):  # noqa: F811
    yield rtc_browser
    # Leave no page publishing or playing for the next test.
    rtc_browser.run("window.rtcStop && window.rtcStop();")
    rtc_browser.navigate("about:blank")


# What the console shows, read from its DOM (what a user sees), and its state.
CONSOLE_JS = """
const rows = sel => [...document.querySelectorAll(sel)];
const text = td => td.textContent;
// Not the console yet (the navigation's new document not parsed): nothing to show.
if (!document.getElementById('error')) return {state: null, error: null, summary: {}, streams: [], clients: []};
return {
  state: window.consoleState ? window.consoleState() : null,
  error: document.getElementById('error').hidden ? null : document.getElementById('error').textContent,
  summary: Object.fromEntries(rows('#summary dd').map(d => [d.dataset.key, d.textContent])),
  streams: rows('#streams tbody tr').map(tr => ({
    name: tr.dataset.stream, cells: [...tr.cells].map(text),
    whep: tr.querySelector('a.play-whep') ? tr.querySelector('a.play-whep').href : null,
    whepTitle: tr.querySelector('a.play-whep') ? tr.querySelector('a.play-whep').title : null,
    noWhep: tr.querySelector('.no-whep') ? tr.querySelector('.no-whep').textContent : null,
    flv: tr.querySelector('a.play-flv').dataset.url,
    flvPage: tr.querySelector('a.play-flv').href, rtmp: tr.querySelector('input.rtmp-url').value})),
  clients: rows('#clients tbody tr').map(tr => ({id: tr.dataset.client, cells: [...tr.cells].map(text)})),
};
"""


def console_url(srs, extra=""):
    return f"http://127.0.0.1:{srs.http_port}/?api=127.0.0.1:{srs.api_port}&refresh=1{extra}"


def wait_console(browser, predicate, timeout, what):
    last = {}

    def check():
        nonlocal last
        last = browser.run(CONSOLE_JS)
        return predicate(last)
    if not wait_until(check, timeout, 0.25):
        pytest.fail(f"{what} (waited {timeout}s); the console shows {last}; console errors: "
                    f"{browser.console_errors()}")
    return last


def stream_row(view, name):
    return next((s for s in view["streams"] if s["name"] == name), None)


def publisher_rows(view, stream):
    # Clients columns: id, ip, type, url, publish, alive, kick.
    return [c for c in view["clients"] if c["cells"][3] == f"/live/{stream}" and c["cells"][4] == "yes"]


def test_console_lists_ffmpeg_stream(web, browser, media):
    srs = web
    pub = Publisher(media, f"rtmp://127.0.0.1:{srs.rtmp_port}/live/c1")
    try:
        wait_for_publish(srs, "/live/c1")
        browser.navigate(console_url(srs))
        view = wait_console(browser, lambda v: stream_row(v, "c1") and publisher_rows(v, "c1")
                            and v["summary"].get("version"), 8, "the console did not list the stream c1")
        row = stream_row(view, "c1")
        # Stream, app, vhost, publishing, clients, codecs, kbps, play.
        assert row["cells"][1:5] == ["live", "__defaultVhost__", "yes", "1"], row
        assert "H264" in row["cells"][5] and "AAC" in row["cells"][5] and "320x240" in row["cells"][5], row
        flv = f"http://127.0.0.1:{srs.http_port}/live/c1.flv"
        assert row["flv"] == flv, row
        assert row["flvPage"].startswith(f"http://127.0.0.1:{srs.http_port}/players/srs_player.html?"), row
        assert "autostart=true" in row["flvPage"] and "url=" + flv.replace(":", "%3A").replace("/", "%2F") \
            in row["flvPage"], row
        assert row["rtmp"] == f"rtmp://127.0.0.1:{srs.rtmp_port}/live/c1", row
        # rtmp_to_rtc is off: no WHEP link, and why (the WHEP link is tested with the bridge on).
        assert row["whep"] is None and row["noWhep"] == f"WebRTC: off ({NO_BRIDGE})", row
        # The link really plays: ffprobe reads the stream from the URL the console built.
        got = probe_streams(row["flv"])
        assert got.get("video", {}).get("codec_name") == "h264" and "audio" in got, got
        # The publisher client, as the API lists it.
        (client,) = publisher_rows(view, "c1")
        api = [c for c in api_get(srs, "/api/v1/clients?count=100")["clients"] if c["publish"]]
        assert [c["id"] for c in api] == [client["id"]], (api, client)
        assert client["cells"][1] == "127.0.0.1" and client["cells"][2] == api[0]["type"], client
        # The summary: this server's version and pid.
        summary = view["summary"]
        assert summary["pid"] == str(srs.pid), summary
        versions = api_get(srs, "/api/v1/versions")["data"]
        assert summary["version"] == versions["version"], summary
        for key in ("uptime", "cpu", "mem", "kbps in / out", "conns"):
            assert summary.get(key), summary
        # Refreshing: the count of refreshes grows, with no error shown.
        n = view["state"]["refreshes"]
        time.sleep(2.2)
        later = browser.run(CONSOLE_JS)
        assert later["state"]["refreshes"] >= n + 1, later["state"]
        assert later["error"] is None and later["state"]["ok"], later
        assert our_errors(browser) == []
    finally:
        pub.stop()


def test_console_kick_button_kicks_publisher(web, browser, media):
    srs = web
    pub = Publisher(media, f"rtmp://127.0.0.1:{srs.rtmp_port}/live/c2")
    try:
        wait_for_publish(srs, "/live/c2")
        browser.navigate(console_url(srs))
        view = wait_console(browser, lambda v: publisher_rows(v, "c2"), 8, "the console did not list c2's publisher")
        (client,) = publisher_rows(view, "c2")
        clicked = browser.run("const b = document.querySelector(`#clients tr[data-client='${arguments[0]}'] "
                              "button.kick`); if (!b) return false; b.click(); return true;", client["id"])
        assert clicked, view
        # Gone from the API, then from the page; ffmpeg sees its connection closed and exits.
        assert wait_until(lambda: all(c["id"] != client["id"] for c in
                                      api_get(srs, "/api/v1/clients?count=100")["clients"]), 5), \
            api_get(srs, "/api/v1/clients?count=100")
        wait_console(browser, lambda v: not publisher_rows(v, "c2"), 5, "the kicked client is still listed")
        assert wait_until(lambda: not pub.alive(), 10), "ffmpeg did not notice the kick"
        state = browser.run(CONSOLE_JS)["state"]
        assert client["id"] in state["kicked"] and state["error"] is None, state
    finally:
        pub.stop()


def test_console_shows_api_unreachable(web, browser):
    srs = web
    # A port nothing listens on: the page says so, and nothing is thrown.
    from conftest import free_port
    browser.navigate(f"http://127.0.0.1:{srs.http_port}/?api=127.0.0.1:{free_port()}&refresh=1")
    view = wait_console(browser, lambda v: v["error"], 8, "the console did not report the unreachable API")
    assert "unreachable" in view["error"], view
    assert view["state"]["ok"] is False, view
    assert not [e for e in our_errors(browser) if "Uncaught" in e], browser.console_errors()


def play_console_whep_link(srs, browser, stream, timeout=25):
    """Opens the console, follows the stream's WHEP link, and waits for frames decoded."""
    browser.navigate(console_url(srs))
    view = wait_console(browser, lambda v: stream_row(v, stream) and stream_row(v, stream)["cells"][3] == "yes",
                        10, f"the console did not list {stream}")
    link = stream_row(view, stream)["whep"]
    assert link and link.startswith(f"http://127.0.0.1:{srs.http_port}/players/whep.html?autostart=true"
                                    f"&app=live&stream={stream}&server=127.0.0.1&api={srs.api_port}"), view
    browser.navigate(link)
    got = wait_page(browser, lambda s: s["state"] and s["stats"]["framesDecoded"] > 25, timeout,
                    f"the console's WHEP link {link} did not decode 25 frames")
    assert got["state"]["connection"] == "connected", got
    assert got["state"]["status"] == "playing" and got["state"]["noMedia"] is None, got
    assert wait_until(lambda: rtc_clients(srs, stream, "rtc-play"), 5), rtc_clients(srs)
    return got


def test_console_whep_link_plays_webrtc_stream(web, browser):
    require_aiortc()
    from rtc_client import Rtc
    srs = web
    rtc = Rtc()
    try:
        rtc.publish(srs.api, "live", "c3", size=(320, 240), fps=25)
        got = play_console_whep_link(srs, browser, "c3")
        assert [got["stats"]["frameWidth"], got["stats"]["frameHeight"]] == [320, 240], got
        assert "h264" in (got["stats"]["videoCodec"] or "").lower(), got
        assert api_stream(srs, "c3")["webrtc"] == {"play": True, "reason": "published over WebRTC"}
    finally:
        browser.run("window.rtcStop && window.rtcStop();")
        rtc.close()


def test_console_whep_link_plays_rtmp_stream(srs, browser, media):
    start_console_srs(srs, vhost_extra="    rtmp_to_rtc on;\n")
    pub = Publisher(media, f"rtmp://127.0.0.1:{srs.rtmp_port}/live/c4")
    try:
        wait_for_publish(srs, "/live/c4")
        got = play_console_whep_link(srs, browser, "c4", timeout=20)
        assert [got["stats"]["frameWidth"], got["stats"]["frameHeight"]] == [320, 240], got
        bridged = "published over RTMP, bridged to WebRTC (rtmp_to_rtc on in vhost __defaultVhost__)"
        assert api_stream(srs, "c4")["webrtc"] == {"play": True, "reason": bridged}
        assert "gets no media" not in srs.log(), srs.log()[-3000:]
    finally:
        browser.run("window.rtcStop && window.rtcStop();")
        pub.stop()


def whep_page(srs, stream):
    """whep.html for a stream, as the console builds it."""
    return (f"http://127.0.0.1:{srs.http_port}/players/whep.html?autostart=true&app=live&stream={stream}"
            f"&server=127.0.0.1&api={srs.api_port}&schema=http")


def test_rtmp_stream_without_rtmp_to_rtc_says_why(web, browser, media):
    """ffmpeg's RTMP stream with rtmp_to_rtc off: the API, the console, the
    WHEP page, the log and the signalling answers all say why a WebRTC
    player gets nothing, and the page never says "playing"."""
    srs = web
    pub = Publisher(media, f"rtmp://127.0.0.1:{srs.rtmp_port}/live/n1")
    try:
        wait_for_publish(srs, "/live/n1")
        assert api_stream(srs, "n1")["webrtc"] == {"play": False, "reason": NO_BRIDGE}
        browser.navigate(console_url(srs))
        view = wait_console(browser, lambda v: stream_row(v, "n1") and stream_row(v, "n1")["cells"][3] == "yes",
                            10, "the console did not list n1")
        row = stream_row(view, "n1")
        assert row["whep"] is None and row["noWhep"] == f"WebRTC: off ({NO_BRIDGE})", row
        assert row["flv"] and row["rtmp"], row  # the other protocols still play
        # The WHEP page anyway (a bookmark, another console): admitted, connected, and says why.
        browser.navigate(whep_page(srs, "n1"))
        got = wait_page(browser, lambda s: s["state"] and s["state"]["connection"] == "connected"
                        and s["state"]["status"].startswith("connected, no media"), 15,
                        "whep.html did not connect to n1")
        assert got["state"]["noMedia"] == NO_BRIDGE and got["state"]["error"] is None, got
        assert got["state"]["status"] == f"connected, no media: {NO_BRIDGE}", got
        assert browser.run("return document.getElementById('status').className;") == "warning"
        warned = re.compile(r"RTC: player \S+ of /live/n1 gets no media: " + re.escape(NO_BRIDGE)
                            + r"; turn rtc\.rtmp_to_rtc on in vhost __defaultVhost__ and publish again, "
                            r"or publish over WebRTC \(WHIP\)")
        assert wait_until(lambda: warned.search(srs.log()), 5), srs.log()[-3000:]
        time.sleep(1.5)
        later = page_state(browser)
        assert later["stats"]["framesDecoded"] == 0 and later["stats"]["audioPacketsReceived"] == 0, later
        assert later["state"]["status"] == f"connected, no media: {NO_BRIDGE}", later
        # SRS's JSON API page (rtc_player.html) says it too.
        browser.navigate(whep_page(srs, "n1").replace("/whep.html", "/rtc_player.html"))
        got = wait_page(browser, lambda s: s["state"] and s["state"]["connection"] == "connected"
                        and s["state"]["status"].startswith("connected, no media"), 15,
                        "rtc_player.html did not connect to n1")
        assert got["state"]["status"] == f"connected, no media: {NO_BRIDGE}", got
        assert our_errors(browser) == []
        browser.run("window.rtcStop();")
        # Scripts see it in the answers: WHEP's header (exposed to pages of other
        # origins) and the JSON API's no_media.
        require_aiortc()
        from rtc_client import Rtc
        with Rtc() as rtc:
            whep = rtc.play(srs.api, "live", "n1")
            assert whep.headers.get("X-SRS-No-Media") == NO_BRIDGE, dict(whep.headers)
            assert "X-SRS-No-Media" in whep.headers.get("Access-Control-Expose-Headers", ""), dict(whep.headers)
            legacy = rtc.play(srs.api, "live", "n1", via="json")
            assert legacy.reply.get("no_media") == NO_BRIDGE, legacy.reply
    finally:
        browser.run("window.rtcStop && window.rtcStop();")
        pub.stop()


def test_whep_page_waits_then_says_why_rtmp_gets_no_webrtc(web, browser, media):
    """A WHEP player that waits for a stream says "connected, no media yet";
    ffmpeg then publishes it over RTMP with rtmp_to_rtc off: the server logs
    that its waiting player gets nothing, and the page shows why."""
    srs = web
    browser.navigate(whep_page(srs, "n2"))
    got = wait_page(browser, lambda s: s["state"] and s["state"]["connection"] == "connected", 15,
                    "whep.html did not connect to n2")
    assert got["state"]["status"] == "connected, no media yet" and got["state"]["noMedia"] is None, got
    waiting = "no publisher yet; rtmp_to_rtc is off in vhost __defaultVhost__: only a WebRTC (WHIP) publisher " \
              "would reach WebRTC players"
    assert re.search(r"RTC: player \S+ of /live/n2 waits: " + re.escape(waiting), srs.log()), srs.log()[-3000:]
    assert api_stream(srs, "n2")["webrtc"] == {"play": True, "reason": waiting}
    pub = Publisher(media, f"rtmp://127.0.0.1:{srs.rtmp_port}/live/n2")
    try:
        wait_for_publish(srs, "/live/n2")
        line = (f"RTC: __defaultVhost__/live/n2: 1 waiting WebRTC player gets no media: {NO_BRIDGE}; "
                "turn rtc.rtmp_to_rtc on")
        assert wait_until(lambda: line in srs.log(), 5), srs.log()[-3000:]
        got = wait_page(browser, lambda s: s["state"]["status"] == f"connected, no media: {NO_BRIDGE}", 8,
                        "whep.html did not show why n2 sends nothing")
        assert got["stats"]["framesDecoded"] == 0, got
        assert our_errors(browser) == []
    finally:
        browser.run("window.rtcStop && window.rtcStop();")
        pub.stop()


def click(browser, css):
    """A real click (WebDriver's), which gives the page the user activation getDisplayMedia needs."""
    found = browser._call("POST", f"/session/{browser.session}/element", {"using": "css selector", "value": css})
    element = next(iter(found.values()))
    browser._call("POST", f"/session/{browser.session}/element/{element}/click", {})


def whip_url(srs, stream, extra=""):
    return (f"http://127.0.0.1:{srs.http_port}/players/whip.html?app=live&stream={stream}"
            f"&server=127.0.0.1&api={srs.api_port}{extra}")


def test_whip_page_publishes_camera_in_h264(web, browser):
    srs = web
    browser.navigate(whip_url(srs, "d1", "&codec=h264&autostart=true"))
    pub = wait_page(browser, lambda s: s["state"] and s["state"]["connection"] == "connected"
                    and s["stats"]["framesSent"] > 10, 20, "the WHIP page did not publish")
    assert pub["state"]["source"] == "camera" and pub["state"]["codec"] == "h264", pub
    assert pub["state"]["warning"] is None, pub
    assert "h264" in (pub["stats"]["videoCodec"] or "").lower(), pub
    # SRS's page parameters built the WHIP URL; the codec went to the server too.
    url = browser.run("return document.getElementById('url').value;")
    assert url == f"http://127.0.0.1:{srs.api_port}/rtc/v1/whip/?app=live&stream=d1&codec=h264", url
    assert browser.run("return document.getElementById('codec').value;") == "h264"
    assert wait_until(lambda: rtc_clients(srs, "d1", "rtc-publish"), 5), rtc_clients(srs)
    assert our_errors(browser) == []


def test_whip_page_vp8_choice_offers_only_vp8(web, browser):
    srs = web
    browser.navigate(whip_url(srs, "d2", "&codec=vp8&autostart=true"))
    assert browser.run("return document.getElementById('codec').value;") == "vp8"
    assert wait_until(lambda: (browser.run("return window.rtcState().offer;") or "") != "", 10), \
        browser.run("return window.rtcState();")
    state = browser.run("return window.rtcState();")
    video = state["offer"][state["offer"].index("m=video"):]
    # Only VP8 and the helper codecs (RTX, RED, FEC) are offered: the server cannot pick H.264.
    assert "VP8/90000" in video and "H264" not in video and "VP9" not in video, video
    assert state["codec"] == "vp8" and state["warning"] is None, state
    assert "codec=vp8" in browser.run("return document.getElementById('url').value;")


def test_whip_page_screen_mode(web, browser):
    srs = web
    browser.navigate(whip_url(srs, "d3", "&source=screen"))
    assert browser.run("return document.getElementById('source').value;") == "screen"
    click(browser, "#start")
    last = {}

    def settled():
        nonlocal last
        last = browser.run("return {state: window.rtcState(), stats: window.stats(), "
                           "status: document.getElementById('status').className};")
        return (last["state"]["connection"] == "connected" and last["stats"]["framesSent"] > 5) \
            or last["state"]["error"]
    assert wait_until(settled, 20, 0.25), f"screen mode neither published nor reported an error: {last}"
    assert last["state"]["source"] == "screen", last
    if last["state"]["error"]:
        # Headless Chromium may have no screen to capture: the page says why, in the page.
        assert last["state"]["error"].startswith("screen capture failed"), last
        assert last["status"] == "error", last
        assert browser.run("return document.getElementById('start').disabled;") is False
    else:
        assert wait_until(lambda: rtc_clients(srs, "d3", "rtc-publish"), 5), rtc_clients(srs)
    assert not [e for e in our_errors(browser) if "Uncaught" in e], browser.console_errors()


def test_whip_page_stream_plays_over_http_flv(srs, browser):
    start_console_srs(srs, vhost_extra="    rtc_to_rtmp on;\n")
    browser.navigate(whip_url(srs, "e1", "&autostart=true"))
    wait_page(browser, lambda s: s["state"] and s["state"]["connection"] == "connected"
              and s["stats"]["framesSent"] > 10, 20, "the WHIP page did not publish")
    got = probe_streams(f"http://127.0.0.1:{srs.http_port}/live/e1.flv", timeout=15)
    assert got.get("video", {}).get("codec_name") == "h264", got
    assert got.get("audio", {}).get("codec_name") == "aac", got
    # Over RTMP too, for seconds of both tracks (test_rtc_bridge.py measures their sync).
    from test_rtc_bridge import probe_av_packets
    packets = probe_av_packets(f"rtmp://127.0.0.1:{srs.rtmp_port}/live/e1", 360)
    video = [p for k, p in packets if k == "video"]
    audio = [p for k, p in packets if k == "audio"]
    assert video and audio and video[-1] - video[0] >= 3 and audio[-1] - audio[0] >= 3, packets[:20]


def test_rtc_pages_take_srs_url_parameters(web, browser):
    """SRS's page parameters build the same signalling URL as SRS's pages do (no autostart: nothing is sent)."""
    srs = web
    base = f"http://127.0.0.1:{srs.http_port}/players"
    api = f"127.0.0.1:{srs.api_port}"
    cases = [
        (f"whep.html?app=live&stream=p1&server=127.0.0.1&port={srs.api_port}&schema=http",
         f"http://{api}/rtc/v1/whep/?app=live&stream=p1", "h264"),
        (f"whip.html?app=live&stream=p2&server=127.0.0.1&api={srs.api_port}&eip=10.0.0.1&codec=vp8",
         f"http://{api}/rtc/v1/whip/?app=live&stream=p2&eip=10.0.0.1&codec=vp8", "vp8"),
        (f"whep.html?stream=p3&api={api}&vhost=v.example&codec=auto",
         f"http://{api}/rtc/v1/whep/?app=live&stream=p3&vhost=v.example&codec=auto", "auto"),
        (f"rtc_player.html?app=live&stream=p4&server=127.0.0.1&api={srs.api_port}&eip=10.0.0.1",
         f"webrtc://{api}/live/p4?eip=10.0.0.1", "h264"),
        (f"rtc_publisher.html?url=webrtc://{api}/live/p5", f"webrtc://{api}/live/p5", "h264"),
    ]
    for page, want, codec in cases:
        browser.navigate(f"{base}/{page}")
        got = browser.run("return [document.getElementById('url').value, document.getElementById('codec').value, "
                          "window.rtcState().status];")
        assert got == [want, codec, "idle"], (page, got)


def test_whep_page_takes_a_webrtc_url(web, browser):
    """A webrtc:// URL typed in whep.html plays through the same stream's WHEP endpoint."""
    require_aiortc()
    from rtc_client import Rtc
    srs = web
    rtc = Rtc()
    try:
        rtc.publish(srs.api, "live", "p6")
        browser.navigate(f"http://127.0.0.1:{srs.http_port}/players/whep.html?autostart=true"
                         f"&url=webrtc://127.0.0.1:{srs.api_port}/live/p6")
        got = wait_page(browser, lambda s: s["state"] and s["stats"]["framesDecoded"] > 10, 20,
                        "whep.html did not play a webrtc:// URL")
        assert got["state"]["location"] and got["state"]["error"] is None, got
    finally:
        browser.run("window.rtcStop && window.rtcStop();")
        rtc.close()

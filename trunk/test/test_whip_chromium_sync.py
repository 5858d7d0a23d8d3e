"""Chromium's WHIP page bridged to RTMP and HTTP-FLV (issue 13): headless
Chromium publishes research/players/whip.html (autostart) from fake capture
files in which a white flash and a 1 kHz beep start together every second;
the server (vhost rtc_to_rtmp on) makes H.264 + AAC of it, ffprobe reads both
codecs over RTMP and HTTP-FLV, and a 6 s ffmpeg recording of the RTMP stream
lasts >= 5 s with the beeps within 40 ms of the flashes
(test_rtc_bridge.measure_sync_offset_ms), as with the aiortc publisher of
test_rtc_bridge.test_whip_stream_is_in_sync_over_rtmp.

Chromium opens its fake file camera and microphone independently and loops
each file; the test also notes, in the page, when the first flashes and
beeps of Chromium's own tracks arrive (MediaStreamTrackProcessor, to about
10 ms), so a failure says whether the offset was already in what Chromium
captured.

In CI (CI=true) a missing Chromium or PyAV fails the test; elsewhere it skips."""
import json
import subprocess
import time

import pytest

from media import FFMPEG, probe_streams
from test_console_page import start_console_srs, whip_url
from test_rtc_bridge import measure_sync_offset_ms, probe_av_packets
from test_rtc_browser import fake_capture_files, running_rtc_browser, wait_page
from test_browser import require

SECONDS = 4  # the files' length; Chromium loops them


def require_pyav():
    try:
        import av  # noqa: F401  (measure_sync_offset_ms decodes with it)
    except ImportError:
        require(False, "PyAV (python3-av) is not installed")


@pytest.fixture(scope="module")
def marked_files(tmp_path_factory):
    """320x240 25 fps black video, white for 3 frames from every whole second,
    and 48 kHz mono audio, a 100 ms 1 kHz beep from every whole second."""
    d = tmp_path_factory.mktemp("marked")
    video, audio = d / "flash.y4m", d / "beep.wav"
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    f"color=c=black:s=320x240:r=25:d={SECONDS}", "-vf",
                    "geq=lum='if(lt(mod(N\\,25)\\,3)\\,235\\,16)':cb=128:cr=128,format=yuv420p",
                    "-f", "yuv4mpegpipe", str(video)], check=True, timeout=60)
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    f"aevalsrc='if(lt(mod(t\\,1)\\,0.1)\\,0.5*sin(2*PI*1000*t)\\,0)':s=48000:d={SECONDS}",
                    "-ac", "1", "-c:a", "pcm_s16le", str(audio)], check=True, timeout=60)
    return video, audio


@pytest.fixture(scope="module")
def file_browser(tmp_path_factory, marked_files):
    require_pyav()
    with running_rtc_browser(tmp_path_factory.mktemp("file-browser"), fake_capture_files(*marked_files)) as b:
        yield b


# In the publishing page: when (performance.now(), ms) the first flashes of
# the camera track and beeps of the microphone track reach the page, read
# from copies (clones) of the tracks whip.html publishes. Not the chunks'
# timestamps: Chromium's audio ones start at 0 and the video ones do not
# (different clocks). Coarse (a 10 ms audio chunk, the page's scheduling),
# enough to tell a capture offset of tens of ms.
CAPTURE_MARKS_JS = """
const stream = document.getElementById('video').srcObject;
const out = window.captureMarks = {flashes: [], beeps: [], error: null};
async function watch(track, onChunk) {
  const reader = new MediaStreamTrackProcessor({track: track.clone()}).readable.getReader();
  let on = false;
  while (out.flashes.length < 4 || out.beeps.length < 4) {
    const {value, done} = await reader.read();
    if (done) break;
    try { on = await onChunk(value, on); } finally { value.close(); }
  }
  reader.cancel();
}
async function frame(f, on) {
  const arrived = performance.now();
  const rect = {x: 0, y: 0, width: f.codedWidth, height: 16};
  const buf = new Uint8Array(f.allocationSize({rect}));
  await f.copyTo(buf, {rect});
  let sum = 0; for (let i = 0; i < rect.width * 16; i += 7) sum += buf[i];
  const bright = sum / Math.ceil(rect.width * 16 / 7) > 128;
  if (bright && !on && out.flashes.length < 4) out.flashes.push(arrived);
  return bright;
}
async function audio(a, on) {
  const arrived = performance.now() - a.numberOfFrames * 1e3 / a.sampleRate;  // when the chunk began
  const pcm = new Float32Array(a.numberOfFrames);
  a.copyTo(pcm, {planeIndex: 0, format: 'f32-planar'});
  let first = pcm.findIndex(x => Math.abs(x) > 0.05);
  if (first >= 0 && !on && out.beeps.length < 4) out.beeps.push(arrived + first * 1e3 / a.sampleRate);
  return first >= 0 ? true : (pcm.every(x => Math.abs(x) < 0.01) ? false : on);
}
Promise.all([watch(stream.getVideoTracks()[0], frame), watch(stream.getAudioTracks()[0], audio)])
  .catch(e => { out.error = String(e); });
"""


def chromium_capture_offset_ms(browser):
    """Median of (beep - flash) as Chromium's captured tracks reach the page (ms), or None; and the marks."""
    try:
        browser.run(CAPTURE_MARKS_JS)
        deadline = time.monotonic() + 8
        marks = {}
        while time.monotonic() < deadline:
            marks = browser.run("return window.captureMarks;") or {}
            if marks.get("error") or (len(marks.get("flashes", [])) >= 4 and len(marks.get("beeps", [])) >= 4):
                break
            time.sleep(0.25)
    except Exception as e:  # a diagnostic only: the assertions are on the server's output
        return None, f"could not read: {e}"
    offsets = []
    for f in marks.get("flashes", []):
        near = min(marks.get("beeps", []), key=lambda b: abs(b - f), default=None)
        if near is not None and abs(near - f) < 500:
            offsets.append(near - f)
    if not offsets:
        return None, json.dumps(marks)
    offsets.sort()
    return round(offsets[len(offsets) // 2], 1), json.dumps(marks)


def test_chromium_whip_page_is_in_sync_over_rtmp_and_http_flv(srs, file_browser, tmp_path):
    start_console_srs(srs, vhost_extra="    rtc_to_rtmp on;\n")
    browser = file_browser
    try:
        browser.navigate(whip_url(srs, "cs", "&codec=h264&autostart=true"))
        wait_page(browser, lambda s: s["state"] and s["state"]["connection"] == "connected"
                  and s["stats"]["framesSent"] > 10, 20, "the WHIP page did not publish")
        captured, marks = chromium_capture_offset_ms(browser)
        print(f"A/V offset (beep - flash) in Chromium's capture: {captured} ms; {marks}")
        rtmp = f"rtmp://127.0.0.1:{srs.rtmp_port}/live/cs"
        for url in (rtmp, f"http://127.0.0.1:{srs.http_port}/live/cs.flv"):
            got = probe_streams(url, timeout=15)
            assert got.get("video", {}).get("codec_name") == "h264", (url, got)
            assert got.get("audio", {}).get("codec_name") == "aac", (url, got)
        out = tmp_path / "chromium-sync.flv"
        subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-i", rtmp, "-t", "6",
                        "-c", "copy", str(out)], check=True, timeout=30)
        packets = probe_av_packets(str(out), 100000)
        video = [t for k, t in packets if k == "video"]
        audio = [t for k, t in packets if k == "audio"]
        assert video and audio, packets[:20]
        assert video[-1] - video[0] >= 5 and audio[-1] - audio[0] >= 5, (video[:3], video[-3:], audio[:3], audio[-3:])
        offset = measure_sync_offset_ms(out)
        print(f"A/V offset (beep - flash) over RTMP: {offset:.1f} ms (Chromium's capture: {captured} ms)")
        assert abs(offset) <= 40, f"{offset:.1f} ms over RTMP; in Chromium's own capture {captured} ms: {marks}"
    finally:
        browser.run("window.rtcStop && window.rtcStop();")
        browser.navigate("about:blank")

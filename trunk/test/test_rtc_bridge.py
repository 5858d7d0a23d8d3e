"""The RTMP <-> WebRTC bridges with real clients on both sides.

RTMP in, WebRTC out (vhost rtc { rtmp_to_rtc on; }): ffmpeg publishes the
test FLV (H.264 High with B-frames + AAC 44.1 kHz) and WebRTC players play
it: the independent stack (aiortc, test/rtc_client.py) decodes video and
Opus, ten of them share one transcoder, a player joining a running stream
starts at the ring's keyframe, players stay through a republish, and broken
payloads of one track do not stop the other; Chromium decodes every I and P
frame of the stream (its B-frames are dropped: Chromium cannot decode them
over WebRTC).

WebRTC in, RTMP out (rtc_to_rtmp on): aiortc publishes H.264 + Opus and
ffprobe reads H.264 + AAC over RTMP and HTTP-FLV, with audio and video on
one timeline; the API lists the bridged stream and its WebRTC publisher, and
kicking that publisher ends the stream for RTMP players.

Enhanced RTMP AV1 in, WebRTC out: libaom's AV1 (IVF) made into E-RTMP
'av01' tags (test/enhanced_flv.py) and published with test/rtmp_raw.py
plays in Chromium's whep.html with AV1 negotiated and decoded.

In CI (CI=true) a missing aiortc or Chromium fails the tests; elsewhere they skip."""
import json
import socket
import statistics
import subprocess
import threading
import time
import urllib.parse

import pytest

from conftest import free_port, stop_process, wait_until
from media import FFMPEG, FFPROBE, Publisher, make_test_flv, probe_streams, wait_for_publish
from rtc_env import api_delete, api_get, api_stream, require_aiortc, rtc_clients, start_rtc
from test_rtc_browser import rtc_browser  # noqa: F401  (the Chromium fixture)

BRIDGE = "    rtmp_to_rtc on;\n    rtc_to_rtmp on;\n    pli_for_rtmp 2;\n"
HTTP_FLV = "  http_remux {\n    enabled on;\n    mount [vhost]/[app]/[stream].flv;\n  }\n"


@pytest.fixture
def bridge_srs(srs):
    require_aiortc()
    return start_rtc(srs, http=True, vhost_extra=BRIDGE, vhost_body=HTTP_FLV)


@pytest.fixture
def rtc():
    require_aiortc()
    from rtc_client import Rtc
    r = Rtc()
    yield r
    r.close()


@pytest.fixture(scope="module")
def bframes_flv(tmp_path_factory):
    """25 fps H.264 High with B-frames (x264's default of 3) and AAC, 2 s GOP."""
    return make_test_flv(tmp_path_factory.mktemp("bridge") / "bframes.flv", seconds=12)


def publish_rtmp(srs, media, stream, extra=None):
    pub = Publisher(media, f"rtmp://127.0.0.1:{srs.rtmp_port}/live/{stream}", extra=extra)
    wait_for_publish(srs, f"/live/{stream}")
    return pub


def decoding(player, frames, timeout=10):
    assert wait_until(lambda: player.frames_decoded >= frames, timeout), \
        f"the player decoded {player.stats()} in {timeout}s"


def probe_av_packets(url, count, timeout=30):
    """[(codec_type, pts_time)] of the first `count` packets, in the order ffprobe reads them."""
    r = subprocess.run([FFPROBE, "-v", "error", "-show_entries", "packet=codec_type,pts_time", "-of", "csv=p=0",
                        "-read_intervals", f"%+#{count}", url], capture_output=True, text=True, timeout=timeout)
    out = []
    for line in r.stdout.splitlines():
        parts = line.split(",")
        if len(parts) >= 2 and parts[1] not in ("", "N/A"):
            out.append((parts[0], float(parts[1])))
    return out


def sync_marked_tracks():
    """A video and an audio track on one clock: every second a white frame
    (else black) and a 100 ms 1 kHz beep (else silence) start together, so
    the A/V offset of a recording is when the beep starts minus when the
    white frame shows."""
    import asyncio
    import fractions
    import math
    from array import array

    import av
    from aiortc import MediaStreamTrack

    clock = {}

    def start():
        return clock.setdefault("t0", time.monotonic())

    class Flash(MediaStreamTrack):
        kind = "video"

        def __init__(self):
            super().__init__()
            self.frames_sent = 0

        async def recv(self):
            t0, n = start(), self.frames_sent
            self.frames_sent += 1
            wait = t0 + n / 25 - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            frame = av.VideoFrame(160, 120, "yuv420p")
            luma = 235 if n % 25 == 0 else 16
            for i, plane in enumerate(frame.planes):
                plane.update(bytes([luma if i == 0 else 128]) * (plane.line_size * plane.height))
            frame.pts, frame.time_base = n * 3600, fractions.Fraction(1, 90000)
            return frame

    class Beep(MediaStreamTrack):
        kind = "audio"

        def __init__(self):
            super().__init__()
            self.samples = 0

        async def recv(self):
            t0, first = start(), self.samples
            self.samples += 960
            wait = t0 + first / 48000 - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            pcm = array("h", (int(12000 * math.sin(2 * math.pi * 1000 * t / 48000)) if t % 48000 < 4800 else 0
                              for t in range(first, first + 960)))
            frame = av.AudioFrame(format="s16", layout="mono", samples=960)
            frame.planes[0].update(pcm.tobytes())
            frame.sample_rate, frame.pts, frame.time_base = 48000, first, fractions.Fraction(1, 48000)
            return frame

    return Flash(), Beep()


def measure_sync_offset_ms(path):
    """Median of (beep onset - white frame) over the marks of a recording, in ms."""
    from array import array

    import av
    flashes, beeps = [], []
    with av.open(str(path)) as c:
        dark = True
        for frame in c.decode(video=0):
            plane = bytes(frame.planes[0])
            bright = sum(plane[::7]) / len(plane[::7]) > 128
            if bright and dark:
                flashes.append(frame.time)
            dark = not bright
    with av.open(str(path)) as c:
        silent = True
        for frame in c.decode(audio=0):
            samples = array("f", bytes(frame.planes[0]))  # fltp: the first channel
            for i, x in enumerate(samples):
                loud = abs(x) > 0.05
                if loud and silent:
                    beeps.append(frame.time + i / frame.sample_rate)
                    silent = False
                    break
            else:
                silent = True
            if not silent and max(abs(x) for x in samples) < 0.01:
                silent = True
    offsets = []
    for f in flashes:
        near = min(beeps, key=lambda b: abs(b - f), default=None)
        if near is not None and abs(near - f) < 0.5:
            offsets.append((near - f) * 1000)
    assert len(offsets) >= 3, (flashes, beeps)
    return statistics.median(offsets)


# ---- RTMP in, WebRTC out ----

def test_rtmp_stream_plays_on_whep(bridge_srs, rtc, bframes_flv):
    srs = bridge_srs
    pub = publish_rtmp(srs, bframes_flv, "r1")
    try:
        player = rtc.play(srs.api, "live", "r1")
        decoding(player, 50)
        assert (player.width, player.height) == (320, 240), player.stats()
        # Opus made from the AAC, decoded by the player.
        assert wait_until(lambda: player.audio_frames > 50, 5), player.stats()
        assert player.seq_gaps() == [], player.stats()
        assert rtc_clients(srs, "r1", "rtc-play"), rtc_clients(srs)
        stream = api_stream(srs, "r1")
        assert stream and stream["publish"]["active"], stream
        assert "RTC: bridge /live/r1: AAC -> Opus" in srs.log()
        assert "the stream has B-frames: dropped" in srs.log()
    finally:
        pub.stop()


def test_ten_players_share_one_transcoder(bridge_srs, rtc, bframes_flv):
    srs = bridge_srs
    pub = publish_rtmp(srs, bframes_flv, "r10")
    try:
        players = [rtc.play(srs.api, "live", "r10") for _ in range(10)]
        for p in players:
            decoding(p, 25, 15)
            assert wait_until(lambda: p.audio_frames > 25, 5), p.stats()
        assert srs.log().count("RTC: bridge /live/r10: AAC -> Opus") == 1, srs.log()[-3000:]
        assert len(rtc_clients(srs, "r10", "rtc-play")) == 10
    finally:
        pub.stop()


def test_player_joining_a_running_stream_starts_at_once(bridge_srs, rtc, bframes_flv):
    srs = bridge_srs
    pub = publish_rtmp(srs, bframes_flv, "rj")
    try:
        first = rtc.play(srs.api, "live", "rj")
        decoding(first, 25)
        ttff = []
        for _ in range(5):
            time.sleep(0.7)  # join at another point of the 2 s GOP each time
            p = rtc.play(srs.api, "live", "rj")
            assert wait_until(lambda: p.first_frame_at is not None, 5), p.stats()
            ttff.append(p.first_frame_at)
            p.close()
        # From the POST of the offer to the first decoded frame, ICE and DTLS included.
        assert statistics.median(ttff) <= 0.3, ttff
        assert "starts at the ring's keyframe" in srs.log()
    finally:
        pub.stop()


def test_players_stay_while_the_rtmp_publisher_returns(bridge_srs, rtc, bframes_flv):
    srs = bridge_srs
    pub = publish_rtmp(srs, bframes_flv, "rr")
    player = rtc.play(srs.api, "live", "rr")
    decoding(player, 25)
    pub.stop()
    time.sleep(1.5)
    pub = publish_rtmp(srs, bframes_flv, "rr")
    try:
        before_video, before_audio = player.frames_decoded, player.audio_frames
        assert wait_until(lambda: player.frames_decoded > before_video + 50, 10), player.stats()
        assert player.audio_frames > before_audio + 25, player.stats()
        assert player.state == "connected"
        assert (player.width, player.height) == (320, 240)
    finally:
        pub.stop()


@pytest.mark.parametrize("broken", ["a", "v"])
def test_a_broken_track_does_not_stop_the_other(bridge_srs, rtc, bframes_flv, broken):
    """ffmpeg's noise bitstream filter corrupts one track's payloads (not its
    sequence header): the player keeps getting the other track."""
    srs = bridge_srs
    stream = f"rb{broken}"
    pub = publish_rtmp(srs, bframes_flv, stream, extra=[f"-bsf:{broken}", "noise=amount=20"])
    try:
        player = rtc.play(srs.api, "live", stream)
        if broken == "a":
            decoding(player, 50, 15)
        else:
            assert wait_until(lambda: player.audio_frames > 100, 15), player.stats()
        time.sleep(1)
        assert srs.alive()
        assert player.state == "connected"
        # And the healthy track keeps flowing.
        if broken == "a":
            before = player.frames_decoded
            assert wait_until(lambda: player.frames_decoded > before + 25, 5), player.stats()
        else:
            before = player.audio_frames
            assert wait_until(lambda: player.audio_frames > before + 25, 5), player.stats()
    finally:
        pub.stop()


# ---- WebRTC in, RTMP out ----

def test_whip_stream_plays_over_rtmp_and_http_flv(bridge_srs, rtc):
    srs = bridge_srs
    rtc.publish(srs.api, "live", "w1")
    rtmp = f"rtmp://127.0.0.1:{srs.rtmp_port}/live/w1"
    flv = f"http://127.0.0.1:{srs.http_port}/live/w1.flv"
    for url in (rtmp, flv):
        streams = probe_streams(url, timeout=20)
        assert streams.get("video", {}).get("codec_name") == "h264", (url, streams)
        assert (streams["video"]["width"], streams["video"]["height"]) == (320, 240), streams
        assert streams.get("audio", {}).get("codec_name") == "aac", (url, streams)
        assert int(streams["audio"]["sample_rate"]) == 48000, streams
    packets = probe_av_packets(rtmp, 360)  # 25 video + ~47 AAC frames a second: about 5 s
    video = [p for k, p in packets if k == "video"]
    audio = [p for k, p in packets if k == "audio"]
    assert video and audio, packets[:20]
    assert video[-1] - video[0] >= 3.5, (video[0], video[-1])
    assert audio[-1] - audio[0] >= 3.5, (audio[0], audio[-1])
    # Timestamps never go back per track.
    assert all(b >= a for a, b in zip(audio, audio[1:]))
    stream = api_stream(srs, "w1")
    assert stream["video"]["codec"] == "H264" and stream["audio"]["codec"] == "AAC", stream


def test_whip_stream_is_in_sync_over_rtmp(bridge_srs, rtc, tmp_path):
    """A publisher whose white frames and beeps start together: in a recording
    of the RTMP stream they still do (the two tracks put on one timeline from
    the RTCP sender reports), within 40 ms."""
    srs = bridge_srs
    video, audio = sync_marked_tracks()
    rtc.publish(srs.api, "live", "sync", video_track=video, audio_track=audio)
    time.sleep(2)  # sender reports of both tracks
    out = tmp_path / "sync.flv"
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-i",
                    f"rtmp://127.0.0.1:{srs.rtmp_port}/live/sync", "-t", "6", "-c", "copy", str(out)],
                   check=True, timeout=30)
    offset = measure_sync_offset_ms(out)
    print(f"A/V offset (beep - flash) over RTMP: {offset:.1f} ms")
    assert abs(offset) <= 40, offset


def test_rtmp_players_join_with_a_keyframe(bridge_srs, rtc):
    """pli_for_rtmp 2: a player joining seconds after the publisher gets a GOP
    that starts with a keyframe (aiortc makes keyframes only when asked)."""
    srs = bridge_srs
    pub = rtc.publish(srs.api, "live", "w2")
    time.sleep(4)
    r = subprocess.run([FFPROBE, "-v", "error", "-select_streams", "v", "-show_entries", "packet=flags",
                        "-of", "csv=p=0", "-read_intervals", "%+2", f"rtmp://127.0.0.1:{srs.rtmp_port}/live/w2"],
                       capture_output=True, text=True, timeout=20)
    flags = [line.strip() for line in r.stdout.splitlines() if line.strip()]
    assert flags and flags[0].startswith("K"), flags[:5]
    assert pub.state == "connected"


class RtmpPlayer:
    """ffmpeg playing an RTMP stream, the bytes of its FLV copy counted as they arrive."""

    def __init__(self, url):
        self.proc = subprocess.Popen([FFMPEG, "-hide_banner", "-loglevel", "error", "-i", url, "-c", "copy",
                                      "-flush_packets", "1", "-f", "flv", "pipe:1"],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.bytes = 0
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        while True:
            chunk = self.proc.stdout.read1(65536)
            if not chunk:
                return
            self.bytes += len(chunk)

    def gets_data(self, seconds):
        before = self.bytes
        time.sleep(seconds)
        return self.bytes > before

    def stop(self):
        stop_process(self.proc)
        self.reader.join(5)


def test_whip_publisher_is_listed_and_kicked(bridge_srs, rtc):
    """A WHIP publisher bridged to RTMP is an ordinary stream in the API: its
    codecs are the bridge's H.264 and AAC, its publisher the WebRTC client.
    DELETE /api/v1/clients/<id> of that client (the console's kick) ends it:
    the API shows no publisher and an RTMP player gets no more data."""
    srs = bridge_srs
    rtc.publish(srs.api, "live", "wk")

    def codecs():
        s = api_stream(srs, "wk") or {}
        return ((s.get("video") or {}).get("codec"), (s.get("audio") or {}).get("codec"))
    assert wait_until(lambda: codecs() == ("H264", "AAC"), 10), api_stream(srs, "wk")
    stream = api_stream(srs, "wk")
    assert (stream["video"]["width"], stream["video"]["height"]) == (320, 240), stream
    assert (stream["audio"]["sample_rate"], stream["audio"]["channel"]) == (48000, 2), stream
    (client,) = rtc_clients(srs, "wk", "rtc-publish")
    assert client["publish"] is True and client["url"] == "/live/wk", client
    assert client["stream"] == stream["id"], (client, stream)
    assert stream["publish"] == {"active": True, "cid": client["id"]}, stream

    player = RtmpPlayer(f"rtmp://127.0.0.1:{srs.rtmp_port}/live/wk")
    try:
        assert wait_until(lambda: player.bytes > 20000, 15), player.bytes
        assert player.gets_data(1), player.bytes
        clients = api_get(srs, "/api/v1/clients?count=1000")["clients"]
        assert [c for c in clients if c["type"] == "rtmp-play" and c["name"] == "wk"], clients

        status, _ = api_delete(srs, f"/api/v1/clients/{urllib.parse.quote(client['id'])}")
        assert status == 200
        assert wait_until(lambda: not rtc_clients(srs, "wk", "rtc-publish"), 5), rtc_clients(srs)
        assert wait_until(lambda: (api_stream(srs, "wk") or {}).get("publish", {}).get("active") is not True, 5), \
            api_stream(srs, "wk")
        time.sleep(0.5)  # what was already on its way
        assert not player.gets_data(3), f"the RTMP player still gets data ({player.bytes} bytes)"
        assert srs.alive()
    finally:
        player.stop()


# ---- Chromium ----

def picture_types(media):
    r = subprocess.run([FFPROBE, "-v", "error", "-select_streams", "v", "-show_entries", "frame=pict_type",
                        "-of", "csv=p=0", str(media)], capture_output=True, text=True, timeout=60)
    return [line.strip().strip(",") for line in r.stdout.splitlines() if line.strip()]


def test_chromium_plays_an_rtmp_stream_with_bframes(bridge_srs, rtc_browser, bframes_flv):
    """x264's B-frames are dropped for WebRTC players (Chromium's decoder fails
    a frame it must hold back for reordering, then shows only keyframes):
    Chromium decodes every I and P frame, at 25 fps x their share."""
    from test_rtc_browser import page_state, require_pages, wait_page
    require_pages()
    types = picture_types(bframes_flv)
    share = sum(1 for t in types if t in ("I", "P")) / len(types)
    assert 0.2 < share < 0.9, types[:50]  # the stream has B-frames
    srs = bridge_srs
    pub = publish_rtmp(srs, bframes_flv, "rc")
    try:
        q = f"app=live&stream=rc&api=127.0.0.1:{srs.api_port}&autostart=true"
        rtc_browser.navigate(f"http://127.0.0.1:{srs.http_port}/players/whep.html?{q}")
        first = wait_page(rtc_browser, lambda s: s["stats"] and s["stats"]["framesDecoded"] > 10, 20,
                          "Chromium did not decode the RTMP stream")
        time.sleep(10)
        last = page_state(rtc_browser)
        decoded = last["stats"]["framesDecoded"] - first["stats"]["framesDecoded"]
        keyframes = last["stats"]["keyFramesDecoded"] - first["stats"]["keyFramesDecoded"]
        print(f"Chromium decoded {decoded} frames ({keyframes} keyframes) in 10 s; I/P share {share:.2f}; "
              f"{last['stats']}")
        assert decoded >= 0.9 * 10 * 25 * share, last
        assert keyframes <= 6, last  # a 2 s GOP: no keyframe-only playback
        assert [last["stats"]["frameWidth"], last["stats"]["frameHeight"]] == [320, 240], last
        assert last["stats"]["audioPacketsReceived"] > 250, last
        assert "h264" in (last["stats"]["videoCodec"] or "").lower(), last
        assert "B-frames: dropped for WebRTC players" in srs.log()
    finally:
        rtc_browser.run("window.rtcStop && window.rtcStop();")
        rtc_browser.navigate("about:blank")
        pub.stop()


@pytest.fixture(scope="module")
def av1_ivf(tmp_path_factory):
    """4 s of AV1 (libaom, realtime: no hidden frames) 320x240 at 25 fps, 2 s GOP, in IVF."""
    path = tmp_path_factory.mktemp("av1") / "clip.ivf"
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi",
                    "-i", "testsrc=size=320x240:rate=25", "-t", "4", "-c:v", "libaom-av1", "-usage", "realtime",
                    "-cpu-used", "8", "-lag-in-frames", "0", "-g", "50", "-keyint_min", "50", "-b:v", "300k",
                    "-pix_fmt", "yuv420p", "-f", "ivf", str(path)], check=True, timeout=120)
    return path


class EnhancedRtmpPublisher:
    """Publishes E-RTMP video tags [(ms, body, keyframe)] (the SequenceStart
    first) with rtmp_raw.RawRtmp, paced in real time and looped, the
    timestamps going on across loops, until stopped."""

    def __init__(self, port, stream, tags, loop_ms):
        from rtmp_raw import RawRtmp
        self.rtmp = RawRtmp(port)
        self.rtmp.handshake()
        self.rtmp.set_chunk_size(4096)
        self.rtmp.publish(stream)
        self.tags, self.loop_ms = tags, loop_ms
        self.sent, self.error = 0, None
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        start = time.monotonic()
        sequence_start, frames = self.tags[0], self.tags[1:]
        try:
            self.rtmp.send_media(9, sequence_start[1], 0)
            offset = 0
            while not self.stopping.is_set():
                for ms, body, _ in frames:
                    wait = start + (offset + ms) / 1000 - time.monotonic()
                    if self.stopping.wait(max(wait, 0)):
                        return
                    self.rtmp.send_media(9, body, offset + ms)
                    self.sent += 1
                offset += self.loop_ms
        except OSError as e:
            self.error = e

    def stop(self):
        self.stopping.set()
        self.thread.join(5)
        self.rtmp.close()


def test_chromium_plays_enhanced_rtmp_av1_on_whep(srs, rtc_browser, av1_ivf):
    """AV1 published over Enhanced RTMP (SequenceStart with the av1C, then
    CodedFrames, FourCC 'av01') goes out as AV1 RTP: whep.html?codec=av1 in
    Chromium negotiates AV1 (its getStats codec) and decodes the stream at
    its size, at about its frame rate, without falling back to keyframes."""
    from enhanced_flv import av1_video_tags, read_ivf
    from test_rtc_browser import page_state, require_pages, wait_page
    require_pages()
    ivf = read_ivf(av1_ivf)
    assert (ivf.width, ivf.height, len(ivf.frames)) == (320, 240, 100), (ivf.width, ivf.height, len(ivf.frames))
    av1c, tags = av1_video_tags(ivf)
    assert av1c[:4] == bytes([0x81, 0x00, 0x0C, 0x00]), av1c.hex()  # Main, level 2.0, 8-bit 4:2:0
    assert [ms for ms, _, key in tags[1:] if key] == [0, 2000], "a keyframe every 2 s"
    srs = start_rtc(srs, http=True, vhost_extra=BRIDGE, vhost_body=HTTP_FLV)
    pub = EnhancedRtmpPublisher(srs.rtmp_port, "av1", tags, loop_ms=len(ivf.frames) * 40)
    try:
        # The server read the av1C: the stream is AV1 Main at the clip's size.
        def video():
            return (api_stream(srs, "av1") or {}).get("video") or {}
        assert wait_until(lambda: video().get("codec") == "AV1", 10), (api_stream(srs, "av1"), srs.log()[-2000:])
        assert (video()["width"], video()["height"], video()["profile"]) == (320, 240, "Main"), video()
        q = f"app=live&stream=av1&api=127.0.0.1:{srs.api_port}&codec=av1&autostart=true"
        rtc_browser.navigate(f"http://127.0.0.1:{srs.http_port}/players/whep.html?{q}")
        first = wait_page(rtc_browser, lambda s: s["stats"] and s["stats"]["framesDecoded"] > 10, 20,
                          "Chromium did not decode the AV1 stream")
        state = first["state"]
        assert state["codec"] == "av1" and state["warning"] is None, state  # Chromium can receive AV1
        assert "AV1/90000" in state["offer"], state["offer"]
        time.sleep(4)
        last = page_state(rtc_browser)
        stats = last["stats"]
        decoded = stats["framesDecoded"] - first["stats"]["framesDecoded"]
        keyframes = stats["keyFramesDecoded"] - first["stats"]["keyFramesDecoded"]
        print(f"Chromium decoded {decoded} AV1 frames ({keyframes} keyframes) in 4 s; {stats}")
        assert stats["videoCodec"] == "video/AV1", stats
        assert [stats["frameWidth"], stats["frameHeight"]] == [320, 240], stats
        assert last["video"] == [320, 240], last
        assert stats["framesDecoded"] >= 50, stats
        assert decoded >= 0.75 * 4 * 25, stats  # 25 fps
        assert keyframes <= 3, stats  # a 2 s GOP: inter frames decode too
        assert last["state"]["connection"] == "connected", last
        assert pub.error is None and srs.alive()
        assert "bad video" not in srs.log(), srs.log()[-3000:]
    finally:
        rtc_browser.run("window.rtcStop && window.rtcStop();")
        rtc_browser.navigate("about:blank")
        pub.stop()


def test_console_conf_plays_rtmp_in_whep(srs, media, rtc, tmp_path):
    """README's first command runs conf/console.conf: as SRS's, WebRTC is on
    with rtmp_to_rtc and rtc_to_rtmp, so ffmpeg's RTMP plays in a WHEP player
    with the file as it is (ports moved by SRS_* variables, the candidate
    detected when $CANDIDATE is empty, and the detected address logged)."""
    require_aiortc()
    srs.api_port, srs.rtc_port, srs.http_port = free_port(), free_port(socket.SOCK_DGRAM), free_port()
    env = {"SRS_LISTEN": str(srs.rtmp_port), "SRS_HTTP_API_LISTEN": str(srs.api_port),
           "SRS_HTTP_SERVER_LISTEN": str(srs.http_port), "SRS_RTC_SERVER_LISTEN": str(srs.rtc_port),
           "SRS_SRS_LOG_TANK": "file", "SRS_SRS_LOG_FILE": str(srs.log_file), "SRS_PID": str(srs.pid_file),
           "CANDIDATE": "", "SRS_VHOST_HLS_HLS_PATH": str(tmp_path)}
    srs.start(args=["-c", "conf/console.conf"], env=env)
    srs.api = f"127.0.0.1:{srs.api_port}"
    assert wait_until(lambda: "RTC: server listen udp" in srs.log(), 10), srs.log()[-2000:]
    line = [l for l in srs.log().splitlines() if "RTC: server listen udp" in l][0]
    assert f":{srs.rtc_port}" in line and "candidate * -> " in line, line
    pub = publish_rtmp(srs, media, "console")
    try:
        player = rtc.play(srs.api, "live", "console")
        decoding(player, 25, timeout=20)
        assert wait_until(lambda: player.audio_packets > 20, 10), player.stats()
    finally:
        pub.stop()

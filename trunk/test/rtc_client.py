"""A WebRTC peer for the black-box tests: aiortc (an independent stack, PyPI
wheels) publishing and playing through WHIP, WHEP and SRS's JSON API.

aiortc is asyncio; the tests are plain functions. `Rtc` runs one event loop
in a daemon thread and every method returns when its work in that loop is
done (bounded by a timeout), so a test reads like:

    with Rtc() as rtc:
        pub = rtc.publish(api, "live", "s1")            # WHIP, H.264 + Opus
        play = rtc.play(api, "live", "s1")               # WHEP
        wait_until(lambda: play.frames_decoded > 50)
        pub.close()                                      # DELETE of the Location

Everything stays on loopback: the only host candidate is 127.0.0.1 and no
STUN/TURN server is configured (aiortc would otherwise ask Google's).

Run by hand: python3 test/rtc_client.py publish|play API_HOST:PORT STREAM [--via whip|json] [--seconds N]
"""
import asyncio
import fractions
import http.client as httplib
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import aioice.ice
import av
from aiortc import (RTCConfiguration, RTCPeerConnection, RTCRtpSender, RTCSessionDescription,
                    MediaStreamTrack)
from aiortc.mediastreams import AudioStreamTrack, MediaStreamError

# Host candidates: loopback only (aioice leaves 127.0.0.1 out by default); a
# peer made with local_ip= gathers that address instead (see Peer).
HOST_ADDRESSES = ["127.0.0.1"]
aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: list(HOST_ADDRESSES) if use_ipv4 else []
# Consent checks (STUN binding requests on the selected pair) about every
# second, as browsers ping an ICE-lite server every few seconds, instead of
# aioice's 5 s: a server with a short stun_timeout (3 s in the tests) must
# keep a live peer.
aioice.ice.CONSENT_INTERVAL = 1

VIDEO_CLOCK = 90000


class SignalingError(Exception):
    """The server refused an offer: `status` is the HTTP status, `code` the
    JSON API's code (0 for WHIP/WHEP), `body` what it said."""

    def __init__(self, status, code, body):
        super().__init__(f"HTTP {status} code {code}: {body[:500]}")
        self.status, self.code, self.body = status, code, body


def http(method, url, body=None, content_type=None, timeout=5, source_ip=None):
    """(status, headers, body text); HTTP errors are answers, not exceptions.
    source_ip: the local address the request comes from (127.0.0.2, ...)."""
    headers = {"Content-Type": content_type} if content_type else {}
    data = body.encode() if isinstance(body, str) else body
    if source_ip:
        u = urllib.parse.urlsplit(url)
        conn = httplib.HTTPConnection(u.hostname, u.port or 80, timeout=timeout, source_address=(source_ip, 0))
        try:
            conn.request(method, u.path + ("?" + u.query if u.query else ""), body=data, headers=headers)
            r = conn.getresponse()
            return r.status, r.headers, r.read().decode(errors="replace")
        finally:
            conn.close()
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.headers, r.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read().decode(errors="replace")


def sdp_attr(sdp, name):
    """First a=name:value of an SDP, or None."""
    for line in sdp.splitlines():
        if line.startswith(f"a={name}:"):
            return line.split(":", 1)[1].strip()
    return None


class PatternTrack(MediaStreamTrack):
    """Video frames made here (no numpy): a moving luma ramp, `fps` per second."""
    kind = "video"

    def __init__(self, width=320, height=240, fps=25):
        super().__init__()
        self.width, self.height, self.fps = width, height, fps
        self.frames_sent = 0
        self._start = None

    async def recv(self):
        if self._start is None:
            self._start = time.monotonic()
        n = self.frames_sent
        wait = self._start + n / self.fps - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        frame = av.VideoFrame(self.width, self.height, "yuv420p")
        for i, plane in enumerate(frame.planes):
            rows = plane.height
            if i == 0:
                row = bytes((x + 4 * n) & 0xFF for x in range(plane.line_size))
            else:
                row = bytes([128]) * plane.line_size
            plane.update(row * rows)
        frame.pts = n * VIDEO_CLOCK // self.fps
        frame.time_base = fractions.Fraction(1, VIDEO_CLOCK)
        self.frames_sent += 1
        return frame


def prefer_h264(transceiver):
    """Force H.264 (with its RTX) on a video transceiver."""
    caps = RTCRtpSender.getCapabilities("video").codecs
    h264 = [c for c in caps if c.mimeType.lower() == "video/h264"]
    rtx = [c for c in caps if c.mimeType.lower() == "video/rtx"]
    transceiver.setCodecPreferences(h264 + rtx)


def h264_keyframe(payload):
    """Whether an H.264 RTP payload (RFC 6184) carries an IDR slice or SPS."""
    if not payload:
        return False
    nal = payload[0] & 0x1F
    if nal in (5, 7):
        return True
    if nal == 24:  # STAP-A: 16-bit sizes, then NALs
        i = 1
        while i + 2 < len(payload):
            size = int.from_bytes(payload[i:i + 2], "big")
            if payload[i + 2] & 0x1F in (5, 7):
                return True
            i += 2 + size
        return False
    if nal == 28 and len(payload) > 1:  # FU-A: start bit and the fragment's type
        return bool(payload[1] & 0x80) and (payload[1] & 0x1F) == 5
    return False


class Peer:
    """One RTCPeerConnection and its signalling resource on the server."""

    def __init__(self, rtc, api, app, stream, via, offer_filter=None, answer_filter=None, certificate=None,
                 local_ip=None):
        self.rtc = rtc
        # Another loopback address (127.0.0.2, ...) for both the signalling
        # (the HTTP request's source) and ICE (the only host candidate).
        self.local_ip = local_ip
        self.api = api if api.startswith("http") else f"http://{api}"
        self.app, self.stream, self.via = app, stream, via
        # "json:SCHEME": SRS's JSON API with a streamurl of that scheme (SRS's
        # clients send webrtc://, http://, https:// or rtmp://).
        self.scheme = "webrtc"
        if via.startswith("json:"):
            self.via, self.scheme = "json", via[len("json:"):]
        self.pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        if certificate is not None:
            # aiortc makes its own (ECDSA P-256) and has no option for another
            # key; its offer's fingerprints are read from this list.
            self.pc._RTCPeerConnection__certificates = [certificate]
        # offer_filter(sdp) -> the offer POSTed (our local description stays
        # as aiortc wrote it), answer_filter(sdp) -> the answer we apply (e.g.
        # candidates rewritten to a proxy); self.answer keeps the server's.
        self.offer_filter, self.answer_filter = offer_filter, answer_filter
        self.offer = self.answer = None
        self.location = None        # WHIP/WHEP resource (absolute URL)
        self.sessionid = None       # JSON API session id
        self.reply = None           # JSON API answer (dict)
        self.headers = None         # WHIP/WHEP answer's HTTP headers
        self.post_time = None       # monotonic time the offer was POSTed
        self.connected_at = None
        self.closed = False
        self.pc.on("connectionstatechange", self._on_state)

    def _on_state(self):
        if self.pc.connectionState == "connected" and self.connected_at is None:
            self.connected_at = time.monotonic()

    @property
    def state(self):
        return self.pc.connectionState

    def _url(self, kind):
        q = urllib.parse.urlencode({"app": self.app, "stream": self.stream})
        if self.via in ("whip", "whep", "whip-play"):
            path = {"whip": "/rtc/v1/whip/", "whep": "/rtc/v1/whep/", "whip-play": "/rtc/v1/whip-play/"}[self.via]
            return f"{self.api}{path}?{q}"
        return f"{self.api}/rtc/v1/{kind}/"

    def _signal(self, kind, offer):
        """POSTs the offer (blocking; run in an executor); returns the answer."""
        self.post_time = time.monotonic()
        url = self._url(kind)
        if self.via == "json":
            host = urllib.parse.urlsplit(self.api).hostname
            body = json.dumps({"api": url, "tid": "t%x" % (id(self) & 0xFFFFFF),
                               "streamurl": f"{self.scheme}://{host}/{self.app}/{self.stream}",
                               "clientip": None, "sdp": offer})
            status, _, text = http("POST", url, body, "application/json", source_ip=self.local_ip)
            try:
                reply = json.loads(text)
            except ValueError:
                raise SignalingError(status, -1, text) from None
            if status != 200 or reply.get("code") != 0:
                raise SignalingError(status, reply.get("code"), text)
            self.reply = reply
            self.sessionid = reply.get("sessionid")
            return reply["sdp"]
        status, headers, text = http("POST", url, offer, "application/sdp", source_ip=self.local_ip)
        if status != 201:
            raise SignalingError(status, 0, text)
        self.headers = headers
        loc = headers.get("Location")
        if loc:
            self.location = urllib.parse.urljoin(self.api + "/", loc)
        return text

    async def _set_local_offer(self):
        """createOffer + setLocalDescription (which gathers the candidates:
        local_ip's when given; the loop thread runs one gathering at a time)."""
        global HOST_ADDRESSES
        saved = HOST_ADDRESSES
        if self.local_ip:
            HOST_ADDRESSES = [self.local_ip]
        try:
            await self.pc.setLocalDescription(await self.pc.createOffer())
        finally:
            HOST_ADDRESSES = saved

    async def _negotiate(self, kind, timeout):
        await self._set_local_offer()
        self.offer = self.pc.localDescription.sdp
        loop = asyncio.get_running_loop()
        self.answer = await loop.run_in_executor(None, self._signal, kind, self._sent_offer())
        await self.pc.setRemoteDescription(RTCSessionDescription(self._applied_answer(), "answer"))
        deadline = time.monotonic() + timeout
        while self.pc.connectionState != "connected":
            if self.pc.connectionState in ("failed", "closed") or time.monotonic() > deadline:
                raise ConnectionError(f"{kind} {self.stream}: connection {self.pc.connectionState} "
                                      f"after {timeout}s")
            await asyncio.sleep(0.02)

    def _sent_offer(self):
        return self.offer_filter(self.offer) if self.offer_filter else self.offer

    def _applied_answer(self):
        return self.answer_filter(self.answer) if self.answer_filter else self.answer

    # --- ICE/DTLS internals the hostile and timeout tests reach into ---
    def _dtls(self):
        for t in self.pc.getTransceivers():
            tr = t.sender.transport or t.receiver.transport
            if tr is not None:
                return tr
        return None

    def _pair(self):
        conn = self._dtls().transport._connection
        return conn, conn._nominated.get(1)

    @property
    def local_ufrag(self):
        return sdp_attr(self.offer, "ice-ufrag")

    @property
    def remote_ufrag(self):
        return sdp_attr(self.answer, "ice-ufrag")

    @property
    def remote_pwd(self):
        return sdp_attr(self.answer, "ice-pwd")

    def local_addr(self):
        """The (host, port) our media socket uses."""
        _, pair = self._pair()
        return pair.protocol.transport.get_extra_info("sockname")[:2]

    def remote_addr(self):
        _, pair = self._pair()
        return pair.remote_addr

    def send_raw(self, data):
        """Sends one datagram, as is, from our media socket to the server's."""
        def go():
            _, pair = self._pair()
            pair.protocol.transport.sendto(data, pair.remote_addr)
        self.rtc.loop.call_soon_threadsafe(go)

    def send_srtcp(self, packet):
        """Sends `packet` (plain RTCP) SRTCP-protected on our session: reaches the
        server's RTCP parser. Returns False when libsrtp refused to protect it."""
        async def go():
            dtls = self._dtls()
            try:
                await dtls.transport._send(dtls._tx_srtp.protect_rtcp(packet))
                return True
            except Exception:
                return False
        return self.rtc.run(go(), 5)

    def silence(self):
        """Stops every packet we send (STUN consent checks included) without a
        goodbye: no DTLS close_notify, no RTCP BYE, no DELETE. The server only
        learns of it by its stun_timeout."""
        async def go():
            conn, _ = self._pair()
            if conn._query_consent_task:
                conn._query_consent_task.cancel()
            for p in list(conn._protocols):
                p.transport.close()
        self.rtc.run(go(), 5)

    def delete(self, timeout=5):
        """DELETE of the WHIP/WHEP Location; the HTTP status (None without one)."""
        if not self.location:
            return None
        status, _, _ = http("DELETE", self.location, timeout=timeout, source_ip=self.local_ip)
        return status

    def close(self, delete=True):
        """DELETE (when asked) then closes our side; idempotent."""
        if self.closed:
            return None
        self.closed = True
        status = self.delete() if delete else None
        try:
            self.rtc.run(self.pc.close(), 10)
        except Exception:
            pass
        return status


class Publisher(Peer):
    """Sends generated H.264 video and Opus audio (silence). `drop` (0..1) is the
    share of outgoing RTP dropped before SRTP, evenly spread, so that the
    server must NACK and the player must still see every packet."""

    def __init__(self, rtc, api, app, stream, via="whip", drop=0.0, size=(320, 240), fps=25, audio=True,
                 video_track=None, audio_track=None, **peer_kw):
        super().__init__(rtc, api, app, stream, via, **peer_kw)
        self.drop = drop
        self.video = video_track or PatternTrack(size[0], size[1], fps)
        self.rtp_sent = 0
        self.rtp_dropped = 0
        self.nacks = 0
        t = self.pc.addTransceiver(self.video, direction="sendonly")
        prefer_h264(t)
        if audio:
            self.pc.addTransceiver(audio_track or AudioStreamTrack(), direction="sendonly")

    @property
    def frames_sent(self):
        return getattr(self.video, "frames_sent", 0)

    def _install_loss(self):
        dtls = self._dtls()
        send = dtls._send_rtp
        is_rtcp = lambda d: len(d) >= 2 and 192 <= d[1] <= 223

        async def lossy(data):
            if not is_rtcp(data):
                n = self.rtp_sent
                self.rtp_sent += 1
                if self.drop and int((n + 1) * self.drop) > int(n * self.drop):
                    self.rtp_dropped += 1
                    return
            await send(data)
        dtls._send_rtp = lossy

    async def start(self, timeout):
        await self._negotiate("publish", timeout)
        self._install_loss()


class Player(Peer):
    """Receives video and audio, decodes the video and counts: frames decoded,
    their size, when the first keyframe packet and first frame arrived
    (seconds after the POST), audio packets, and every video RTP sequence
    number (RTX unwrapped) to look for gaps."""

    def __init__(self, rtc, api, app, stream, via="whep", audio=True, **peer_kw):
        super().__init__(rtc, api, app, stream, via, **peer_kw)
        self.frames_decoded = 0
        self.width = self.height = None
        self.first_frame_at = None
        self.first_keyframe_at = None
        self.audio_packets = 0
        self.audio_frames = 0
        self.video_packets = 0
        self.video_ssrc = None
        self.video_seqs = set()
        self.first_seq = None
        self.last_frame_time = None
        self._tasks = []
        t = self.pc.addTransceiver("video", direction="recvonly")
        prefer_h264(t)
        if audio:
            self.pc.addTransceiver("audio", direction="recvonly")
        self.pc.on("track", self._on_track)

    def _on_track(self, track):
        self._tasks.append(asyncio.ensure_future(self._consume(track)))

    async def _consume(self, track):
        while True:
            try:
                frame = await track.recv()
            except MediaStreamError:
                return
            if track.kind == "video":
                now = time.monotonic()
                if self.first_frame_at is None:
                    self.first_frame_at = now - self.post_time
                self.frames_decoded += 1
                self.width, self.height = frame.width, frame.height
                self.last_frame_time = now
            else:
                self.audio_frames += 1

    def _tap(self):
        """Wraps each receiver's RTP entry (after SRTP) to see every packet."""
        for t in self.pc.getTransceivers():
            receiver, kind = t.receiver, t.kind
            codecs = getattr(receiver, "_RTCRtpReceiver__codecs", {})
            original = receiver._handle_rtp_packet

            async def tapped(packet, arrival_time_ms, original=original, kind=kind, codecs=codecs):
                if kind == "audio":
                    self.audio_packets += 1
                else:
                    codec = codecs.get(packet.payload_type)
                    name = codec.mimeType.lower() if codec else ""
                    if name == "video/rtx" and len(packet.payload) >= 2:
                        self.video_seqs.add(int.from_bytes(packet.payload[:2], "big"))
                    elif name == "video/h264":
                        self.video_packets += 1
                        self.video_ssrc = packet.ssrc
                        if self.first_seq is None:
                            self.first_seq = packet.sequence_number
                        self.video_seqs.add(packet.sequence_number)
                        if self.first_keyframe_at is None and h264_keyframe(packet.payload):
                            self.first_keyframe_at = time.monotonic() - self.post_time
                await original(packet, arrival_time_ms)
            receiver._handle_rtp_packet = tapped

    def seq_gaps(self, settle=100):
        """Video sequence numbers never received (nor retransmitted) between the
        first one and the newest minus `settle` (those may still be recovered)."""
        if self.first_seq is None:
            return []
        seqs = set(self.video_seqs)     # a C-level copy: the loop thread keeps adding
        # Offsets from the first packet, modulo 2^16; the tests send far fewer
        # than 32768 packets, so larger offsets are reordered early packets.
        offsets = {(s - self.first_seq) & 0xFFFF for s in seqs}
        offsets = {o for o in offsets if o < 0x8000}
        top = max(offsets) - settle
        return [(o + self.first_seq) & 0xFFFF for o in range(max(top, 0)) if o not in offsets]

    async def start(self, timeout):
        # Tap before the answer: media may arrive as soon as DTLS completes.
        await self._set_local_offer()
        self._tap()
        self.offer = self.pc.localDescription.sdp
        loop = asyncio.get_running_loop()
        self.answer = await loop.run_in_executor(None, self._signal, "play", self._sent_offer())
        await self.pc.setRemoteDescription(RTCSessionDescription(self._applied_answer(), "answer"))
        deadline = time.monotonic() + timeout
        while self.pc.connectionState != "connected":
            if self.pc.connectionState in ("failed", "closed") or time.monotonic() > deadline:
                raise ConnectionError(f"play {self.stream}: connection {self.pc.connectionState} after {timeout}s")
            await asyncio.sleep(0.02)

    def stats(self):
        return {"frames_decoded": self.frames_decoded, "width": self.width, "height": self.height,
                "first_keyframe_at": self.first_keyframe_at, "first_frame_at": self.first_frame_at,
                "audio_packets": self.audio_packets, "video_packets": self.video_packets,
                "state": self.state}

    def close(self, delete=True):
        for t in self._tasks:
            self.rtc.loop.call_soon_threadsafe(t.cancel)
        return super().close(delete)


class Rtc:
    """The asyncio loop every peer of a test lives in, on a daemon thread."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="rtc-loop", daemon=True)
        self.thread.start()
        self.peers = []

    def run(self, coro, timeout):
        """Runs `coro` in the loop; its result, or its exception, or TimeoutError."""
        fut = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return fut.result(timeout)
        except TimeoutError:
            fut.cancel()
            raise

    def publish(self, api, app, stream, via="whip", timeout=10, **kw):
        """A connected Publisher, or SignalingError / ConnectionError."""
        pub = self.run(self._make(Publisher, api, app, stream, via, **kw), 5)
        self.peers.append(pub)
        self.run(pub.start(timeout), timeout + 5)
        return pub

    def play(self, api, app, stream, via="whep", timeout=10, **kw):
        player = self.run(self._make(Player, api, app, stream, via, **kw), 5)
        self.peers.append(player)
        self.run(player.start(timeout), timeout + 5)
        return player

    async def _make(self, cls, *args, **kw):
        # RTCPeerConnection wants to be made inside its loop.
        return cls(self, *args, **kw)

    def close(self):
        for p in self.peers:
            try:
                p.close()
            except Exception:
                pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        if not self.loop.is_running():
            self.loop.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(description="publish to or play from a WebRTC server (WHIP/WHEP/SRS JSON API)")
    ap.add_argument("action", choices=["publish", "play"])
    ap.add_argument("api", help="HOST:PORT of the HTTP API")
    ap.add_argument("stream")
    ap.add_argument("--app", default="live")
    ap.add_argument("--via", default=None, help="whip (publish) / whep, whip-play (play) / json")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--drop", type=float, default=0.0)
    a = ap.parse_args(argv)
    with Rtc() as rtc:
        if a.action == "publish":
            peer = rtc.publish(a.api, a.app, a.stream, via=a.via or "whip", drop=a.drop)
        else:
            peer = rtc.play(a.api, a.app, a.stream, via=a.via or "whep")
        end = time.monotonic() + a.seconds
        while time.monotonic() < end:
            time.sleep(1)
            if a.action == "publish":
                print(json.dumps({"frames_sent": peer.frames_sent, "rtp_sent": peer.rtp_sent,
                                  "rtp_dropped": peer.rtp_dropped, "state": peer.state}), flush=True)
            else:
                print(json.dumps(dict(peer.stats(), gaps=len(peer.seq_gaps()))), flush=True)
        peer.close()


if __name__ == "__main__":
    main()

"""An RTMP player in a thread that records when each media message arrived and
its timestamp: what a test needs to measure a gap or check monotonic time.
It speaks just enough RTMP to play (chunk headers of every format, extended
timestamps, Set Chunk Size, acknowledgements); it checks nothing itself."""
import socket
import struct
import threading
import time

from rtmp_raw import RawRtmp, amf0_number, amf0_string, chunk


class _ChunkStream:
    def __init__(self):
        self.timestamp = 0
        self.delta = 0
        self.length = 0
        self.type = 0
        self.stream_id = 0
        self.extended = False
        self.payload = b""


class RtmpRecorder(threading.Thread):
    """Plays rtmp://127.0.0.1:PORT/APP/STREAM until stop(). media: a list of
    (monotonic arrival, type 8/9, timestamp); error: why it ended, None while
    it plays or when stopped."""

    def __init__(self, port, stream, app="live", recv_timeout=60):
        super().__init__(daemon=True)
        self.port, self.stream, self.app = port, stream, app
        self.recv_timeout = recv_timeout
        self.media = []
        self.error = None
        self.ended = False
        self._halt = threading.Event()
        self._lock = threading.Lock()
        self._rtmp = None

    # ---- results ----
    def video(self):
        with self._lock:
            return [m for m in self.media if m[1] == 9]

    def video_count(self):
        return len(self.video())

    def max_video_gap(self):
        """The longest wall-clock time between two received video messages, in seconds."""
        v = self.video()
        return max((b[0] - a[0] for a, b in zip(v, v[1:])), default=0.0)

    def backwards(self):
        """Messages whose timestamp went back from the previous one of their type."""
        last, bad = {}, []
        with self._lock:
            for arrived, kind, ts in self.media:
                if kind in last and ts < last[kind]:
                    bad.append((kind, last[kind], ts))
                last[kind] = ts
        return bad

    def stop(self):
        self._halt.set()
        if self._rtmp:
            try:
                self._rtmp.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.join(10)
        if self._rtmp:
            self._rtmp.close()

    # ---- the player ----
    def run(self):
        try:
            self._play()
        except Exception as e:  # noqa: BLE001 - reported to the test
            if not self._halt.is_set():
                self.error = repr(e)
        finally:
            self.ended = True

    def _play(self):
        r = self._rtmp = RawRtmp(self.port, timeout=10)
        r.handshake()
        r.sock.settimeout(self.recv_timeout)
        r.connect(self.app, tc_url=f"rtmp://127.0.0.1:{self.port}/{self.app}")
        r.sock.sendall(chunk(3, 20, amf0_string("createStream") + amf0_number(2) + b"\x05"))
        r.sock.sendall(chunk(8, 20, amf0_string("play") + amf0_number(3) + b"\x05" + amf0_string(self.stream),
                             stream_id=1))
        chunk_size, window, received, acked = 128, 0, 0, 0
        streams = {}
        while not self._halt.is_set():
            first = r.recv_exact(1)[0]
            fmt, csid = first >> 6, first & 0x3F
            received += 1
            if csid == 0:
                csid = 64 + r.recv_exact(1)[0]
                received += 1
            elif csid == 1:
                b = r.recv_exact(2)
                csid = 64 + b[0] + b[1] * 256
                received += 2
            cs = streams.setdefault(csid, _ChunkStream())
            size = (11, 7, 3, 0)[fmt]
            header = r.recv_exact(size) if size else b""
            received += size
            starting = not cs.payload
            if fmt <= 2:
                ts = int.from_bytes(header[0:3], "big")
                cs.extended = ts == 0xFFFFFF
            if fmt <= 1:
                cs.length = int.from_bytes(header[3:6], "big")
                cs.type = header[6]
            if fmt == 0:
                cs.stream_id = struct.unpack("<I", header[7:11])[0]
            if cs.extended:
                ts = struct.unpack(">I", r.recv_exact(4))[0]
                received += 4
            if fmt == 0:
                cs.timestamp, cs.delta = ts, 0
            elif fmt in (1, 2):
                cs.delta = ts
                cs.timestamp += ts
            elif starting:
                cs.timestamp += cs.delta  # a type-3 chunk starting a message repeats the delta
            n = min(chunk_size, cs.length - len(cs.payload))
            cs.payload += r.recv_exact(n)
            received += n
            if len(cs.payload) < cs.length:
                continue
            payload, cs.payload = cs.payload, b""
            if cs.type == 1:
                chunk_size = struct.unpack(">I", payload[:4])[0] & 0x7FFFFFFF
            elif cs.type == 5:
                window = struct.unpack(">I", payload[:4])[0]
            elif cs.type in (8, 9):
                with self._lock:
                    self.media.append((time.monotonic(), cs.type, cs.timestamp & 0xFFFFFFFF))
            if window and received - acked >= window // 2:
                r.sock.sendall(chunk(2, 3, struct.pack(">I", received & 0xFFFFFFFF)))
                acked = received

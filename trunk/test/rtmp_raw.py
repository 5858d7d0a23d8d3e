"""A deliberately small, hand-rolled RTMP speaker for hostile tests: it sends
exactly the bytes a test asks for, broken ones included. (The project's real
client is objs/sb_rtmp_load and friends.)"""
import os
import socket
import struct


def amf0_string(s):
    b = s.encode()
    return b"\x02" + struct.pack(">H", len(b)) + b


def amf0_number(v):
    return b"\x00" + struct.pack(">d", v)


def amf0_object(props):
    out = b"\x03"
    for k, v in props.items():
        kb = k.encode()
        out += struct.pack(">H", len(kb)) + kb
        out += amf0_string(v) if isinstance(v, str) else amf0_number(v)
    return out + b"\x00\x00\x09"


def chunk(csid, msg_type, payload, stream_id=0, timestamp=0, chunk_size=128, length=None):
    """One message as type-0 + type-3 chunks. `length` may lie."""
    length = len(payload) if length is None else length
    header = bytes([csid & 0x3F]) + struct.pack(">I", timestamp)[1:] + struct.pack(">I", length)[1:] \
        + bytes([msg_type]) + struct.pack("<I", stream_id)
    out = header + payload[:chunk_size]
    rest = payload[chunk_size:]
    while rest:
        out += bytes([0xC0 | (csid & 0x3F)]) + rest[:chunk_size]
        rest = rest[chunk_size:]
    return out


class RawRtmp:
    def __init__(self, port, timeout=5, source=None):
        """`source`: the local address to connect from ("127.0.0.2"), for tests of
        rules about client addresses."""
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout,
                                             source_address=(source, 0) if source else None)
        self.chunk_size = 128
        self.in_chunk_size = 128
        self._in = {}  # csid -> [fmt-0/1 fields..., partial payload]

    def handshake(self):
        c1 = b"\x00" * 8 + os.urandom(1528)
        self.sock.sendall(b"\x03" + c1)
        s = self.recv_exact(3073)
        self.sock.sendall(s[1:1537])  # C2 echoes S1
        return s

    def recv_exact(self, n):
        buf = b""
        while len(buf) < n:
            part = self.sock.recv(n - len(buf))
            if not part:
                raise ConnectionError("closed")
            buf += part
        return buf

    def connect(self, app="live", tc_url=None, page_url=None):
        tc_url = tc_url or f"rtmp://127.0.0.1/{app}"
        props = {"app": app, "tcUrl": tc_url, "flashVer": "LNX 9,0,124,2"}
        if page_url is not None:
            props["pageUrl"] = page_url
        body = amf0_string("connect") + amf0_number(1) + amf0_object(props)
        self.sock.sendall(chunk(3, 20, body))

    def play(self, stream):
        """createStream and play on stream id 1, without reading the answers."""
        self.sock.sendall(chunk(3, 20, amf0_string("createStream") + amf0_number(2) + b"\x05"))
        self.sock.sendall(chunk(8, 20, amf0_string("play") + amf0_number(3) + b"\x05" + amf0_string(stream),
                                stream_id=1))

    def read_message(self):
        """The next whole message the server sends: (type, payload). Follows
        Set Chunk Size; raises ConnectionError when the server closes."""
        while True:
            first = self.recv_exact(1)[0]
            fmt, csid = first >> 6, first & 0x3F
            if csid == 0:
                csid = 64 + self.recv_exact(1)[0]
            elif csid == 1:
                b = self.recv_exact(2)
                csid = 64 + b[0] + b[1] * 256
            st = self._in.setdefault(csid, {"length": 0, "type": 0, "ext": False, "payload": b""})
            header = self.recv_exact((11, 7, 3, 0)[fmt]) if fmt < 3 else b""
            if fmt <= 2:
                st["ext"] = header[0:3] == b"\xff\xff\xff"
            if fmt <= 1:
                st["length"] = int.from_bytes(header[3:6], "big")
                st["type"] = header[6]
            if st["ext"]:
                self.recv_exact(4)
            n = min(self.in_chunk_size, st["length"] - len(st["payload"]))
            st["payload"] += self.recv_exact(n)
            if len(st["payload"]) < st["length"]:
                continue
            payload, st["payload"] = st["payload"], b""
            if st["type"] == 1:
                self.in_chunk_size = struct.unpack(">I", payload[:4])[0] & 0x7FFFFFFF
            return st["type"], payload

    def wait_status(self, codes, timeout=5):
        """Reads messages until a command (type 20) names one of `codes`
        (b"NetStream.Play.Start", b"_error", ...); returns that code, or None
        when the server closes first. Raises socket.timeout after `timeout`."""
        self.sock.settimeout(timeout)
        while True:
            try:
                kind, payload = self.read_message()
            except (ConnectionError, OSError) as e:
                if isinstance(e, socket.timeout):
                    raise
                return None
            if kind != 20:
                continue
            for code in codes:
                if code in payload:
                    return code

    def set_chunk_size(self, size):
        """Set Chunk Size (type 1); send_media() then cuts messages at `size`."""
        self.sock.sendall(chunk(2, 1, struct.pack(">I", size)))
        self.chunk_size = size

    def publish(self, stream, app="live"):
        """connect, createStream and publish, without reading the answers:
        the stream id is taken to be 1 (the first createStream's)."""
        self.connect(app)
        self.sock.sendall(chunk(3, 20, amf0_string("createStream") + amf0_number(2) + b"\x05"))
        self.sock.sendall(chunk(8, 20, amf0_string("publish") + amf0_number(3) + b"\x05" + amf0_string(stream)
                                + amf0_string("live"), stream_id=1))

    def send_media(self, msg_type, payload, timestamp, stream_id=1):
        """An audio (8) or video (9) message on the publish stream."""
        csid = 6 if msg_type == 9 else 4
        self.sock.sendall(chunk(csid, msg_type, payload, stream_id=stream_id, timestamp=timestamp,
                                chunk_size=self.chunk_size))

    def send(self, data):
        self.sock.sendall(data)

    def closed_by_server(self, timeout=5):
        """True when the server closes the connection within timeout."""
        self.sock.settimeout(timeout)
        try:
            while True:
                data = self.sock.recv(65536)
                if not data:
                    return True
        except (ConnectionResetError, BrokenPipeError):
            return True
        except socket.timeout:
            return False

    def close(self):
        self.sock.close()

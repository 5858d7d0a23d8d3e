"""Hostile peers on the WebRTC origin's UDP port and signalling, while an
aiortc publisher and player (test/rtc_client.py) stream through it: garbage
datagrams, STUN with bad MESSAGE-INTEGRITY / FINGERPRINT / lengths, 10,000
binding requests for unknown ufrags, DTLS garbage and a handshake that stops
halfway, broken RTP, malformed RTCP and a NACK storm on a real session,
oversize and truncated SDP. The server must drop them with a log line, stay
up, keep the player decoding and hold no more descriptors afterwards.

The STUN encoder here is our own (RFC 5389): a binding request with
USERNAME, PRIORITY, ICE-CONTROLLING, USE-CANDIDATE, MESSAGE-INTEGRITY
(HMAC-SHA1 keyed with the peer's ice-pwd) and FINGERPRINT (CRC-32 XOR
0x5354554e), each optionally broken."""
import hashlib
import hmac
import os
import random
import re
import socket
import struct
import time
import zlib

import pytest

from conftest import fd_count, wait_until
from rtc_env import api_get, rtc_clients, require_aiortc, start_rtc

MAGIC = 0x2112A442
BINDING_REQUEST = 0x0001
BINDING_SUCCESS = 0x0101
ATTR_USERNAME = 0x0006
ATTR_MESSAGE_INTEGRITY = 0x0008
ATTR_PRIORITY = 0x0024
ATTR_USE_CANDIDATE = 0x0025
ATTR_FINGERPRINT = 0x8028
ATTR_ICE_CONTROLLING = 0x802A
FINGERPRINT_XOR = 0x5354554E


def stun_attr(kind, value):
    """One TLV, padded to 4 bytes (the length field is the unpadded one)."""
    return struct.pack("!HH", kind, len(value)) + value + b"\0" * (-len(value) % 4)


def stun_binding(username, password, txid=None, bad_integrity=False, bad_fingerprint=False,
                 integrity=True, fingerprint=True):
    """A binding request as an ICE controlling agent sends it."""
    txid = txid or os.urandom(12)
    body = (stun_attr(ATTR_USERNAME, username.encode()) +
            stun_attr(ATTR_PRIORITY, struct.pack("!I", 0x6E7F1EFF)) +
            stun_attr(ATTR_ICE_CONTROLLING, os.urandom(8)) +
            stun_attr(ATTR_USE_CANDIDATE, b""))

    def header(length):
        return struct.pack("!HHI", BINDING_REQUEST, length, MAGIC) + txid

    if integrity:
        # The HMAC covers the message up to the attribute, with the header's
        # length already counting it (24 bytes: 4 of TLV header, 20 of HMAC).
        mac = hmac.new(password.encode(), header(len(body) + 24) + body, hashlib.sha1).digest()
        if bad_integrity:
            mac = bytes([mac[0] ^ 0xFF]) + mac[1:]
        body += stun_attr(ATTR_MESSAGE_INTEGRITY, mac)
    if fingerprint:
        crc = (zlib.crc32(header(len(body) + 8) + body) ^ FINGERPRINT_XOR) & 0xFFFFFFFF
        if bad_fingerprint:
            crc ^= 1
        body += stun_attr(ATTR_FINGERPRINT, struct.pack("!I", crc))
    return header(len(body)) + body


def stun_check(data, password):
    """(type, txid, integrity ok, fingerprint ok) of a STUN message; for
    reading the server's answers and checking our own encoder."""
    kind, length, magic = struct.unpack("!HHI", data[:8])
    assert magic == MAGIC and length == len(data) - 20, (hex(magic), length, len(data))
    txid, i, mi_ok, fp_ok = data[8:20], 20, None, None
    while i + 4 <= len(data):
        t, n = struct.unpack("!HH", data[i:i + 4])
        v = data[i + 4:i + 4 + n]
        if t == ATTR_MESSAGE_INTEGRITY:
            head = struct.pack("!HHI", kind, i - 20 + 24, MAGIC) + txid
            mi_ok = hmac.compare_digest(hmac.new(password.encode(), head + data[20:i], hashlib.sha1).digest(), v)
        elif t == ATTR_FINGERPRINT:
            head = struct.pack("!HHI", kind, i - 20 + 8, MAGIC) + txid
            fp_ok = struct.unpack("!I", v)[0] == (zlib.crc32(head + data[20:i]) ^ FINGERPRINT_XOR) & 0xFFFFFFFF
        i += 4 + n + (-n % 4)
    return kind, txid, mi_ok, fp_ok


def truncated_stuns(username, password):
    """Binding requests whose lengths lie."""
    good = stun_binding(username, password)
    yield good[:19]                                     # shorter than a header
    yield good[:20]                                     # header claiming attributes that are not there
    yield good[:-3]                                     # cut inside FINGERPRINT
    yield good[:2] + struct.pack("!H", len(good) - 20 + 400) + good[4:]     # length past the end
    yield good[:2] + struct.pack("!H", len(good) - 20 - 2) + good[4:]       # not a multiple of 4
    bad_attr = bytearray(good)
    bad_attr[22:24] = struct.pack("!H", 0xFFF0)         # USERNAME's length far past the end
    yield bytes(bad_attr)
    zero_user = stun_attr(ATTR_USERNAME, b"")
    yield struct.pack("!HHI", BINDING_REQUEST, len(zero_user), MAGIC) + os.urandom(12) + zero_user
    yield struct.pack("!HHI", BINDING_REQUEST, 0, 0xDEADBEEF) + os.urandom(12)  # wrong magic cookie


def dtls_garbage(rng):
    """Records with a DTLS first byte (20..63) and nonsense inside."""
    for _ in range(100):
        ctype = rng.choice([20, 21, 22, 23, 24, rng.randrange(25, 64)])
        body = rng.randbytes(rng.randrange(0, 300))
        length = rng.choice([len(body), 0, 0xFFFF, len(body) + 50])
        yield struct.pack("!BHHIH", ctype, 0xFEFD, 0, rng.randrange(1 << 32), 0)[:11] + \
            struct.pack("!H", length & 0xFFFF) + body
    yield b"\x16"                                        # one byte
    yield b"\x16\xfe\xfd" + b"\0" * 8                    # header without length


def half_client_hello():
    """A DTLS 1.2 ClientHello record cut in the middle of its body."""
    hello = (struct.pack("!H", 0xFEFD) + os.urandom(32) + b"\0" + b"\0" +   # version, random, session, cookie
             struct.pack("!H", 4) + struct.pack("!HH", 0xC02B, 0xC02F) + b"\x01\x00" +
             struct.pack("!H", 0))
    handshake = struct.pack("!B", 1) + len(hello).to_bytes(3, "big") + struct.pack("!H", 0) + \
        (0).to_bytes(3, "big") + len(hello).to_bytes(3, "big") + hello
    record = struct.pack("!BHHHIH", 22, 0xFEFD, 0, 0, 0, len(handshake)) + handshake
    return record[:len(record) // 2]


def bad_rtp(rng, ssrc):
    """RTP whose header lies: version, CSRC count, extension length, padding."""
    seq, ts = rng.randrange(1 << 16), rng.randrange(1 << 32)
    for version in (0, 1, 3):
        yield struct.pack("!BBHII", version << 6, 102, seq, ts, ssrc) + rng.randbytes(100)
    yield struct.pack("!BBHII", 0x80 | 15, 102, seq, ts, ssrc) + rng.randbytes(20)          # 15 CSRCs, 20 bytes
    yield struct.pack("!BBHII", 0x90, 102, seq, ts, ssrc) + struct.pack("!HH", 0xBEDE, 0xFFFF) + b"\0" * 8
    yield struct.pack("!BBHII", 0x90, 102, seq, ts, ssrc) + struct.pack("!HH", 0x1000, 3)   # extension cut
    yield struct.pack("!BBHII", 0xA0, 102, seq, ts, ssrc) + b"\0" * 10 + b"\xff"            # padding 255 > size
    yield struct.pack("!BBHII", 0xA0, 102, seq, ts, ssrc) + b"\x00"                         # padding 0
    yield struct.pack("!BBHII", 0x80, 102, seq, ts, ssrc)                                   # header only
    yield struct.pack("!BBH", 0x80, 102, seq)                                               # short header


def bad_rtcp(ssrc, media_ssrc):
    """Compound RTCP that lies about its lengths and counts."""
    yield struct.pack("!BBHI", 0x80, 200, 0xFFFF, ssrc)                                     # SR, length past end
    yield struct.pack("!BBHI", 0x80 | 31, 201, 1, ssrc)                                     # RR, 31 blocks in 0
    yield struct.pack("!BBHI", 0x80, 201, 1, ssrc) + struct.pack("!BBHI", 0x80, 202, 40, ssrc)  # SDES cut
    yield struct.pack("!BBHI", 0x80 | 31, 203, 1, ssrc)                                     # BYE, 31 sources in 1
    yield struct.pack("!BBHII", 0x81, 205, 2, ssrc, media_ssrc)                             # NACK without FCI
    yield struct.pack("!BBHII", 0x8F, 205, 3, ssrc, media_ssrc) + b"\0" * 4                 # TWCC, FCI too short
    yield struct.pack("!BBHII", 0x81, 206, 2, ssrc, media_ssrc)                             # PLI, then junk
    yield struct.pack("!BBHI", 0x80, 201, 1, ssrc) + b"\x81\xcd\x00"                        # truncated second packet
    yield struct.pack("!BBHI", 0x80, 201, 0, ssrc)                                          # length 0, 8 bytes
    yield struct.pack("!BBHI", 0x80, 207, 1, ssrc)                                          # XR, no blocks
    yield struct.pack("!BBHII", 0x8F, 206, 4, ssrc, 0) + b"REMB" + b"\x01\xff\xff\xff"    # REMB, SSRC list missing


def nack(ssrc, media_ssrc, seqs, blp=0xFFFF):
    """Generic NACK (RFC 4585): one FCI per sequence number, with `blp` (by
    default all 16 following packets too)."""
    fci = b"".join(struct.pack("!HH", s & 0xFFFF, blp) for s in seqs)
    return struct.pack("!BBHII", 0x81, 205, 2 + len(fci) // 4, ssrc, media_ssrc) + fci


@pytest.fixture
def pair(srs):
    """The server, an aiortc publisher and player streaming through it."""
    require_aiortc()
    from rtc_client import Rtc
    start_rtc(srs)
    rtc = Rtc()
    try:
        pub = rtc.publish(srs.api, "live", "h1")
        player = rtc.play(srs.api, "live", "h1")
        assert wait_until(lambda: player.frames_decoded >= 25, 10), player.stats()
        yield srs, rtc, pub, player
    finally:
        rtc.close()


def decodes(player, seconds=1.0, frames=5):
    before = player.frames_decoded
    time.sleep(seconds)
    return player.frames_decoded - before >= frames


def udp_socket():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    return s


def send_all(sock, addr, packets, pace_every=200):
    """Sends every packet; a short pause every `pace_every` keeps the flood
    from only measuring the kernel's socket buffer. Returns the count."""
    n = 0
    for p in packets:
        sock.sendto(p, addr)
        n += 1
        if n % pace_every == 0:
            time.sleep(0.01)
    return n


def test_stun_encoder_agrees_with_aioice():
    """Our encoder is checked by a second implementation before it judges the server."""
    require_aiortc()
    from aioice import stun
    key = "0123456789abcdefghijkl"
    data = stun_binding("srvr:clnt", key)
    msg = stun.parse_message(data)                      # checks FINGERPRINT
    assert msg.attributes["USERNAME"] == "srvr:clnt"
    assert msg.check_message_integrity(key.encode())
    assert not msg.check_message_integrity(b"another key")
    assert stun_check(data, key)[2:] == (True, True)
    assert not stun.parse_message(stun_binding("srvr:clnt", key, bad_integrity=True)).check_message_integrity(
        key.encode())
    with pytest.raises(ValueError):
        stun.parse_message(stun_binding("srvr:clnt", key, bad_fingerprint=True))
    assert stun_check(stun_binding("srvr:clnt", key, bad_fingerprint=True), key)[2:] == (True, False)


def test_hostile_udp_while_streaming(pair):
    srs, rtc, pub, player = pair
    rng = random.Random(12)
    target = ("127.0.0.1", srs.rtc_port)
    api_get(srs, "/api/v1/clients")
    baseline = fd_count(srs.pid)
    player_user = f"{player.remote_ufrag}:{player.local_ufrag}"
    t_start = time.monotonic()
    sock = udp_socket()
    sock.settimeout(0.2)
    try:
        # Plain garbage, every first byte class of RFC 7983 and some outside them.
        garbage = [b"", b"\0", b"\xff"] + [bytes([b]) + rng.randbytes(rng.randrange(0, 1400))
                                          for b in list(range(0, 256, 3)) * 2]
        send_all(sock, target, garbage)
        # STUN for the player's real ufrags from a new address: bad integrity,
        # bad fingerprint, no integrity. None may move the player's session.
        send_all(sock, target, [stun_binding(player_user, player.remote_pwd, bad_integrity=True) for _ in range(50)])
        send_all(sock, target, [stun_binding(player_user, player.remote_pwd, bad_fingerprint=True)
                                for _ in range(50)])
        send_all(sock, target, [stun_binding(player_user, player.remote_pwd, integrity=False) for _ in range(20)])
        send_all(sock, target, [stun_binding(player_user, "not-the-password") for _ in range(20)])
        send_all(sock, target, list(truncated_stuns(player_user, player.remote_pwd)) * 5)
        assert decodes(player), f"the player stopped after bad STUN: {player.stats()}"
        # 10,000 binding requests for ufrags nobody has.
        sent = 0
        for i in range(10000):
            sock.sendto(stun_binding(f"nobody{i:05d}:x{rng.randrange(1 << 30):x}", "whatever-password-123"), target)
            sent += 1
            if i % 500 == 499:
                time.sleep(0.02)
        assert sent == 10000
        # Nothing verifies a request it could not authenticate: error responses
        # (401, RFC 5389 10.1.2) are allowed, a binding success is not.
        successes = 0
        try:
            while True:
                data, _ = sock.recvfrom(2048)
                if len(data) >= 20 and struct.unpack("!H", data[:2])[0] == BINDING_SUCCESS:
                    successes += 1
        except socket.timeout:
            pass
        assert successes == 0, f"the server accepted {successes} unverifiable binding requests"
        # DTLS garbage and a ClientHello cut in half, from an unbound address.
        send_all(sock, target, list(dtls_garbage(rng)) + [half_client_hello()] * 10)
        # RTP with lying headers, from a stranger and from the publisher's own
        # (bound) address, where SRTP authentication must reject it.
        strange = list(bad_rtp(rng, 0x1234)) * 10
        send_all(sock, target, strange)
        for p in strange:
            pub.send_raw(p)
        for p in bad_rtcp(0x1234, 0x5678):
            player.send_raw(p)
        assert decodes(player), f"the player stopped after garbage: {player.stats()}"
        # Malformed RTCP inside valid SRTCP: reaches the server's parser.
        media_ssrc = player.video_ssrc or 0
        for p in list(bad_rtcp(0x4242, media_ssrc)) * 5:
            player.send_srtcp(p)
        # A NACK storm: 2,000 NACKs of 16 x 17 packets each, all too old for any
        # ring or not sent yet (the server looks them up and finds nothing: a
        # server answering them all would bury the player), then 50 for recent
        # packets, which the server may resend.
        newest = max(set(player.video_seqs) or {0})
        storm_start = time.monotonic()
        for i in range(2000):
            base = newest - 20000 if i % 2 else newest + 5000
            player.send_srtcp(nack(0x4242, media_ssrc, [base + 17 * k + i % 17 for k in range(16)]))
            if time.monotonic() - storm_start > 20:
                break
        for i in range(50):
            player.send_srtcp(nack(0x4242, media_ssrc, [newest - i], blp=0))
        assert decodes(player, 2.0, 10), f"the player stopped after the NACK storm: {player.stats()}"
    finally:
        sock.close()
    assert srs.alive(), srs.log()[-3000:]
    assert player.state == "connected" and pub.state == "connected"
    assert len(rtc_clients(srs, "h1")) == 2, rtc_clients(srs)
    assert wait_until(lambda: fd_count(srs.pid) <= baseline, 5), (fd_count(srs.pid), baseline)
    log = srs.log()
    lines = [l for l in log.splitlines() if re.search(r"stun|integrity|\bice\b", l, re.I)
             and re.search(r"drop|invalid|error|bad|fail", l, re.I)]
    assert lines, "no log line says STUN requests were dropped:\n" + log[-3000:]
    assert time.monotonic() - t_start < 90


def test_handshake_that_stops_halfway(pair):
    """A real session (offer accepted, STUN verified) whose DTLS ClientHello
    stops halfway: the server answers the binding request, survives, and the
    DELETE frees the half-made session."""
    srs, rtc, pub, player = pair
    from rtc_client import Player, http, sdp_attr
    baseline = fd_count(srs.pid)
    # An offer made by aiortc (valid ufrag, pwd, fingerprint), never connected.
    probe = rtc.run(rtc._make(Player, srs.api, "live", "h1", "whep"), 5)

    async def offer():
        await probe.pc.setLocalDescription(await probe.pc.createOffer())
        return probe.pc.localDescription.sdp
    sdp = rtc.run(offer(), 10)
    status, headers, answer = http("POST", f"http://{srs.api}/rtc/v1/whep/?app=live&stream=h1", sdp,
                                   "application/sdp")
    assert status == 201, (status, answer)
    user = f"{sdp_attr(answer, 'ice-ufrag')}:{sdp_attr(sdp, 'ice-ufrag')}"
    cand = sdp_attr(answer, "candidate").split()        # foundation comp udp prio 127.0.0.1 PORT typ host
    server = (cand[4], int(cand[5]))
    sock = udp_socket()
    sock.settimeout(2)
    try:
        request = stun_binding(user, sdp_attr(answer, "ice-pwd"))
        sock.sendto(request, server)
        reply, _ = sock.recvfrom(2048)
        kind, txid, mi_ok, fp_ok = stun_check(reply, sdp_attr(answer, "ice-pwd"))
        assert (kind, txid) == (BINDING_SUCCESS, request[8:20]), reply.hex()
        assert mi_ok and fp_ok in (True, None), (mi_ok, fp_ok)
        sock.sendto(half_client_hello(), server)
        time.sleep(1.5)
        assert srs.alive()
        assert decodes(player)
    finally:
        sock.close()
        rtc.run(probe.pc.close(), 5)
    location = headers.get("Location")
    assert location
    status, _, _ = http("DELETE", f"http://{srs.api}{location}" if location.startswith("/") else location)
    assert status == 200
    assert wait_until(lambda: len(rtc_clients(srs, "h1", "rtc-play")) == 1, 5), rtc_clients(srs)
    assert wait_until(lambda: fd_count(srs.pid) <= baseline, 5), (fd_count(srs.pid), baseline)
    assert decodes(player)


def test_bad_sdp_refused(pair):
    srs, rtc, pub, player = pair
    from rtc_client import http
    offer = player.offer
    oversize = offer + "".join(f"a=x-filler:{i:08d}{'z' * 100}\r\n" for i in range(700))
    assert len(oversize) > 64 * 1024
    cases = {
        "oversize": oversize,
        "truncated": offer[:offer.index("m=") + 5],     # the session part and "m=vid"
        "empty": "",
        "not sdp": "hello\r\n",
        "no ice": "\r\n".join(l for l in offer.split("\r\n") if not l.startswith("a=ice-")),
        "no fingerprint": "\r\n".join(l for l in offer.split("\r\n") if not l.startswith("a=fingerprint")),
    }
    before = len(rtc_clients(srs))
    for path in ("/rtc/v1/whip/", "/rtc/v1/whep/"):
        for name, body in cases.items():
            status, _, text = http("POST", f"http://{srs.api}{path}?app=live&stream=bad{name.replace(' ', '')}",
                                   body, "application/sdp")
            assert status == 400, f"{path} {name}: HTTP {status} {text[:200]}"
            assert text.strip(), f"{path} {name}: 400 without a reason"
    assert len(rtc_clients(srs)) == before, rtc_clients(srs)
    assert srs.alive() and decodes(player)

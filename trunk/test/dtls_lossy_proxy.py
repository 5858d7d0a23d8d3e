"""A UDP proxy between one WebRTC peer and the server's WebRTC port that
loses, repeats, injects and corrupts DTLS on purpose, for the DTLS-under-loss
tests (test_rtc_dtls_loss.py).

The peer is pointed at the proxy by rewriting the server's answer (its
a=candidate address and port); the proxy forwards every datagram from the
peer to the server from its own upstream socket and every datagram from the
server back to the peer's last address. STUN, RTP and RTCP pass untouched;
DTLS datagrams are parsed (parse_dtls, below: no socket involved) and handed
to the rules in order:

    DropFlight("client", HS_CLIENT_HELLO)     drop the first ClientHello (flight 1)
    DropFlight("server", HS_SERVER_HELLO)     drop the DTLS server's first ServerHello flight
    DropFlight("client", HS_CERTIFICATE)      drop the DTLS client's first Certificate flight
    DropFlight("server", FINAL)               drop the DTLS server's first CCS/Finished flight
    DropFirst("peer", HS_CERTIFICATE)         drop only the first datagram carrying it
    Blackout("server", HS_SERVER_HELLO, 2.0)  that flight passes, then all DTLS is lost for 2 s
    RandomLoss(0.4, seed)                     any DTLS datagram, both ways, until media flows both ways
    DuplicateAlerts()                         every datagram holding an alert is sent twice
    InjectAlert("client", HS_CLIENT_HELLO)    after it, unencrypted warning alerts to the server, repeated
    Corrupt("peer", HS_CLIENT_HELLO)          flip bytes inside that message's body, every time

Senders are named by DTLS role ("client": the side that sent the first
ClientHello, "server": the other one) or by place ("peer": what arrives
from the WebRTC peer, "srs": what arrives from the server), or "any". A
flight is the datagrams one side sends in one burst: from the trigger until
the other side sends DTLS or FLIGHT_WINDOW seconds pass.

Every rule counts what it did (`fired`) and the proxy keeps a log of every
DTLS datagram and action (`events`), so a test can assert that its rule
fired: a loss test whose rule never fired proves nothing.

Threads, not asyncio: one thread selects on both sockets; stop() ends it.
"""
import random
import selectors
import socket
import struct
import threading
import time

# ---- DTLS records (RFC 6347 section 4.1) ----
#
#    0                   1                   2                   3
#    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
#   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
#   |  content type |            version            |     epoch     :
#   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
#   :    (cont.)    |        sequence number (48 bits)              :
#   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
#   :                               |            length             |
#   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
#
# An epoch-0 handshake record's fragment starts with (section 4.2.2):
#   msg_type(1) length(3) message_seq(2) fragment_offset(3) fragment_length(3)

CT_CHANGE_CIPHER_SPEC, CT_ALERT, CT_HANDSHAKE, CT_APPLICATION_DATA = 20, 21, 22, 23
HS_CLIENT_HELLO, HS_SERVER_HELLO, HS_HELLO_VERIFY_REQUEST = 1, 2, 3
HS_CERTIFICATE, HS_SERVER_KEY_EXCHANGE, HS_CERTIFICATE_REQUEST = 11, 12, 13
HS_SERVER_HELLO_DONE, HS_CERTIFICATE_VERIFY, HS_CLIENT_KEY_EXCHANGE, HS_FINISHED = 14, 15, 16, 20
FINAL = "final"     # trigger: a ChangeCipherSpec or an epoch-1 handshake record (the CCS/Finished flight)
HS_NAMES = {0: "HelloRequest", 1: "ClientHello", 2: "ServerHello", 3: "HelloVerifyRequest",
            4: "NewSessionTicket", 11: "Certificate", 12: "ServerKeyExchange", 13: "CertificateRequest",
            14: "ServerHelloDone", 15: "CertificateVerify", 16: "ClientKeyExchange", 20: "Finished"}
RECORD_HEADER = 13
HANDSHAKE_HEADER = 12
FLIGHT_WINDOW = 0.5
FLIGHT_GAP = 0.05     # datagrams of one burst leave closer together than this
DTLS_1_2 = 0xFEFD
ALERT_WARNING, ALERT_USER_CANCELED = 1, 90


class DtlsRecord:
    """One record of a datagram: its header fields, where its fragment starts
    in the datagram (`body_at`) and, for epoch-0 handshake records, the
    handshake messages' (msg_type, message_seq, fragment_offset, fragment_length,
    offset of the message body in the datagram)."""
    __slots__ = ("ctype", "version", "epoch", "seq", "length", "body_at", "handshakes")

    def __init__(self, ctype, version, epoch, seq, length, body_at):
        self.ctype, self.version, self.epoch, self.seq = ctype, version, epoch, seq
        self.length, self.body_at = length, body_at
        self.handshakes = []

    def __repr__(self):
        what = {20: "CCS", 21: "Alert", 22: "Handshake", 23: "AppData"}.get(self.ctype, f"type{self.ctype}")
        if self.handshakes:
            what += "(" + ",".join(HS_NAMES.get(h[0], str(h[0])) for h in self.handshakes) + ")"
        return f"{what}/e{self.epoch}/s{self.seq}"


def parse_dtls(data):
    """The records of one DTLS datagram, in order, and whether it parsed whole
    (False: a record or handshake header runs past the end). Reads only `data`."""
    records, i, n = [], 0, len(data)
    while i < n:
        if n - i < RECORD_HEADER:
            return records, False
        ctype, version, epoch = struct.unpack_from("!BHH", data, i)
        seq = int.from_bytes(data[i + 5:i + 11], "big")
        (length,) = struct.unpack_from("!H", data, i + 11)
        body_at = i + RECORD_HEADER
        if body_at + length > n:
            return records, False
        rec = DtlsRecord(ctype, version, epoch, seq, length, body_at)
        if ctype == CT_HANDSHAKE and epoch == 0:
            j, end = body_at, body_at + length
            while j < end:
                if end - j < HANDSHAKE_HEADER:
                    return records + [rec], False
                msg_type = data[j]
                msg_seq, = struct.unpack_from("!H", data, j + 4)
                frag_off = int.from_bytes(data[j + 6:j + 9], "big")
                frag_len = int.from_bytes(data[j + 9:j + 12], "big")
                if j + HANDSHAKE_HEADER + frag_len > end:
                    return records + [rec], False
                rec.handshakes.append((msg_type, msg_seq, frag_off, frag_len, j + HANDSHAKE_HEADER))
                j += HANDSHAKE_HEADER + frag_len
        records.append(rec)
        i = body_at + length
    return records, True


def alert_record(seq, level=ALERT_WARNING, description=ALERT_USER_CANCELED, epoch=0):
    """An unencrypted alert record."""
    return struct.pack("!BHH", CT_ALERT, DTLS_1_2, epoch) + seq.to_bytes(6, "big") + \
        struct.pack("!HBB", 2, level, description)


def kind_of(data):
    """RFC 7983's demultiplexing by the first byte."""
    if not data:
        return "empty"
    b = data[0]
    if b <= 3:
        return "stun"
    if 20 <= b <= 63:
        return "dtls"
    if 128 <= b <= 191:
        return "rtp"
    return "other"


class Datagram:
    """One datagram on its way, as the rules see it. `data` may be replaced
    (Corrupt); `after` holds (direction, bytes) to send once it is forwarded."""

    def __init__(self, direction, data, now):
        self.direction, self.data, self.now = direction, data, now
        self.kind = kind_of(data)
        self.records, self.whole = parse_dtls(data) if self.kind == "dtls" else ([], True)
        self.after = []

    def hs_types(self):
        return [h[0] for r in self.records for h in r.handshakes]

    def has(self, trigger):
        """Whether it carries handshake type `trigger`, or for FINAL a CCS or an
        epoch-1 handshake record."""
        if trigger == FINAL:
            return any(r.ctype == CT_CHANGE_CIPHER_SPEC or (r.ctype == CT_HANDSHAKE and r.epoch >= 1)
                       for r in self.records)
        return trigger in self.hs_types()

    def summary(self):
        return f"{self.direction} {len(self.data)}B {self.records}" + ("" if self.whole else " (truncated)")


C2S, S2C = "c2s", "s2c"   # from the peer to the server, from the server to the peer


class Rule:
    """Base: `apply` sees every datagram (in order, until an earlier rule drops
    it) and returns "drop" or None; `fired` counts its actions."""
    name = "rule"

    def __init__(self):
        self.fired = 0

    def apply(self, proxy, dg):
        return None

    def __repr__(self):
        return f"{self.name}(fired={self.fired})"


def _sender_matches(proxy, sender, direction):
    if sender == "any":
        return True
    if sender == "peer":
        return direction == C2S
    if sender == "srs":
        return direction == S2C
    if proxy.dtls_client_dir is None:
        return False
    client = direction == proxy.dtls_client_dir
    return client if sender == "client" else not client


class DropFlight(Rule):
    """Drops, once, the first DTLS datagram from `sender` that carries `trigger`
    and the rest of that flight."""

    def __init__(self, sender, trigger):
        super().__init__()
        self.sender, self.trigger = sender, trigger
        self.name = f"drop-flight[{sender}:{HS_NAMES.get(trigger, trigger)}]"
        self.state = "armed"    # armed -> dropping -> done
        self.direction = None
        self.until = 0.0

    def apply(self, proxy, dg):
        if dg.kind != "dtls" or self.state == "done":
            return None
        if self.state == "armed":
            if _sender_matches(proxy, self.sender, dg.direction) and dg.has(self.trigger):
                self.state, self.direction, self.until = "dropping", dg.direction, dg.now + FLIGHT_WINDOW
                self.fired += 1
                return "drop"
            return None
        if dg.direction != self.direction or dg.now > self.until:
            self.state = "done"
            return None
        self.fired += 1
        return "drop"


class DropFirst(Rule):
    """Drops the first `count` DTLS datagrams from `sender` carrying `trigger`."""

    def __init__(self, sender, trigger, count=1):
        super().__init__()
        self.sender, self.trigger, self.count = sender, trigger, count
        self.name = f"drop-first[{sender}:{HS_NAMES.get(trigger, trigger)}x{count}]"

    def apply(self, proxy, dg):
        if dg.kind == "dtls" and self.fired < self.count and _sender_matches(proxy, self.sender, dg.direction) \
                and dg.has(self.trigger):
            self.fired += 1
            return "drop"
        return None


class Blackout(Rule):
    """Once the flight of `sender` carrying `trigger` has passed (the other side
    sends DTLS), every DTLS datagram either way is dropped for `seconds`."""

    def __init__(self, sender, trigger, seconds=2.0):
        super().__init__()
        self.sender, self.trigger, self.seconds = sender, trigger, seconds
        self.name = f"blackout[{seconds}s after {sender}:{HS_NAMES.get(trigger, trigger)}]"
        self.direction = None
        self.start = self.end = None

    def apply(self, proxy, dg):
        if dg.kind != "dtls":
            return None
        if self.direction is None:
            if _sender_matches(proxy, self.sender, dg.direction) and dg.has(self.trigger):
                self.direction = dg.direction
            return None
        if self.start is None:
            if dg.direction == self.direction:
                return None     # the rest of the trigger's flight
            self.start, self.end = dg.now, dg.now + self.seconds
        if dg.now < self.end:
            self.fired += 1
            return "drop"
        return None


class RandomLoss(Rule):
    """Drops each DTLS datagram (either way) with probability p, from a seeded
    generator, until media (SRTP/SRTCP) has been seen in both directions."""

    def __init__(self, p, seed):
        super().__init__()
        self.p, self.seed = p, seed
        self.rng = random.Random(seed)
        self.name = f"random-loss[p={p},seed={seed}]"
        self.passed = 0

    def apply(self, proxy, dg):
        if dg.kind != "dtls" or proxy.media_both_ways():
            return None
        if self.rng.random() < self.p:
            self.fired += 1
            return "drop"
        self.passed += 1
        return None


class DuplicateAlerts(Rule):
    """Every datagram holding an alert record is sent `copies` times in all."""

    def __init__(self, copies=2):
        super().__init__()
        self.copies = copies
        self.name = f"duplicate-alerts[x{copies}]"

    def apply(self, proxy, dg):
        if dg.kind == "dtls" and any(r.ctype == CT_ALERT for r in dg.records):
            self.fired += 1
            dg.after += [(dg.direction, dg.data)] * (self.copies - 1)
        return None


class InjectAlert(Rule):
    """After the first datagram from `sender` carrying `trigger` is forwarded,
    sends `copies` unencrypted warning alerts (user_canceled) to the server as
    if from the peer. Their epoch-0 sequence numbers are 40 past the highest
    the peer used, so they are fresh to the server's replay window and leave
    room below for the peer's own next records."""

    def __init__(self, sender, trigger, copies=3, description=ALERT_USER_CANCELED):
        super().__init__()
        self.sender, self.trigger, self.copies, self.description = sender, trigger, copies, description
        self.name = f"inject-alert[{description}x{copies} after {sender}:{HS_NAMES.get(trigger, trigger)}]"
        self.done = False

    def apply(self, proxy, dg):
        if self.done or dg.kind != "dtls":
            return None
        if _sender_matches(proxy, self.sender, dg.direction) and dg.has(self.trigger):
            self.done = True
            base = proxy.max_epoch0_seq.get(C2S, 0) + 40
            for k in range(self.copies):
                dg.after.append((C2S, alert_record(base + k, ALERT_WARNING, self.description)))
                self.fired += 1
        return None


class Corrupt(Rule):
    """Flips bytes inside the body of every handshake message `msg_type` from
    `sender` (every retransmission too, so the handshake cannot recover).
    `offsets` are positions in the message body; negative ones count from its
    end. The defaults: ClientHello's session_id length (offset 34, after the
    version and random: a length past the end, a decode error); anything else:
    the last byte (for a Certificate, inside the signature of the last
    certificate: it still parses, but no longer matches the SDP fingerprint)."""

    def __init__(self, sender, msg_type, offsets=None):
        super().__init__()
        self.sender, self.msg_type = sender, msg_type
        self.offsets = offsets if offsets is not None else ([34] if msg_type == HS_CLIENT_HELLO else [-1])
        self.name = f"corrupt[{sender}:{HS_NAMES.get(msg_type, msg_type)}@{self.offsets}]"

    def apply(self, proxy, dg):
        if dg.kind != "dtls" or not _sender_matches(proxy, self.sender, dg.direction):
            return None
        data = bytearray(dg.data)
        changed = False
        for r in dg.records:
            for msg_type, _seq, frag_off, frag_len, at in r.handshakes:
                if msg_type != self.msg_type:
                    continue
                # The message's whole length, from its handshake header.
                total = int.from_bytes(data[at - 11:at - 8], "big")
                for off in self.offsets:
                    pos = off if off >= 0 else total + off
                    if frag_off <= pos < frag_off + frag_len:
                        data[at + pos - frag_off] ^= 0xFF
                        changed = True
        if changed:
            self.fired += 1
            dg.data = bytes(data)
        return None


class DtlsLossyProxy:
    """UDP proxy for one peer: listens on 127.0.0.1:`port` (ephemeral unless
    given), forwards to `server` (host, port) and back, applying `rules`."""

    def __init__(self, server, rules=(), port=0, log_limit=2000):
        self.server = server
        self.rules = list(rules)
        self.front = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.front.bind(("127.0.0.1", port))
        self.port = self.front.getsockname()[1]
        self.back = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.back.bind(("127.0.0.1", 0))
        self.front.setblocking(False)
        self.back.setblocking(False)
        self.peer = None                # the peer's last address
        self.dtls_client_dir = None     # the direction of the first ClientHello
        self.max_epoch0_seq = {}        # direction -> highest epoch-0 record seq seen
        self.counts = {}                # (direction, kind, "pass"|"drop") -> datagrams
        self.events = []                # "t direction what action" for every DTLS datagram
        self.history = []               # (t, direction, size, records, action) for every DTLS datagram
        self.log_limit = log_limit
        self.t0 = time.monotonic()
        self._media = {C2S: False, S2C: False}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None

    # -- control --
    def start(self):
        self._thread = threading.Thread(target=self._run, name=f"dtls-proxy-{self.port}", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        if self._thread:
            self._thread.join(5)
        self.front.close()
        self.back.close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # -- what happened --
    def sent_media(self, direction=S2C):
        """Whether SRTP/SRTCP went `direction` (from the server: it is connected)."""
        return self._media[direction]

    def media_both_ways(self):
        return self._media[C2S] and self._media[S2C]

    def count(self, direction=None, kind=None, action=None):
        with self._lock:
            return sum(n for (d, k, a), n in self.counts.items()
                       if (direction is None or d == direction) and (kind is None or k == kind)
                       and (action is None or a == action))

    def flights(self, direction):
        """The DTLS datagrams `direction` sent, grouped in flights: datagrams
        that left within FLIGHT_GAP of each other with no DTLS from the other
        side between them. [[(size, records, action), ...], ...] in order,
        dropped ones included."""
        with self._lock:
            history = list(self.history)
        out, last = [], None
        for t, d, size, records, action in history:
            if d != direction:
                last = None
                continue
            if last is None or t - last > FLIGHT_GAP:
                out.append([])
            out[-1].append((size, records, action))
            last = t
        return out

    def report(self):
        """The rules, the counts and the DTLS log, for assertion messages."""
        with self._lock:
            counts = dict(self.counts)
            events = list(self.events)
        return (f"rules: {self.rules}\ncounts: {counts}\nDTLS datagrams:\n  " + "\n  ".join(events[-80:]))

    # -- the loop --
    def _run(self):
        sel = selectors.DefaultSelector()
        sel.register(self.front, selectors.EVENT_READ, C2S)
        sel.register(self.back, selectors.EVENT_READ, S2C)
        try:
            while not self._stop.is_set():
                for key, _ in sel.select(0.1):
                    sock, direction = key.fileobj, key.data
                    for _ in range(64):     # drain, bounded
                        try:
                            data, addr = sock.recvfrom(65536)
                        except (BlockingIOError, InterruptedError):
                            break
                        except OSError:
                            return
                        if direction == C2S:
                            self.peer = addr
                        elif addr != self.server:
                            continue
                        self._handle(direction, data)
        finally:
            sel.close()

    def _send(self, direction, data):
        try:
            if direction == C2S:
                self.back.sendto(data, self.server)
            elif self.peer is not None:
                self.front.sendto(data, self.peer)
        except OSError:
            pass

    def _handle(self, direction, data):
        dg = Datagram(direction, data, time.monotonic())
        with self._lock:
            if dg.kind == "rtp":
                self._media[direction] = True
            for r in dg.records:
                if r.epoch == 0:
                    self.max_epoch0_seq[direction] = max(self.max_epoch0_seq.get(direction, 0), r.seq)
            if self.dtls_client_dir is None and dg.has(HS_CLIENT_HELLO):
                self.dtls_client_dir = direction
            verdict, by = None, None
            for rule in self.rules:
                before = dg.data
                verdict = rule.apply(self, dg)
                if verdict == "drop":
                    by = rule.name
                    break
                if dg.data is not before:
                    by = rule.name
            action = "drop" if verdict == "drop" else "pass"
            key = (direction, dg.kind, action)
            self.counts[key] = self.counts.get(key, 0) + 1
            if dg.kind == "dtls" and len(self.history) < self.log_limit:
                self.history.append((dg.now - self.t0, direction, len(dg.data), dg.records, action))
            if dg.kind == "dtls" and len(self.events) < self.log_limit:
                role = ""
                if self.dtls_client_dir is not None:
                    role = " (dtls client)" if direction == self.dtls_client_dir else " (dtls server)"
                note = f" by {by}" if by else ""
                extra = f" +{len(dg.after)} sent after" if dg.after and action == "pass" else ""
                self.events.append(f"{dg.now - self.t0:7.3f} {dg.summary()}{role} {action}{note}{extra}")
        if verdict == "drop":
            return
        self._send(direction, dg.data)
        for d, extra in dg.after:
            self._send(d, extra)

"""The lossy proxy's own tests (test/dtls_lossy_proxy.py), no server: its DTLS
parser on real datagrams (captured from Pion and this server through the
proxy) and every truncation of them, the rules on hand-made sequences, and
the proxy forwarding between two local sockets."""
import socket
import struct
import time
from types import SimpleNamespace

import dtls_lossy_proxy as lp
from conftest import wait_until

# Pion's ClientHello (DTLS 1.2, epoch 0, seq 0; no cookie yet).
PION_CLIENT_HELLO = bytes.fromhex(
    "16fefd000000000000000000880100007c000000000000007cfefd6b09af131c02dbdc3e0e80855b6e3de2ede4d26b3eb5eb4380"
    "0113beead9f9c300000010c02bc02fcca9cca8c00ac014c02cc03001000042000d001600140403050306030807080408050806"
    "040105010601ff01000100000a00080006001d00170018000b00020100000e000900060008000700010000170000")
# Pion's flight 5 in one datagram: Certificate, ClientKeyExchange, CertificateVerify, CCS, Finished (epoch 1).
PION_FLIGHT5 = bytes.fromhex(
    "16fefd000000000000000101340b00012800010000000001280001250001223082011e3081c5a003020102021100"
    "8bf0d6b4c769244bfabe864d6e3ef08c300a06082a8648ce3d0403023011310f300d06035504031306576562525443301e"
    "170d3236313132363136323535355a170d3236313232363136323535355a3011310f300d06035504031306576562525443"
    "3059301306072a8648ce3d020106082a8648ce3d03010703420004f31cf00af4049bd25bce4f1047f464051f1f49da3e89eb"
    "c096562f804bfa6436dbb879026f7436f7c0355aef540006297186e38855f1cf9fe5ed6334cb556b00300a06082a8648ce3d"
    "0403020348003045022100bff30e342371660837fac121824c8b1eeb5d556653b3d871f3f1513bb9d0a4160220691fdaa502"
    "6cbaa35b061cbf5a38835a848f8fc19f234f00746641cc145db94416fefd0000000000000002002d100000210002000000"
    "00002120d2c652126873646c78e206f839d3b77a9a4c5e3cfa2620bf2d3270b4a2c4103116fefd000000000000000300570f"
    "00004b000300000000004b0403004730450221009187489556e3317fae55a4594fc956895028b523ac1b1b0db807e02ee3d7"
    "c0ab022066770263dcc9cd3769180cff02bbcccbdd31cd68e93fea030b412ce66dbbe75614fefd00000000000000040001011"
    "6fefd0001000000000000003000010000000000003edf9a8bfd9720a944194394583bac2740b3269c2b654a15308642301090"
    "feada5eccb97e76fe716")
# The server's flight 6: CCS and Finished (epoch 1).
SRS_FLIGHT6 = bytes.fromhex(
    "14fefd000000000000000500010116fefd00010000000000000030cabe3f91feeb439aacf4cb78f00ea1c2211f97f6bf6f"
    "200f02334744fd89e41c40a46092befcd61bcb1d91c8a2718b46")


def record_ends(data):
    ends, i = [], 0
    while i + 13 <= len(data):
        i += 13 + struct.unpack_from("!H", data, i + 11)[0]
        ends.append(i)
    return ends


def test_parses_real_datagrams():
    records, whole = lp.parse_dtls(PION_CLIENT_HELLO)
    assert whole and len(records) == 1
    r = records[0]
    assert (r.ctype, r.version, r.epoch, r.seq, r.length) == (22, 0xFEFD, 0, 0, 0x88)
    (msg_type, msg_seq, frag_off, frag_len, at), = r.handshakes
    assert (msg_type, msg_seq, frag_off, frag_len, at) == (1, 0, 0, 0x7C, 25)
    assert PION_CLIENT_HELLO[at:at + 2] == b"\xfe\xfd"     # client_version, the body's first field

    records, whole = lp.parse_dtls(PION_FLIGHT5)
    assert whole
    assert [(r.ctype, r.epoch) for r in records] == [(22, 0), (22, 0), (22, 0), (20, 0), (22, 1)]
    assert [h[0] for r in records for h in r.handshakes] == [11, 16, 15]    # epoch 1 is encrypted: not read
    dg = lp.Datagram(lp.C2S, PION_FLIGHT5, 0)
    assert dg.has(lp.HS_CERTIFICATE) and dg.has(lp.FINAL) and not dg.has(lp.HS_CLIENT_HELLO)
    assert lp.Datagram(lp.S2C, SRS_FLIGHT6, 0).has(lp.FINAL)
    assert not lp.Datagram(lp.C2S, PION_CLIENT_HELLO, 0).has(lp.FINAL)
    assert [r.ctype for r in lp.parse_dtls(lp.alert_record(7))[0]] == [21]


def test_every_truncation_is_reported():
    """Each prefix parses to the whole records before the cut, and says whether
    the cut fell between records; nothing raises."""
    for data in (PION_CLIENT_HELLO, PION_FLIGHT5, SRS_FLIGHT6):
        ends = record_ends(data)
        for n in range(len(data) + 1):
            records, whole = lp.parse_dtls(data[:n])
            complete = [e for e in ends if e <= n]
            assert whole == (n == 0 or n in ends), n
            assert len([r for r in records if r.body_at + r.length <= n]) >= len(complete), n


def test_classifies_by_first_byte():
    assert lp.kind_of(b"\x00\x01") == "stun" and lp.kind_of(PION_CLIENT_HELLO) == "dtls"
    assert lp.kind_of(b"\x80\x60") == "rtp" and lp.kind_of(b"\xff") == "other" and lp.kind_of(b"") == "empty"


def test_corrupt_flips_one_byte_in_the_body():
    proxy = SimpleNamespace(dtls_client_dir=lp.C2S)
    rule = lp.Corrupt("peer", lp.HS_CLIENT_HELLO)
    dg = lp.Datagram(lp.C2S, PION_CLIENT_HELLO, 0)
    rule.apply(proxy, dg)
    diff = [i for i in range(len(dg.data)) if dg.data[i] != PION_CLIENT_HELLO[i]]
    assert diff == [25 + 34] and dg.data[25 + 34] == 0xFF and rule.fired == 1    # session_id length
    assert lp.parse_dtls(dg.data)[1]    # the records still parse: only the message is wrong

    rule = lp.Corrupt("peer", lp.HS_CERTIFICATE)
    dg = lp.Datagram(lp.C2S, PION_FLIGHT5, 0)
    rule.apply(proxy, dg)
    diff = [i for i in range(len(dg.data)) if dg.data[i] != PION_FLIGHT5[i]]
    assert diff == [13 + 12 + 0x128 - 1], diff     # the Certificate message's last byte
    # From the server: not the peer's, left alone.
    dg = lp.Datagram(lp.S2C, PION_FLIGHT5, 0)
    lp.Corrupt("peer", lp.HS_CERTIFICATE).apply(proxy, dg)
    assert dg.data == PION_FLIGHT5


def hs(msg_type, seq=0, epoch=0):
    """A one-message handshake record (an empty body)."""
    body = bytes([msg_type]) + (0).to_bytes(3, "big") + struct.pack("!H", seq) + bytes(6)
    return struct.pack("!BHH", 22, 0xFEFD, epoch) + seq.to_bytes(6, "big") + struct.pack("!H", len(body)) + body


def run(rule, sequence, proxy=None):
    """[(direction, data, time)] through one rule; the verdicts."""
    proxy = proxy or SimpleNamespace(dtls_client_dir=lp.C2S, max_epoch0_seq={}, media_both_ways=lambda: False)
    return [rule.apply(proxy, lp.Datagram(d, data, t)) for d, data, t in sequence]


def test_drop_flight_drops_the_rest_of_its_flight_once():
    rule = lp.DropFlight("server", lp.HS_SERVER_HELLO)
    seq = [(lp.C2S, hs(1), 0.0),            # ClientHello passes
           (lp.S2C, hs(2, 1), 0.01),        # ServerHello: the flight starts, dropped
           (lp.S2C, hs(11, 2), 0.011),      # Certificate, same flight: dropped
           (lp.C2S, hs(1, 1), 1.0),         # the client resends: the flight is over
           (lp.S2C, hs(2, 3), 1.01),        # the server's retransmission passes
           (lp.S2C, hs(11, 4), 1.011)]
    assert run(rule, seq) == [None, "drop", "drop", None, None, None] and rule.fired == 2


def test_drop_flight_matches_the_role():
    rule = lp.DropFlight("client", lp.HS_CERTIFICATE)
    # The server's Certificate (S2C is the DTLS server here) is not the client's.
    assert run(rule, [(lp.S2C, hs(11), 0.0), (lp.C2S, hs(11), 0.1)]) == [None, "drop"]
    # Before any ClientHello nobody has a role.
    rule = lp.DropFlight("client", lp.HS_CERTIFICATE)
    assert run(rule, [(lp.C2S, hs(11), 0.0)], SimpleNamespace(dtls_client_dir=None)) == [None]


def test_blackout_starts_after_the_flight():
    rule = lp.Blackout("server", lp.HS_SERVER_HELLO, 2.0)
    seq = [(lp.S2C, hs(2), 0.0), (lp.S2C, hs(11), 0.001),     # the flight passes
           (lp.C2S, hs(11), 0.01), (lp.S2C, hs(2), 1.0),       # 2 s of nothing
           (lp.C2S, hs(11), 2.02)]                              # over
    assert run(rule, seq) == [None, None, "drop", "drop", None] and rule.fired == 2


def test_random_loss_is_seeded_and_stops_with_media():
    seq = [(lp.C2S, hs(1), i * 0.01) for i in range(40)]
    a, b = lp.RandomLoss(0.4, 7), lp.RandomLoss(0.4, 7)
    assert run(a, seq) == run(b, seq)
    assert 5 <= a.fired <= 30 and a.fired + a.passed == 40
    done = SimpleNamespace(dtls_client_dir=lp.C2S, media_both_ways=lambda: True)
    assert run(lp.RandomLoss(1.0, 1), seq[:3], done) == [None] * 3


def test_proxy_forwards_drops_duplicates_and_injects():
    server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    server.bind(("127.0.0.1", 0))
    server.settimeout(0.2)
    client = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    client.bind(("127.0.0.1", 0))
    client.settimeout(0.2)
    alert = lp.alert_record(3)
    rules = [lp.DropFirst("peer", lp.HS_CLIENT_HELLO), lp.DuplicateAlerts(),
             lp.InjectAlert("srs", lp.HS_SERVER_HELLO, copies=2)]
    got_server, got_client = [], []

    def drain(sock, into):
        try:
            while True:
                into.append(sock.recvfrom(2048))
        except socket.timeout:
            pass
    try:
        with lp.DtlsLossyProxy(server.getsockname(), rules) as proxy:
            front = ("127.0.0.1", proxy.port)
            client.sendto(b"\x00\x01\x00\x00" + bytes(16), front)     # STUN passes
            client.sendto(PION_CLIENT_HELLO, front)                    # dropped once
            client.sendto(PION_CLIENT_HELLO, front)                    # passes
            drain(server, got_server)
            assert [d for d, _ in got_server] == [b"\x00\x01\x00\x00" + bytes(16), PION_CLIENT_HELLO]
            back = got_server[0][1]
            server.sendto(hs(2), back)                                 # to the peer, then 2 alerts to the server
            server.sendto(alert, back)                                 # to the peer, twice
            drain(client, got_client)
            drain(server, got_server)
            assert wait_until(lambda: proxy.count(action="pass") == 4, 2)   # copies are not counted
        assert [d for d, _ in got_client] == [hs(2), alert, alert]
        injected = [d for d, _ in got_server[2:]]
        assert len(injected) == 2 and all(lp.parse_dtls(d)[0][0].ctype == lp.CT_ALERT for d in injected)
        # 40 past the peer's highest epoch-0 sequence number (its ClientHello's 0).
        assert [lp.parse_dtls(d)[0][0].seq for d in injected] == [40, 41]
        assert [r.fired for r in rules] == [1, 1, 2]
        assert proxy.count(lp.C2S, "dtls", "drop") == 1 and proxy.count(lp.C2S, "stun", "pass") == 1
        assert proxy.dtls_client_dir == lp.C2S
        assert "drop by drop-first" in proxy.report()
    finally:
        server.close()
        client.close()


def test_stop_is_prompt():
    with lp.DtlsLossyProxy(("127.0.0.1", 9)) as proxy:
        pass
    t = time.monotonic()
    proxy.stop()    # twice is harmless
    assert time.monotonic() - t < 1


def test_flights_are_bursts_of_one_side():
    proxy = lp.DtlsLossyProxy(("127.0.0.1", 9))
    try:
        h = lambda t, d, n: (t, d, n, [], "pass")    # noqa: E731
        proxy.history = [h(0.0, lp.S2C, 1), h(0.001, lp.S2C, 2),      # one flight of two datagrams
                         h(0.002, lp.C2S, 3),                          # the other side answers
                         h(0.003, lp.S2C, 4),                          # a new flight, however soon
                         h(1.0, lp.S2C, 5), h(1.001, lp.S2C, 6)]       # and another after a pause
        assert [[size for size, _, _ in f] for f in proxy.flights(lp.S2C)] == [[1, 2], [4], [5, 6]]
        assert [[size for size, _, _ in f] for f in proxy.flights(lp.C2S)] == [[3]]
    finally:
        proxy.stop()

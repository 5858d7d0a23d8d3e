"""DTLS that survives loss: three independent WebRTC peers (Pion, aiortc and
headless Chromium) play an RTMP stream (ffmpeg, rtmp_to_rtc) through
test/dtls_lossy_proxy.py, which loses, repeats, injects or corrupts DTLS on
purpose, in both of the server's DTLS roles:

    role "server"         the offer says a=setup:actpass, the server answers
                          passive and is the DTLS server (the usual WebRTC case)
    role "server-active"  the offer says a=setup:active (the same role)
    role "client"         the offer says a=setup:passive, the server answers
                          active and sends the ClientHello

Every peer offers actpass itself; the offer POSTed is edited (its
a=setup), not the peer's local description, and each peer takes the
opposite of the answer's a=setup as JSEP says. The answer's candidate is
rewritten to the proxy's port, so every datagram goes through it.

Scenarios (flights as RFC 6347 section 4.2.4 numbers them):
    client_hello   the first ClientHello (flight 1) is lost
    server_hello   the DTLS server's ServerHello flight (4) is lost once
    certificate    the DTLS client's Certificate flight (5) is lost once
    finished       the DTLS server's ChangeCipherSpec/Finished flight (6) is lost once
    blackout       after the ServerHello flight, all DTLS is lost for 2 s
    random-N       40 % of DTLS datagrams lost both ways, seed N, until media flows
    alert          unencrypted warning alerts injected to the server mid-handshake,
                   three times, and every alert either way (the close_notify at the
                   end) repeated
and for the peer's certificate, RSA 4096 and ECDSA P-384, with and without
the first datagram carrying it lost. Each must connect and play audio and
video, and the proxy's rule must have fired. A flight of the server's lost
once must be resent with new record sequence numbers, in no more datagrams
than its first send. A ClientHello or a Certificate
corrupted on the way (every copy) must be refused: the session fails, the
server's log names the DTLS error, and a second player beside it keeps
playing without a gap.

Peers a role or certificate cannot be tested with skip with the reason:
aiortc's DTLS context only allows ECDSA cipher suites (so no RSA), Chromium
only generates RSA or ECDSA P-256 certificates (so no P-384).

In CI (CI=true) a missing peer (no Go toolchain, no aiortc, no Chromium)
fails the tests; elsewhere they skip."""
import re
import time

import pytest

import pion_client
from conftest import SrsProcess, stop_and_check, wait_until
from dtls_lossy_proxy import (C2S, FINAL, HS_CERTIFICATE, HS_CLIENT_HELLO, HS_SERVER_HELLO, S2C, Blackout, Corrupt,
                              DropFirst, DropFlight, DtlsLossyProxy, DuplicateAlerts, InjectAlert, RandomLoss)
from media import Publisher, make_test_flv, wait_for_publish
from rtc_env import require_aiortc, start_rtc
from test_browser import require
from test_rtc_browser import rtc_browser  # noqa: F401  (the Chromium fixture)

STREAM = "dtlsloss"
# The server's DTLS role -> the a=setup of the offer POSTed.
OFFER_SETUP = {"server": "actpass", "server-active": "active", "client": "passive"}
CONNECT_TIMEOUT = 15        # s; a lost flight costs a retransmission timer (1 s, doubling)
RANDOM_TIMEOUT = 30         # s; 40 % loss can cost several timers in a row
SEEDS = [1, 2, 3]
MEDIA_AUDIO, MEDIA_VIDEO = 11, 1     # packets that prove media arrives


# ---- the server, the stream, the peers ----

@pytest.fixture(scope="module")
def loss_srs(tmp_path_factory):
    """One server for the module, an RTMP stream (1 s GOP) playing on WebRTC."""
    d = tmp_path_factory.mktemp("dtls-loss")
    flv = make_test_flv(d / "gop1.flv", seconds=10, gop_seconds=1)
    srs = SrsProcess(d)
    pub = None
    try:
        start_rtc(srs, vhost_extra="    rtmp_to_rtc on;\n")
        pub = Publisher(flv, f"rtmp://127.0.0.1:{srs.rtmp_port}/live/{STREAM}")
        wait_for_publish(srs, f"/live/{STREAM}")
        yield srs
    finally:
        if pub:
            pub.stop()
        stop_and_check([srs])


@pytest.fixture(scope="session")
def pion():
    """objs/srs-pion-client, built once per session from test/pion."""
    try:
        return pion_client.build()
    except pion_client.PionUnavailable as e:
        require(False, f"{e}; install Go (the machine's go, or sh 3rdparty/install.sh test reports it)")


@pytest.fixture
def rtc():
    require_aiortc()
    from rtc_client import Rtc
    r = Rtc()
    yield r
    r.close()


def with_setup(sdp, setup):
    return re.sub(r"(?m)^a=setup:[a-z]+", "a=setup:" + setup, sdp)


def to_proxy(sdp, port):
    """The answer with every UDP candidate's address and port set to the proxy's."""
    return re.sub(r"(?mi)^(a=candidate:\S+ \d+ udp \d+ )\S+ \d+", rf"\g<1>127.0.0.1 {port}", sdp)


# ---- one peer through the proxy; each returns what it saw ----

def run_pion(pion, srs, proxy, role, cert="default", timeout=CONNECT_TIMEOUT):
    r = pion_client.play(pion, srs.api, "live", STREAM, dtls_role=OFFER_SETUP[role], cert=cert,
                         connect_to=("127.0.0.1", proxy.port), timeout=timeout, duration=3.0,
                         until_audio=MEDIA_AUDIO, until_video=MEDIA_VIDEO)
    return {"connected": bool(r.get("connected")) and r.get("exit_code") == 0,
            "audio": r.get("audio_packets", 0), "video": r.get("video_packets", 0), "detail": r}


def aiortc_certificate(cert):
    if cert == "default":
        return None
    # Only P-384: aiortc's DTLS context allows ECDHE-ECDSA cipher suites only,
    # so it cannot use an RSA certificate (RTCCertificate._create_ssl_context).
    assert cert == "p384", cert
    from aiortc.rtcdtlstransport import RTCCertificate, generate_certificate
    from cryptography.hazmat.primitives.asymmetric import ec
    key = ec.generate_private_key(ec.SECP384R1())
    return RTCCertificate(key=key, cert=generate_certificate(key))


def run_aiortc(rtc, srs, proxy, role, cert="default", timeout=CONNECT_TIMEOUT):
    certificate = aiortc_certificate(cert)
    detail = {}
    player = None
    try:
        player = rtc.play(srs.api, "live", STREAM, timeout=timeout, certificate=certificate,
                          offer_filter=lambda sdp: with_setup(sdp, OFFER_SETUP[role]),
                          answer_filter=lambda sdp: to_proxy(sdp, proxy.port))
        wait_until(lambda: player.audio_packets >= MEDIA_AUDIO and player.video_packets >= MEDIA_VIDEO, 5)
        detail = player.stats()
        connected = True
    except (ConnectionError, TimeoutError) as e:
        detail = {"error": repr(e), **(player.stats() if player else {})}
        connected = False
    finally:
        # pc.close() (aiortc sends its close_notify) once the numbers are read.
        for p in list(rtc.peers):
            p.close(delete=False)
        rtc.peers.clear()
    return {"connected": connected, "audio": detail.get("audio_packets", 0),
            "video": detail.get("video_packets", 0), "detail": detail}


CHROMIUM_PLAYER = """
const [whep, setup, port] = arguments;
const s = window.dtlsLoss = {state: 'starting', error: null, stats: null, answerSetup: null};
(async () => {
  try {
    const pc = window.dtlsPc = new RTCPeerConnection({iceServers: []});
    pc.addTransceiver('video', {direction: 'recvonly'});
    pc.addTransceiver('audio', {direction: 'recvonly'});
    pc.onconnectionstatechange = () => { s.state = pc.connectionState; };
    await pc.setLocalDescription(await pc.createOffer());
    // The offer POSTed says `setup`; our local description keeps actpass.
    const offer = pc.localDescription.sdp.replace(/a=setup:[a-z]+/g, 'a=setup:' + setup);
    const r = await fetch(whep, {method: 'POST', headers: {'Content-Type': 'application/sdp'}, body: offer});
    const text = await r.text();
    if (r.status !== 201) throw new Error('WHEP answered ' + r.status + ': ' + text);
    s.answerSetup = (text.match(/a=setup:([a-z]+)/) || [])[1];
    const answer = text.replace(/^(a=candidate:\\S+ \\d+ udp \\d+ )\\S+ \\d+/gim, '$1127.0.0.1 ' + port);
    await pc.setRemoteDescription({type: 'answer', sdp: answer});
    window.dtlsTimer = setInterval(async () => {
      const st = {audio: 0, video: 0, frames: 0, dtlsState: null, dtlsRole: null};
      (await pc.getStats()).forEach(v => {
        if (v.type === 'inbound-rtp' && v.kind === 'audio') st.audio = v.packetsReceived;
        if (v.type === 'inbound-rtp' && v.kind === 'video') { st.video = v.packetsReceived; st.frames = v.framesDecoded || 0; }
        if (v.type === 'transport') { st.dtlsState = v.dtlsState; st.dtlsRole = v.dtlsRole; }
      });
      s.stats = st;
    }, 200);
  } catch (e) { s.error = String(e); }
})();
return true;
"""


def run_chromium(browser, srs, proxy, role, cert="default", timeout=CONNECT_TIMEOUT):
    require(cert == "default", "Chromium's peer connection certificates are RSA or ECDSA P-256 only")
    browser.navigate(f"http://127.0.0.1:{srs.api_port}/api/v1/versions")   # an origin: the API's own
    whep = f"http://127.0.0.1:{srs.api_port}/rtc/v1/whep/?app=live&stream={STREAM}"
    browser.run(CHROMIUM_PLAYER, whep, OFFER_SETUP[role], proxy.port)
    state = {}

    def media():
        nonlocal state
        state = browser.run("return window.dtlsLoss;") or {}
        st = state.get("stats") or {}
        return state.get("error") or state.get("state") in ("failed", "closed") or \
            (state.get("state") == "connected" and st.get("audio", 0) >= MEDIA_AUDIO and
             st.get("video", 0) >= MEDIA_VIDEO)
    wait_until(media, timeout + 5, 0.2)
    browser.run("clearInterval(window.dtlsTimer); window.dtlsPc && window.dtlsPc.close(); return true;")
    st = state.get("stats") or {}
    return {"connected": state.get("state") == "connected", "audio": st.get("audio", 0),
            "video": st.get("video", 0), "detail": state}


# ---- scenarios ----

def rules_for(scenario, role):
    if scenario == "client_hello":
        return [DropFlight("client", HS_CLIENT_HELLO)]
    if scenario == "server_hello":
        return [DropFlight("server", HS_SERVER_HELLO)]
    if scenario == "certificate":
        return [DropFlight("client", HS_CERTIFICATE)]
    if scenario == "finished":
        return [DropFlight("server", FINAL)]
    if scenario == "blackout":
        return [Blackout("server", HS_SERVER_HELLO, 2.0)]
    if scenario.startswith("random-"):
        return [RandomLoss(0.4, int(scenario.split("-")[1]))]
    if scenario == "alert":
        # After the peer's first handshake datagram: its ClientHello, or its
        # ServerHello flight when the server is the DTLS client.
        first = HS_CLIENT_HELLO if role.startswith("server") else HS_SERVER_HELLO
        return [InjectAlert("peer", first, copies=2), DuplicateAlerts(copies=2)]
    if scenario == "cert-lost":
        return [DropFirst("peer", HS_CERTIFICATE)]
    if scenario == "cert":
        return []
    raise ValueError(scenario)


def new_log(srs, since):
    return srs.log()[since:]


def session_lines(text):
    """The server's log lines about WebRTC sessions (opened, DTLS failed, closed)."""
    return "\n".join(line for line in text.splitlines() if "RTC: session" in line)[-4000:]


def check_through_loss(srs, proxy, rules, role, result, log_from):
    """What every passing scenario must show."""
    why = (f"{result['detail']}\n{proxy.report()}\nthe server's session log lines:\n"
           f"{session_lines(new_log(srs, log_from))}")
    assert srs.alive(), f"the server died\n{why}"
    for rule in rules:
        assert rule.fired > 0, f"{rule.name} never fired: the test proved nothing\n{why}"
    # The role asked for is the one taken: the ClientHello came from that side.
    assert proxy.dtls_client_dir == (S2C if role == "client" else C2S), f"DTLS roles reversed\n{why}"
    assert result["connected"], f"not connected through {rules}\n{why}"
    if not proxy.sent_media():
        pytest.fail(f"the peer reports connected, but the server sent no media: its handshake did not "
                    f"complete\n{why}")
    assert result["audio"] >= MEDIA_AUDIO and result["video"] >= MEDIA_VIDEO, f"connected, but no media\n{why}"


def scenario(peer_runner, srs, role, scenario_name, cert="default", timeout=None, after=0.3):
    rules = rules_for(scenario_name, role)
    timeout = timeout or (RANDOM_TIMEOUT if scenario_name.startswith("random") else CONNECT_TIMEOUT)
    log_from = len(srs.log())
    with DtlsLossyProxy(("127.0.0.1", srs.rtc_port), rules) as proxy:
        result = peer_runner(proxy, role, cert, timeout)
        time.sleep(after)   # the peer's close_notify (and its copies) reach the server
    check_through_loss(srs, proxy, rules, role, result, log_from)
    return proxy, result


LOSS = ["client_hello", "server_hello", "certificate", "finished", "blackout"] + [f"random-{s}" for s in SEEDS] + \
    ["alert"]


# ---- Pion: every scenario, both roles ----

@pytest.mark.parametrize("role", ["server", "client"])
@pytest.mark.parametrize("name", LOSS)
def test_pion_through_loss(loss_srs, pion, role, name):
    scenario(lambda proxy, r, c, t: run_pion(pion, loss_srs, proxy, r, c, t), loss_srs, role, name)


@pytest.mark.parametrize("name", ["client_hello", "finished"])
def test_pion_offering_active(loss_srs, pion, name):
    """a=setup:active in the offer: the server is the DTLS server as with actpass."""
    _, result = scenario(lambda proxy, r, c, t: run_pion(pion, loss_srs, proxy, r, c, t), loss_srs,
                         "server-active", name)
    assert result["detail"]["answer_setup"] == "passive", result


@pytest.mark.parametrize("role", ["server", "client"])
@pytest.mark.parametrize("cert", ["rsa4096", "p384"])
@pytest.mark.parametrize("name", ["cert", "cert-lost"])
def test_pion_certificates(loss_srs, pion, role, cert, name):
    """A large (RSA 4096: a Certificate message of about 1.3 kB, past one
    datagram with its flight) or uncommon (P-384) peer certificate, as is and
    with the first datagram carrying it lost."""
    _, result = scenario(lambda proxy, r, c, t: run_pion(pion, loss_srs, proxy, r, c, t), loss_srs, role, name,
                         cert=cert)
    assert result["detail"]["cert"] == cert


@pytest.mark.parametrize("role,name,carries", [("server", "server_hello", HS_SERVER_HELLO),
                                               ("client", "certificate", HS_CERTIFICATE)],
                         ids=["server-ServerHello", "client-Certificate"])
def test_resent_flight_is_new_and_packed(loss_srs, pion, role, name, carries):
    """The server's flight, lost once, is sent again with new record sequence
    numbers (a peer drops a record it has seen as a replay: RFC 6347 4.1.2.6)
    and in no more datagrams than the first time: a flight split into one
    datagram per record is lost whole when any of them is, so under random
    loss each resend would get through far less often (5 records at 40 %
    loss each: 8 % instead of 60 %)."""
    proxy, _ = scenario(lambda proxy, r, c, t: run_pion(pion, loss_srs, proxy, r, c, t), loss_srs, role, name)
    sent = [f for f in proxy.flights(S2C) if any(h[0] == carries for _, recs, _ in f for r in recs
                                                 for h in r.handshakes)]
    assert len(sent) >= 2, proxy.report()
    first, resend = sent[0], sent[1]
    first_seqs = {(r.epoch, r.seq) for _, recs, _ in first for r in recs}
    resend_seqs = {(r.epoch, r.seq) for _, recs, _ in resend for r in recs}
    assert not first_seqs & resend_seqs, f"records resent with the same sequence numbers\n{proxy.report()}"
    assert len(resend) <= len(first), (f"the resent flight took {len(resend)} datagrams "
                                       f"({[size for size, _, _ in resend]} bytes), the first "
                                       f"{len(first)} ({[size for size, _, _ in first]} bytes)\n{proxy.report()}")


def test_pion_client_json_api_without_nack(loss_srs, pion):
    """The client's other signalling (SRS's JSON API) and --no-nack, straight
    to the server: the session's log line says the offer asked for no NACK."""
    log_from = len(loss_srs.log())
    r = pion_client.play(pion, loss_srs.api, "live", STREAM, via="json", no_nack=True, duration=3.0,
                         until_audio=MEDIA_AUDIO, until_video=MEDIA_VIDEO)
    assert r["connected"] and r["exit_code"] == 0, r
    assert r["audio_packets"] >= MEDIA_AUDIO and r["video_packets"] >= MEDIA_VIDEO, r
    assert "nack audio and video off" in new_log(loss_srs, log_from), session_lines(new_log(loss_srs, log_from))


@pytest.mark.parametrize("scheme", ["http", "https", "rtmp"])
def test_pion_client_json_api_streamurl_of_any_scheme(loss_srs, pion, scheme):
    """SRS takes the streamurl of /rtc/v1/play/ of any scheme and uses only its
    host, app and stream: a Pion client that sends http://HOST/live/s plays."""
    r = pion_client.play(pion, loss_srs.api, "live", STREAM, via="json", streamurl_scheme=scheme, duration=2.0,
                         until_audio=MEDIA_AUDIO, until_video=MEDIA_VIDEO)
    assert r["connected"] and r["exit_code"] == 0, r
    assert r["audio_packets"] >= MEDIA_AUDIO and r["video_packets"] >= MEDIA_VIDEO, r


# ---- aiortc ----

AIORTC_LOSS = ["client_hello", "server_hello", "certificate", "finished", "blackout", "random-1", "alert"]


@pytest.mark.parametrize("role", ["server", "client"])
@pytest.mark.parametrize("name", AIORTC_LOSS)
def test_aiortc_through_loss(loss_srs, rtc, role, name):
    scenario(lambda proxy, r, c, t: run_aiortc(rtc, loss_srs, proxy, r, c, t), loss_srs, role, name)


@pytest.mark.parametrize("role", ["server", "client"])
@pytest.mark.parametrize("cert", ["p384"])  # RSA: see aiortc_certificate
def test_aiortc_certificates(loss_srs, rtc, role, cert):
    scenario(lambda proxy, r, c, t: run_aiortc(rtc, loss_srs, proxy, r, c, t), loss_srs, role, "cert-lost",
             cert=cert)


# ---- Chromium: a few scenarios per role ----

@pytest.mark.parametrize("role", ["server", "client"])
@pytest.mark.parametrize("name", ["server_hello", "finished", "random-2"])
def test_chromium_through_loss(loss_srs, rtc_browser, role, name):  # noqa: F811
    _, result = scenario(lambda proxy, r, c, t: run_chromium(rtc_browser, loss_srs, proxy, r, c, t), loss_srs,
                         role, name)
    st = result["detail"].get("stats") or {}
    if st.get("dtlsRole"):
        assert st["dtlsRole"] == ("server" if role == "client" else "client"), result


# ---- refused: a corrupt ClientHello or Certificate ----

@pytest.mark.parametrize("role,what", [("server", HS_CLIENT_HELLO), ("server", HS_CERTIFICATE),
                                       ("client", HS_CERTIFICATE)],
                         ids=["server-client_hello", "server-certificate", "client-certificate"])
def test_corrupt_handshake_is_refused(loss_srs, pion, role, what):
    """Every copy of the peer's ClientHello (session_id length flipped: a decode
    error) or Certificate (its last byte, inside the signature: it parses but
    no longer matches the SDP's fingerprint) is corrupted. The session fails,
    the server's log names the DTLS error, and a player beside it (not through
    the proxy) keeps receiving media, without a gap of a second."""
    srs = loss_srs
    rules = [Corrupt("peer", what)]
    log_from = len(srs.log())
    bystander = pion_client.start_play(pion, srs.api, "live", STREAM, timeout=10, duration=6.0)
    try:
        with DtlsLossyProxy(("127.0.0.1", srs.rtc_port), rules) as proxy:
            time.sleep(1.0)     # the bystander is playing before the bad session starts
            result = run_pion(pion, srs, proxy, role, timeout=4)
    finally:
        side = pion_client.finish(bystander, 30)
    log = new_log(srs, log_from)
    why = f"{result['detail']}\n{proxy.report()}\nthe server's session log lines:\n{session_lines(log)}"
    assert rules[0].fired > 0, f"{rules[0].name} never fired\n{why}"
    assert not result["connected"], f"a corrupt handshake was accepted\n{why}"
    # e.g. "session x player closed: dtls : dtls datagram of 149 bytes : handshake as server:
    # ssl_error=1 error:0A00009F:SSL routines::length mismatch", "... : peer fingerprint A, SDP says B"
    expected = (r"peer fingerprint [0-9A-F:]+, SDP says [0-9A-F:]+" if what == HS_CERTIFICATE
                else r"handshake as server: ssl_error=1 error:\S+:SSL routines::\w")
    assert re.search(r"closed: dtls\b.*" + expected, log), f"no log line names the DTLS error\n{why}"
    assert srs.alive()
    assert side.get("connected") and side.get("exit_code") == 0, f"the bystander did not play: {side}"
    assert side["audio_packets"] > 100 and side["video_packets"] > 0, side
    assert side["max_gap_ms"] < 1000, f"the bystander's media stopped for {side['max_gap_ms']} ms: {side}"

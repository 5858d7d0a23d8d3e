"""The server's HTTP client with https:// and DNS names, driven through the
heartbeat (the simplest outbound caller): a Python https manager whose
certificate a test CA signs (trusted through http_client.ca_file), a
self-signed one (refused by default, accepted with verify_tls off), a manager
named by a host name that goes through getaddrinfo, a name that does not
resolve, and a TLS server that never answers the handshake."""
import json
import socket
import ssl
import subprocess
import threading
import time

from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from conftest import free_port, wait_until
from media import Publisher, probe_streams, wait_for_publish
from test_forward import decodable, nginx_factory  # noqa: F401 (a fixture)
from test_heartbeat import Collector, RawManager


def openssl(*args, cwd):
    r = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr


def make_ca_and_leaf(d, names="DNS:localhost,IP:127.0.0.1"):
    """A test CA and a leaf certificate for `names` signed by it: (ca.pem, leaf.pem, leaf.key)."""
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=SRS test CA",
            cwd=d)
    openssl("req", *ec, "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=localhost", cwd=d)
    (d / "ext.cnf").write_text(f"subjectAltName={names}\nbasicConstraints=CA:FALSE\n")
    openssl("x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", "leaf.pem", "-days", "2", "-extfile", "ext.cnf", cwd=d)
    return d / "ca.pem", d / "leaf.pem", d / "leaf.key"


def make_self_signed(d):
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", "self.key", "-out", "self.pem", "-days", "2", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", cwd=d)
    return d / "self.pem", d / "self.key"


class HttpsCollector(Collector):
    """The heartbeat manager of test_heartbeat behind TLS; records the SNI
    each handshake named and the handshakes that failed on our side."""

    def __init__(self, cert, key):
        super().__init__()
        self.sni = []
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(str(cert), str(key))
        ctx.sni_callback = lambda sock, name, _ctx: self.sni.append(name)
        self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True)


def conf_with(srs, url, interval=0.5, http_client=""):
    return srs.base_conf(f"heartbeat {{ enabled on; interval {interval}; url {url}; }}\n{http_client}\n")


def test_https_verified_with_the_test_ca(srs, tmp_path):
    ca, leaf, key = make_ca_and_leaf(tmp_path)
    mgr = HttpsCollector(leaf, key)
    try:
        srs.start(conf_with(srs, f"https://localhost:{mgr.port}/api/v1/servers",
                            http_client=f'http_client {{ verify_tls on; ca_file "{ca}"; }}'))
        assert wait_until(lambda: len(mgr.posts) >= 3, timeout=10), srs.log()[-3000:]
        _, path, headers, body = mgr.posts[0]
        assert path == "/api/v1/servers"
        assert headers["Host"] == f"localhost:{mgr.port}"
        assert body["pid"] == str(srs.pid)
        assert "localhost" in mgr.sni  # SNI names the URL's host
        assert "WARN" not in srs.log(), srs.log()[-3000:]  # no failed POST
    finally:
        mgr.close()


def test_https_by_ip_literal_checks_the_ip_san(srs, tmp_path):
    ca, leaf, key = make_ca_and_leaf(tmp_path)
    mgr = HttpsCollector(leaf, key)
    try:
        srs.start(conf_with(srs, f"https://127.0.0.1:{mgr.port}/x", http_client=f'http_client {{ ca_file {ca}; }}'))
        assert wait_until(lambda: len(mgr.posts) >= 2, timeout=10), srs.log()[-3000:]
        assert None in mgr.sni  # no SNI for an IP literal
    finally:
        mgr.close()


def test_self_signed_refused_by_default_with_the_reason(srs, tmp_path):
    cert, key = make_self_signed(tmp_path)
    mgr = HttpsCollector(cert, key)
    try:
        srs.start(conf_with(srs, f"https://localhost:{mgr.port}/x", interval=0.3))
        assert wait_until(lambda: "self-signed certificate" in srs.log(), timeout=10), srs.log()[-3000:]
        time.sleep(1)
        assert mgr.posts == []
        line = next(l for l in srs.log().splitlines() if "self-signed certificate" in l)
        assert "heartbeat" in line and "not accepted" in line, line
    finally:
        mgr.close()


def test_self_signed_accepted_with_verify_tls_off(srs, tmp_path):
    cert, key = make_self_signed(tmp_path)
    mgr = HttpsCollector(cert, key)
    try:
        srs.start(conf_with(srs, f"https://localhost:{mgr.port}/x", interval=0.3,
                            http_client="http_client { verify_tls off; }"))
        assert wait_until(lambda: len(mgr.posts) >= 2, timeout=10), srs.log()[-3000:]
        assert "verify_tls off" in srs.log()  # the server warns at start
    finally:
        mgr.close()


def test_https_to_a_plain_http_server_fails_clearly(srs):
    mgr = Collector()
    try:
        srs.start(conf_with(srs, f"https://127.0.0.1:{mgr.port}/x", interval=0.3))
        assert wait_until(lambda: "TLS handshake" in srs.log(), timeout=10), srs.log()[-3000:]
        assert mgr.posts == []
        assert srs.alive()
    finally:
        mgr.close()


def local_host_name():
    """A name of this machine that getaddrinfo resolves to a loopback address
    (/etc/hosts or DNS): the machine's hostname first."""
    for name in (socket.gethostname(), "ip6-localhost", "localhost6"):
        try:
            infos = socket.getaddrinfo(name, 80, type=socket.SOCK_STREAM)
        except socket.gaierror:
            continue
        for family, _, _, _, addr in infos:
            if family == socket.AF_INET and addr[0].startswith("127."):
                return name, addr[0]
    raise AssertionError("no host name of this machine resolves to a loopback address: check /etc/hosts")


def test_dns_name_goes_through_the_resolver(srs):
    name, ip = local_host_name()
    assert name.lower().rstrip(".") != "localhost"  # localhost is answered without a lookup
    mgr = Collector()
    try:
        srs.start(conf_with(srs, f"http://{name}:{mgr.port}/api/v1/servers"))
        assert wait_until(lambda: len(mgr.posts) >= 2, timeout=10), srs.log()[-3000:]
        assert mgr.posts[0][2]["Host"] == f"{name}:{mgr.port}"
    finally:
        mgr.close()


def test_unresolvable_name_is_a_clear_error_and_rtmp_keeps_working(srs, media):
    srs.start(conf_with(srs, f"http://no-such-host.invalid:{free_port()}/x", interval=0.3))
    pub = Publisher(media, f"rtmp://127.0.0.1:{srs.rtmp_port}/live/livestream")
    try:
        wait_for_publish(srs)
        streams = probe_streams(f"rtmp://127.0.0.1:{srs.rtmp_port}/live/livestream")
        assert "video" in streams and "audio" in streams, streams
        assert wait_until(lambda: srs.log().count("resolve no-such-host.invalid") >= 2, timeout=10), \
            srs.log()[-3000:]
        line = next(l for l in srs.log().splitlines() if "resolve no-such-host.invalid" in l)
        assert "heartbeat" in line, line
        assert srs.alive()
    finally:
        pub.stop()


def test_tls_server_that_never_answers_is_cut_by_the_timeout(srs):
    mgr = RawManager(reply=None)  # accepts TCP, never sends a byte
    try:
        srs.start(conf_with(srs, f"https://127.0.0.1:{mgr.port}/x", interval=0.5))
        t0 = time.monotonic()
        # Each POST is bounded by min(interval, 3 s): the attempts keep coming.
        assert wait_until(lambda: mgr.accepted >= 4, timeout=10), (mgr.accepted, srs.log()[-3000:])
        assert time.monotonic() - t0 < 8
        assert "TLS handshake" in srs.log(), srs.log()[-3000:]
        assert srs.alive()
    finally:
        mgr.close()


class HttpsForwardBackend:
    """An on_forward backend behind TLS that names `urls` as the destinations."""

    def __init__(self, cert, key, urls):
        self.bodies = []
        backend = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                backend.bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
                data = json.dumps({"code": 0, "data": {"urls": urls}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.port = free_port()
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(str(cert), str(key))
        self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def test_forward_backend_over_https_names_a_destination_by_dns(srs, nginx_factory, media, tmp_path):
    """The forward backend is asked over https (test CA) and answers with an
    rtmp:// URL whose host is a name: RtmpClient resolves it through the
    server's resolver and nginx-rtmp receives the stream."""
    name, _ = local_host_name()
    ca, leaf, key = make_ca_and_leaf(tmp_path)
    nginx = nginx_factory("n1")
    backend = HttpsForwardBackend(leaf, key, [f"rtmp://{name}:{nginx.port}/live/fwd"])
    try:
        srs.start(srs.base_conf(f'http_client {{ ca_file "{ca}"; }}').replace(
            "vhost __defaultVhost__ {\n}",
            f"vhost __defaultVhost__ {{\n forward {{ enabled on; backend https://localhost:{backend.port}/fwd; }}\n}}"))
        pub = Publisher(media, f"rtmp://127.0.0.1:{srs.rtmp_port}/live/livestream")
        try:
            assert wait_until(lambda: f"to rtmp://{name}:{nginx.port}/live/fwd started" in srs.log(), 15), \
                srs.log()[-3000:]
            assert decodable(nginx.url("fwd")), srs.log()[-3000:]
            assert backend.bodies and backend.bodies[0]["stream"] == "livestream"
        finally:
            pub.stop()
    finally:
        backend.close()

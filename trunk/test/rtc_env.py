"""What the WebRTC black-box tests share: the server's conf (http_api,
rtc_server on a free UDP port, rtc in the default vhost), its API read back,
and the `require` rule for aiortc (in CI a missing peer fails, elsewhere it
skips with the reason, as test_browser.py does for Chromium)."""
import json
import socket
import urllib.request

from conftest import free_port, wait_until
from test_browser import HTML_DIR, require


def require_aiortc():
    try:
        import aiortc  # noqa: F401
    except ImportError as e:
        require(False, f"aiortc is not importable ({e}): install it with sh 3rdparty/install.sh test")


def rtc_conf(srs, stun_timeout=30, nack="on", http=False, dtls_role="passive", tcp=False, server_extra="",
             vhost_extra="", vhost_body=""):
    """srs's base conf with the API, the RTC server and, with `http`, the
    http_server serving the built player pages. Sets srs.api_port,
    srs.rtc_port (UDP) and srs.http_port (or None). vhost_extra goes into
    the vhost's rtc {} block, vhost_body into the vhost itself."""
    srs.api_port = free_port()
    srs.rtc_port = free_port(socket.SOCK_DGRAM)
    srs.http_port = free_port() if http else None
    srs.rtc_tcp_port = free_port() if tcp else None
    conf = srs.base_conf().replace("vhost __defaultVhost__ {\n}\n", "")
    if http:
        conf += f"http_server {{\n  enabled on;\n  listen {srs.http_port};\n  dir {HTML_DIR};\n  crossdomain on;\n}}\n"
    conf += (f"http_api {{\n  enabled on;\n  listen {srs.api_port};\n}}\n"
             f"rtc_server {{\n  enabled on;\n  listen {srs.rtc_port};\n  candidate 127.0.0.1;\n"
             + (f"  protocol all;\n  tcp {{\n    enabled on;\n    listen {srs.rtc_tcp_port};\n  }}\n" if tcp else "")
             + server_extra + "}\n"
             "vhost __defaultVhost__ {\n"
             f"  rtc {{\n    enabled on;\n    nack {nack};\n    twcc on;\n    stun_timeout {stun_timeout};\n"
             f"    dtls_role {dtls_role};\n{vhost_extra}  }}\n"
             f"{vhost_body}"
             "}\n")
    return conf


def start_rtc(srs, **kw):
    """Starts srs with rtc_conf(**kw) and waits for its API."""
    srs.start(rtc_conf(srs, **kw))
    assert wait_until(lambda: api_ok(srs), 10), f"the HTTP API did not answer: {srs.log()[-2000:]}"
    srs.api = f"127.0.0.1:{srs.api_port}"
    return srs


def api_ok(srs):
    try:
        api_get(srs, "/api/v1/versions")
        return True
    except OSError:
        return False


def api_get(srs, path, timeout=5):
    with urllib.request.urlopen(f"http://127.0.0.1:{srs.api_port}{path}", timeout=timeout) as r:
        return json.loads(r.read())


def api_delete(srs, path, timeout=5):
    req = urllib.request.Request(f"http://127.0.0.1:{srs.api_port}{path}", method="DELETE")
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.status, r.read().decode(errors="replace")


def rtc_clients(srs, stream=None, kind=None):
    """The API's WebRTC clients (type rtc-publish / rtc-play), optionally of
    one stream (by name) and one type."""
    clients = api_get(srs, "/api/v1/clients?count=1000")["clients"]
    out = []
    for c in clients:
        if not str(c.get("type", "")).startswith("rtc-"):
            continue
        if kind and c["type"] != kind:
            continue
        if stream and c.get("name") != stream and not str(c.get("url", "")).endswith("/" + stream):
            continue
        out.append(c)
    return out


def api_stream(srs, name):
    """The API's entry for stream `name`, or None."""
    for s in api_get(srs, "/api/v1/streams?count=1000")["streams"]:
        if s.get("name") == name:
            return s
    return None

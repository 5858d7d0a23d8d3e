"""An http_hooks server written for the tests: a threaded HTTP server on a
loopback port that records every request (time, method, path, query, the
JSON body) and answers by the first part of the path:

  /ok        200 {"code":0,"data":null}      /zero      200 0
  /created   201 {"code":0}                  /code1     200 {"code":1}
  /s500      500 {"code":0}                  /empty     200, no body
  /notjson   200 <html>                      /huge      200, a 64 MB body (sent until the peer leaves)
  /slow/N    {"code":0} after N ms           /never     reads the request, never answers
  /chunked   200 chunked, a chunk every 20 ms forever
  /redirect  302 to itself (a loop)          /codestr   200 {"code":"0"}

The record lets a test assert what the server sent per action; `reset()`
clears it. Run alone (python3 hooks_server.py PORT) it serves until killed."""
import json
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

HUGE_BYTES = 64 * 1024 * 1024


class Recorded:
    def __init__(self, method, path, query, body):
        self.at = time.monotonic()
        self.method = method
        self.path = path
        self.query = query
        self.raw = body
        try:
            self.json = json.loads(body) if body else None
        except ValueError:
            self.json = None

    @property
    def action(self):
        return self.json.get("action") if isinstance(self.json, dict) else None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _answer(self, status, body, ctype="application/json"):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        if data:
            self.wfile.write(data)

    def _serve(self):
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode(errors="replace") if length else ""
        self.server.owner.record(Recorded(self.command, parts.path, parts.query, body))
        kind = parts.path.strip("/").split("/")[0]
        stop = self.server.owner.stopping
        try:
            if kind == "ok":
                self._answer(200, '{"code":0,"data":null}')
            elif kind == "zero":
                self._answer(200, "0")
            elif kind == "created":
                self._answer(201, '{"code":0}')
            elif kind == "code1":
                self._answer(200, '{"code":1,"msg":"refused by the test"}')
            elif kind == "codestr":
                self._answer(200, '{"code":"0"}')
            elif kind == "s500":
                self._answer(500, '{"code":0}')
            elif kind == "empty":
                self._answer(200, "")
            elif kind == "notjson":
                self._answer(200, "<html>not json</html>", "text/html")
            elif kind == "slow":
                ms = int(parts.path.strip("/").split("/")[1])
                stop.wait(ms / 1000.0)
                self._answer(200, '{"code":0}')
            elif kind == "never":
                stop.wait(120)
            elif kind == "huge":
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(HUGE_BYTES))
                self.end_headers()
                block = b" " * 65536
                for _ in range(HUGE_BYTES // len(block)):
                    if stop.is_set():
                        break
                    self.wfile.write(block)
            elif kind == "chunked":
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                while not stop.wait(0.02):
                    self.wfile.write(b"1\r\n \r\n")
                    self.wfile.flush()
            elif kind == "redirect":
                self.send_response(302)
                self.send_header("Location", self.path)
                self.send_header("Content-Length", "0")
                self.end_headers()
            else:
                self._answer(404, '{"code":404}')
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server under test gave up on us: what the bad-input cases expect
        self.close_connection = True

    do_POST = _serve
    do_GET = _serve


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024  # 500 players ask at once


class HooksServer:
    """tls: (certfile, keyfile) to serve https (the handshake runs in the
    accepting thread, which is enough for a test's few calls)."""

    def __init__(self, port=0, tls=None):
        self.httpd = _Server(("127.0.0.1", port), _Handler)
        self.httpd.owner = self
        self.port = self.httpd.server_address[1]
        self.scheme = "http"
        if tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(*tls)
            self.httpd.socket = ctx.wrap_socket(self.httpd.socket, server_side=True)
            self.scheme = "https"
        self.requests = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.thread = None

    def url(self, path, host="127.0.0.1"):
        return f"{self.scheme}://{host}:{self.port}{path}"

    def record(self, r):
        with self.lock:
            self.requests.append(r)

    def reset(self):
        with self.lock:
            self.requests = []

    def of(self, action=None, path=None):
        with self.lock:
            return [r for r in self.requests
                    if (action is None or r.action == action) and (path is None or r.path.startswith(path))]

    def start(self):
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        return self

    def stop(self):
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        if self.thread:
            self.thread.join(5)


if __name__ == "__main__":
    s = HooksServer(int(sys.argv[1]) if len(sys.argv) > 1 else 0).start()
    print(f"hooks server on {s.port}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        s.stop()

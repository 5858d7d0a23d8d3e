// HttpClient: writes the request, then feeds what the socket gives to the
// sans-IO HttpResponseParser. See http_client.hpp for the timeout contract.
#include "app/upstream/http_client.hpp"

#include <algorithm>
#include <vector>

#include "core/version.hpp"
#include "io/host_resolver.hpp"
#include "io/socket.hpp"
#include "protocol/http/http_url.hpp"
#include "protocol/tls/tls_client.hpp"

namespace srs {

HttpClient::HttpClient(HttpClientOptions options) : options_(options) {}

HttpClient::~HttpClient() { close(); }

void HttpClient::close() {
    tls_.reset();
    conn_.reset();
}

uint64_t HttpClient::recv_bytes() const { return conn_ ? conn_->recv_bytes() : 0; }
uint64_t HttpClient::send_bytes() const { return conn_ ? conn_->send_bytes() : 0; }

// The timeout for the next read or write: io_timeout, cut to what is left of
// the total deadline when use_deadline. 0 means the deadline has passed.
utime_t HttpClient::next_timeout(bool use_deadline) const {
    utime_t t = options_.io_timeout;
    if (use_deadline && deadline_ > 0) {
        utime_t left = deadline_ - monotonic_us();
        if (left <= 0) return 0;
        t = t < 0 ? left : std::min(t, left);
    }
    return t;
}

Error HttpClient::start(std::string_view method, const std::string& url, std::string_view content_type,
                        std::string_view body) {
    close();
    parser_.reset();
    parser_.set_head_request(method == "HEAD");
    pending_.clear();
    peer_closed_ = false;
    deadline_ = options_.total_timeout > 0 ? monotonic_us() + options_.total_timeout : 0;

    HttpClientUrl u;
    if (Error err = parse_http_client_url(url, &u); !err.ok()) return SRS_WRAP(err, "http client");

    if (Error err = connect(u); !err.ok()) return err;
    if (u.tls) {
        if (Error err = handshake(u); !err.ok()) return SRS_WRAP(err, "https %s:%d", u.host.c_str(), u.port);
    }

    std::string req;
    req.reserve(256 + body.size());
    req.append(method).append(" ").append(u.target).append(" HTTP/1.1\r\n");
    req.append("Host: ").append(options_.host_header.empty() ? u.host_header : options_.host_header).append("\r\n");
    req.append("User-Agent: ").append(options_.user_agent.empty() ? SRS_SIGNATURE : options_.user_agent).append("\r\n");
    req.append("Accept: */*\r\n");
    req.append("Connection: close\r\n");
    if (!content_type.empty()) req.append("Content-Type: ").append(content_type).append("\r\n");
    if (!body.empty() || !content_type.empty() || method == "POST" || method == "PUT") {
        req.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
    }
    req.append("\r\n").append(body);

    utime_t t = next_timeout(true);
    if (t == 0) return SRS_ERR(kErrorHttpClientTimeout, "%s %s: deadline passed", std::string(method).c_str(), url.c_str());
    conn_->set_send_timeout(t);
    if (Error err = send(req); !err.ok()) {
        return SRS_WRAP(err, "send %s %s", std::string(method).c_str(), url.c_str());
    }

    while (!parser_.head_done()) {
        bool eof = false;
        if (Error err = read_more(&eof); !err.ok()) {
            return SRS_WRAP(err, "read the response head of %s %s", std::string(method).c_str(), url.c_str());
        }
    }
    return Error();
}

// The name's addresses (or the literal), then a TCP connect to each in turn
// until one answers, all within connect_timeout (and the total deadline).
Error HttpClient::connect(const HttpClientUrl& u) {
    utime_t budget = options_.connect_timeout;
    if (deadline_ > 0) budget = std::min(budget, options_.total_timeout);
    utime_t until = monotonic_us() + budget;
    std::vector<std::string> addresses;
    if (!u.ip.empty()) {
        addresses.push_back(u.ip);
    } else if (!options_.resolver) {
        return SRS_ERR(kErrorHttpClientBadUrl, "host %s is a name and this client has no resolver (literal addresses "
                       "and localhost only)", u.host.c_str());
    } else if (Error err = options_.resolver->resolve(u.host, budget, &addresses); !err.ok()) {
        return SRS_WRAP(err, "connect %s:%d", u.host.c_str(), u.port);
    }
    Error last;
    for (const std::string& ip : addresses) {
        utime_t left = until - monotonic_us();
        if (left <= 0) break;
        last.ignore();
        TcpConn* conn = nullptr;
        last = TcpConn::connect(ip, u.port, left, &conn);
        if (last.ok()) {
            conn_.reset(conn);
            return Error();
        }
    }
    if (last.ok()) {
        return SRS_ERR(kErrorSocketTimeout, "connect %s:%d: no time left of %lld ms", u.host.c_str(), u.port,
                       (long long)(budget / kUsPerMs));
    }
    if (addresses.size() == 1 && addresses[0] == u.host) return SRS_WRAP(last, "connect %s:%d", u.host.c_str(), u.port);
    std::string tried;
    for (const std::string& ip : addresses) tried += (tried.empty() ? "" : ", ") + ip;
    return SRS_WRAP(last, "connect %s:%d (addresses %s)", u.host.c_str(), u.port, tried.c_str());
}

// The TLS handshake on the connected socket: bounded by connect_timeout as a
// whole, io_timeout per read and the total deadline.
Error HttpClient::handshake(const HttpClientUrl& u) {
    std::shared_ptr<TlsClientContext> ctx = options_.tls_context;
    if (!ctx) {
        if (Error err = TlsClientContext::create(options_.verify_tls, options_.ca_file, &ctx); !err.ok()) return err;
    }
    tls_.reset(new TlsClient(ctx, u.host));
    utime_t until = options_.connect_timeout > 0 ? monotonic_us() + options_.connect_timeout : 0;
    Error err = tls_->start();
    while (err.ok()) {
        std::string out;
        if (tls_->take_output(&out)) {
            conn_->set_send_timeout(next_timeout(true));
            if (Error e = conn_->write(out.data(), out.size()); !e.ok()) return SRS_WRAP(e, "TLS handshake send");
        }
        if (tls_->connected()) return Error();
        utime_t t = next_timeout(true);
        if (until > 0) {
            utime_t left = until - monotonic_us();
            if (left <= 0) t = 0;
            else t = t < 0 ? left : std::min(t, left);
        }
        if (t == 0) {
            return SRS_ERR(kErrorHttpClientTimeout, "TLS handshake with %s:%d not done in %lld ms", u.host.c_str(),
                           u.port, (long long)(options_.connect_timeout / kUsPerMs));
        }
        conn_->set_recv_timeout(t);
        char buf[8192];
        size_t n = 0;
        if (Error e = conn_->read(buf, sizeof(buf), &n); !e.ok()) {
            if (e.code() != kErrorSocketClosed) return SRS_WRAP(e, "TLS handshake read");
            e.ignore();
            return SRS_ERR(kErrorTlsHandshake, "TLS handshake with %s:%d: the peer closed the connection (not a TLS "
                           "server?)", u.host.c_str(), u.port);
        }
        err = tls_->feed(reinterpret_cast<const uint8_t*>(buf), n);
    }
    // The alert OpenSSL queued (bad certificate, ...) is worth sending to the peer.
    std::string out;
    if (tls_->take_output(&out)) {
        conn_->set_send_timeout(100 * kUsPerMs);
        if (Error e = conn_->write(out.data(), out.size()); !e.ok()) e.ignore();
    }
    return err;
}

Error HttpClient::send(const std::string& data) {
    if (!tls_) return conn_->write(data.data(), data.size());
    if (Error err = tls_->write(data.data(), data.size()); !err.ok()) return err;
    std::string out;
    tls_->take_output(&out);
    return conn_->write(out.data(), out.size());
}

// Reads once from the socket and feeds the parser; decoded body bytes go to
// pending_. At EOF the parser is told (a close-delimited body ends there).
Error HttpClient::read_more(bool* eof) {
    *eof = false;
    if (!conn_) return SRS_ERR(kErrorSocketClosed, "no connection");
    utime_t t = next_timeout(deadline_ > 0);
    if (t == 0) return SRS_ERR(kErrorHttpClientTimeout, "total timeout %lld ms passed", (long long)(options_.total_timeout / kUsPerMs));
    conn_->set_recv_timeout(t);
    char buf[8192];
    size_t n = 0;
    std::string plain;  // https: what the records decrypted to
    Error err;
    if (!tls_) {
        err = conn_->read(buf, sizeof(buf), &n);
    } else if (tls_->take_plaintext(&plain) || tls_->peer_closed()) {
        // Already decrypted, or close_notify: no read needed.
    } else {
        err = conn_->read(buf, sizeof(buf), &n);
        if (err.ok()) err = tls_->feed(reinterpret_cast<const uint8_t*>(buf), n);
        if (err.ok()) tls_->take_plaintext(&plain);
        // A record that only held a session ticket decrypts to nothing: read again.
        if (err.ok() && plain.empty() && !tls_->peer_closed()) return Error();
    }
    if (tls_ && err.ok() && plain.empty() && tls_->peer_closed()) err = SRS_ERR(kErrorSocketClosed, "TLS close_notify");
    if (err.code() == kErrorSocketClosed) {
        err.ignore();
        peer_closed_ = true;
        *eof = true;
        return parser_.finish_at_eof();
    }
    if (!err.ok()) return SRS_WRAP(err, "read");
    size_t consumed = 0;
    // Bytes after a complete response are dropped: we asked for Connection: close.
    if (tls_) return parser_.feed(reinterpret_cast<const uint8_t*>(plain.data()), plain.size(), &consumed, &pending_);
    return parser_.feed(reinterpret_cast<const uint8_t*>(buf), n, &consumed, &pending_);
}

Error HttpClient::read_body_some(std::string* out, bool* eof) {
    *eof = false;
    deadline_ = 0;  // streaming: only io_timeout applies
    while (pending_.empty() && !parser_.done()) {
        bool closed = false;
        if (Error err = read_more(&closed); !err.ok()) return SRS_WRAP(err, "read the body");
    }
    out->append(pending_);
    pending_.clear();
    *eof = parser_.done();
    return Error();
}

Error HttpClient::read_body_all(std::string* out) {
    while (true) {
        if (out->size() + pending_.size() > options_.max_body) {
            return SRS_ERR(kErrorHttpClientBodyTooLarge, "body over %zu bytes", options_.max_body);
        }
        out->append(pending_);
        pending_.clear();
        if (parser_.done()) return Error();
        bool closed = false;
        if (Error err = read_more(&closed); !err.ok()) return SRS_WRAP(err, "read the body");
    }
}

static Error fetch(std::string_view method, const std::string& url, std::string_view content_type,
                   std::string_view body, const HttpClientOptions& options, HttpClientResult* out) {
    HttpClient c(options);
    if (Error err = c.start(method, url, content_type, body); !err.ok()) return err;
    std::string got;
    if (Error err = c.read_body_all(&got); !err.ok()) {
        return SRS_WRAP(err, "%s %s (status %d)", std::string(method).c_str(), url.c_str(), c.head().status);
    }
    out->head = c.head();
    out->body = std::move(got);
    return Error();
}

Error http_get(const std::string& url, const HttpClientOptions& options, HttpClientResult* out) {
    return fetch("GET", url, {}, {}, options, out);
}

Error http_post(const std::string& url, std::string_view content_type, std::string_view body,
                const HttpClientOptions& options, HttpClientResult* out) {
    return fetch("POST", url, content_type, body, options, out);
}

}  // namespace srs

// HttpClient: writes the request, then feeds what the socket gives to the
// sans-IO HttpResponseParser. See http_client.hpp for the timeout contract.
#include "app/upstream/http_client.hpp"

#include <algorithm>

#include "core/version.hpp"
#include "io/socket.hpp"
#include "protocol/http/http_url.hpp"

namespace srs {

HttpClient::HttpClient(HttpClientOptions options) : options_(options) {}

HttpClient::~HttpClient() { close(); }

void HttpClient::close() { conn_.reset(); }

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

    utime_t connect_timeout = options_.connect_timeout;
    if (deadline_ > 0) connect_timeout = std::min(connect_timeout, options_.total_timeout);
    TcpConn* conn = nullptr;
    if (Error err = TcpConn::connect(u.ip, u.port, connect_timeout, &conn); !err.ok()) {
        return SRS_WRAP(err, "connect %s:%d", u.ip.c_str(), u.port);
    }
    conn_.reset(conn);

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
    if (Error err = conn_->write(req.data(), req.size()); !err.ok()) {
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
    Error err = conn_->read(buf, sizeof(buf), &n);
    if (err.code() == kErrorSocketClosed) {
        err.ignore();
        peer_closed_ = true;
        *eof = true;
        return parser_.finish_at_eof();
    }
    if (!err.ok()) return SRS_WRAP(err, "read");
    size_t consumed = 0;
    // Bytes after a complete response are dropped: we asked for Connection: close.
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

#include "app/http/http_conn.hpp"

#include "core/buffer.hpp"
#include "core/log.hpp"
#include "core/version.hpp"

namespace srs {

// A client that sends nothing this long between requests is gone; a slow
// client (slowloris) cannot hold a coroutine longer than this per read.
static const utime_t kHttpRecvTimeoutUs = 30 * kUsPerSecond;
static const utime_t kHttpSendTimeoutUs = 30 * kUsPerSecond;

HttpResponse::HttpResponse(TcpConn* sock, const HttpRequest& req, bool crossdomain, Connection* conn)
    : sock_(sock),
      conn_(conn),
      req_(req),
      keep_alive_(req.keep_alive),
      is_head_(req.method == "HEAD"),
      crossdomain_(crossdomain) {}

void HttpResponse::set_defaults() {
    defaults_set_ = true;
    head_.set("Server", SRS_SIGNATURE);
    if (crossdomain_) {
        head_.set("Access-Control-Allow-Origin", "*");
        head_.set("Access-Control-Allow-Methods", "GET, POST, HEAD, PUT, DELETE, OPTIONS");
        head_.set("Access-Control-Allow-Headers", "*");
        head_.set("Access-Control-Expose-Headers", "Server,range,Content-Length,Content-Range,Location,X-SRS-No-Media");
    }
}

std::string HttpResponse::head_bytes(int status, const std::string& content_type, int64_t content_length) {
    if (!defaults_set_) set_defaults();
    if (no_cache_) head_.set("Cache-Control", "no-cache");
    head_.status = status;
    if (!content_type.empty()) head_.set("Content-Type", content_type);
    if (content_length >= 0) head_.set("Content-Length", std::to_string(content_length));
    head_.set("Connection", keep_alive_ ? "Keep-Alive" : "Close");
    head_sent_ = true;
    return head_.serialize(req_.version_minor);
}

Error HttpResponse::write_head(int status, const std::string& content_type, int64_t content_length) {
    std::string bytes = head_bytes(status, content_type, content_length);
    return sock_->write(bytes.data(), bytes.size());
}

Error HttpResponse::send(int status, const std::string& content_type, const std::string& body) {
    std::string head = head_bytes(status, content_type, static_cast<int64_t>(body.size()));
    // One write: a head and a body in two small writes meet Nagle and the
    // peer's delayed ACK, which holds the body back ~40 ms on keep-alive.
    struct iovec iov[2] = {{&head[0], head.size()}, {const_cast<char*>(body.data()), body.size()}};
    return sock_->writev(iov, is_head_ || body.empty() ? 1 : 2);
}

Error HttpResponse::send_head(int status, const std::string& content_type, int64_t content_length,
                              const void* first, size_t first_size) {
    std::string head = head_bytes(status, content_type, content_length);
    struct iovec iov[2] = {{&head[0], head.size()}, {const_cast<void*>(first), first_size}};
    return sock_->writev(iov, is_head_ || first_size == 0 ? 1 : 2);
}

Error HttpResponse::send_head_more(int status, const std::string& content_type, int64_t content_length) {
    std::string head = head_bytes(status, content_type, content_length);
    return sock_->write_more(head.data(), head.size());
}

std::string HttpResponse::answer_bytes(int status, const std::string& content_type, const std::string& body) {
    std::string bytes = head_bytes(status, content_type, static_cast<int64_t>(body.size()));
    head_sent_ = false;  // nothing went out yet
    if (!is_head_) bytes += body;
    return bytes;
}

unsigned HttpResponse::answer_variant() const {
    return (keep_alive_ ? 1u : 0u) | (req_.version_minor == 0 ? 2u : 0u) | (is_head_ ? 4u : 0u) |
           (crossdomain_ ? 8u : 0u) | (no_cache_ ? 16u : 0u);
}

Error HttpResponse::send_prepared(const std::string& answer) {
    head_sent_ = true;
    return sock_->write(answer.data(), answer.size());
}

Error HttpResponse::send_error(int status) {
    std::string body = std::to_string(status) + " " + http_status_text(status) + "\n";
    return send(status, "text/plain; charset=utf-8", body);
}

Error HttpResponse::start_stream(int status, const std::string& content_type) {
    // The body runs until the connection closes: no length, no reuse.
    keep_alive_ = false;
    return write_head(status, content_type, -1);
}

Error HttpResponse::write_body(const struct iovec* iov, int iovcnt) {
    if (is_head_) return Error();
    return sock_->writev(iov, iovcnt);
}

HttpServerConnection::HttpServerConnection(ConnectionManager* manager, TcpConn* sock, std::string protocol,
                                           std::vector<HttpHandler*> handlers, bool crossdomain)
    : Connection(manager, sock, std::move(protocol)), handlers_(std::move(handlers)), crossdomain_(crossdomain) {}

Error HttpServerConnection::serve() {
    socket()->set_recv_timeout(kHttpRecvTimeoutUs);
    socket()->set_send_timeout(kHttpSendTimeoutUs);
    HttpRequestParser parser;
    HttpRequest req;  // reused: its storage goes back and forth with the parser
    IoBuffer in(4096);
    while (true) {
        if (Error err = pull(); !err.ok()) return err;
        // Parse what is buffered first: pipelined requests arrive together.
        size_t consumed = 0;
        Error perr = parser.feed(in.data(), in.size(), &consumed);
        in.consume(consumed);
        if (!perr.ok()) {
            int status = http_status_for(perr);
            HttpRequest bad;
            bad.keep_alive = false;
            HttpResponse res(socket(), bad, crossdomain_);
            res.send_error(status).ignore();
            return SRS_WRAP(perr, "HTTP request from %s, answered %d", peer().ip.c_str(), status);
        }
        if (parser.has_request()) {
            parser.take_request(&req);
            bool keep_alive = false;
            if (Error err = handle(req, &keep_alive); !err.ok()) return err;
            if (!keep_alive) return Error();
            continue;
        }
        if (!in.ensure_free(4096)) return SRS_ERR(kErrorBufferOverflow, "HTTP input buffer full");
        size_t n = 0;
        if (Error err = socket()->read(in.free_space(), in.free_size(), &n); !err.ok()) return err;
        in.commit(n);
    }
}

Error HttpServerConnection::handle(const HttpRequest& req, bool* keep_alive) {
    HttpResponse res(socket(), req, crossdomain_, this);
    srs_info("HTTP %s %s", req.method.c_str(), req.target.c_str());
    Error err;
    if (req.method == "OPTIONS") {
        err = crossdomain_ ? res.send(200, "", "") : res.send_error(405);
    } else {
        HttpHandler* handler = nullptr;
        for (HttpHandler* h : handlers_) {
            if (h->match(req)) {
                handler = h;
                break;
            }
        }
        err = handler ? handler->serve(req, &res) : res.send_error(404);
        if (err.ok() && !res.head_sent()) err = res.send_error(500);
    }
    *keep_alive = res.keep_alive();
    if (!err.ok()) return SRS_WRAP(err, "HTTP %s %s", req.method.c_str(), req.path.c_str());
    return Error();
}

}  // namespace srs

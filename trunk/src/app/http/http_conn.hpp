// The HTTP/1.1 server side: one connection coroutine reads requests with the
// sans-IO parser and hands each to the first handler that takes it. Handlers
// answer through HttpResponse, which writes on the socket.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/conn/connection.hpp"
#include "protocol/http/http_request.hpp"
#include "protocol/http/http_response.hpp"

namespace srs {

class HttpResponse {
  public:
    // conn: the connection answering (null in tests): its client info and kick state.
    HttpResponse(TcpConn* sock, const HttpRequest& req, bool crossdomain, Connection* conn = nullptr);
    // The connection's entry in the API's clients list (may be null).
    ClientInfo* client_info() { return conn_ ? &conn_->info() : nullptr; }
    // Fails once the connection was kicked or the server stops.
    Error pull() const { return conn_ ? conn_->pull() : Error(); }
    // The head's fields; Server and CORS are put in at the first use, so an
    // answer taken whole from a cache allocates no head at all.
    HttpResponseHead& head() {
        if (!defaults_set_) set_defaults();
        return head_;
    }
    // A whole response with Content-Length (HEAD requests get no body).
    Error send(int status, const std::string& content_type, const std::string& body);
    // Only the head, for a body the caller writes itself (files).
    Error send_head(int status, const std::string& content_type, int64_t content_length) {
        return write_head(status, content_type, content_length);
    }
    // The head and the body's first bytes in one write (HEAD: the head only).
    Error send_head(int status, const std::string& content_type, int64_t content_length, const void* first,
                    size_t first_size);
    // The head with MSG_MORE, so it leaves with the body the caller sends
    // next on socket() (sendfile) rather than in a packet of its own.
    Error send_head_more(int status, const std::string& content_type, int64_t content_length);
    // The bytes send() would write, without writing them (for answers shared
    // by many clients). Only for requests alike in answer_variant().
    std::string answer_bytes(int status, const std::string& content_type, const std::string& body);
    // "Cache-Control: no-cache" in the head, added when it is built.
    void set_no_cache() { no_cache_ = true; }
    // What besides the body and the handler's own fields shapes answer_bytes():
    // keep-alive, HTTP/1.0, HEAD, CORS and no-cache, as bits.
    unsigned answer_variant() const;
    // Writes a whole answer made by answer_bytes() in one write.
    Error send_prepared(const std::string& answer);
    // A plain error page.
    Error send_error(int status);
    // Starts a response whose body the caller streams with write_body() and
    // that ends when the connection closes.
    Error start_stream(int status, const std::string& content_type);
    Error write_body(const struct iovec* iov, int iovcnt);
    bool head_sent() const { return head_sent_; }
    bool keep_alive() const { return keep_alive_; }
    TcpConn* socket() { return sock_; }

  private:
    Error write_head(int status, const std::string& content_type, int64_t content_length);
    std::string head_bytes(int status, const std::string& content_type, int64_t content_length);
    void set_defaults();
    TcpConn* sock_;
    Connection* conn_;
    const HttpRequest& req_;
    HttpResponseHead head_;
    bool head_sent_ = false;
    bool keep_alive_;
    bool is_head_;
    bool crossdomain_;
    bool defaults_set_ = false;
    bool no_cache_ = false;
};

class HttpHandler {
  public:
    virtual ~HttpHandler() = default;
    // Whether this handler serves the request (cheap, no I/O).
    virtual bool match(const HttpRequest& req) const = 0;
    // Serves it. A streaming handler returns when the stream or the client ends.
    virtual Error serve(const HttpRequest& req, HttpResponse* res) = 0;
};

class HttpServerConnection : public Connection {
  public:
    // handlers: tried in order; not owned.
    HttpServerConnection(ConnectionManager* manager, TcpConn* sock, std::string protocol,
                         std::vector<HttpHandler*> handlers, bool crossdomain);
    ~HttpServerConnection() override { stop_coroutine(); }

  protected:
    Error serve() override;

  private:
    Error handle(const HttpRequest& req, bool* keep_alive);
    std::vector<HttpHandler*> handlers_;
    bool crossdomain_;
};

}  // namespace srs

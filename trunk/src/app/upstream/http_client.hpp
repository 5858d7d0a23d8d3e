// An HTTP/1.1 client on coroutine sockets: one request per connection
// ("Connection: close"), for the heartbeat's POST and, in streaming mode, an
// HTTP-FLV pull whose body never ends.
//
//   HttpClient c;                                      // one-shot:
//   HttpClientResult r;
//   Error err = http_post(url, "application/json", json, {}, &r);
//
//   HttpClient c(opts);                                // streaming:
//   err = c.start("GET", url);                         // connect, send, read the head
//   while (!eof) err = c.read_body_some(&piece, &eof); // pieces as they arrive
//
// URLs: http:// and https:// (protocol/http/http_url.hpp). A host named by
// DNS needs options.resolver (HostResolver, looked up off the coroutine
// thread); without one only literal addresses and localhost work. Every
// address the name has is tried in turn within connect_timeout.
//
// https: TLS over the same coroutine socket (protocol/tls/tls_client.hpp),
// SNI and the expected certificate name from the URL's host, the chain
// checked against the system store or ca_file unless verify_tls is off. A
// refused certificate fails start() with kErrorTlsVerify naming OpenSSL's
// reason.
//
// Timeouts: connect_timeout for the name lookup plus the TCP connect (every
// address together), and again for the TLS handshake; io_timeout for each
// read and write, and total_timeout for start() plus read_body_all() together
// (the one-shot calls), so a peer that trickles a byte now and then cannot
// hold the caller forever. Streaming reads only use io_timeout.
// Only the calling coroutine waits; others run meanwhile.
//
// Where the server's callers get their options: LiveContext::http_client_options()
// (app/conn/live_context.hpp) is the base the server built from
// `http_client { }` with its resolver; copy it and set the timeouts.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/clock.hpp"
#include "core/error.hpp"
#include "protocol/http/http_response_parser.hpp"

namespace srs {

class TcpConn;
class TlsClient;
class TlsClientContext;
class HostResolver;
struct HttpClientUrl;

struct HttpClientOptions {
    utime_t connect_timeout = 3 * kUsPerSecond;
    utime_t io_timeout = 5 * kUsPerSecond;
    utime_t total_timeout = 10 * kUsPerSecond;  // <= 0: no total deadline
    size_t max_body = 4 * 1024 * 1024;          // read_body_all() only
    // The Host header; empty: the URL's host[:port]. An edge names the origin
    // vhost here while connecting to the origin's address.
    std::string host_header;
    // The User-Agent header; empty: the server's signature. A load tool names itself.
    std::string user_agent;
    // Resolves host names (not owned); nullptr: literal addresses and localhost only.
    HostResolver* resolver = nullptr;
    // https: check the server's certificate (chain and name).
    bool verify_tls = true;
    // https: PEM file of trusted CAs; empty: the system store.
    std::string ca_file;
    // https: a context made once from verify_tls and ca_file (the server's
    // base options carry one, so the store is loaded at start, not per
    // request); nullptr: made on each https start().
    std::shared_ptr<TlsClientContext> tls_context;
};

struct HttpClientResult {
    HttpParsedResponse head;
    std::string body;
};

class HttpClient {
  public:
    explicit HttpClient(HttpClientOptions options = {});
    ~HttpClient();
    HttpClient(const HttpClient&) = delete;
    HttpClient& operator=(const HttpClient&) = delete;

    // Connects to the URL's host, sends `method target` with the body (a
    // Content-Length is sent whenever a body or content_type is given), and
    // reads the response head. Any status is a success: the caller checks it.
    Error start(std::string_view method, const std::string& url, std::string_view content_type = {},
                std::string_view body = {});
    const HttpParsedResponse& head() const { return parser_.head(); }
    // Appends the next decoded body bytes to *out (at least one unless *eof).
    // *eof turns true once the body is complete.
    Error read_body_some(std::string* out, bool* eof);
    // Reads the rest of the body into *out (at most max_body bytes).
    Error read_body_all(std::string* out);
    // Closes the connection (the destructor does too).
    void close();
    // Bytes on the current connection (0 once closed), for a caller's stats.
    uint64_t recv_bytes() const;
    uint64_t send_bytes() const;

  private:
    Error connect(const HttpClientUrl& u);
    Error handshake(const HttpClientUrl& u);
    Error send(const std::string& data);
    Error read_more(bool* eof);
    utime_t next_timeout(bool use_deadline) const;

    HttpClientOptions options_;
    std::unique_ptr<TcpConn> conn_;
    std::unique_ptr<TlsClient> tls_;  // https only
    HttpResponseParser parser_;
    std::string pending_;      // body bytes decoded but not handed out yet
    bool peer_closed_ = false;
    utime_t deadline_ = 0;      // monotonic; 0 = none
};

// One-shot GET and POST: start() + read_body_all().
Error http_get(const std::string& url, const HttpClientOptions& options, HttpClientResult* out);
Error http_post(const std::string& url, std::string_view content_type, std::string_view body,
                const HttpClientOptions& options, HttpClientResult* out);

}  // namespace srs

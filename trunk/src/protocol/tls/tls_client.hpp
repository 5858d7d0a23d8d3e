// A TLS client without I/O (for https:// URLs). Ciphertext the peer sent goes
// in (feed), ciphertext to send comes out (take_output); plaintext goes in by
// write() once connected and comes out by take_plaintext(). OpenSSL reads and
// writes only two memory BIOs owned by the session, so the caller decides
// where bytes go and how long it waits for them (as DtlsEndpoint does for DTLS).
//
// Guarantees:
// - SNI is the server name when it is a DNS name (an IP literal sends none,
//   RFC 6066 section 3).
// - With verify on (the default), the chain must lead to a trusted CA (the
//   system store, or ca_file when given) and the certificate must name the
//   host (SSL_set1_host for names, the IP SAN for literals); a failure is
//   kErrorTlsVerify whose message is OpenSSL's reason ("self-signed
//   certificate", "hostname mismatch", ...).
// - After a fatal error every call fails; close_notify from the peer makes
//   peer_closed() true once the plaintext before it was handed out.
//
// Use:
//   std::shared_ptr<TlsClientContext> ctx;  TlsClientContext::create(true, "", &ctx);
//   TlsClient tls(ctx, "example.com");  tls.start();  send tls.take_output()
//   while (!tls.connected()) { read bytes; tls.feed(bytes); send tls.take_output(); }
//   tls.write(request); send tls.take_output(); read; tls.feed(bytes); tls.take_plaintext(&text);
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/error.hpp"

struct ssl_st;
struct ssl_ctx_st;
struct bio_st;

namespace srs {

// One OpenSSL client context: the trust store and whether to verify. Made
// once (loading the store reads files) and shared by every session.
class TlsClientContext {
  public:
    // verify: check the chain and the name. ca_file: PEM file of trusted CAs;
    // empty: the system store (SSL_CTX_set_default_verify_paths).
    static Error create(bool verify, const std::string& ca_file, std::shared_ptr<TlsClientContext>* out);
    ~TlsClientContext();
    TlsClientContext(const TlsClientContext&) = delete;
    TlsClientContext& operator=(const TlsClientContext&) = delete;

    ssl_ctx_st* context() const { return ctx_; }
    bool verify() const { return verify_; }
    const std::string& ca_file() const { return ca_file_; }

  private:
    TlsClientContext() = default;
    ssl_ctx_st* ctx_ = nullptr;
    bool verify_ = true;
    std::string ca_file_;
};

class TlsClient {
  public:
    TlsClient(std::shared_ptr<TlsClientContext> ctx, std::string server_name);
    ~TlsClient();
    TlsClient(const TlsClient&) = delete;
    TlsClient& operator=(const TlsClient&) = delete;

    // Makes the session and queues the ClientHello.
    Error start();
    // Ciphertext from the peer. Drives the handshake; once connected,
    // decrypts into the plaintext buffer.
    Error feed(const uint8_t* data, size_t size);
    // Plaintext to send (connected only): encrypted into the output.
    Error write(const void* data, size_t size);
    // Moves the ciphertext to send into *out (appends); false when there is none.
    bool take_output(std::string* out);
    // Moves the decrypted plaintext into *out (appends); false when there is none.
    bool take_plaintext(std::string* out);

    bool connected() const { return connected_; }
    bool failed() const { return failed_; }
    // The peer sent close_notify and all plaintext before it was taken.
    bool peer_closed() const { return peer_closed_ && plaintext_.empty(); }
    const std::string& server_name() const { return server_name_; }
    // The negotiated protocol ("TLSv1.3"), "" before the handshake ends.
    std::string protocol() const;

  private:
    Error drive_handshake();
    Error drain_plaintext();
    Error fail(Error err);

    std::shared_ptr<TlsClientContext> ctx_;
    std::string server_name_;
    ssl_st* ssl_ = nullptr;
    bio_st* in_ = nullptr;   // owned by ssl_
    bio_st* out_ = nullptr;  // owned by ssl_
    std::string plaintext_;
    bool connected_ = false;
    bool failed_ = false;
    bool peer_closed_ = false;
};

}  // namespace srs

#include "protocol/tls/tls_client.hpp"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

namespace srs {

namespace {

// OpenSSL's queued errors as one line (and clears the queue).
std::string openssl_error_line() {
    std::string s;
    unsigned long e;
    char buf[256];
    while ((e = ERR_get_error()) != 0) {
        ERR_error_string_n(e, buf, sizeof(buf));
        if (!s.empty()) s += "; ";
        s += buf;
    }
    return s.empty() ? "no detail" : s;
}

bool is_literal(const std::string& host) {
    in_addr a4;
    in6_addr a6;
    return inet_pton(AF_INET, host.c_str(), &a4) == 1 || inet_pton(AF_INET6, host.c_str(), &a6) == 1;
}

}  // namespace

Error TlsClientContext::create(bool verify, const std::string& ca_file, std::shared_ptr<TlsClientContext>* out) {
    std::shared_ptr<TlsClientContext> c(new TlsClientContext());
    c->verify_ = verify;
    c->ca_file_ = ca_file;
    ERR_clear_error();
    c->ctx_ = SSL_CTX_new(TLS_client_method());
    if (!c->ctx_) return SRS_ERR(kErrorTlsInit, "SSL_CTX_new: %s", openssl_error_line().c_str());
    SSL_CTX_set_min_proto_version(c->ctx_, TLS1_2_VERSION);
    SSL_CTX_set_mode(c->ctx_, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    if (verify) {
        SSL_CTX_set_verify(c->ctx_, SSL_VERIFY_PEER, nullptr);
        int ok = ca_file.empty() ? SSL_CTX_set_default_verify_paths(c->ctx_)
                                 : SSL_CTX_load_verify_locations(c->ctx_, ca_file.c_str(), nullptr);
        if (ok != 1) {
            return SRS_ERR(kErrorTlsInit, "load CA %s: %s", ca_file.empty() ? "(system store)" : ca_file.c_str(),
                           openssl_error_line().c_str());
        }
    } else {
        SSL_CTX_set_verify(c->ctx_, SSL_VERIFY_NONE, nullptr);
    }
    *out = std::move(c);
    return Error();
}

TlsClientContext::~TlsClientContext() {
    if (ctx_) SSL_CTX_free(ctx_);
}

TlsClient::TlsClient(std::shared_ptr<TlsClientContext> ctx, std::string server_name)
    : ctx_(std::move(ctx)), server_name_(std::move(server_name)) {}

TlsClient::~TlsClient() {
    if (ssl_) SSL_free(ssl_);  // frees both BIOs
}

Error TlsClient::fail(Error err) {
    failed_ = true;
    return err;
}

std::string TlsClient::protocol() const { return connected_ && ssl_ ? SSL_get_version(ssl_) : ""; }

Error TlsClient::start() {
    if (ssl_) return SRS_ERR(kErrorTlsInit, "TLS session already started");
    if (!ctx_ || !ctx_->context()) return fail(SRS_ERR(kErrorTlsInit, "no TLS context"));
    ERR_clear_error();
    ssl_ = SSL_new(ctx_->context());
    in_ = BIO_new(BIO_s_mem());
    out_ = BIO_new(BIO_s_mem());
    if (!ssl_ || !in_ || !out_) {
        if (in_) BIO_free(in_);
        if (out_) BIO_free(out_);
        in_ = out_ = nullptr;
        return fail(SRS_ERR(kErrorTlsInit, "SSL_new/BIO_new: %s", openssl_error_line().c_str()));
    }
    BIO_set_mem_eof_return(in_, -1);  // no bytes yet is "want read", not EOF
    SSL_set_bio(ssl_, in_, out_);
    SSL_set_connect_state(ssl_);
    bool literal = is_literal(server_name_);
    if (!literal && !server_name_.empty() && SSL_set_tlsext_host_name(ssl_, server_name_.c_str()) != 1) {
        return fail(SRS_ERR(kErrorTlsInit, "SNI %s: %s", server_name_.c_str(), openssl_error_line().c_str()));
    }
    if (ctx_->verify()) {
        int ok = literal ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), server_name_.c_str())
                         : SSL_set1_host(ssl_, server_name_.c_str());
        if (ok != 1) {
            return fail(SRS_ERR(kErrorTlsInit, "expected name %s: %s", server_name_.c_str(), openssl_error_line().c_str()));
        }
    }
    return drive_handshake();
}

Error TlsClient::drive_handshake() {
    ERR_clear_error();
    int r = SSL_do_handshake(ssl_);
    if (r == 1) {
        connected_ = true;
        return drain_plaintext();  // a TLS 1.3 server may send data right behind its Finished
    }
    int e = SSL_get_error(ssl_, r);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return Error();
    long verify = SSL_get_verify_result(ssl_);
    if (ctx_->verify() && verify != X509_V_OK) {
        return fail(SRS_ERR(kErrorTlsVerify, "certificate of %s not accepted: %s (error %ld)", server_name_.c_str(),
                            X509_verify_cert_error_string(verify), verify));
    }
    return fail(SRS_ERR(kErrorTlsHandshake, "TLS handshake with %s: %s", server_name_.c_str(),
                        openssl_error_line().c_str()));
}

Error TlsClient::drain_plaintext() {
    char buf[16384];
    while (true) {
        ERR_clear_error();
        int n = SSL_read(ssl_, buf, sizeof(buf));
        if (n > 0) {
            plaintext_.append(buf, n);
            continue;
        }
        int e = SSL_get_error(ssl_, n);
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return Error();
        if (e == SSL_ERROR_ZERO_RETURN) {
            peer_closed_ = true;
            return Error();
        }
        return fail(SRS_ERR(kErrorTlsRecord, "TLS read from %s: %s", server_name_.c_str(), openssl_error_line().c_str()));
    }
}

Error TlsClient::feed(const uint8_t* data, size_t size) {
    if (failed_) return SRS_ERR(kErrorTlsRecord, "TLS session with %s failed before", server_name_.c_str());
    if (!ssl_) return SRS_ERR(kErrorTlsInit, "TLS session not started");
    if (size > 0 && BIO_write(in_, data, static_cast<int>(size)) != static_cast<int>(size)) {
        return fail(SRS_ERR(kErrorTlsRecord, "TLS input buffer: %s", openssl_error_line().c_str()));
    }
    if (!connected_) return drive_handshake();
    return drain_plaintext();
}

Error TlsClient::write(const void* data, size_t size) {
    if (failed_) return SRS_ERR(kErrorTlsRecord, "TLS session with %s failed before", server_name_.c_str());
    if (!connected_) return SRS_ERR(kErrorTlsHandshake, "TLS write before the handshake ended");
    if (size == 0) return Error();
    ERR_clear_error();
    // Memory BIOs grow as needed, so a write never wants I/O.
    int n = SSL_write(ssl_, data, static_cast<int>(size));
    if (n != static_cast<int>(size)) {
        return fail(SRS_ERR(kErrorTlsRecord, "TLS write to %s: %s", server_name_.c_str(), openssl_error_line().c_str()));
    }
    return Error();
}

bool TlsClient::take_output(std::string* out) {
    if (!out_) return false;
    size_t pending = BIO_ctrl_pending(out_);
    if (pending == 0) return false;
    size_t at = out->size();
    out->resize(at + pending);
    int n = BIO_read(out_, &(*out)[at], static_cast<int>(pending));
    out->resize(at + (n > 0 ? static_cast<size_t>(n) : 0));
    return n > 0;
}

bool TlsClient::take_plaintext(std::string* out) {
    if (plaintext_.empty()) return false;
    out->append(plaintext_);
    plaintext_.clear();
    return true;
}

}  // namespace srs

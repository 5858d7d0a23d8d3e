// DTLS 1.2 endpoint over OpenSSL 3 with a datagram-preserving in-memory BIO.
#include "protocol/rtc/dtls.hpp"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/srtp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <algorithm>
#include <cctype>
#include <cstring>

namespace srs {

namespace {

// OpenSSL's DTLS timer asks the endpoint for each period (its backoff and
// count of resends), then resends the flight itself with fresh records.
unsigned int dtls_timer_period(SSL* ssl, unsigned int previous_us) {
    DtlsEndpoint* self = static_cast<DtlsEndpoint*>(SSL_get_app_data(ssl));
    return self ? self->next_period(previous_us) : static_cast<unsigned int>(kDtlsInitialRto);
}

std::string openssl_errors() {
    std::string out;
    unsigned long e;
    while ((e = ERR_get_error()) != 0) {
        char buf[256];
        ERR_error_string_n(e, buf, sizeof(buf));
        if (!out.empty()) out += "; ";
        out += buf;
    }
    return out.empty() ? "no OpenSSL error" : out;
}

std::string normalize_fingerprint(const std::string& in) {
    std::string out;
    for (char c : in) {
        if (c == ' ' || c == '\t') continue;
        out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return out;
}

DtlsEndpoint* endpoint_of(BIO* b) { return static_cast<DtlsEndpoint*>(BIO_get_data(b)); }

int bio_cb_write(BIO* b, const char* data, int size) {
    BIO_clear_retry_flags(b);
    return endpoint_of(b)->bio_write(data, size);
}

int bio_cb_read(BIO* b, char* data, int size) {
    BIO_clear_retry_flags(b);
    int n = endpoint_of(b)->bio_read(data, size);
    if (n <= 0) {
        BIO_set_retry_read(b);
        return -1;
    }
    return n;
}

long bio_cb_ctrl(BIO*, int cmd, long, void*) {
    switch (cmd) {
        case BIO_CTRL_FLUSH:
            return 1;
        case BIO_CTRL_DGRAM_QUERY_MTU:
        case BIO_CTRL_DGRAM_GET_FALLBACK_MTU:
            return static_cast<long>(kDtlsMtu);
        case BIO_CTRL_WPENDING:
        case BIO_CTRL_PENDING:
            return 0;
        default:
            return 0;
    }
}

int bio_cb_create(BIO* b) {
    BIO_set_init(b, 1);
    return 1;
}

int bio_cb_destroy(BIO*) { return 1; }

BIO_METHOD* datagram_bio_method() {
    // Made once; lives for the process (still reachable, not a leak).
    static BIO_METHOD* method = [] {
        BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "srs-rtc-dtls-datagram");
        BIO_meth_set_write(m, bio_cb_write);
        BIO_meth_set_read(m, bio_cb_read);
        BIO_meth_set_ctrl(m, bio_cb_ctrl);
        BIO_meth_set_create(m, bio_cb_create);
        BIO_meth_set_destroy(m, bio_cb_destroy);
        return m;
    }();
    return method;
}

// Copies the datagram's records to *kept except epoch-0 warning alerts other
// than close_notify; returns how many were left out (0: *kept is untouched).
int strip_plaintext_warnings(const uint8_t* data, size_t size, std::string* kept) {
    constexpr size_t kHeader = 13;  // type, version, epoch, sequence, length
    int stripped = 0;
    std::string out;
    size_t i = 0;
    while (i + kHeader <= size) {
        size_t len = static_cast<size_t>(data[i + 11]) << 8 | data[i + 12];
        if (i + kHeader + len > size) break;  // malformed: OpenSSL judges the rest
        bool epoch0 = data[i + 3] == 0 && data[i + 4] == 0;
        bool warning = data[i] == 21 && epoch0 && len == 2 && data[i + kHeader] == 1 && data[i + kHeader + 1] != 0;
        if (warning) {
            ++stripped;
        } else {
            out.append(reinterpret_cast<const char*>(data + i), kHeader + len);
        }
        i += kHeader + len;
    }
    if (stripped == 0) return 0;
    out.append(reinterpret_cast<const char*>(data + i), size - i);
    *kept = std::move(out);
    return stripped;
}

int verify_cb(int, X509_STORE_CTX* store) {
    // Self-signed peer certificates: the chain is not checked, only the leaf's
    // fingerprint against the SDP (RFC 5763 section 5).
    if (X509_STORE_CTX_get_error_depth(store) != 0) return 1;
    SSL* ssl = static_cast<SSL*>(X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()));
    if (!ssl) return 0;
    DtlsEndpoint* self = static_cast<DtlsEndpoint*>(SSL_get_app_data(ssl));
    if (!self) return 0;
    return self->check_peer(X509_STORE_CTX_get_current_cert(store)) ? 1 : 0;
}

}  // namespace

const char* dtls_state_name(DtlsState state) {
    switch (state) {
        case DtlsState::kNew: return "new";
        case DtlsState::kConnecting: return "connecting";
        case DtlsState::kConnected: return "connected";
        case DtlsState::kFailed: return "failed";
        case DtlsState::kClosed: return "closed";
    }
    return "unknown";
}

std::string dtls_fingerprint_sha256(X509* cert) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (!cert || X509_digest(cert, EVP_sha256(), md, &n) != 1) return "";
    static const char kHex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(n * 3);
    for (unsigned int i = 0; i < n; ++i) {
        if (i) out += ':';
        out += kHex[md[i] >> 4];
        out += kHex[md[i] & 0xf];
    }
    return out;
}

// ---- DtlsCertificate ----

DtlsCertificate::~DtlsCertificate() {
    SSL_CTX_free(ctx_);
    X509_free(x509_);
    EVP_PKEY_free(pkey_);
}

Error DtlsCertificate::create(DtlsKeyType type, std::shared_ptr<DtlsCertificate>* out) {
    std::shared_ptr<DtlsCertificate> c(new DtlsCertificate());
    c->type_ = type;
    c->pkey_ = type == DtlsKeyType::kRsa2048 ? EVP_RSA_gen(2048) : EVP_EC_gen("P-256");
    if (!c->pkey_) return SRS_ERR(kErrorDtlsInit, "generate key: %s", openssl_errors().c_str());

    X509* x = X509_new();
    c->x509_ = x;
    if (!x) return SRS_ERR(kErrorDtlsInit, "X509_new: %s", openssl_errors().c_str());
    bool ok = X509_set_version(x, 2) == 1;  // v3
    // A random positive 63-bit serial.
    uint64_t serial = 0;
    ok = ok && RAND_bytes(reinterpret_cast<unsigned char*>(&serial), sizeof(serial)) == 1;
    serial &= 0x7fffffffffffffffULL;
    BIGNUM* bn = BN_new();
    ok = ok && bn && BN_set_word(bn, serial) == 1 && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) != nullptr;
    BN_free(bn);
    // Valid from a day ago (clock skew) for a year.
    ok = ok && X509_gmtime_adj(X509_getm_notBefore(x), -86400L) != nullptr;
    ok = ok && X509_gmtime_adj(X509_getm_notAfter(x), 365L * 86400L) != nullptr;
    X509_NAME* name = X509_get_subject_name(x);
    ok = ok && X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                          reinterpret_cast<const unsigned char*>("srs-rtc"), -1, -1, 0) == 1;
    ok = ok && X509_set_issuer_name(x, name) == 1;
    ok = ok && X509_set_pubkey(x, c->pkey_) == 1;
    ok = ok && X509_sign(x, c->pkey_, EVP_sha256()) > 0;
    if (!ok) return SRS_ERR(kErrorDtlsInit, "build certificate: %s", openssl_errors().c_str());

    c->fingerprint_ = dtls_fingerprint_sha256(x);
    if (c->fingerprint_.empty()) return SRS_ERR(kErrorDtlsInit, "fingerprint: %s", openssl_errors().c_str());

    SSL_CTX* ctx = SSL_CTX_new(DTLS_method());
    c->ctx_ = ctx;
    if (!ctx) return SRS_ERR(kErrorDtlsInit, "SSL_CTX_new: %s", openssl_errors().c_str());
    ok = SSL_CTX_set_min_proto_version(ctx, DTLS1_2_VERSION) == 1 &&
         SSL_CTX_set_max_proto_version(ctx, DTLS1_2_VERSION) == 1 &&
         SSL_CTX_use_certificate(ctx, c->x509_) == 1 && SSL_CTX_use_PrivateKey(ctx, c->pkey_) == 1 &&
         SSL_CTX_check_private_key(ctx) == 1 &&
         SSL_CTX_set_cipher_list(ctx, "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
                                      "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
                                      "ECDHE-ECDSA-AES128-SHA:ECDHE-RSA-AES128-SHA") == 1;
    // Note: SSL_CTX_set_tlsext_use_srtp returns 0 on success.
    ok = ok && SSL_CTX_set_tlsext_use_srtp(ctx, "SRTP_AEAD_AES_128_GCM:SRTP_AES128_CM_SHA1_80") == 0;
    if (!ok) return SRS_ERR(kErrorDtlsInit, "configure context: %s", openssl_errors().c_str());
    // Each endpoint checks the peer's certificate against its SDP fingerprint
    // (verify_cb reaches the endpoint through the SSL object's app data).
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, verify_cb);
    SSL_CTX_set_read_ahead(ctx, 1);
    // No resumption in WebRTC: a shared context must not cache every session.
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
    *out = std::move(c);
    return Error();
}

// ---- DtlsEndpoint ----

DtlsEndpoint::DtlsEndpoint(std::shared_ptr<DtlsCertificate> cert, DtlsRole role, std::string remote_fingerprint)
    : cert_(std::move(cert)), role_(role), expected_fingerprint_(normalize_fingerprint(remote_fingerprint)) {}

DtlsEndpoint::~DtlsEndpoint() {
    SSL_free(ssl_);  // frees bio_ too
}

void DtlsEndpoint::mark(const std::string& milestone) {
    if (milestones_.size() < 64) milestones_.push_back(milestone);
}

std::string DtlsEndpoint::milestones() const {
    std::string out;
    for (const auto& m : milestones_) {
        if (!out.empty()) out += ',';
        out += m;
    }
    return out;
}

int DtlsEndpoint::bio_write(const char* data, int size) {
    if (size <= 0) return 0;
    // Each write is whole records. OpenSSL packs a flight's first send, but
    // resends it a record per write: records of one call share a datagram up
    // to the MTU, or a resent flight of 5 datagrams would be 5 chances of loss.
    size_t n = static_cast<size_t>(size);
    if (written_ > 0 && !out_.empty() && out_.back().size() + n <= kDtlsMtu) {
        out_.back().append(data, n);
    } else {
        out_.emplace_back(data, n);
        ++written_;
    }
    return size;
}

unsigned int DtlsEndpoint::next_period(unsigned int previous_us) {
    if (previous_us == 0) {
        // A flight's first send: its timer starts afresh.
        rto_ = kDtlsInitialRto;
        retransmits_ = 0;
    } else {
        // The period expired and OpenSSL is about to resend the flight.
        rto_ = std::min<utime_t>(static_cast<utime_t>(previous_us) * 2, kDtlsMaxRto);
        ++retransmits_;
        resent_ = true;
        mark("retransmit" + std::to_string(flights_) + "." + std::to_string(retransmits_));
    }
    return static_cast<unsigned int>(rto_);
}

void DtlsEndpoint::follow_openssl_timer(utime_t now) {
    struct timeval left = {0, 0};
    if (state_ == DtlsState::kConnecting && ssl_ && DTLSv1_get_timeout(ssl_, &left) == 1) {
        next_timeout_ = now + static_cast<utime_t>(left.tv_sec) * kUsPerSecond + left.tv_usec;
    } else {
        next_timeout_ = kDtlsNoTimeout;
    }
}

int DtlsEndpoint::bio_read(char* data, int size) {
    if (!in_ || in_size_ == 0 || size <= 0) return 0;
    // One datagram per read, whole: DTLS never gets a record split across reads.
    size_t n = in_size_ < static_cast<size_t>(size) ? in_size_ : static_cast<size_t>(size);
    memcpy(data, in_, n);
    in_ = nullptr;
    in_size_ = 0;
    return static_cast<int>(n);
}

bool DtlsEndpoint::check_peer(X509* cert) {
    peer_fingerprint_ = dtls_fingerprint_sha256(cert);
    if (!peer_fingerprint_.empty() && peer_fingerprint_ == expected_fingerprint_) return true;
    fingerprint_mismatch_ = true;
    return false;
}

bool DtlsEndpoint::pop_datagram(std::string* out) {
    if (out_.empty()) return false;
    *out = std::move(out_.front());
    out_.pop_front();
    return true;
}

Error DtlsEndpoint::start(utime_t now) {
    if (state_ != DtlsState::kNew) return SRS_ERR(kErrorDtlsState, "start in state %s", dtls_state_name(state_));
    if (!cert_) return fail(SRS_ERR(kErrorDtlsInit, "no certificate"));

    // The context (certificate, ciphers, SRTP profiles) is the certificate's,
    // made once: an endpoint only adds its SSL object.
    ssl_ctx_st* ctx = cert_->context();
    if (!ctx) return fail(SRS_ERR(kErrorDtlsInit, "the certificate has no DTLS context"));
    ssl_ = SSL_new(ctx);
    bio_ = BIO_new(datagram_bio_method());
    if (!ssl_ || !bio_) {
        BIO_free(bio_);
        bio_ = nullptr;
        return fail(SRS_ERR(kErrorDtlsInit, "SSL_new/BIO_new: %s", openssl_errors().c_str()));
    }
    BIO_set_data(bio_, this);
    SSL_set_bio(ssl_, bio_, bio_);  // one reference, owned by ssl_
    SSL_set_app_data(ssl_, this);
    SSL_set_options(ssl_, SSL_OP_NO_QUERY_MTU);
    // Read/write buffers only while a record is in flight: a connected
    // session then holds little more than its keys (thousands of players).
    SSL_set_mode(ssl_, SSL_MODE_RELEASE_BUFFERS);
    SSL_set_mtu(ssl_, static_cast<long>(kDtlsMtu));
    DTLS_set_link_mtu(ssl_, static_cast<long>(kDtlsMtu));
    DTLS_set_timer_cb(ssl_, dtls_timer_period);
    if (role_ == DtlsRole::kServer) {
        SSL_set_accept_state(ssl_);
    } else {
        SSL_set_connect_state(ssl_);
    }
    state_ = DtlsState::kConnecting;
    mark(role_ == DtlsRole::kServer ? "start:server" : "start:client");
    if (role_ == DtlsRole::kClient) {
        if (Error err = drive(now); err.failed()) return SRS_WRAP(err, "send ClientHello");
    }
    return Error();
}

Error DtlsEndpoint::fail(Error err) {
    state_ = DtlsState::kFailed;
    next_timeout_ = kDtlsNoTimeout;
    mark(std::string("failed:") + std::to_string(err.code()));
    return err;
}

// Runs OpenSSL after input or on start; what it wrote is a new flight unless
// it was a resend (OpenSSL resends by itself when its timer expired while reading).
Error DtlsEndpoint::drive(utime_t now) {
    written_ = 0;
    resent_ = false;
    ERR_clear_error();
    int r = SSL_do_handshake(ssl_);
    int e = r == 1 ? SSL_ERROR_NONE : SSL_get_error(ssl_, r);

    if (r != 1 && e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
        if (fingerprint_mismatch_) {
            return fail(SRS_ERR(kErrorDtlsFingerprint, "peer fingerprint %s, SDP says %s",
                                peer_fingerprint_.c_str(), expected_fingerprint_.c_str()));
        }
        return fail(SRS_ERR(kErrorDtlsHandshake, "handshake as %s: ssl_error=%d %s",
                            role_ == DtlsRole::kServer ? "server" : "client", e, openssl_errors().c_str()));
    }

    if (written_ > 0 && !resent_) {
        ++flights_;
        mark("flight" + std::to_string(flights_) + ":" + std::to_string(written_));
    }
    if (r == 1) return after_handshake();
    follow_openssl_timer(now);
    return Error();
}

Error DtlsEndpoint::after_handshake() {
    const SRTP_PROTECTION_PROFILE* p = SSL_get_selected_srtp_profile(ssl_);
    if (!p) return fail(SRS_ERR(kErrorDtlsSrtp, "no SRTP profile negotiated"));
    size_t key_len = 16, salt_len = 0;
    if (p->id == SRTP_AEAD_AES_128_GCM) {
        salt_len = 12;
    } else if (p->id == SRTP_AES128_CM_SHA1_80) {
        salt_len = 14;
    } else {
        return fail(SRS_ERR(kErrorDtlsSrtp, "unexpected SRTP profile %s", p->name));
    }
    // RFC 5764 section 4.2: client key, server key, client salt, server salt.
    unsigned char km[2 * (16 + 14)];
    size_t total = 2 * (key_len + salt_len);
    static const char kLabel[] = "EXTRACTOR-dtls_srtp";
    if (SSL_export_keying_material(ssl_, km, total, kLabel, sizeof(kLabel) - 1, nullptr, 0, 0) != 1) {
        return fail(SRS_ERR(kErrorDtlsSrtp, "export keying material: %s", openssl_errors().c_str()));
    }
    const char* b = reinterpret_cast<const char*>(km);
    keys_.profile = p->name;
    keys_.profile_id = static_cast<uint16_t>(p->id);
    keys_.client_key.assign(b, key_len);
    keys_.server_key.assign(b + key_len, key_len);
    keys_.client_salt.assign(b + 2 * key_len, salt_len);
    keys_.server_salt.assign(b + 2 * key_len + salt_len, salt_len);
    OPENSSL_cleanse(km, sizeof(km));
    state_ = DtlsState::kConnected;
    next_timeout_ = kDtlsNoTimeout;
    // The record buffers (~17 KiB each way) are idle from now on: a connected
    // session only reads an alert or a repeated Finished now and then, and
    // OpenSSL allocates them again for that.
    SSL_free_buffers(ssl_);
    mark(std::string("connected:") + p->name);
    return Error();
}

Error DtlsEndpoint::handle_datagram(const uint8_t* data, size_t size, utime_t now) {
    if (state_ == DtlsState::kNew || state_ == DtlsState::kFailed || state_ == DtlsState::kClosed) {
        return SRS_ERR(kErrorDtlsState, "datagram in state %s", dtls_state_name(state_));
    }
    if (!data || size == 0) return Error();
    in_ = data;
    in_size_ = size;

    if (state_ == DtlsState::kConnecting) {
        // OpenSSL 3.0 fails a handshake on one plaintext warning alert ("too
        // many warn alerts"); RFC 5246 7.2 lets a warning be ignored, and a
        // peer may repeat one, so those records never reach OpenSSL.
        std::string kept;
        int warnings = strip_plaintext_warnings(data, size, &kept);
        if (warnings > 0) {
            mark("warning-alerts:" + std::to_string(warnings));
            if (kept.empty()) {
                in_ = nullptr;
                in_size_ = 0;
                return Error();
            }
            in_ = reinterpret_cast<const uint8_t*>(kept.data());
            in_size_ = kept.size();
        }
        Error err = drive(now);
        in_ = nullptr;
        in_size_ = 0;
        if (err.failed()) return SRS_WRAP(err, "dtls datagram of %zu bytes", size);
        return Error();
    }

    // Connected: OpenSSL answers a peer's resent Finished (it missed our last
    // flight) by resending that flight itself. WebRTC sends no application
    // data over DTLS (without data channels), so any is dropped.
    written_ = 0;
    ERR_clear_error();
    unsigned char buf[2048];
    SSL_alloc_buffers(ssl_);  // freed between datagrams (see after_handshake)
    int r = SSL_read(ssl_, buf, sizeof(buf));
    int e = r > 0 ? SSL_ERROR_NONE : SSL_get_error(ssl_, r);
    SSL_free_buffers(ssl_);  // as after the handshake: nothing is pending between datagrams
    in_ = nullptr;
    in_size_ = 0;
    if (written_ > 0) mark("resend-final");
    if (e == SSL_ERROR_ZERO_RETURN || (SSL_get_shutdown(ssl_) & SSL_RECEIVED_SHUTDOWN)) {
        state_ = DtlsState::kClosed;
        next_timeout_ = kDtlsNoTimeout;
        mark("close_notify:received");
        return Error();
    }
    if (r <= 0 && e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
        return fail(SRS_ERR(kErrorDtlsHandshake, "read after connect: ssl_error=%d %s", e, openssl_errors().c_str()));
    }
    return Error();
}

Error DtlsEndpoint::handle_timeout(utime_t now) {
    if (state_ != DtlsState::kConnecting || now < next_timeout_) return Error();
    if (retransmits_ >= kDtlsMaxRetransmits) {
        return fail(SRS_ERR(kErrorDtlsTimeout, "no answer after %d retransmissions of flight %d", retransmits_,
                            flights_));
    }
    written_ = 0;
    ERR_clear_error();
    // OpenSSL rebuilds the flight's records (new sequence numbers) and asks
    // next_period() for the doubled period; 0 means its timer is not due yet.
    int r = DTLSv1_handle_timeout(ssl_);
    if (r < 0) {
        return fail(SRS_ERR(kErrorDtlsHandshake, "resend flight %d: %s", flights_, openssl_errors().c_str()));
    }
    follow_openssl_timer(now);
    return Error();
}

Error DtlsEndpoint::close() {
    if (state_ == DtlsState::kNew) {
        state_ = DtlsState::kClosed;
        return Error();
    }
    if (close_sent_ || !ssl_) {
        state_ = DtlsState::kClosed;
        return Error();
    }
    close_sent_ = true;
    next_timeout_ = kDtlsNoTimeout;
    ERR_clear_error();
    bool was_connected = state_ == DtlsState::kConnected;
    if (was_connected) {
        // OpenSSL 3's DTLS writer does not bring back freed buffers itself.
        SSL_alloc_buffers(ssl_);
        written_ = 0;
        SSL_shutdown(ssl_);  // queues close_notify; the peer's is not awaited
        mark("close_notify:sent");
    }
    if (state_ != DtlsState::kFailed) state_ = DtlsState::kClosed;
    return Error();
}

}  // namespace srs

// DTLS 1.2 for WebRTC (RFC 6347, RFC 5763, RFC 5764), without I/O.
//
// A DtlsEndpoint is one session's DTLS, driven only by calls: datagrams and the
// clock go in (handle_datagram, handle_timeout), datagrams to send come out
// (pop_datagram) and next_timeout() says when to call handle_timeout. OpenSSL
// reads and writes through a BIO that only touches this object's memory.
//
// Guarantees:
// - Retransmissions are OpenSSL's own (DTLSv1_handle_timeout): every resent
//   record has a new sequence number (RFC 6347 4.1, 4.2.4), as peers that keep
//   a replay window (pion, BoringSSL) require. OpenSSL asks this object for the
//   period through its timer callback (1 s, doubling to 8 s); after
//   kDtlsMaxRetransmits resends of one flight the handshake fails.
// - next_timeout() is on the clock given as `now`. OpenSSL's gate on a resend
//   reads the wall clock (gettimeofday), so after every call the time OpenSSL
//   has left is carried over onto the given clock: the two never disagree by
//   more than OpenSSL's 15 ms slack, and handle_timeout() never resends early.
// - Both sides send a certificate (the server asks for the client's) and the
//   peer's SHA-256 fingerprint must equal the one given from the SDP; otherwise
//   a fatal alert is sent and the state is failed (the peer fails on the alert).
// - On connect, the SRTP profile (AEAD_AES_128_GCM preferred, else
//   AES128_CM_SHA1_80) and its keying material (RFC 5764 section 4.2) are ready.
// - close_notify received moves to closed; close() sends one.
// - Each datagram handed out holds whole DTLS records and is at most the MTU
//   (kDtlsMtu) plus OpenSSL's slack for one record.
//
// Use:
//   auto cert = ...DtlsCertificate::create(DtlsKeyType::kEcdsaP256, &cert)...;
//   DtlsEndpoint ep(cert, DtlsRole::kServer, remote_fingerprint_from_sdp);
//   if (Error err = ep.start(now); err.failed()) ...;
//   on a datagram: ep.handle_datagram(p, n, now); then drain ep.pop_datagram(&out)
//   at ep.next_timeout(): ep.handle_timeout(now); then drain again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "core/error.hpp"

struct ssl_st;
struct ssl_ctx_st;
struct x509_st;
struct evp_pkey_st;
struct bio_st;

namespace srs {

constexpr size_t kDtlsMtu = 1200;
constexpr int kDtlsMaxRetransmits = 6;
constexpr utime_t kDtlsInitialRto = 1 * kUsPerSecond;
constexpr utime_t kDtlsMaxRto = 8 * kUsPerSecond;
constexpr utime_t kDtlsNoTimeout = INT64_MAX;

enum class DtlsKeyType { kEcdsaP256, kRsa2048 };
enum class DtlsRole { kServer, kClient };  // server = a=setup:passive, client = active
enum class DtlsState { kNew, kConnecting, kConnected, kFailed, kClosed };

const char* dtls_state_name(DtlsState state);

// "AB:CD:..." (uppercase hex, colon separated): the SHA-256 of the DER certificate.
std::string dtls_fingerprint_sha256(x509_st* cert);

// A self-signed certificate and its key, made once at start and shared by all
// endpoints. Immutable after create().
class DtlsCertificate {
  public:
    static Error create(DtlsKeyType type, std::shared_ptr<DtlsCertificate>* out);
    ~DtlsCertificate();
    DtlsCertificate(const DtlsCertificate&) = delete;
    DtlsCertificate& operator=(const DtlsCertificate&) = delete;

    const std::string& fingerprint() const { return fingerprint_; }
    DtlsKeyType type() const { return type_; }
    x509_st* x509() const { return x509_; }
    evp_pkey_st* pkey() const { return pkey_; }
    // The DTLS 1.2 context every endpoint of this certificate uses.
    ssl_ctx_st* context() const { return ctx_; }

  private:
    DtlsCertificate() = default;
    DtlsKeyType type_ = DtlsKeyType::kEcdsaP256;
    x509_st* x509_ = nullptr;
    evp_pkey_st* pkey_ = nullptr;
    ssl_ctx_st* ctx_ = nullptr;
    std::string fingerprint_;
};

// What SRTP needs once connected.
struct DtlsSrtpKeys {
    std::string profile;  // "SRTP_AEAD_AES_128_GCM" or "SRTP_AES128_CM_SHA1_80"
    uint16_t profile_id = 0;
    std::string client_key, client_salt;  // the active side's write key
    std::string server_key, server_salt;  // the passive side's write key
};

class DtlsEndpoint {
  public:
    // remote_fingerprint: the SHA-256 fingerprint from the peer's SDP, hex with
    // colons, either case.
    DtlsEndpoint(std::shared_ptr<DtlsCertificate> cert, DtlsRole role, std::string remote_fingerprint);
    ~DtlsEndpoint();
    DtlsEndpoint(const DtlsEndpoint&) = delete;
    DtlsEndpoint& operator=(const DtlsEndpoint&) = delete;

    // Makes the OpenSSL session; the client queues its ClientHello.
    Error start(utime_t now);
    // One received datagram (already demuxed as DTLS: first byte 20..63).
    Error handle_datagram(const uint8_t* data, size_t size, utime_t now);
    // Resends the last flight when the timer is due; fails after the limit.
    Error handle_timeout(utime_t now);
    // When handle_timeout should next be called; kDtlsNoTimeout when idle.
    utime_t next_timeout() const { return next_timeout_; }
    // Sends close_notify (once) and moves to closed.
    Error close();

    bool pop_datagram(std::string* out);
    size_t pending_datagrams() const { return out_.size(); }

    DtlsState state() const { return state_; }
    DtlsRole role() const { return role_; }
    const DtlsSrtpKeys& srtp_keys() const { return keys_; }
    const std::string& peer_fingerprint() const { return peer_fingerprint_; }
    int retransmits() const { return retransmits_; }
    // Handshake milestones for logs, e.g. "start,flight1,recv,flight2,...,connected".
    std::string milestones() const;

    // The custom BIO's and OpenSSL's hooks (not for callers).
    int bio_write(const char* data, int size);
    int bio_read(char* data, int size);
    bool check_peer(x509_st* cert);
    // OpenSSL's timer callback: previous_us is 0 when a flight's timer starts,
    // else the period that just expired. Returns the next period.
    unsigned int next_period(unsigned int previous_us);

  private:
    void mark(const std::string& milestone);
    Error drive(utime_t now);
    Error after_handshake();
    Error fail(Error err);
    // next_timeout_ := now + the time OpenSSL's retransmission timer has left.
    void follow_openssl_timer(utime_t now);

    std::shared_ptr<DtlsCertificate> cert_;
    DtlsRole role_;
    std::string expected_fingerprint_;
    std::string peer_fingerprint_;
    bool fingerprint_mismatch_ = false;

    ssl_st* ssl_ = nullptr;
    bio_st* bio_ = nullptr;

    DtlsState state_ = DtlsState::kNew;
    DtlsSrtpKeys keys_;
    bool close_sent_ = false;

    const uint8_t* in_ = nullptr;  // the datagram being read, whole
    size_t in_size_ = 0;
    std::deque<std::string> out_;
    size_t written_ = 0;  // datagrams written during the current call

    utime_t next_timeout_ = kDtlsNoTimeout;
    utime_t rto_ = kDtlsInitialRto;
    int retransmits_ = 0;      // of the current flight
    bool resent_ = false;      // OpenSSL resent a flight during the current call
    int flights_ = 0;
    std::vector<std::string> milestones_;
};

}  // namespace srs

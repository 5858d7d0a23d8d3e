#include "kernel/stun/stun.hpp"

#include <arpa/inet.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <array>
#include <cstring>

#include "core/bytes.hpp"

namespace srs {

namespace {

constexpr size_t kAttrHeader = 4;
constexpr size_t kIntegrityAttr = kAttrHeader + kStunIntegritySize;  // 24
constexpr size_t kFingerprintAttr = kAttrHeader + 4;                  // 8

constexpr size_t padded(size_t n) { return (n + 3) & ~static_cast<size_t>(3); }

// ---- CRC-32 (reflected 0xEDB88320), table built at compile time ----
constexpr std::array<uint32_t, 256> make_crc_table() {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        t[i] = c;
    }
    return t;
}
constexpr std::array<uint32_t, 256> kCrcTable = make_crc_table();

// ---- HMAC-SHA1 through OpenSSL 3's EVP_MAC; one context per thread, re-keyed
// on every call, so a packet costs no allocation.
class HmacSha1 {
  public:
    HmacSha1() {
        mac_ = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
        if (mac_) ctx_ = EVP_MAC_CTX_new(mac_);
    }
    ~HmacSha1() {
        EVP_MAC_CTX_free(ctx_);
        EVP_MAC_free(mac_);
    }
    HmacSha1(const HmacSha1&) = delete;
    HmacSha1& operator=(const HmacSha1&) = delete;

    // out = HMAC-SHA1(key, a || b). False when OpenSSL fails.
    bool compute(std::string_view key, const uint8_t* a, size_t an, const uint8_t* b, size_t bn,
                 uint8_t out[kStunIntegritySize]) {
        if (!ctx_) return false;
        static const uint8_t kEmpty = 0;
        const uint8_t* k = key.empty() ? &kEmpty : reinterpret_cast<const uint8_t*>(key.data());
        char digest[] = "SHA1";
        OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                               OSSL_PARAM_construct_end()};
        if (EVP_MAC_init(ctx_, k, key.size(), params) != 1) return false;
        if (an && EVP_MAC_update(ctx_, a, an) != 1) return false;
        if (bn && EVP_MAC_update(ctx_, b, bn) != 1) return false;
        size_t outl = 0;
        if (EVP_MAC_final(ctx_, out, &outl, kStunIntegritySize) != 1) return false;
        return outl == kStunIntegritySize;
    }

  private:
    EVP_MAC* mac_ = nullptr;
    EVP_MAC_CTX* ctx_ = nullptr;
};

bool hmac_sha1(std::string_view key, const uint8_t* a, size_t an, const uint8_t* b, size_t bn,
               uint8_t out[kStunIntegritySize]) {
    thread_local HmacSha1 h;
    return h.compute(key, a, an, b, bn, out);
}

// Constant-time comparison (the integrity check compares a secret-derived MAC).
bool equal_ct(const uint8_t* a, const uint8_t* b, size_t n) {
    uint8_t d = 0;
    for (size_t i = 0; i < n; i++) d |= a[i] ^ b[i];
    return d == 0;
}

// XOR-MAPPED-ADDRESS value (RFC 5389 15.2):
//   | 0x00 | family (1 or 2) | port ^ 0x2112 |
//   | address ^ cookie (IPv4) or ^ (cookie || transaction id) (IPv6) |
Error decode_xor_address(const uint8_t* v, size_t len, const uint8_t* tid, StunAddress* out) {
    uint8_t family = len >= 2 ? v[1] : 0;
    size_t want = family == StunAddress::kIpv4 ? 8 : family == StunAddress::kIpv6 ? 20 : 0;
    if (want == 0) return SRS_ERR(kErrorStunBadAttribute, "stun xor-mapped-address family %u", family);
    if (len != want) return SRS_ERR(kErrorStunBadAttribute, "stun xor-mapped-address of %zu bytes for family %u", len, family);
    out->family = static_cast<StunAddress::Family>(family);
    out->port = static_cast<uint16_t>(load_be16(v + 2) ^ (kStunMagicCookie >> 16));
    uint8_t mask[16];
    store_be32(mask, kStunMagicCookie);
    memcpy(mask + 4, tid, kStunTransactionIdSize);
    memset(out->ip, 0, sizeof(out->ip));
    for (size_t i = 0; i < want - 4; i++) out->ip[i] = v[4 + i] ^ mask[i];
    return Error();
}

}  // namespace

// ---- StunAddress ----

StunAddress StunAddress::ipv4(uint32_t host_order_ip, uint16_t port) {
    StunAddress a;
    a.family = kIpv4;
    store_be32(a.ip, host_order_ip);
    a.port = port;
    return a;
}

StunAddress StunAddress::ipv6(const uint8_t ip[16], uint16_t port) {
    StunAddress a;
    a.family = kIpv6;
    memcpy(a.ip, ip, 16);
    a.port = port;
    return a;
}

std::string StunAddress::to_string() const {
    char buf[INET6_ADDRSTRLEN] = {};
    if (family == kIpv4) {
        inet_ntop(AF_INET, ip, buf, sizeof(buf));
        return std::string(buf) + ":" + std::to_string(port);
    }
    if (family == kIpv6) {
        inet_ntop(AF_INET6, ip, buf, sizeof(buf));
        return "[" + std::string(buf) + "]:" + std::to_string(port);
    }
    return "";
}

bool StunAddress::operator==(const StunAddress& o) const {
    return family == o.family && port == o.port && memcmp(ip, o.ip, sizeof(ip)) == 0;
}

// ---- decode ----

Error StunMessage::decode(const uint8_t* data, size_t size) {
    *this = StunMessage();
    if (size < kStunHeaderSize) return SRS_ERR(kErrorStunTruncated, "stun message of %zu bytes, header needs 20", size);
    type = load_be16(data);
    if (type & 0xC000) return SRS_ERR(kErrorStunNotStun, "stun type 0x%04x has the top bits set", type);
    length = load_be16(data + 2);
    uint32_t cookie = load_be32(data + 4);
    if (cookie != kStunMagicCookie) return SRS_ERR(kErrorStunBadCookie, "stun magic cookie 0x%08x", cookie);
    if (length % 4) return SRS_ERR(kErrorStunBadLength, "stun length %u not a multiple of 4", length);
    if (kStunHeaderSize + length != size)
        return SRS_ERR(kErrorStunBadLength, "stun length %u but the datagram has %zu bytes after the header", length,
                       size - kStunHeaderSize);
    memcpy(transaction_id, data + 8, kStunTransactionIdSize);

    size_t off = kStunHeaderSize;
    while (off < size) {
        if (size - off < kAttrHeader) return SRS_ERR(kErrorStunAttributeOverrun, "stun attribute header at %zu", off);
        uint16_t at = load_be16(data + off);
        size_t len = load_be16(data + off + 2);
        if (padded(len) > size - off - kAttrHeader)
            return SRS_ERR(kErrorStunAttributeOverrun, "stun attribute 0x%04x of %zu bytes at %zu runs past %zu", at, len,
                           off, size);
        if (fingerprint_offset)
            return SRS_ERR(kErrorStunFingerprintNotLast, "stun attribute 0x%04x after FINGERPRINT", at);
        if (integrity_offset && at != kStunAttrFingerprint)
            return SRS_ERR(kErrorStunIntegrityNotLast, "stun attribute 0x%04x after MESSAGE-INTEGRITY", at);
        const uint8_t* v = data + off + kAttrHeader;
        switch (at) {
            case kStunAttrUsername:
                if (len > kStunMaxUsername) return SRS_ERR(kErrorStunBadAttribute, "stun username of %zu bytes", len);
                if (!has_username) {
                    has_username = true;
                    username = std::string_view(reinterpret_cast<const char*>(v), len);
                }
                break;
            case kStunAttrSoftware:
                if (len > kStunMaxSoftware) return SRS_ERR(kErrorStunBadAttribute, "stun software of %zu bytes", len);
                if (!has_software) {
                    has_software = true;
                    software = std::string_view(reinterpret_cast<const char*>(v), len);
                }
                break;
            case kStunAttrMessageIntegrity:
                if (len != kStunIntegritySize)
                    return SRS_ERR(kErrorStunBadAttribute, "stun message-integrity of %zu bytes", len);
                integrity_offset = off;
                break;
            case kStunAttrFingerprint:
                if (len != 4) return SRS_ERR(kErrorStunBadAttribute, "stun fingerprint of %zu bytes", len);
                fingerprint_offset = off;
                break;
            case kStunAttrPriority:
                if (len != 4) return SRS_ERR(kErrorStunBadAttribute, "stun priority of %zu bytes", len);
                if (!has_priority) {
                    has_priority = true;
                    priority = load_be32(v);
                }
                break;
            case kStunAttrUseCandidate:
                if (len != 0) return SRS_ERR(kErrorStunBadAttribute, "stun use-candidate of %zu bytes", len);
                use_candidate = true;
                break;
            case kStunAttrIceControlling:
                if (len != 8) return SRS_ERR(kErrorStunBadAttribute, "stun ice-controlling of %zu bytes", len);
                if (!has_ice_controlling) {
                    has_ice_controlling = true;
                    ice_controlling = load_be64(v);
                }
                break;
            case kStunAttrIceControlled:
                if (len != 8) return SRS_ERR(kErrorStunBadAttribute, "stun ice-controlled of %zu bytes", len);
                if (!has_ice_controlled) {
                    has_ice_controlled = true;
                    ice_controlled = load_be64(v);
                }
                break;
            case kStunAttrXorMappedAddress:
                if (!has_xor_mapped_address) {
                    if (Error err = decode_xor_address(v, len, transaction_id, &xor_mapped_address); !err.ok())
                        return err;
                    has_xor_mapped_address = true;
                }
                break;
            case kStunAttrErrorCode: {
                // | 21 reserved bits | class (3 bits) | number (8 bits) | reason (UTF-8) |
                if (len < 4 || len - 4 > kStunMaxReason)
                    return SRS_ERR(kErrorStunBadAttribute, "stun error-code of %zu bytes", len);
                int cls = v[2] & 0x07, number = v[3];
                if (cls < 3 || cls > 6 || number > 99)
                    return SRS_ERR(kErrorStunBadAttribute, "stun error-code class %d number %d", cls, number);
                if (!has_error_code) {
                    has_error_code = true;
                    error_code = cls * 100 + number;
                    error_reason = std::string_view(reinterpret_cast<const char*>(v + 4), len - 4);
                }
                break;
            }
            default:
                if (at < 0x8000 && unknown_required == 0) unknown_required = at;
                break;
        }
        off += kAttrHeader + padded(len);
    }
    return Error();
}

// ---- verify ----

Error stun_verify_integrity(const StunMessage& msg, const uint8_t* data, std::string_view key) {
    if (!msg.has_integrity()) return SRS_ERR(kErrorStunNoIntegrity, "stun message has no message-integrity");
    size_t off = msg.integrity_offset;
    // The header as it was when the sender computed the HMAC: length up to and
    // including MESSAGE-INTEGRITY (later attributes, i.e. FINGERPRINT, not counted).
    uint8_t header[kStunHeaderSize];
    memcpy(header, data, kStunHeaderSize);
    store_be16(header + 2, static_cast<uint16_t>(off + kIntegrityAttr - kStunHeaderSize));
    uint8_t mac[kStunIntegritySize];
    if (!hmac_sha1(key, header, kStunHeaderSize, data + kStunHeaderSize, off - kStunHeaderSize, mac))
        return SRS_ERR(kErrorStunCrypto, "stun hmac-sha1 failed");
    if (!equal_ct(mac, data + off + kAttrHeader, kStunIntegritySize))
        return SRS_ERR(kErrorStunIntegrityMismatch, "stun message-integrity mismatch");
    return Error();
}

Error stun_verify_integrity(const uint8_t* data, size_t size, std::string_view key) {
    StunMessage msg;
    if (Error err = msg.decode(data, size); !err.ok()) return err;
    return stun_verify_integrity(msg, data, key);
}

Error stun_verify_fingerprint(const StunMessage& msg, const uint8_t* data) {
    if (!msg.has_fingerprint()) return SRS_ERR(kErrorStunNoFingerprint, "stun message has no fingerprint");
    // FINGERPRINT is last, so the header length already counts it, as the sender's did.
    size_t off = msg.fingerprint_offset;
    uint32_t want = stun_crc32(data, off) ^ kStunFingerprintXor;
    uint32_t got = load_be32(data + off + kAttrHeader);
    if (want != got) return SRS_ERR(kErrorStunFingerprintMismatch, "stun fingerprint 0x%08x, computed 0x%08x", got, want);
    return Error();
}

Error stun_verify_fingerprint(const uint8_t* data, size_t size) {
    StunMessage msg;
    if (Error err = msg.decode(data, size); !err.ok()) return err;
    return stun_verify_fingerprint(msg, data);
}

uint32_t stun_crc32(const uint8_t* data, size_t size) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < size; i++) c = kCrcTable[(c ^ data[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

// ---- encode ----

namespace {

// Appends attributes to a buffer already checked to be large enough.
class AttrWriter {
  public:
    AttrWriter(uint8_t* buf, uint8_t padding) : buf_(buf), off_(kStunHeaderSize), padding_(padding) {}

    uint8_t* begin(uint16_t type, size_t len) {
        store_be16(buf_ + off_, type);
        store_be16(buf_ + off_ + 2, static_cast<uint16_t>(len));
        uint8_t* v = buf_ + off_ + kAttrHeader;
        size_t pad = padded(len) - len;
        if (pad) memset(v + len, padding_, pad);
        off_ += kAttrHeader + padded(len);
        return v;
    }
    void bytes(uint16_t type, std::string_view s) {
        uint8_t* v = begin(type, s.size());
        if (!s.empty()) memcpy(v, s.data(), s.size());
    }
    void u32(uint16_t type, uint32_t x) { store_be32(begin(type, 4), x); }
    void u64(uint16_t type, uint64_t x) { store_be64(begin(type, 8), x); }

    // MESSAGE-INTEGRITY then FINGERPRINT; returns the message size.
    bool finish(std::string_view key, size_t* size) {
        // The header length counts up to MESSAGE-INTEGRITY while it is computed.
        store_be16(buf_ + 2, static_cast<uint16_t>(off_ + kIntegrityAttr - kStunHeaderSize));
        size_t mi = off_;
        uint8_t* mac = begin(kStunAttrMessageIntegrity, kStunIntegritySize);
        if (!hmac_sha1(key, buf_, mi, nullptr, 0, mac)) return false;
        store_be16(buf_ + 2, static_cast<uint16_t>(off_ + kFingerprintAttr - kStunHeaderSize));
        size_t fp = off_;
        uint8_t* v = begin(kStunAttrFingerprint, 4);
        store_be32(v, stun_crc32(buf_, fp) ^ kStunFingerprintXor);
        *size = off_;
        return true;
    }

  private:
    uint8_t* buf_;
    size_t off_;
    uint8_t padding_;
};

void write_header(uint8_t* buf, uint16_t type, const uint8_t* tid) {
    store_be16(buf, type);
    store_be16(buf + 2, 0);
    store_be32(buf + 4, kStunMagicCookie);
    memcpy(buf + 8, tid, kStunTransactionIdSize);
}

size_t address_value_size(const StunAddress& a) {
    return a.family == StunAddress::kIpv4 ? 8 : a.family == StunAddress::kIpv6 ? 20 : 0;
}

size_t software_size(std::string_view s) { return s.empty() ? 0 : kAttrHeader + padded(s.size()); }

}  // namespace

size_t stun_encoded_size(const StunBindingResponse& r) {
    return kStunHeaderSize + software_size(r.software) + kAttrHeader + address_value_size(r.mapped) + kIntegrityAttr +
           kFingerprintAttr;
}

size_t stun_encoded_size(const StunBindingRequest& r) {
    return kStunHeaderSize + software_size(r.software) + kAttrHeader + 4  // PRIORITY
           + kAttrHeader + 8                                              // ICE-CONTROLLING/ED
           + (r.use_candidate ? kAttrHeader : 0) + kAttrHeader + padded(r.username.size()) + kIntegrityAttr +
           kFingerprintAttr;
}

size_t stun_encoded_size(const StunBindingErrorResponse& r) {
    return kStunHeaderSize + software_size(r.software) + kAttrHeader + padded(4 + r.reason.size()) + kIntegrityAttr +
           kFingerprintAttr;
}

Error stun_encode(const StunBindingResponse& r, uint8_t* buf, size_t capacity, size_t* written) {
    size_t alen = address_value_size(r.mapped);
    if (alen == 0) return SRS_ERR(kErrorStunBadArgument, "stun response without a mapped address family");
    if (r.software.size() > kStunMaxSoftware)
        return SRS_ERR(kErrorStunBadArgument, "stun software of %zu bytes", r.software.size());
    size_t need = stun_encoded_size(r);
    if (capacity < need) return SRS_ERR(kErrorStunBufferTooSmall, "stun response needs %zu bytes, %zu given", need, capacity);

    write_header(buf, kStunBindingSuccess, r.transaction_id);
    AttrWriter w(buf, r.padding);
    if (!r.software.empty()) w.bytes(kStunAttrSoftware, r.software);
    uint8_t* v = w.begin(kStunAttrXorMappedAddress, alen);
    v[0] = 0;
    v[1] = r.mapped.family;
    store_be16(v + 2, static_cast<uint16_t>(r.mapped.port ^ (kStunMagicCookie >> 16)));
    uint8_t mask[16];
    store_be32(mask, kStunMagicCookie);
    memcpy(mask + 4, r.transaction_id, kStunTransactionIdSize);
    for (size_t i = 0; i < alen - 4; i++) v[4 + i] = r.mapped.ip[i] ^ mask[i];
    if (!w.finish(r.password, written)) return SRS_ERR(kErrorStunCrypto, "stun hmac-sha1 failed");
    return Error();
}

Error stun_encode(const StunBindingRequest& r, uint8_t* buf, size_t capacity, size_t* written) {
    if (r.username.size() > kStunMaxUsername)
        return SRS_ERR(kErrorStunBadArgument, "stun username of %zu bytes", r.username.size());
    if (r.software.size() > kStunMaxSoftware)
        return SRS_ERR(kErrorStunBadArgument, "stun software of %zu bytes", r.software.size());
    size_t need = stun_encoded_size(r);
    if (capacity < need) return SRS_ERR(kErrorStunBufferTooSmall, "stun request needs %zu bytes, %zu given", need, capacity);

    write_header(buf, kStunBindingRequest, r.transaction_id);
    AttrWriter w(buf, r.padding);
    if (!r.software.empty()) w.bytes(kStunAttrSoftware, r.software);
    w.u32(kStunAttrPriority, r.priority);
    w.u64(r.controlling ? kStunAttrIceControlling : kStunAttrIceControlled, r.tie_breaker);
    if (r.use_candidate) w.begin(kStunAttrUseCandidate, 0);
    w.bytes(kStunAttrUsername, r.username);
    if (!w.finish(r.password, written)) return SRS_ERR(kErrorStunCrypto, "stun hmac-sha1 failed");
    return Error();
}

Error stun_encode(const StunBindingErrorResponse& r, uint8_t* buf, size_t capacity, size_t* written) {
    if (r.code < 300 || r.code > 699) return SRS_ERR(kErrorStunBadArgument, "stun error code %d", r.code);
    if (r.reason.size() > kStunMaxReason)
        return SRS_ERR(kErrorStunBadArgument, "stun reason of %zu bytes", r.reason.size());
    if (r.software.size() > kStunMaxSoftware)
        return SRS_ERR(kErrorStunBadArgument, "stun software of %zu bytes", r.software.size());
    size_t need = stun_encoded_size(r);
    if (capacity < need) {
        return SRS_ERR(kErrorStunBufferTooSmall, "stun error response needs %zu bytes, %zu given", need, capacity);
    }
    write_header(buf, kStunBindingError, r.transaction_id);
    AttrWriter w(buf, r.padding);
    if (!r.software.empty()) w.bytes(kStunAttrSoftware, r.software);
    // ERROR-CODE: 21 zero bits, the class (hundreds) in 3 bits, the number (0..99) in a byte, the reason.
    uint8_t* v = w.begin(kStunAttrErrorCode, 4 + r.reason.size());
    v[0] = 0;
    v[1] = 0;
    v[2] = static_cast<uint8_t>(r.code / 100);
    v[3] = static_cast<uint8_t>(r.code % 100);
    if (!r.reason.empty()) memcpy(v + 4, r.reason.data(), r.reason.size());
    if (!w.finish(r.password, written)) return SRS_ERR(kErrorStunCrypto, "stun hmac-sha1 failed");
    return Error();
}

}  // namespace srs

// libFuzzer target for kernel/stun: decode any datagram, run both verifiers
// on what decodes, and for a decoded message answer it the way ICE-lite would
// (a binding response to its transaction id) and re-encode it as a request;
// both encodings must decode again, verify, and carry the same fields.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "kernel/demux.hpp"
#include "kernel/stun/stun.hpp"

using namespace srs;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    StunMessage msg;
    Error err = msg.decode(data, size);
    if (!err.ok()) {
        err.ignore();
        return 0;
    }
    // The top two bits of a decoded message are 0. (RFC 7983's demux range 0..3 is
    // narrower: it assumes methods below 0x100, so is_stun() may say no here.)
    if (data[0] & 0xC0) abort();
    if (is_stun(data[0]) != (stun_method(msg.type) < 0x100)) abort();

    const char* key = "VOkJxbRl1RmTxUk/WvJxBt";
    stun_verify_integrity(msg, data, key).ignore();
    stun_verify_fingerprint(msg, data).ignore();
    // The raw-bytes forms decode again and must agree on whether MI/FP exist.
    int c1 = 0, c2 = 0;
    {
        Error e = stun_verify_fingerprint(data, size);
        c1 = e.ok() ? 0 : e.code();
        e.ignore();
        Error e2 = stun_verify_fingerprint(msg, data);
        c2 = e2.ok() ? 0 : e2.code();
        e2.ignore();
    }
    if (c1 != c2) abort();

    uint8_t buf[1024];
    size_t n = 0;

    StunBindingResponse res;
    memcpy(res.transaction_id, msg.transaction_id, kStunTransactionIdSize);
    res.mapped = msg.has_xor_mapped_address ? msg.xor_mapped_address : StunAddress::ipv4(0x7f000001, 8000);
    res.password = key;
    res.software = msg.software;
    if (!stun_encode(res, buf, sizeof(buf), &n).ok()) abort();
    StunMessage back;
    if (!back.decode(buf, n).ok()) abort();
    if (!(back.xor_mapped_address == res.mapped) || back.software != msg.software) abort();
    if (memcmp(back.transaction_id, msg.transaction_id, kStunTransactionIdSize) != 0) abort();
    if (!stun_verify_integrity(back, buf, key).ok() || !stun_verify_fingerprint(back, buf).ok()) abort();

    StunBindingRequest req;
    memcpy(req.transaction_id, msg.transaction_id, kStunTransactionIdSize);
    req.username = msg.username;
    req.password = key;
    req.priority = msg.priority;
    req.controlling = msg.has_ice_controlling;
    req.tie_breaker = msg.has_ice_controlling ? msg.ice_controlling : msg.ice_controlled;
    req.use_candidate = msg.use_candidate;
    if (!stun_encode(req, buf, sizeof(buf), &n).ok()) abort();
    if (!back.decode(buf, n).ok()) abort();
    if (back.username != msg.username || back.priority != msg.priority || back.use_candidate != msg.use_candidate) abort();
    if (!stun_verify_integrity(buf, n, key).ok() || !stun_verify_fingerprint(buf, n).ok()) abort();
    return 0;
}

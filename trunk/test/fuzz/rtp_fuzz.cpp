// libFuzzer target for kernel/rtp/rtp: parse a packet; when it parses, check
// that the pieces add up to the packet, that writing the header again from the
// parsed fields and elements parses back to the same fields and element bytes,
// and that the in-place rewrites change only their field.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "kernel/rtp/rtp.hpp"

using namespace srs;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    RtpHeader h;
    Error err = rtp_parse_header(data, size, &h);
    if (!err.ok()) {
        err.ignore();
        return 0;
    }
    if (h.header_size + h.payload_size + h.padding_size != size) abort();
    for (int i = 0; i < h.extension_count; ++i) {
        const RtpExtensionElement& e = h.extensions[i];
        if (e.offset < h.extension_offset || e.offset + e.size > h.extension_offset + h.extension_size) abort();
    }

    // Write the header again (one- and two-byte forms only) and parse it back.
    if (h.form != RtpExtensionForm::kOther) {
        std::vector<RtpExtensionData> ext;
        for (int i = 0; i < h.extension_count; ++i)
            ext.push_back({h.extensions[i].id, h.extensions[i].size, data + h.extensions[i].offset});
        std::vector<uint8_t> out(rtp_header_size(h, ext.data(), ext.size()));
        size_t n = 0;
        Error werr = rtp_write_header(h, ext.data(), ext.size(), out.data(), out.size(), &n);
        if (!werr.ok()) {
            // Parsed ids are never 0, CSRCs at most 15, PT at most 127: writing cannot fail.
            abort();
        }
        if (n != out.size()) abort();
        RtpHeader back;
        Error perr = rtp_parse_header(out.data(), n, &back);
        if (!perr.ok()) abort();
        if (back.marker != h.marker || back.payload_type != h.payload_type || back.sequence != h.sequence ||
            back.timestamp != h.timestamp || back.ssrc != h.ssrc || back.csrc_count != h.csrc_count)
            abort();
        if (memcmp(back.csrcs, h.csrcs, sizeof(h.csrcs)) != 0) abort();
        if (back.extension_count != h.extension_count || back.payload_size != 0) abort();
        for (int i = 0; i < h.extension_count; ++i) {
            const RtpExtensionElement& a = h.extensions[i];
            const RtpExtensionElement& b = back.extensions[i];
            if (a.id != b.id || a.size != b.size) abort();
            if (a.size && memcmp(data + a.offset, out.data() + b.offset, a.size) != 0) abort();
        }
    }

    // In-place rewrites on a copy.
    std::vector<uint8_t> copy(data, data + size);
    rtp_set_ssrc(copy.data(), ~h.ssrc);
    rtp_set_sequence(copy.data(), static_cast<uint16_t>(h.sequence + 1));
    rtp_set_timestamp(copy.data(), h.timestamp + 3000);
    rtp_set_payload_type(copy.data(), static_cast<uint8_t>(h.payload_type ^ 1));
    RtpHeader r;
    Error rerr = rtp_parse_header(copy.data(), copy.size(), &r);
    if (!rerr.ok()) abort();
    if (r.ssrc != ~h.ssrc || r.sequence != static_cast<uint16_t>(h.sequence + 1) || r.timestamp != h.timestamp + 3000 ||
        r.payload_type != (h.payload_type ^ 1) || r.marker != h.marker || r.header_size != h.header_size ||
        r.payload_size != h.payload_size)
        abort();
    if (memcmp(copy.data() + 12, data + 12, size - 12) != 0) abort();
    return 0;
}

#include "kernel/rtp/rtcp.hpp"

#include <limits>

#include "core/bytes.hpp"
#include "kernel/rtp/rtcp_internal.hpp"
#include "kernel/rtp/rtp.hpp"

namespace srs {

namespace rtcp_internal {

size_t begin_packet(std::string* out, uint8_t count, uint8_t type) {
    size_t start = out->size();
    out->push_back(static_cast<char>(0x80 | (count & 0x1f)));
    out->push_back(static_cast<char>(type));
    out->append(2, '\0');
    return start;
}

void end_packet(std::string* out, size_t start, bool pad_with_p) {
    size_t len = out->size() - start;
    size_t pad = (4 - len % 4) % 4;
    if (pad) {
        out->append(pad, '\0');
        if (pad_with_p) {
            (*out)[start] = static_cast<char>((*out)[start] | 0x20);
            (*out)[out->size() - 1] = static_cast<char>(pad);
        }
    }
    len = out->size() - start;
    store_be16(&(*out)[start + 2], static_cast<uint16_t>(len / 4 - 1));
}

void put32(std::string* out, uint32_t v) {
    char b[4];
    store_be32(b, v);
    out->append(b, 4);
}

void put16(std::string* out, uint16_t v) {
    char b[2];
    store_be16(b, v);
    out->append(b, 2);
}

}  // namespace rtcp_internal

using namespace rtcp_internal;

namespace {

Error validate(const RtcpPacketRef& p) {
    switch (p.type) {
        case kRtcpSr: {
            RtcpSenderReport sr;
            return rtcp_parse_sr(p, &sr);
        }
        case kRtcpRr: {
            RtcpReceiverReport rr;
            return rtcp_parse_rr(p, &rr);
        }
        case kRtcpSdes: {
            std::vector<RtcpSdesChunk> chunks;
            return rtcp_parse_sdes(p, &chunks);
        }
        case kRtcpBye: {
            RtcpBye bye;
            return rtcp_parse_bye(p, &bye);
        }
        case kRtcpApp:
            if (p.size < 12) return SRS_ERR(kErrorRtcpTooShort, "app %zu bytes", p.size);
            return Error();
        case kRtcpRtpfb:
            if (p.size < 12) return SRS_ERR(kErrorRtcpTooShort, "rtpfb %zu bytes", p.size);
            if (p.count == kRtcpFmtNack) {
                RtcpNack nack;
                return rtcp_parse_nack(p, &nack);
            }
            if (p.count == kRtcpFmtTwcc) {
                RtcpTwcc twcc;
                return rtcp_parse_twcc(p, &twcc);
            }
            return Error();
        case kRtcpPsfb:
            if (p.size < 12) return SRS_ERR(kErrorRtcpTooShort, "psfb %zu bytes", p.size);
            if (p.count == kRtcpFmtFir) {
                RtcpFir fir;
                return rtcp_parse_fir(p, &fir);
            }
            if (p.count == kRtcpFmtAfb) {
                RtcpRemb remb;
                bool is_remb = false;
                return rtcp_parse_remb(p, &remb, &is_remb);
            }
            return Error();
        case kRtcpXr: {
            RtcpXr xr;
            return rtcp_parse_xr(p, &xr);
        }
        default:
            return Error();
    }
}

void read_report_blocks(const uint8_t* q, int n, std::vector<RtcpReportBlock>* out) {
    out->resize(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i, q += 24) {
        RtcpReportBlock& b = (*out)[static_cast<size_t>(i)];
        b.ssrc = load_be32(q);
        b.fraction_lost = q[4];
        uint32_t lost = load_be24(q + 5);
        b.cumulative_lost = (lost & 0x800000) ? static_cast<int32_t>(lost) - 0x1000000 : static_cast<int32_t>(lost);
        b.highest_sequence = load_be32(q + 8);
        b.jitter = load_be32(q + 12);
        b.lsr = load_be32(q + 16);
        b.dlsr = load_be32(q + 20);
    }
}

void write_report_blocks(const std::vector<RtcpReportBlock>& blocks, size_t n, std::string* out) {
    for (size_t i = 0; i < n; ++i) {
        const RtcpReportBlock& b = blocks[i];
        put32(out, b.ssrc);
        put32(out, static_cast<uint32_t>(b.fraction_lost) << 24 | (static_cast<uint32_t>(b.cumulative_lost) & 0xffffff));
        put32(out, b.highest_sequence);
        put32(out, b.jitter);
        put32(out, b.lsr);
        put32(out, b.dlsr);
    }
}

}  // namespace

namespace {
Error split_compound(const uint8_t* data, size_t size, std::vector<RtcpPacketRef>* out) {
    if (size == 0) return SRS_ERR(kErrorRtcpTooShort, "empty rtcp");
    size_t pos = 0;
    while (pos < size) {
        size_t left = size - pos;
        if (left < 4) return SRS_ERR(kErrorRtcpTooShort, "rtcp header at %zu, %zu bytes left", pos, left);
        const uint8_t* p = data + pos;
        if ((p[0] >> 6) != 2) return SRS_ERR(kErrorRtcpVersion, "rtcp version %u at %zu", p[0] >> 6, pos);
        size_t len = 4u * (static_cast<size_t>(load_be16(p + 2)) + 1);
        if (len > left) return SRS_ERR(kErrorRtcpLength, "rtcp type %u of %zu bytes, %zu left", p[1], len, left);
        RtcpPacketRef ref;
        ref.type = p[1];
        ref.count = p[0] & 0x1f;
        ref.data = p;
        ref.size = len;
        if (p[0] & 0x20) {
            uint8_t pad = p[len - 1];
            if (pad == 0 || pad > len - 4) return SRS_ERR(kErrorRtcpPadding, "rtcp padding %u in %zu bytes", pad, len);
            ref.size = len - pad;
        }
        if (Error err = validate(ref); !err.ok())
            return SRS_WRAP(err, "rtcp type %u fmt %u at %zu", ref.type, ref.count, pos);
        out->push_back(ref);
        pos += len;
    }
    return Error();
}
}  // namespace

Error rtcp_parse_compound(const uint8_t* data, size_t size, std::vector<RtcpPacketRef>* out) {
    out->clear();
    Error err = split_compound(data, size, out);
    if (!err.ok()) out->clear();  // one broken part rejects the whole compound
    return err;
}

Error rtcp_parse_sr(const RtcpPacketRef& p, RtcpSenderReport* out) {
    if (p.size < 28) return SRS_ERR(kErrorRtcpTooShort, "sr %zu bytes", p.size);
    if (28 + 24u * p.count > p.size) return SRS_ERR(kErrorRtcpCount, "sr with %u reports in %zu bytes", p.count, p.size);
    const uint8_t* q = p.data;
    out->ssrc = load_be32(q + 4);
    out->ntp = load_be64(q + 8);
    out->rtp_timestamp = load_be32(q + 16);
    out->packet_count = load_be32(q + 20);
    out->octet_count = load_be32(q + 24);
    read_report_blocks(q + 28, p.count, &out->reports);
    return Error();
}

Error rtcp_parse_rr(const RtcpPacketRef& p, RtcpReceiverReport* out) {
    if (p.size < 8) return SRS_ERR(kErrorRtcpTooShort, "rr %zu bytes", p.size);
    if (8 + 24u * p.count > p.size) return SRS_ERR(kErrorRtcpCount, "rr with %u reports in %zu bytes", p.count, p.size);
    out->ssrc = load_be32(p.data + 4);
    read_report_blocks(p.data + 8, p.count, &out->reports);
    return Error();
}

Error rtcp_parse_sdes(const RtcpPacketRef& p, std::vector<RtcpSdesChunk>* out) {
    out->clear();
    const uint8_t* q = p.data;
    size_t pos = 4;
    for (int c = 0; c < p.count; ++c) {
        if (p.size - pos < 4) return SRS_ERR(kErrorRtcpSdes, "sdes chunk %d of %u past end", c, p.count);
        RtcpSdesChunk chunk;
        chunk.ssrc = load_be32(q + pos);
        pos += 4;
        while (true) {
            if (pos >= p.size) return SRS_ERR(kErrorRtcpSdes, "sdes chunk %d without end", c);
            uint8_t type = q[pos];
            if (type == 0) {
                // The item list ends; null bytes up to the next 32-bit boundary.
                pos = (pos + 4) & ~static_cast<size_t>(3);
                if (pos > p.size) return SRS_ERR(kErrorRtcpSdes, "sdes chunk %d padding past end", c);
                break;
            }
            if (p.size - pos < 2) return SRS_ERR(kErrorRtcpSdes, "sdes item %u without length", type);
            size_t len = q[pos + 1];
            if (p.size - pos - 2 < len) return SRS_ERR(kErrorRtcpSdes, "sdes item %u of %zu bytes past end", type, len);
            if (type == kRtcpSdesCname) chunk.cname.assign(reinterpret_cast<const char*>(q + pos + 2), len);
            pos += 2 + len;
        }
        out->push_back(std::move(chunk));
    }
    if (pos != p.size) return SRS_ERR(kErrorRtcpSdes, "sdes %zu bytes after %u chunks", p.size - pos, p.count);
    return Error();
}

Error rtcp_parse_bye(const RtcpPacketRef& p, RtcpBye* out) {
    out->ssrcs.clear();
    out->reason.clear();
    size_t need = 4 + 4u * p.count;
    if (need > p.size) return SRS_ERR(kErrorRtcpCount, "bye with %u sources in %zu bytes", p.count, p.size);
    for (int i = 0; i < p.count; ++i) out->ssrcs.push_back(load_be32(p.data + 4 + 4 * i));
    if (p.size > need) {
        size_t len = p.data[need];
        if (len > p.size - need - 1) return SRS_ERR(kErrorRtcpBye, "bye reason of %zu bytes past end", len);
        out->reason.assign(reinterpret_cast<const char*>(p.data + need + 1), len);
    }
    return Error();
}

Error rtcp_parse_nack(const RtcpPacketRef& p, RtcpNack* out) {
    out->lost.clear();
    if (p.size < 16 || (p.size - 12) % 4 != 0)
        return SRS_ERR(kErrorRtcpFeedback, "nack of %zu bytes", p.size);
    out->sender_ssrc = load_be32(p.data + 4);
    out->media_ssrc = load_be32(p.data + 8);
    for (size_t pos = 12; pos < p.size; pos += 4) {
        uint16_t pid = load_be16(p.data + pos);
        uint16_t blp = load_be16(p.data + pos + 2);
        out->lost.push_back(pid);
        for (int i = 0; i < 16; ++i) {
            if (blp & (1u << i)) out->lost.push_back(static_cast<uint16_t>(pid + i + 1));
        }
    }
    return Error();
}

Error rtcp_parse_pli(const RtcpPacketRef& p, RtcpPli* out) {
    if (p.size < 12) return SRS_ERR(kErrorRtcpFeedback, "pli of %zu bytes", p.size);
    out->sender_ssrc = load_be32(p.data + 4);
    out->media_ssrc = load_be32(p.data + 8);
    return Error();
}

Error rtcp_parse_fir(const RtcpPacketRef& p, RtcpFir* out) {
    out->entries.clear();
    if (p.size < 20 || (p.size - 12) % 8 != 0) return SRS_ERR(kErrorRtcpFeedback, "fir of %zu bytes", p.size);
    out->sender_ssrc = load_be32(p.data + 4);
    for (size_t pos = 12; pos < p.size; pos += 8) {
        RtcpFirEntry e;
        e.ssrc = load_be32(p.data + pos);
        e.seq = p.data[pos + 4];
        out->entries.push_back(e);
    }
    return Error();
}

Error rtcp_parse_remb(const RtcpPacketRef& p, RtcpRemb* out, bool* is_remb) {
    *is_remb = false;
    out->ssrcs.clear();
    if (p.size < 12) return SRS_ERR(kErrorRtcpFeedback, "afb of %zu bytes", p.size);
    if (p.size < 16 || p.data[12] != 'R' || p.data[13] != 'E' || p.data[14] != 'M' || p.data[15] != 'B') return Error();
    if (p.size < 20) return SRS_ERR(kErrorRtcpFeedback, "remb of %zu bytes", p.size);
    size_t n = p.data[16];
    if (20 + 4 * n > p.size) return SRS_ERR(kErrorRtcpFeedback, "remb with %zu ssrcs in %zu bytes", n, p.size);
    out->sender_ssrc = load_be32(p.data + 4);
    unsigned exp = p.data[17] >> 2;
    uint64_t mantissa = load_be24(p.data + 17) & 0x3ffff;
    if (mantissa != 0 && exp > 0 && mantissa > (std::numeric_limits<uint64_t>::max() >> exp))
        out->bitrate = std::numeric_limits<uint64_t>::max();
    else
        out->bitrate = mantissa << exp;
    for (size_t i = 0; i < n; ++i) out->ssrcs.push_back(load_be32(p.data + 20 + 4 * i));
    *is_remb = true;
    return Error();
}

Error rtcp_parse_xr(const RtcpPacketRef& p, RtcpXr* out) {
    out->rrtr_ntp.clear();
    out->dlrr.clear();
    out->skipped_blocks = 0;
    if (p.size < 8) return SRS_ERR(kErrorRtcpTooShort, "xr of %zu bytes", p.size);
    out->ssrc = load_be32(p.data + 4);
    size_t pos = 8;
    while (pos < p.size) {
        if (p.size - pos < 4) return SRS_ERR(kErrorRtcpXr, "xr block header at %zu past end", pos);
        uint8_t bt = p.data[pos];
        size_t len = 4u * load_be16(p.data + pos + 2);
        if (len > p.size - pos - 4) return SRS_ERR(kErrorRtcpXr, "xr block %u of %zu bytes past end", bt, len);
        const uint8_t* b = p.data + pos + 4;
        if (bt == 4) {
            if (len != 8) return SRS_ERR(kErrorRtcpXr, "xr rrtr of %zu bytes", len);
            out->rrtr_ntp.push_back(load_be64(b));
        } else if (bt == 5) {
            if (len % 12 != 0) return SRS_ERR(kErrorRtcpXr, "xr dlrr of %zu bytes", len);
            for (size_t i = 0; i < len; i += 12) {
                RtcpDlrrItem d;
                d.ssrc = load_be32(b + i);
                d.lrr = load_be32(b + i + 4);
                d.dlrr = load_be32(b + i + 8);
                out->dlrr.push_back(d);
            }
        } else {
            out->skipped_blocks++;
        }
        pos += 4 + len;
    }
    return Error();
}

void rtcp_build_sr(const RtcpSenderReport& sr, std::string* out) {
    size_t n = sr.reports.size() > kRtcpMaxReports ? kRtcpMaxReports : sr.reports.size();
    size_t start = begin_packet(out, static_cast<uint8_t>(n), kRtcpSr);
    put32(out, sr.ssrc);
    put32(out, static_cast<uint32_t>(sr.ntp >> 32));
    put32(out, static_cast<uint32_t>(sr.ntp));
    put32(out, sr.rtp_timestamp);
    put32(out, sr.packet_count);
    put32(out, sr.octet_count);
    write_report_blocks(sr.reports, n, out);
    end_packet(out, start, false);
}

void rtcp_build_rr(const RtcpReceiverReport& rr, std::string* out) {
    size_t n = rr.reports.size() > kRtcpMaxReports ? kRtcpMaxReports : rr.reports.size();
    size_t start = begin_packet(out, static_cast<uint8_t>(n), kRtcpRr);
    put32(out, rr.ssrc);
    write_report_blocks(rr.reports, n, out);
    end_packet(out, start, false);
}

void rtcp_build_sdes(const std::vector<RtcpSdesChunk>& chunks, std::string* out) {
    size_t n = chunks.size() > kRtcpMaxReports ? kRtcpMaxReports : chunks.size();
    size_t start = begin_packet(out, static_cast<uint8_t>(n), kRtcpSdes);
    for (size_t i = 0; i < n; ++i) {
        put32(out, chunks[i].ssrc);
        if (!chunks[i].cname.empty()) {
            size_t len = chunks[i].cname.size() > 255 ? 255 : chunks[i].cname.size();
            out->push_back(static_cast<char>(kRtcpSdesCname));
            out->push_back(static_cast<char>(len));
            out->append(chunks[i].cname.data(), len);
        }
        // The end item, then null bytes to the next 32-bit boundary.
        out->push_back('\0');
        while ((out->size() - start) % 4) out->push_back('\0');
    }
    end_packet(out, start, false);
}

void rtcp_build_bye(const RtcpBye& bye, std::string* out) {
    size_t n = bye.ssrcs.size() > kRtcpMaxReports ? kRtcpMaxReports : bye.ssrcs.size();
    size_t start = begin_packet(out, static_cast<uint8_t>(n), kRtcpBye);
    for (size_t i = 0; i < n; ++i) put32(out, bye.ssrcs[i]);
    if (!bye.reason.empty()) {
        size_t len = bye.reason.size() > 255 ? 255 : bye.reason.size();
        out->push_back(static_cast<char>(len));
        out->append(bye.reason.data(), len);
    }
    end_packet(out, start, false);
}

void rtcp_build_pli(uint32_t sender_ssrc, uint32_t media_ssrc, std::string* out) {
    size_t start = begin_packet(out, kRtcpFmtPli, kRtcpPsfb);
    put32(out, sender_ssrc);
    put32(out, media_ssrc);
    end_packet(out, start, false);
}

void rtcp_build_fir(uint32_t sender_ssrc, const std::vector<RtcpFirEntry>& entries, std::string* out) {
    size_t start = begin_packet(out, kRtcpFmtFir, kRtcpPsfb);
    put32(out, sender_ssrc);
    put32(out, 0);  // media SSRC: unused by FIR (RFC 5104 4.3.1.2)
    for (const RtcpFirEntry& e : entries) {
        put32(out, e.ssrc);
        put32(out, static_cast<uint32_t>(e.seq) << 24);
    }
    end_packet(out, start, false);
}

void rtcp_build_remb(const RtcpRemb& remb, std::string* out) {
    size_t n = remb.ssrcs.size() > 255 ? 255 : remb.ssrcs.size();
    uint64_t mantissa = remb.bitrate;
    unsigned exp = 0;
    while (mantissa > 0x3ffff) {
        mantissa >>= 1;
        ++exp;
    }
    size_t start = begin_packet(out, kRtcpFmtAfb, kRtcpPsfb);
    put32(out, remb.sender_ssrc);
    put32(out, 0);
    out->append("REMB", 4);
    put32(out, static_cast<uint32_t>(n) << 24 | exp << 18 | static_cast<uint32_t>(mantissa));
    for (size_t i = 0; i < n; ++i) put32(out, remb.ssrcs[i]);
    end_packet(out, start, false);
}

void rtcp_build_nack(uint32_t sender_ssrc, uint32_t media_ssrc, const std::vector<uint16_t>& lost, std::string* out) {
    if (lost.empty()) return;
    size_t start = begin_packet(out, kRtcpFmtNack, kRtcpRtpfb);
    put32(out, sender_ssrc);
    put32(out, media_ssrc);
    uint16_t pid = lost[0];
    uint16_t blp = 0;
    for (size_t i = 1; i < lost.size(); ++i) {
        int d = seq_distance(pid, lost[i]);
        if (d == 0) continue;
        if (d >= 1 && d <= 16) {
            blp = static_cast<uint16_t>(blp | 1u << (d - 1));
            continue;
        }
        put16(out, pid);
        put16(out, blp);
        pid = lost[i];
        blp = 0;
    }
    put16(out, pid);
    put16(out, blp);
    end_packet(out, start, false);
}

}  // namespace srs

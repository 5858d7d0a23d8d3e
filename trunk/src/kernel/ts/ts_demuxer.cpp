// A small MPEG-TS demuxer for checking muxer output (see ts_demuxer.hpp).
#include "kernel/ts/ts_demuxer.hpp"

#include "core/bytes.hpp"
#include "kernel/ts/ts_packet.hpp"

namespace srs {

Error TsDemuxer::feed(const uint8_t* data, size_t size, size_t* consumed, std::vector<TsPes>* out) {
    *consumed = 0;
    if (failed_) return SRS_ERR(kErrorTsDemux, "ts demuxer already failed");
    while (size - *consumed >= kTsPacketSize) {
        if (Error err = packet(data + *consumed, out); !err.ok()) {
            failed_ = true;
            return SRS_WRAP(err, "ts packet %llu at byte %zu", static_cast<unsigned long long>(stats_.packets),
                            *consumed);
        }
        *consumed += kTsPacketSize;
        stats_.packets++;
    }
    return Error();
}

Error TsDemuxer::flush(std::vector<TsPes>* out) {
    for (auto& [pid, open] : open_) {
        if (!open.active) continue;
        if (Error err = finish(pid, &open, out); !err.ok()) {
            failed_ = true;
            return SRS_WRAP(err, "ts flush");
        }
    }
    return Error();
}

Error TsDemuxer::packet(const uint8_t* p, std::vector<TsPes>* out) {
    if (p[0] != kTsSyncByte) return SRS_ERR(kErrorTsDemux, "sync byte 0x%02x", p[0]);
    if (p[1] & 0x80) return SRS_ERR(kErrorTsDemux, "transport_error_indicator set");
    bool unit_start = p[1] & 0x40;
    uint16_t pid = load_be16(p + 1) & 0x1fff;
    uint8_t afc = (p[3] >> 4) & 0x03;
    uint8_t cc = p[3] & 0x0f;
    if (afc == 0) return SRS_ERR(kErrorTsDemux, "adaptation_field_control 00 on PID 0x%x", pid);

    size_t at = 4;
    bool random_access = false, discontinuity = false;
    if (afc & 0x2) {
        size_t af_len = p[4];
        size_t max = afc == 0x2 ? 183 : 182;
        if (af_len > max) return SRS_ERR(kErrorTsDemux, "adaptation field of %zu bytes on PID 0x%x", af_len, pid);
        if (af_len > 0) {
            uint8_t flags = p[5];
            discontinuity = flags & 0x80;
            random_access = flags & 0x40;
            if (flags & 0x10) {
                if (af_len < 7) return SRS_ERR(kErrorTsDemux, "PCR flag in an adaptation field of %zu bytes", af_len);
                stats_.pcr_count++;
                stats_.last_pcr27m = ts_read_pcr(p + 6);
            }
        }
        at = 5 + af_len;
    }
    if (!(afc & 0x1) || pid == kTsNullPid) return Error();

    // Continuity: +1 per packet with payload; one repeat (a duplicate packet) is allowed.
    auto last = last_cc_.find(pid);
    if (last != last_cc_.end() && !discontinuity) {
        if (cc == last->second) {
            if (cc_repeated_[pid]) stats_.cc_errors++;
            cc_repeated_[pid] = true;
        } else {
            if (cc != ((last->second + 1) & 0x0f)) stats_.cc_errors++;
            cc_repeated_[pid] = false;
        }
    }
    last_cc_[pid] = cc;

    const uint8_t* payload = p + at;
    size_t n = kTsPacketSize - at;
    if (pid == kTsPatPid || (stats_.pmt_pid && pid == stats_.pmt_pid)) {
        if (!unit_start) return Error();  // only single-packet sections
        if (n < 1 || payload[0] >= n) return SRS_ERR(kErrorTsDemux, "pointer_field past the packet on PID 0x%x", pid);
        size_t skip = 1 + payload[0];
        return section(pid, payload + skip, n - skip);
    }
    auto type = streams_.find(pid);
    if (type == streams_.end()) {
        stats_.orphan_packets++;
        return Error();
    }
    Open& open = open_[pid];
    if (unit_start) {
        if (open.active) {
            if (Error err = finish(pid, &open, out); !err.ok()) return err;
        }
        open.active = true;
        open.random_access = random_access;
        open.bytes.assign(reinterpret_cast<const char*>(payload), n);
        open.expected = 0;
    } else if (open.active) {
        if (open.bytes.size() + n > max_pes_size_) {
            return SRS_ERR(kErrorTsDemux, "PES on PID 0x%x over %zu bytes", pid, max_pes_size_);
        }
        open.bytes.append(reinterpret_cast<const char*>(payload), n);
    } else {
        stats_.orphan_packets++;
        return Error();
    }
    if (open.expected == 0 && open.bytes.size() >= 6) {
        size_t length = load_be16(open.bytes.data() + 4);
        if (length) open.expected = 6 + length;
    }
    if (open.expected && open.bytes.size() >= open.expected) return finish(pid, &open, out);
    return Error();
}

//  PSI section: table_id(8) syntax(1) '0' reserved(2) section_length(12)
//  id(16) reserved(2) version(5) current_next(1) section_number(8)
//  last_section_number(8) ... CRC_32(32)
Error TsDemuxer::section(uint16_t pid, const uint8_t* s, size_t n) {
    if (n < 3 || s[0] == 0xff) return Error();  // stuffing only
    size_t total = 3 + ((load_be16(s + 1)) & 0x0fff);
    if (total > n) return SRS_ERR(kErrorTsDemux, "section of %zu bytes in %zu on PID 0x%x", total, n, pid);
    if (total < 12) return SRS_ERR(kErrorTsDemux, "section of %zu bytes on PID 0x%x", total, pid);
    if (ts_crc32(s, total) != 0) return SRS_ERR(kErrorTsDemux, "section CRC mismatch on PID 0x%x", pid);
    size_t end = total - 4;
    if (pid == kTsPatPid) {
        if (s[0] != 0x00) return SRS_ERR(kErrorTsDemux, "table_id %u on PID 0", s[0]);
        stats_.pat_count++;
        for (size_t at = 8; at + 4 <= end; at += 4) {
            if (load_be16(s + at) != 0) stats_.pmt_pid = load_be16(s + at + 2) & 0x1fff;
        }
        return Error();
    }
    if (s[0] != 0x02) return Error();  // another table on the PMT PID
    stats_.pmt_count++;
    stats_.pmt_version = (s[5] >> 1) & 0x1f;
    stats_.pcr_pid = load_be16(s + 8) & 0x1fff;
    size_t at = 12 + (load_be16(s + 10) & 0x0fff);
    if (at > end) return SRS_ERR(kErrorTsDemux, "program_info_length past the PMT");
    std::map<uint16_t, uint8_t> streams;
    while (at < end) {
        if (end - at < 5) return SRS_ERR(kErrorTsDemux, "PMT stream entry truncated");
        uint16_t es_pid = load_be16(s + at + 1) & 0x1fff;
        size_t info = load_be16(s + at + 3) & 0x0fff;
        if (info > end - at - 5) return SRS_ERR(kErrorTsDemux, "ES_info_length past the PMT");
        streams[es_pid] = s[at];
        at += 5 + info;
    }
    streams_ = std::move(streams);
    return Error();
}

//  PES: 00 00 01 stream_id(8) PES_packet_length(16) '10' flags(6)
//  PTS_DTS_flags(2) flags(6) PES_header_data_length(8) [PTS(40)] [DTS(40)] ...
Error TsDemuxer::finish(uint16_t pid, Open* open, std::vector<TsPes>* out) {
    open->active = false;
    const std::string& b = open->bytes;
    const uint8_t* p = reinterpret_cast<const uint8_t*>(b.data());
    if (b.size() < 9 || p[0] != 0 || p[1] != 0 || p[2] != 1) {
        return SRS_ERR(kErrorTsDemux, "PES on PID 0x%x: no start code in %zu bytes", pid, b.size());
    }
    if ((p[6] & 0xc0) != 0x80) return SRS_ERR(kErrorTsDemux, "PES on PID 0x%x without the optional header", pid);
    size_t header = 9 + p[8];
    if (header > b.size()) return SRS_ERR(kErrorTsDemux, "PES header of %zu bytes in %zu", header, b.size());
    size_t end = b.size();
    if (open->expected) {
        if (open->expected > b.size()) {
            return SRS_ERR(kErrorTsDemux, "PES on PID 0x%x: %zu of %zu bytes", pid, b.size(), open->expected);
        }
        end = open->expected;
    }
    TsPes pes;
    pes.pid = pid;
    pes.stream_type = streams_.count(pid) ? streams_[pid] : 0;
    pes.stream_id = p[3];
    pes.random_access = open->random_access;
    uint8_t pts_dts = p[7] >> 6;
    if (pts_dts == 1) return SRS_ERR(kErrorTsDemux, "PES PTS_DTS_flags 01");
    if (pts_dts & 0x2) {
        if (p[8] < (pts_dts == 3 ? 10 : 5)) return SRS_ERR(kErrorTsDemux, "PES header too short for its PTS/DTS");
        pes.has_pts = true;
        pes.pts = pes.dts = ts_read_timestamp(p + 9);
        if (pts_dts == 3) {
            pes.has_dts = true;
            pes.dts = ts_read_timestamp(p + 14);
        }
    }
    if (header > end) return SRS_ERR(kErrorTsDemux, "PES header past PES_packet_length");
    pes.payload.assign(b, header, end - header);
    open->bytes.clear();
    out->push_back(std::move(pes));
    return Error();
}

}  // namespace srs

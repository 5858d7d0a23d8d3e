// MPEG-TS packets, PSI sections and PES headers (see ts_packet.hpp).
#include "kernel/ts/ts_packet.hpp"

#include <array>
#include <cstring>

#include "core/bytes.hpp"

namespace srs {

namespace {

constexpr std::array<uint32_t, 256> make_crc_table() {
    std::array<uint32_t, 256> table{};
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i << 24;
        for (int k = 0; k < 8; k++) c = (c & 0x80000000u) ? (c << 1) ^ 0x04c11db7u : c << 1;
        table[i] = c;
    }
    return table;
}
constexpr std::array<uint32_t, 256> kCrcTable = make_crc_table();

// The 4-byte packet header.
void put_header(uint8_t* p, uint16_t pid, bool unit_start, uint8_t afc, uint8_t cc) {
    p[0] = kTsSyncByte;
    p[1] = static_cast<uint8_t>((unit_start ? 0x40 : 0) | ((pid >> 8) & 0x1f));
    p[2] = static_cast<uint8_t>(pid);
    p[3] = static_cast<uint8_t>((afc << 4) | (cc & 0x0f));
}

// One PSI section (already with its CRC) in one packet, as PAT and PMT of a
// couple of streams always fit.
void write_section_packet(uint16_t pid, const uint8_t* section, size_t n, uint8_t* cc, std::string* out) {
    uint8_t pkt[kTsPacketSize];
    memset(pkt, 0xff, sizeof(pkt));
    put_header(pkt, pid, true, 0x1, *cc);
    *cc = (*cc + 1) & 0x0f;
    pkt[4] = 0;  // pointer_field
    memcpy(pkt + 5, section, n);
    out->append(reinterpret_cast<const char*>(pkt), sizeof(pkt));
}

// Fills section_length (the 12 bits after table_id) and appends the CRC.
size_t finish_section(uint8_t* s, size_t body_end) {
    size_t section_length = body_end - 3 + 4;
    s[1] = static_cast<uint8_t>(0xb0 | ((section_length >> 8) & 0x0f));  // syntax 1, '0', reserved '11'
    s[2] = static_cast<uint8_t>(section_length);
    store_be32(s + body_end, ts_crc32(s, body_end));
    return body_end + 4;
}

}  // namespace

uint32_t ts_crc32(const uint8_t* p, size_t n) {
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < n; i++) crc = (crc << 8) ^ kCrcTable[((crc >> 24) ^ p[i]) & 0xff];
    return crc;
}

void ts_write_pat(uint16_t transport_stream_id, uint16_t pmt_pid, uint8_t version, uint8_t* cc, std::string* out) {
    uint8_t s[16];
    s[0] = 0x00;  // table_id: program_association_section
    store_be16(s + 3, transport_stream_id);
    s[5] = static_cast<uint8_t>(0xc1 | ((version & 0x1f) << 1));  // reserved '11', version, current_next 1
    s[6] = 0;                                                       // section_number
    s[7] = 0;                                                       // last_section_number
    store_be16(s + 8, 1);                                           // program_number
    store_be16(s + 10, static_cast<uint16_t>(0xe000 | pmt_pid));    // reserved '111', program_map_PID
    size_t n = finish_section(s, 12);
    write_section_packet(kTsPatPid, s, n, cc, out);
}

void ts_write_pmt(uint16_t pmt_pid, uint16_t pcr_pid, uint8_t version, const std::vector<TsPmtStream>& streams,
                  uint8_t* cc, std::string* out) {
    uint8_t s[kTsPacketSize];
    s[0] = 0x02;            // table_id: TS_program_map_section
    store_be16(s + 3, 1);  // program_number
    s[5] = static_cast<uint8_t>(0xc1 | ((version & 0x1f) << 1));
    s[6] = 0;
    s[7] = 0;
    store_be16(s + 8, static_cast<uint16_t>(0xe000 | pcr_pid));  // reserved '111', PCR_PID
    store_be16(s + 10, 0xf000);                                  // reserved '1111', program_info_length 0
    size_t at = 12;
    for (const TsPmtStream& st : streams) {
        if (at + 5 + 4 > kTsPacketSize - 5) break;  // never with the 2 streams we carry
        s[at] = st.stream_type;
        store_be16(s + at + 1, static_cast<uint16_t>(0xe000 | st.pid));
        store_be16(s + at + 3, 0xf000);  // ES_info_length 0
        at += 5;
    }
    size_t n = finish_section(s, at);
    write_section_packet(pmt_pid, s, n, cc, out);
}

void ts_write_timestamp(uint8_t* p, uint8_t prefix, uint64_t ts) {
    ts &= kTsPtsMask;
    p[0] = static_cast<uint8_t>((prefix << 4) | (((ts >> 30) & 0x07) << 1) | 1);
    p[1] = static_cast<uint8_t>(ts >> 22);
    p[2] = static_cast<uint8_t>((((ts >> 15) & 0x7f) << 1) | 1);
    p[3] = static_cast<uint8_t>(ts >> 7);
    p[4] = static_cast<uint8_t>(((ts & 0x7f) << 1) | 1);
}

uint64_t ts_read_timestamp(const uint8_t* p) {
    return (uint64_t(p[0] >> 1) & 0x07) << 30 | uint64_t(p[1]) << 22 | (uint64_t(p[2] >> 1) & 0x7f) << 15 |
           uint64_t(p[3]) << 7 | (uint64_t(p[4] >> 1) & 0x7f);
}

void ts_write_pcr(uint8_t* p, uint64_t pcr27m) {
    uint64_t base = (pcr27m / 300) & kTsPtsMask;
    uint32_t ext = static_cast<uint32_t>(pcr27m % 300);
    p[0] = static_cast<uint8_t>(base >> 25);
    p[1] = static_cast<uint8_t>(base >> 17);
    p[2] = static_cast<uint8_t>(base >> 9);
    p[3] = static_cast<uint8_t>(base >> 1);
    p[4] = static_cast<uint8_t>(((base & 1) << 7) | 0x7e | ((ext >> 8) & 1));
    p[5] = static_cast<uint8_t>(ext);
}

uint64_t ts_read_pcr(const uint8_t* p) {
    uint64_t base = uint64_t(p[0]) << 25 | uint64_t(p[1]) << 17 | uint64_t(p[2]) << 9 | uint64_t(p[3]) << 1 |
                    (p[4] >> 7);
    uint64_t ext = uint64_t(p[4] & 1) << 8 | p[5];
    return base * 300 + ext;
}

size_t ts_write_pes_header(uint8_t stream_id, uint64_t pts, uint64_t dts, size_t payload_size, bool unbounded,
                           std::string* out) {
    pts &= kTsPtsMask;
    dts &= kTsPtsMask;
    bool with_dts = dts != pts;
    uint8_t h[19];
    h[0] = 0;
    h[1] = 0;
    h[2] = 1;
    h[3] = stream_id;
    size_t header_data = with_dts ? 10 : 5;
    size_t length = 3 + header_data + payload_size;
    store_be16(h + 4, static_cast<uint16_t>(unbounded || length > 0xffff ? 0 : length));
    h[6] = 0x84;  // '10', not scrambled, priority 0, data_alignment_indicator 1, no copyright, copy
    h[7] = with_dts ? 0xc0 : 0x80;  // PTS_DTS_flags, no other optional fields
    h[8] = static_cast<uint8_t>(header_data);
    ts_write_timestamp(h + 9, with_dts ? 0x3 : 0x2, pts);
    if (with_dts) ts_write_timestamp(h + 14, 0x1, dts);
    size_t n = 9 + header_data;
    out->append(reinterpret_cast<const char*>(h), n);
    return n;
}

void ts_write_pes_packets(const TsPesPacketization& how, const uint8_t* pes, size_t n, uint8_t* cc, std::string* out) {
    size_t at = 0;
    bool first = true;
    while (at < n || first) {
        uint8_t pkt[kTsPacketSize];
        // Adaptation field content (after its length byte): flags, PCR.
        uint8_t af[1 + 6];
        size_t af_body = 0;
        if (first && (how.write_pcr || how.random_access)) {
            af[0] = static_cast<uint8_t>((how.random_access ? 0x40 : 0) | (how.write_pcr ? 0x10 : 0));
            af_body = 1;
            if (how.write_pcr) {
                ts_write_pcr(af + 1, how.pcr27m);
                af_body += 6;
            }
        }
        size_t room = kTsPacketSize - 4 - (af_body ? 1 + af_body : 0);
        size_t left = n - at;
        size_t stuffing = 0;
        bool has_af = af_body > 0;
        if (left < room) {
            // Pad the last packet: an adaptation field that is only a length
            // byte takes 1 byte; more needs the flags byte and 0xFF stuffing.
            size_t pad = room - left;
            if (!has_af) {
                has_af = true;
                if (pad == 1) {
                    af_body = 0;
                } else {
                    af[0] = 0;
                    af_body = 1;
                    stuffing = pad - 2;
                }
            } else {
                stuffing = pad;
            }
        }
        put_header(pkt, how.pid, first, has_af ? 0x3 : 0x1, *cc);
        *cc = (*cc + 1) & 0x0f;
        size_t w = 4;
        if (has_af) {
            pkt[w++] = static_cast<uint8_t>(af_body + stuffing);
            memcpy(pkt + w, af, af_body);
            w += af_body;
            memset(pkt + w, 0xff, stuffing);
            w += stuffing;
        }
        size_t take = kTsPacketSize - w;
        if (take > left) take = left;  // only when n == 0 (an empty PES never happens in practice)
        memcpy(pkt + w, pes + at, take);
        w += take;
        if (w < kTsPacketSize) memset(pkt + w, 0xff, kTsPacketSize - w);
        at += take;
        first = false;
        out->append(reinterpret_cast<const char*>(pkt), sizeof(pkt));
    }
}

}  // namespace srs

// MPEG-TS packet layer (ISO/IEC 13818-1), writing side: 188-byte transport
// packets, PSI sections (PAT, PMT) with their CRC-32, PES headers, and the
// splitting of one PES into packets with PCR and adaptation-field stuffing.
//
// Pure functions that append to a caller's std::string; the only state is the
// continuity counter the caller owns (one per PID).
//
//  Transport packet header (4 bytes):
//   0                   1                   2                   3
//   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//  +---------------+-+-+-+-------------------------+---+---+-------+
//  | sync 0x47     |E|S|P|          PID (13)       |TSC|AFC|  CC   |
//  +---------------+-+-+-+-------------------------+---+---+-------+
//  E: transport_error, S: payload_unit_start, P: priority, AFC: 01 payload,
//  10 adaptation field only, 11 both. CC counts packets with payload (mod 16).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace srs {

constexpr size_t kTsPacketSize = 188;
constexpr uint8_t kTsSyncByte = 0x47;
constexpr uint16_t kTsPatPid = 0x0000;
constexpr uint16_t kTsNullPid = 0x1fff;
constexpr uint64_t kTsPtsMask = (uint64_t(1) << 33) - 1;  // PTS/DTS/PCR base are 33-bit, 90 kHz

// stream_type values of the PMT (ISO 13818-1 Table 2-34 and its amendments).
enum TsStreamType : uint8_t {
    kTsStreamMp3 = 0x03,       // ISO 11172-3 (MPEG-1 audio): MP3 at 32, 44.1, 48 kHz
    kTsStreamMp3Mpeg2 = 0x04,  // ISO 13818-3 (MPEG-2 audio): MP3 below 32 kHz (ffmpeg's choice too)
    kTsStreamAac = 0x0f,   // ISO 13818-7 audio with ADTS transport syntax
    kTsStreamH264 = 0x1b,  // AVC, Annex B byte stream
    kTsStreamH265 = 0x24,  // HEVC, Annex B byte stream
};

// PES stream_id values.
constexpr uint8_t kTsStreamIdVideo = 0xe0;
constexpr uint8_t kTsStreamIdAudio = 0xc0;

// CRC-32/MPEG-2: polynomial 0x04C11DB7, initial 0xFFFFFFFF, not reflected, no
// final xor. A section whose CRC_32 field is included checks to 0.
uint32_t ts_crc32(const uint8_t* p, size_t n);

struct TsPmtStream {
    uint8_t stream_type = 0;
    uint16_t pid = 0;
};

// Appends one packet holding a PAT (program_number 1 -> pmt_pid) or a PMT,
// pointer_field 0 and 0xFF fill after the section. *cc is used then advanced.
void ts_write_pat(uint16_t transport_stream_id, uint16_t pmt_pid, uint8_t version, uint8_t* cc, std::string* out);
void ts_write_pmt(uint16_t pmt_pid, uint16_t pcr_pid, uint8_t version, const std::vector<TsPmtStream>& streams,
                  uint8_t* cc, std::string* out);

// The 5-byte PTS or DTS field: the 4-bit prefix ('0010' PTS only, '0011' PTS
// with DTS, '0001' DTS), then the 33 bits in groups of 3, 15 and 15, each
// followed by a marker bit.
void ts_write_timestamp(uint8_t* p, uint8_t prefix, uint64_t ts90k);
// Reads one back (marker bits ignored).
uint64_t ts_read_timestamp(const uint8_t* p);

// The 6-byte program_clock_reference: base (33 bits, 90 kHz), 6 reserved bits
// (1), extension (9 bits, 27 MHz remainder). pcr27m is in 27 MHz units.
void ts_write_pcr(uint8_t* p, uint64_t pcr27m);
uint64_t ts_read_pcr(const uint8_t* p);  // back in 27 MHz units

// Appends a PES header: start code, stream_id, PES_packet_length (payload_size
// + the header bytes after the length field, or 0 when that exceeds 65535 or
// unbounded is set, as video allows), flags with data_alignment_indicator, PTS
// and, when dts != pts, DTS. Returns the header size (14 or 19).
size_t ts_write_pes_header(uint8_t stream_id, uint64_t pts90k, uint64_t dts90k, size_t payload_size, bool unbounded,
                           std::string* out);

struct TsPesPacketization {
    uint16_t pid = 0;
    bool write_pcr = false;      // a PCR in the first packet's adaptation field
    uint64_t pcr27m = 0;
    bool random_access = false;  // random_access_indicator in the first packet (a keyframe starts here)
};

// Splits a whole PES (header + data) into 188-byte packets: the first has
// payload_unit_start; the last is padded with adaptation-field stuffing (0xFF)
// so the PES ends exactly at a packet end. *cc is advanced per packet.
void ts_write_pes_packets(const TsPesPacketization& how, const uint8_t* pes, size_t n, uint8_t* cc, std::string* out);

}  // namespace srs

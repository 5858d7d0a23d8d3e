// A small MPEG-TS demuxer, as far as checking a muxer's output needs: packet
// sync, continuity counters, PAT/PMT with their CRC-32, PCRs, and PES packets
// with their PTS/DTS. Not a player's demuxer: no scrambling, no descriptors,
// one program, one section per PSI packet.
//
// Sans-IO: feed() takes bytes, consumes whole 188-byte packets and reports
// how many; the caller keeps the tail (fewer than 188 bytes) and feeds it again
// with more, so whole-file and byte-by-byte feeding give the same PES packets.
// A PES is complete when the next one on its PID starts, when its
// PES_packet_length is reached, or at flush().
//
// Guarantees: nothing outside the given bytes is read; sizes from the stream
// are checked; a PES grows to at most max_pes_size (else an error). Errors are
// kErrorTsDemux and leave the demuxer failed. CC gaps, PES before a PMT and
// unknown PIDs are counted, not errors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace srs {

struct TsPes {
    uint16_t pid = 0;
    uint8_t stream_type = 0;  // from the PMT (0 if the PMT did not list the PID)
    uint8_t stream_id = 0;
    bool has_pts = false, has_dts = false;
    uint64_t pts = 0, dts = 0;     // 90 kHz; dts == pts when the PES has no DTS
    bool random_access = false;    // random_access_indicator on its first packet
    std::string payload;           // the elementary stream bytes after the PES header
};

struct TsDemuxerStats {
    uint64_t packets = 0;
    uint64_t pat_count = 0;
    uint64_t pmt_count = 0;
    uint64_t pcr_count = 0;
    uint64_t cc_errors = 0;         // a packet whose CC is not the last + 1 (a repeat is allowed once)
    uint64_t orphan_packets = 0;    // payload on a PID the PMT does not list, before its PES start, or null
    uint64_t last_pcr27m = 0;
    uint16_t pmt_pid = 0;
    uint16_t pcr_pid = 0;
    uint8_t pmt_version = 0;
};

class TsDemuxer {
  public:
    // Consumes whole packets from data (a multiple of 188 into *consumed) and
    // appends every completed PES to *out.
    Error feed(const uint8_t* data, size_t size, size_t* consumed, std::vector<TsPes>* out);
    // Completes the PES packets still open (end of input); an error when one
    // is malformed or shorter than its PES_packet_length.
    Error flush(std::vector<TsPes>* out);

    const TsDemuxerStats& stats() const { return stats_; }
    // PID -> stream_type from the last PMT.
    const std::map<uint16_t, uint8_t>& streams() const { return streams_; }
    void set_max_pes_size(size_t n) { max_pes_size_ = n; }

  private:
    struct Open {
        bool active = false;
        bool random_access = false;
        std::string bytes;  // the PES so far, header included
        size_t expected = 0;  // whole PES size from PES_packet_length, 0 if unbounded
    };
    Error packet(const uint8_t* p, std::vector<TsPes>* out);
    Error section(uint16_t pid, const uint8_t* s, size_t n);
    Error finish(uint16_t pid, Open* open, std::vector<TsPes>* out);

    bool failed_ = false;
    std::map<uint16_t, uint8_t> streams_;
    std::map<uint16_t, int> last_cc_;  // -1: none yet
    std::map<uint16_t, bool> cc_repeated_;
    std::map<uint16_t, Open> open_;
    size_t max_pes_size_ = 16 * 1024 * 1024;
    TsDemuxerStats stats_;
};

}  // namespace srs

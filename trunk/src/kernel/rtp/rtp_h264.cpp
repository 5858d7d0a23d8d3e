#include "kernel/rtp/rtp_h264.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "core/bytes.hpp"
#include "kernel/codec/bit_reader.hpp"

namespace srs {

namespace {

uint8_t nalu_type(const uint8_t* p) {
    return p[0] & 0x1f;
}

// Reads `count` parameter sets, each after a 16-bit length, from record[*pos, n).
Error read_parameter_sets(const uint8_t* record, size_t n, size_t* pos, int count, uint8_t want_type,
                          std::vector<std::string>* out) {
    for (int i = 0; i < count; ++i) {
        if (n - *pos < 2) return SRS_ERR(kErrorRtpPayloadConfig, "avcC: no length for set %d of type %u", i, want_type);
        size_t len = load_be16(record + *pos);
        *pos += 2;
        if (len == 0 || len > n - *pos)
            return SRS_ERR(kErrorRtpPayloadConfig, "avcC: set %d of type %u has length %zu (%zu left)", i, want_type, len,
                           n - *pos);
        if (nalu_type(record + *pos) != want_type)
            return SRS_ERR(kErrorRtpPayloadConfig, "avcC: set %d is NAL type %u, not %u", i, nalu_type(record + *pos),
                           want_type);
        out->emplace_back(reinterpret_cast<const char*>(record + *pos), len);
        *pos += len;
    }
    return Error();
}

// Whether a payload starts with an SPS: a keyframe that lost nothing before it.
bool starts_with_sps(const uint8_t* p, size_t n) {
    uint8_t type = nalu_type(p);
    if (type == kH264NaluSps) return true;
    if (type == kH264NaluStapA) return n >= 4 && nalu_type(p + 3) == kH264NaluSps;
    if (type == kH264NaluFuA) return n >= 2 && (p[1] & 0x80) && nalu_type(p + 1) == kH264NaluSps;
    return false;
}

}  // namespace

// ---- packetizer ----

H264Packetizer::H264Packetizer(H264PacketizerOptions options)
    : options_(options), writer_(rtp_nalu::Format::kH264, options.max_payload) {}

// AVCDecoderConfigurationRecord (ISO 14496-15 5.3.3.1):
//   version(8)=1 profile(8) compat(8) level(8) 111111b lengthSizeMinusOne(2)
//   111b numSPS(5) {length(16) SPS}* numPPS(8) {length(16) PPS}* [high-profile extension, ignored]
Error H264Packetizer::set_sequence_header(const uint8_t* record, size_t n) {
    if (n < 7) return SRS_ERR(kErrorRtpPayloadConfig, "avcC: %zu bytes", n);
    if (record[0] != 1) return SRS_ERR(kErrorRtpPayloadConfig, "avcC: version %u", record[0]);
    int length_size = (record[4] & 3) + 1;
    int sps_count = record[5] & 0x1f;
    size_t pos = 6;
    std::vector<std::string> sets;
    if (Error err = read_parameter_sets(record, n, &pos, sps_count, kH264NaluSps, &sets); !err.ok()) return err;
    if (pos >= n) return SRS_ERR(kErrorRtpPayloadConfig, "avcC: no PPS count");
    int pps_count = record[pos++];
    if (Error err = read_parameter_sets(record, n, &pos, pps_count, kH264NaluPps, &sets); !err.ok()) return err;
    if (sps_count == 0 || pps_count == 0)
        return SRS_ERR(kErrorRtpPayloadConfig, "avcC: %d SPS and %d PPS", sps_count, pps_count);
    length_size_ = length_size;
    parameter_sets_ = std::move(sets);
    return Error();
}

bool H264Packetizer::has_sequence_header() const {
    return !parameter_sets_.empty();
}

Error H264Packetizer::packetize(const uint8_t* data, size_t n, RtpPayloadSink* sink) {
    if (Error err = rtp_nalu::split_length_prefixed(data, n, length_size_, 1, &nalus_); !err.ok())
        return SRS_WRAP(err, "h264 access unit of %zu bytes", n);

    bool idr = false, own_sps = false, own_pps = false;
    for (const rtp_nalu::Nalu& u : nalus_) {
        uint8_t type = nalu_type(u.data);
        idr |= type == kH264NaluIdr;
        own_sps |= type == kH264NaluSps;
        own_pps |= type == kH264NaluPps;
    }
    // Parameter sets lead an IDR: the frame's own when it has both, else the record's.
    bool own_sets = idr && own_sps && own_pps;
    send_.clear();
    if (idr) {
        if (own_sets) {
            for (const rtp_nalu::Nalu& u : nalus_) {
                uint8_t type = nalu_type(u.data);
                if (type == kH264NaluSps || type == kH264NaluPps) send_.push_back(u);
            }
        } else {
            for (const std::string& s : parameter_sets_)
                send_.push_back(rtp_nalu::Nalu{reinterpret_cast<const uint8_t*>(s.data()), s.size()});
        }
    }
    size_t leading = send_.size();
    for (const rtp_nalu::Nalu& u : nalus_) {
        uint8_t type = nalu_type(u.data);
        if (type == kH264NaluAud || type == kH264NaluFiller) continue;
        if (own_sets && (type == kH264NaluSps || type == kH264NaluPps)) continue;
        send_.push_back(u);
    }
    writer_.write(send_.data(), send_.size(), leading, options_.merge_nalus, sink);
    return Error();
}

bool h264_frame_is_disposable(const uint8_t* data, size_t n, int nalu_length_size) {
    if (nalu_length_size < 1 || nalu_length_size > 4) return false;
    size_t ls = static_cast<size_t>(nalu_length_size);
    bool slice = false;
    size_t pos = 0;
    while (pos < n) {
        if (n - pos < ls) return false;
        size_t len = 0;
        for (size_t i = 0; i < ls; ++i) len = len << 8 | data[pos + i];
        pos += ls;
        if (len == 0 || len > n - pos) return false;  // malformed: not known to be disposable
        uint8_t type = nalu_type(data + pos);
        if (type >= kH264NaluSlice && type <= kH264NaluIdr) {
            if (data[pos] & 0x60) return false;  // nal_ref_idc: something references it
            slice = true;
        }
        pos += len;
    }
    return slice;
}

bool h264_frame_has_b_slice(const uint8_t* data, size_t n, int nalu_length_size) {
    if (nalu_length_size < 1 || nalu_length_size > 4) return false;
    size_t ls = static_cast<size_t>(nalu_length_size);
    size_t pos = 0;
    while (pos < n) {
        if (n - pos < ls) return false;
        size_t len = 0;
        for (size_t i = 0; i < ls; ++i) len = len << 8 | data[pos + i];
        pos += ls;
        if (len == 0 || len > n - pos) return false;
        uint8_t type = nalu_type(data + pos);
        if (type == kH264NaluSlice || type == kH264NaluIdr) {
            // slice_header(): first_mb_in_slice ue(v), slice_type ue(v); both
            // fit in the first bytes (emulation prevention removed first).
            std::vector<uint8_t> rbsp;
            nal_to_rbsp(data + pos + 1, std::min<size_t>(len - 1, 16), &rbsp);
            BitReader r(rbsp.data(), rbsp.size());
            uint32_t first_mb = 0, slice_type = 0;
            if (!r.read_ue(&first_mb) || !r.read_ue(&slice_type)) return false;
            return slice_type % 5 == 1;  // B (1) or B-only picture (6)
        }
        pos += len;
    }
    return false;
}

// ---- depacketizer ----

Error H264Depacketizer::push(uint16_t seq, uint32_t timestamp, bool marker, const uint8_t* payload, size_t size,
                             int lost_before) {
    bool gap = lost_before > 0 || (have_seq_ && seq != static_cast<uint16_t>(last_seq_ + 1));
    have_seq_ = true;
    last_seq_ = seq;
    if (gap) {
        // The lost packets held data of the open frame or of a frame after it.
        need_keyframe_ = true;
        if (open_) {
            break_frame();
            if (timestamp != frame_.timestamp) finish_frame();
        }
    }
    if (size == 0) return Error();  // padding only: no frame boundary

    if (open_ && timestamp != frame_.timestamp) finish_frame();
    if (!open_) {
        start_frame(timestamp);
        if (gap && !starts_with_sps(payload, size)) break_frame();
    }
    Error err;
    if (!broken_) {
        err = add_payload(payload, size);
        if (!err.ok()) break_frame();
    }
    if (marker) finish_frame();
    if (!err.ok()) return SRS_WRAP(err, "h264 payload seq=%u ts=%u size=%zu", seq, timestamp, size);
    return Error();
}

bool H264Depacketizer::pop(H264Frame* out) {
    if (done_.empty()) return false;
    *out = std::move(done_.front());
    done_.pop_front();
    return true;
}

bool H264Depacketizer::need_keyframe() const {
    return need_keyframe_;
}

uint64_t H264Depacketizer::frames_dropped() const {
    return dropped_;
}

void H264Depacketizer::start_frame(uint32_t timestamp) {
    open_ = true;
    broken_ = false;
    bytes_ = 0;
    in_fu_ = false;
    fu_.clear();
    frame_ = H264Frame();
    frame_.timestamp = timestamp;
    frame_.sps = std::move(carried_sps_);
    frame_.pps = std::move(carried_pps_);
    carried_sps_.clear();
    carried_pps_.clear();
}

void H264Depacketizer::break_frame() {
    broken_ = true;
    in_fu_ = false;
    // Give the memory back now: a broken frame is only waited out.
    std::string().swap(frame_.nalus);
    std::string().swap(fu_);
}

void H264Depacketizer::finish_frame() {
    if (!open_) return;
    open_ = false;
    if (in_fu_) break_frame();  // the FU-A never ended
    bool empty = frame_.nalus.empty();
    if (!broken_ && empty) {
        // Parameter sets sent apart from the frame they describe.
        if (!frame_.sps.empty()) carried_sps_ = std::move(frame_.sps);
        if (!frame_.pps.empty()) carried_pps_ = std::move(frame_.pps);
        return;
    }
    bool drop = broken_ || (need_keyframe_ && !frame_.keyframe) || done_.size() >= kH264MaxPendingFrames;
    if (drop) {
        ++dropped_;
        need_keyframe_ = true;
        frame_ = H264Frame();
        return;
    }
    if (frame_.keyframe) need_keyframe_ = false;
    done_.push_back(std::move(frame_));
    frame_ = H264Frame();
}

Error H264Depacketizer::add_payload(const uint8_t* p, size_t n) {
    bytes_ += n;
    if (bytes_ > kH264MaxFrameSize)
        return SRS_ERR(kErrorRtpPayloadFrameSize, "frame over %zu bytes", kH264MaxFrameSize);
    uint8_t type = nalu_type(p);
    if (in_fu_ && type != kH264NaluFuA) {
        break_frame();  // the FU-A was interrupted: its end is lost
        return Error();
    }
    if (type >= 1 && type <= 23) return add_nalu(p, n);
    if (type == kH264NaluStapA) {
        // [STAP-A header] {size(16) NALU}+
        if (n < 4) return SRS_ERR(kErrorRtpPayloadPacket, "STAP-A of %zu bytes", n);
        size_t pos = 1;
        while (pos < n) {
            if (n - pos < 2) return SRS_ERR(kErrorRtpPayloadPacket, "STAP-A: 1 byte after the last NALU");
            size_t len = load_be16(p + pos);
            pos += 2;
            if (len == 0 || len > n - pos)
                return SRS_ERR(kErrorRtpPayloadPacket, "STAP-A: NALU size %zu (%zu left)", len, n - pos);
            if (Error err = add_nalu(p + pos, len); !err.ok()) return SRS_WRAP(err, "in STAP-A");
            pos += len;
        }
        return Error();
    }
    if (type == kH264NaluFuA) return add_fragment(p, n);
    return SRS_ERR(kErrorRtpPayloadPacket, "NAL type %u (not a NAL unit, STAP-A or FU-A)", type);
}

// FU-A: [F|NRI|28] [S|E|R|type] body...
Error H264Depacketizer::add_fragment(const uint8_t* p, size_t n) {
    if (n < 3) return SRS_ERR(kErrorRtpPayloadPacket, "FU-A of %zu bytes", n);
    bool start = p[1] & 0x80, end = p[1] & 0x40;
    uint8_t type = nalu_type(p + 1);
    if (start) {
        if (in_fu_) {
            break_frame();  // a new FU-A before the end of the previous one
            return Error();
        }
        in_fu_ = true;
        fu_.assign(1, static_cast<char>((p[0] & 0xe0) | type));
    } else if (!in_fu_ || nalu_type(reinterpret_cast<const uint8_t*>(fu_.data())) != type) {
        break_frame();  // a FU-A without its start
        return Error();
    }
    fu_.append(reinterpret_cast<const char*>(p + 2), n - 2);
    if (!end) return Error();
    in_fu_ = false;
    Error err = add_nalu(reinterpret_cast<const uint8_t*>(fu_.data()), fu_.size());
    fu_.clear();
    if (!err.ok()) return SRS_WRAP(err, "in FU-A");
    return Error();
}

Error H264Depacketizer::add_nalu(const uint8_t* p, size_t n) {
    uint8_t type = nalu_type(p);
    if (type == 0 || type > 23) return SRS_ERR(kErrorRtpPayloadPacket, "NAL type %u inside an aggregate or fragment", type);
    switch (type) {
        case kH264NaluSps:
            frame_.sps.assign(reinterpret_cast<const char*>(p), n);
            return Error();
        case kH264NaluPps:
            frame_.pps.assign(reinterpret_cast<const char*>(p), n);
            return Error();
        case kH264NaluAud:
        case kH264NaluFiller:
            return Error();
        case kH264NaluIdr:
            frame_.keyframe = true;
            break;
        default:
            break;
    }
    size_t at = frame_.nalus.size();
    frame_.nalus.resize(at + 4 + n);
    store_be32(&frame_.nalus[at], static_cast<uint32_t>(n));
    frame_.nalus.replace(at + 4, n, reinterpret_cast<const char*>(p), n);
    return Error();
}

Error h264_build_avcc_record(const std::string& sps, const std::string& pps, std::string* out) {
    if (sps.size() < 4 || (sps[0] & 0x1f) != kH264NaluSps)
        return SRS_ERR(kErrorRtpPayloadBuild, "SPS of %zu bytes, NAL type %d", sps.size(), sps.empty() ? -1 : sps[0] & 0x1f);
    if (pps.empty() || (pps[0] & 0x1f) != kH264NaluPps)
        return SRS_ERR(kErrorRtpPayloadBuild, "PPS of %zu bytes, NAL type %d", pps.size(), pps.empty() ? -1 : pps[0] & 0x1f);
    if (sps.size() > 0xffff || pps.size() > 0xffff)
        return SRS_ERR(kErrorRtpPayloadBuild, "SPS %zu / PPS %zu bytes over 65535", sps.size(), pps.size());
    out->clear();
    out->reserve(11 + sps.size() + pps.size());
    // version, then profile_idc, constraint flags and level_idc copied from the SPS.
    out->push_back(1);
    out->append(sps, 1, 3);
    out->push_back(static_cast<char>(0xff));  // reserved 111111b, lengthSizeMinusOne 3
    out->push_back(static_cast<char>(0xe1));  // reserved 111b, one SPS
    char len[2];
    store_be16(len, static_cast<uint16_t>(sps.size()));
    out->append(len, 2);
    out->append(sps);
    out->push_back(1);  // one PPS
    store_be16(len, static_cast<uint16_t>(pps.size()));
    out->append(len, 2);
    out->append(pps);
    return Error();
}

}  // namespace srs

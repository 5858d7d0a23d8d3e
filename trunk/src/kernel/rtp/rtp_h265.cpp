#include "kernel/rtp/rtp_h265.hpp"

#include <utility>

#include "core/bytes.hpp"

namespace srs {

namespace {

bool is_parameter_set(uint8_t type) {
    return type == kH265NaluVps || type == kH265NaluSps || type == kH265NaluPps;
}

// Where a parameter set type goes in the order VPS, SPS, PPS.
int parameter_set_rank(uint8_t type) {
    return type - kH265NaluVps;
}

}  // namespace

H265Packetizer::H265Packetizer(H265PacketizerOptions options)
    : options_(options), writer_(rtp_nalu::Format::kH265, options.max_payload) {}

// HEVCDecoderConfigurationRecord (ISO 14496-15 8.3.3.1.2): 22 bytes of
// profile/tier/level and format fields (byte 21 ends in lengthSizeMinusOne(2)),
// numOfArrays(8), then per array: completeness(1) reserved(1) NAL_unit_type(6),
// numNalus(16), {nalUnitLength(16) nalUnit}*.
Error H265Packetizer::set_sequence_header(const uint8_t* record, size_t n) {
    if (n < 23) return SRS_ERR(kErrorRtpPayloadConfig, "hvcC: %zu bytes", n);
    if (record[0] != 1) return SRS_ERR(kErrorRtpPayloadConfig, "hvcC: version %u", record[0]);
    int length_size = (record[21] & 3) + 1;
    int arrays = record[22];
    size_t pos = 23;
    std::vector<std::string> by_rank[3];
    for (int a = 0; a < arrays; ++a) {
        if (n - pos < 3) return SRS_ERR(kErrorRtpPayloadConfig, "hvcC: array %d header past the end", a);
        uint8_t type = record[pos] & 0x3f;
        size_t count = load_be16(record + pos + 1);
        pos += 3;
        for (size_t i = 0; i < count; ++i) {
            if (n - pos < 2) return SRS_ERR(kErrorRtpPayloadConfig, "hvcC: array %d NALU %zu: no length", a, i);
            size_t len = load_be16(record + pos);
            pos += 2;
            if (len < 2 || len > n - pos)
                return SRS_ERR(kErrorRtpPayloadConfig, "hvcC: array %d NALU %zu: length %zu (%zu left)", a, i, len,
                               n - pos);
            uint8_t actual = h265_nalu_type(record + pos);
            if (is_parameter_set(type) && actual == type)
                by_rank[parameter_set_rank(type)].emplace_back(reinterpret_cast<const char*>(record + pos), len);
            pos += len;
        }
    }
    for (int r = 0; r < 3; ++r) {
        if (by_rank[r].empty())
            return SRS_ERR(kErrorRtpPayloadConfig, "hvcC: no NAL unit of type %d", kH265NaluVps + r);
    }
    std::vector<std::string> sets;
    for (auto& group : by_rank)
        for (std::string& s : group) sets.push_back(std::move(s));
    length_size_ = length_size;
    parameter_sets_ = std::move(sets);
    return Error();
}

bool H265Packetizer::has_sequence_header() const {
    return !parameter_sets_.empty();
}

Error H265Packetizer::packetize(const uint8_t* data, size_t n, RtpPayloadSink* sink) {
    if (Error err = rtp_nalu::split_length_prefixed(data, n, length_size_, 2, &nalus_); !err.ok())
        return SRS_WRAP(err, "h265 access unit of %zu bytes", n);

    bool irap = false;
    bool own[3] = {false, false, false};
    for (const rtp_nalu::Nalu& u : nalus_) {
        uint8_t type = h265_nalu_type(u.data);
        irap |= type >= kH265NaluIrapFirst && type <= kH265NaluIrapLast;
        if (is_parameter_set(type)) own[parameter_set_rank(type)] = true;
    }
    bool own_sets = irap && own[0] && own[1] && own[2];
    send_.clear();
    if (irap) {
        if (own_sets) {
            for (int r = 0; r < 3; ++r) {
                for (const rtp_nalu::Nalu& u : nalus_)
                    if (h265_nalu_type(u.data) == kH265NaluVps + r) send_.push_back(u);
            }
        } else {
            for (const std::string& s : parameter_sets_)
                send_.push_back(rtp_nalu::Nalu{reinterpret_cast<const uint8_t*>(s.data()), s.size()});
        }
    }
    size_t leading = send_.size();
    for (const rtp_nalu::Nalu& u : nalus_) {
        uint8_t type = h265_nalu_type(u.data);
        if (type == kH265NaluAud || type == kH265NaluFiller) continue;
        if (own_sets && is_parameter_set(type)) continue;
        send_.push_back(u);
    }
    writer_.write(send_.data(), send_.size(), leading, options_.merge_nalus, sink);
    return Error();
}

}  // namespace srs

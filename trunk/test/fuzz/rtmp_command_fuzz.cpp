// libFuzzer target for protocol/rtmp_command and protocol/rtmp_url.
// The first input byte picks the message type (20, 17, 18 or 15); the rest is
// the payload. Decoded commands go through every typed view, are re-encoded,
// decoded again and must re-encode to the same bytes; strings from connect
// and publish/play feed URL discovery.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "protocol/rtmp/rtmp_command.hpp"
#include "protocol/rtmp/rtmp_url.hpp"

using namespace srs;

namespace {

std::string bytes_of(const SharedBytes& b) { return std::string(reinterpret_cast<const char*>(b.data()), b.size()); }

template <class Request>
void try_view(const RtmpCommand& cmd) {
    Request req;
    Error err = parse_rtmp_request(cmd, &req);
    if (err.ok()) {
        // A parsed view re-encodes to a command that parses again.
        RtmpCommand rebuilt = to_rtmp_command(req);
        Request again;
        Error err2 = parse_rtmp_request(rebuilt, &again);
        if (!err2.ok()) abort();
    }
    err.ignore();
}

void exercise_command(const RtmpCommand& cmd) {
    try_view<RtmpConnectRequest>(cmd);
    try_view<RtmpCreateStreamRequest>(cmd);
    try_view<RtmpReleaseStreamRequest>(cmd);
    try_view<RtmpFCPublishRequest>(cmd);
    try_view<RtmpFCUnpublishRequest>(cmd);
    try_view<RtmpGetStreamLengthRequest>(cmd);
    try_view<RtmpPublishRequest>(cmd);
    try_view<RtmpPlayRequest>(cmd);
    try_view<RtmpPauseRequest>(cmd);
    try_view<RtmpCloseStreamRequest>(cmd);
    try_view<RtmpDeleteStreamRequest>(cmd);
    try_view<RtmpCheckBwRequest>(cmd);
    (void)classify_rtmp_command(cmd.name);
    RtmpStatus status;
    parse_rtmp_status(cmd, &status).ignore();
    double id = 0;
    parse_create_stream_result(cmd, &id).ignore();

    // URL discovery from whatever strings the command carries.
    std::string tc_url = cmd.command_object.get_string("tcUrl", cmd.name);
    std::string stream = cmd.args.empty() ? "" : cmd.args[0].as_string();
    RtmpRequestInfo info;
    Error err = discover_rtmp_request(tc_url, stream, &info);
    if (err.ok()) {
        (void)info.stream_url();
        (void)info.tc_url();
        (void)is_ip_literal(info.host);
    }
    err.ignore();
    parse_rtmp_url(stream, &info).ignore();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    static const uint8_t kTypes[] = {kRtmpAmf0Command, kRtmpAmf3Command, kRtmpAmf0Data, kRtmpAmf3Data};
    RtmpMessage msg;
    msg.type = kTypes[data[0] & 3];
    msg.payload = SharedBytes::copy_of(data + 1, size - 1);

    if (msg.is_command()) {
        RtmpCommand cmd;
        Error err = decode_rtmp_command(msg, &cmd);
        if (!err.ok()) {
            err.ignore();
            return 0;
        }
        exercise_command(cmd);
        std::string first = bytes_of(encode_rtmp_command(cmd));
        RtmpCommand again;
        Error err2 = decode_rtmp_command_body(reinterpret_cast<const uint8_t*>(first.data()), first.size(), &again);
        if (!err2.ok()) {
            // Only the value budget can refuse what references expanded.
            if (err2.code() != kErrorAmf0TooManyValues) abort();
            return 0;
        }
        if (bytes_of(encode_rtmp_command(again)) != first) abort();
    } else {
        RtmpData d;
        Error err = decode_rtmp_data(msg, &d);
        if (!err.ok()) {
            err.ignore();
            return 0;
        }
        RtmpData stored;
        if (rtmp_metadata_for_players(d, &stored) && stored.name != kRtmpDataOnMetaData) abort();
        std::string first = bytes_of(encode_rtmp_data(d));
        RtmpData again;
        Error err2 = decode_rtmp_data_body(reinterpret_cast<const uint8_t*>(first.data()), first.size(), &again);
        if (!err2.ok()) {
            if (err2.code() != kErrorAmf0TooManyValues) abort();
            return 0;
        }
        if (bytes_of(encode_rtmp_data(again)) != first) abort();
    }
    return 0;
}

// RTMP command messages (type 20 AMF0, 17 AMF3) and data messages (18 AMF0,
// 15 AMF3) on top of AMF0, typed views of the commands a client sends, and
// builders for what a server sends back.
//
// Guarantees:
// - Decoding is sans-IO and bounded by the AMF0 decoder's limits; a message
//   that is not a well-formed command/data body is an error, never a crash.
// - Missing trailing values are not errors: a command without a transaction id
//   gets 0, without a command object gets null; typed views apply Flash's
//   defaults (publish type "live", play start -2 / duration -1 / reset true).
// - Encoding always writes name, transaction id, command object, arguments
//   (AMF0, for message type 20), so decode(encode(c)) == c.
// - Status codes and levels are the Flash/FMS protocol strings, as clients
//   match them literally.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/shared_buffer.hpp"
#include "kernel/flv/amf0.hpp"
#include "protocol/rtmp/rtmp_message.hpp"

namespace srs {

// ---- Generic command and data messages ----

struct RtmpCommand {
    std::string name;
    double transaction_id = 0;
    Amf0Value command_object = Amf0Value::null();  // null when absent
    std::vector<Amf0Value> args;

    // The i-th argument, or nullptr when there are fewer.
    const Amf0Value* arg(size_t i) const { return i < args.size() ? &args[i] : nullptr; }
};

// Decodes a type 20 message, or a type 17 one (a 0x00 format byte, then AMF0).
Error decode_rtmp_command(const RtmpMessage& msg, RtmpCommand* out);
// Decodes an AMF0 command body (no format byte).
Error decode_rtmp_command_body(const uint8_t* data, size_t size, RtmpCommand* out);
// The AMF0 body of `cmd`, to send as message type 20.
SharedBytes encode_rtmp_command(const RtmpCommand& cmd);
// A type 20 message carrying `cmd` on message stream `stream_id`, on chunk
// stream 3 for stream 0 (connection commands), else 5.
RtmpMessage make_rtmp_command_message(const RtmpCommand& cmd, uint32_t stream_id);

struct RtmpData {
    std::string name;  // "@setDataFrame", "onMetaData", "|RtmpSampleAccess", "onStatus"...
    std::vector<Amf0Value> values;
};

// Decodes a type 18 message, or a type 15 one (a 0x00 format byte, then AMF0).
Error decode_rtmp_data(const RtmpMessage& msg, RtmpData* out);
Error decode_rtmp_data_body(const uint8_t* data, size_t size, RtmpData* out);
SharedBytes encode_rtmp_data(const RtmpData& data);
// A type 18 message carrying `data` on message stream `stream_id` (chunk stream 5).
RtmpMessage make_rtmp_data_message(const RtmpData& data, uint32_t stream_id);

// Metadata as a server keeps it: a publisher sends `@setDataFrame onMetaData {..}`
// (or plain `onMetaData {..}`); players get `onMetaData {..}`. Returns false when
// `in` is not metadata (then *out is untouched).
bool rtmp_metadata_for_players(const RtmpData& in, RtmpData* out);

// ---- Command names ----

inline constexpr char kRtmpCmdConnect[] = "connect";
inline constexpr char kRtmpCmdCreateStream[] = "createStream";
inline constexpr char kRtmpCmdReleaseStream[] = "releaseStream";
inline constexpr char kRtmpCmdFCPublish[] = "FCPublish";
inline constexpr char kRtmpCmdFCUnpublish[] = "FCUnpublish";
inline constexpr char kRtmpCmdPublish[] = "publish";
inline constexpr char kRtmpCmdPlay[] = "play";
inline constexpr char kRtmpCmdPause[] = "pause";
inline constexpr char kRtmpCmdCloseStream[] = "closeStream";
inline constexpr char kRtmpCmdDeleteStream[] = "deleteStream";
inline constexpr char kRtmpCmdGetStreamLength[] = "getStreamLength";
inline constexpr char kRtmpCmdCheckBw[] = "_checkbw";
inline constexpr char kRtmpCmdResult[] = "_result";
inline constexpr char kRtmpCmdError[] = "_error";
inline constexpr char kRtmpCmdOnStatus[] = "onStatus";
inline constexpr char kRtmpCmdOnBWDone[] = "onBWDone";
inline constexpr char kRtmpCmdOnFCPublish[] = "onFCPublish";
inline constexpr char kRtmpCmdOnFCUnpublish[] = "onFCUnpublish";
inline constexpr char kRtmpDataSetDataFrame[] = "@setDataFrame";
inline constexpr char kRtmpDataOnMetaData[] = "onMetaData";
inline constexpr char kRtmpDataSampleAccess[] = "|RtmpSampleAccess";

enum class RtmpCommandKind {
    kConnect,
    kCreateStream,
    kReleaseStream,
    kFCPublish,
    kFCUnpublish,
    kPublish,
    kPlay,
    kPause,
    kCloseStream,
    kDeleteStream,
    kGetStreamLength,
    kCheckBw,
    kResult,
    kError,
    kOnStatus,
    kOnBWDone,
    kCall,  // anything else: passed through to the application
};

RtmpCommandKind classify_rtmp_command(std::string_view name);

// ---- Typed views of client commands ----
// parse_rtmp_request() checks the name and reads the arguments;
// to_rtmp_command() builds the command a client sends.

struct RtmpConnectRequest {
    static constexpr const char* kName = kRtmpCmdConnect;
    double transaction_id = 1;
    std::string tc_url;
    std::string app;
    std::string flash_ver;
    std::string swf_url;
    std::string page_url;
    double object_encoding = 0;              // 0 AMF0, 3 AMF3
    Amf0Value object = Amf0Value::object();  // the command object as received (all properties)
    std::vector<Amf0Value> args;             // optional arguments after the object
};

struct RtmpCreateStreamRequest {
    static constexpr const char* kName = kRtmpCmdCreateStream;
    double transaction_id = 0;
};

// Commands whose one argument is a stream name (absent means "").
struct RtmpStreamNameRequest {
    double transaction_id = 0;
    std::string stream_name;
};
struct RtmpReleaseStreamRequest : RtmpStreamNameRequest {
    static constexpr const char* kName = kRtmpCmdReleaseStream;
};
struct RtmpFCPublishRequest : RtmpStreamNameRequest {
    static constexpr const char* kName = kRtmpCmdFCPublish;
};
struct RtmpFCUnpublishRequest : RtmpStreamNameRequest {
    static constexpr const char* kName = kRtmpCmdFCUnpublish;
};
struct RtmpGetStreamLengthRequest : RtmpStreamNameRequest {
    static constexpr const char* kName = kRtmpCmdGetStreamLength;
};

struct RtmpPublishRequest {
    static constexpr const char* kName = kRtmpCmdPublish;
    double transaction_id = 0;
    std::string stream_name;   // required; may carry "?k=v" params
    std::string type = "live";  // "live", "record" or "append"
};

struct RtmpPlayRequest {
    static constexpr const char* kName = kRtmpCmdPlay;
    double transaction_id = 0;
    std::string stream_name;  // required; may carry "?k=v" params
    double start = -2;        // -2 live or recorded, -1 live only, >= 0 seconds into a recording
    double duration = -1;     // -1 until the end
    bool reset = true;
};

struct RtmpPauseRequest {
    static constexpr const char* kName = kRtmpCmdPause;
    double transaction_id = 0;
    bool pause = true;   // false: unpause
    double time_ms = 0;  // stream time where the client paused/resumes
};

struct RtmpCloseStreamRequest {
    static constexpr const char* kName = kRtmpCmdCloseStream;
    double transaction_id = 0;
};

struct RtmpDeleteStreamRequest {
    static constexpr const char* kName = kRtmpCmdDeleteStream;
    double transaction_id = 0;
    double stream_id = 0;
};

struct RtmpCheckBwRequest {
    static constexpr const char* kName = kRtmpCmdCheckBw;
    double transaction_id = 0;
};

// connect requires a command object with a tcUrl string.
Error parse_rtmp_request(const RtmpCommand& cmd, RtmpConnectRequest* out);
Error parse_rtmp_request(const RtmpCommand& cmd, RtmpCreateStreamRequest* out);
Error parse_rtmp_request(const RtmpCommand& cmd, RtmpReleaseStreamRequest* out);
Error parse_rtmp_request(const RtmpCommand& cmd, RtmpFCPublishRequest* out);
Error parse_rtmp_request(const RtmpCommand& cmd, RtmpFCUnpublishRequest* out);
Error parse_rtmp_request(const RtmpCommand& cmd, RtmpGetStreamLengthRequest* out);
Error parse_rtmp_request(const RtmpCommand& cmd, RtmpPublishRequest* out);
Error parse_rtmp_request(const RtmpCommand& cmd, RtmpPlayRequest* out);
Error parse_rtmp_request(const RtmpCommand& cmd, RtmpPauseRequest* out);
Error parse_rtmp_request(const RtmpCommand& cmd, RtmpCloseStreamRequest* out);
Error parse_rtmp_request(const RtmpCommand& cmd, RtmpDeleteStreamRequest* out);
Error parse_rtmp_request(const RtmpCommand& cmd, RtmpCheckBwRequest* out);

// connect: `object` (if it has properties) with app, flashVer, swfUrl, tcUrl,
// pageUrl and objectEncoding set from the fields (empty strings and a zero
// encoding are left out unless the object already has them).
RtmpCommand to_rtmp_command(const RtmpConnectRequest& req);
RtmpCommand to_rtmp_command(const RtmpCreateStreamRequest& req);
RtmpCommand to_rtmp_command(const RtmpReleaseStreamRequest& req);
RtmpCommand to_rtmp_command(const RtmpFCPublishRequest& req);
RtmpCommand to_rtmp_command(const RtmpFCUnpublishRequest& req);
RtmpCommand to_rtmp_command(const RtmpGetStreamLengthRequest& req);
RtmpCommand to_rtmp_command(const RtmpPublishRequest& req);
RtmpCommand to_rtmp_command(const RtmpPlayRequest& req);
RtmpCommand to_rtmp_command(const RtmpPauseRequest& req);
RtmpCommand to_rtmp_command(const RtmpCloseStreamRequest& req);
RtmpCommand to_rtmp_command(const RtmpDeleteStreamRequest& req);
RtmpCommand to_rtmp_command(const RtmpCheckBwRequest& req);

// ---- Status objects ----

inline constexpr char kRtmpLevelStatus[] = "status";
inline constexpr char kRtmpLevelError[] = "error";
inline constexpr char kRtmpLevelWarning[] = "warning";

inline constexpr char kRtmpStatusConnectSuccess[] = "NetConnection.Connect.Success";
inline constexpr char kRtmpStatusConnectRejected[] = "NetConnection.Connect.Rejected";
inline constexpr char kRtmpStatusPublishStart[] = "NetStream.Publish.Start";
inline constexpr char kRtmpStatusPublishBadName[] = "NetStream.Publish.BadName";
inline constexpr char kRtmpStatusUnpublishSuccess[] = "NetStream.Unpublish.Success";
inline constexpr char kRtmpStatusPlayReset[] = "NetStream.Play.Reset";
inline constexpr char kRtmpStatusPlayStart[] = "NetStream.Play.Start";
inline constexpr char kRtmpStatusPlayStop[] = "NetStream.Play.Stop";
inline constexpr char kRtmpStatusPlayUnpublishNotify[] = "NetStream.Play.UnpublishNotify";
inline constexpr char kRtmpStatusPlayPublishNotify[] = "NetStream.Play.PublishNotify";
inline constexpr char kRtmpStatusPauseNotify[] = "NetStream.Pause.Notify";
inline constexpr char kRtmpStatusUnpauseNotify[] = "NetStream.Unpause.Notify";
inline constexpr char kRtmpStatusDataStart[] = "NetStream.Data.Start";

// The info object of onStatus/_error: level, code, description, and details and
// clientid when not empty.
struct RtmpStatus {
    std::string level = kRtmpLevelStatus;
    std::string code;
    std::string description;
    std::string details;    // the stream name for NetStream events
    std::string client_id;  // "clientid"
};

Amf0Value rtmp_status_object(const RtmpStatus& status);
// Reads the info object of an onStatus/_result/_error command (client side):
// the first argument that has properties.
Error parse_rtmp_status(const RtmpCommand& cmd, RtmpStatus* out);

// ---- What a server sends ----

// connect's _result: properties {fmsVer "FMS/3,5,3,888", capabilities 127, mode 1},
// information {level, code NetConnection.Connect.Success, description,
// objectEncoding, data}. `server_data` is an ECMA array with the server's own
// identity (srs_server, srs_version, srs_pid, srs_id...); left out when it has
// no properties.
RtmpCommand build_connect_result(double transaction_id, double object_encoding, const Amf0Value& server_data,
                                 const std::string& description = "Connection succeeded");
// _error NetConnection.Connect.Rejected.
RtmpCommand build_connect_rejected(double transaction_id, const std::string& description);
// createStream's _result: [_result, tid, null, stream_id].
RtmpCommand build_create_stream_result(double transaction_id, double stream_id);
// The plain answer to releaseStream/FCPublish/FCUnpublish/call: [_result, tid, null, undefined].
RtmpCommand build_simple_result(double transaction_id);
// [_error, tid, null, {status}].
RtmpCommand build_error(double transaction_id, const RtmpStatus& status);
// [onBWDone, 0, null].
RtmpCommand build_on_bw_done();
// [onStatus, 0, null, {status}].
RtmpCommand build_on_status(const RtmpStatus& status);

// onStatus for one NetStream event; `stream` goes into "details".
RtmpCommand build_publish_start(const std::string& stream, const std::string& client_id,
                                const std::string& description = "Started publishing stream.");
RtmpCommand build_publish_bad_name(const std::string& stream, const std::string& client_id,
                                   const std::string& description = "Already publishing.");
RtmpCommand build_unpublish_success(const std::string& stream, const std::string& client_id,
                                    const std::string& description = "Stream is now unpublished.");
RtmpCommand build_play_reset(const std::string& stream, const std::string& client_id,
                             const std::string& description = "Playing and resetting stream.");
RtmpCommand build_play_start(const std::string& stream, const std::string& client_id,
                             const std::string& description = "Started playing stream.");
RtmpCommand build_play_stop(const std::string& stream, const std::string& client_id,
                            const std::string& description = "Stopped playing stream.");
RtmpCommand build_play_unpublish_notify(const std::string& stream, const std::string& client_id,
                                        const std::string& description = "Stream is now unpublished.");
RtmpCommand build_play_publish_notify(const std::string& stream, const std::string& client_id,
                                      const std::string& description = "Stream is now published.");
RtmpCommand build_pause_notify(const std::string& stream, const std::string& client_id,
                               const std::string& description = "Paused stream.");
RtmpCommand build_unpause_notify(const std::string& stream, const std::string& client_id,
                                 const std::string& description = "Unpaused stream.");
// [onFCPublish/onFCUnpublish, 0, null, {code NetStream.Publish.Start / NetStream.Unpublish.Success, description}].
RtmpCommand build_on_fc_publish(const std::string& description);
RtmpCommand build_on_fc_unpublish(const std::string& description);

// Data message onStatus {code NetStream.Data.Start}.
RtmpData build_data_start();
// Data message |RtmpSampleAccess audio video.
RtmpData build_sample_access(bool audio, bool video);

// Client side: the stream id in createStream's _result.
Error parse_create_stream_result(const RtmpCommand& cmd, double* stream_id);

}  // namespace srs

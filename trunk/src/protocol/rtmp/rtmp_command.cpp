// RTMP command and data messages. See rtmp_command.hpp for the guarantees.
#include "protocol/rtmp/rtmp_command.hpp"

#include <utility>

namespace srs {

namespace {

// Strips the format byte of an AMF3 message (types 17, 15): our peers send a
// 0x00 there and then plain AMF0; anything else is AMF3 we do not decode.
Error amf0_body_of(const RtmpMessage& msg, uint8_t amf0_type, uint8_t amf3_type, const uint8_t** data,
                   size_t* size) {
    *data = msg.payload.data();
    *size = msg.payload.size();
    if (msg.type == amf0_type) return Error();
    if (msg.type != amf3_type) {
        return SRS_ERR(kErrorRtmpCommandWrongType, "message type %u is not %u or %u", msg.type, amf0_type, amf3_type);
    }
    if (*size == 0) return SRS_ERR(kErrorAmf0Truncated, "empty AMF3 message");
    if ((*data)[0] != 0) {
        return SRS_ERR(kErrorRtmpAmf3NotSupported, "AMF3 message format byte 0x%02x", (*data)[0]);
    }
    (*data)++;
    (*size)--;
    return Error();
}

SharedBytes encode_values(const std::string& name, const std::vector<const Amf0Value*>& head,
                          const std::vector<Amf0Value>& tail) {
    Amf0Value name_value = Amf0Value::string(name);
    size_t size = amf0_encoded_size(name_value);
    for (const Amf0Value* v : head) size += amf0_encoded_size(*v);
    for (const Amf0Value& v : tail) size += amf0_encoded_size(v);

    std::string body;
    body.reserve(size);
    ByteWriter w(&body);
    amf0_encode(&w, name_value);
    for (const Amf0Value* v : head) amf0_encode(&w, *v);
    for (const Amf0Value& v : tail) amf0_encode(&w, v);
    return SharedBytes::copy_of(body.data(), body.size());
}

}  // namespace

// ---- Generic command and data messages ----

Error decode_rtmp_command_body(const uint8_t* data, size_t size, RtmpCommand* out) {
    std::vector<Amf0Value> values;
    ByteReader r(data, size);
    if (Error err = amf0_decode_all(&r, &values); !err.ok()) return SRS_WRAP(err, "decode command");
    if (values.empty() || !values[0].is_string()) {
        return SRS_ERR(kErrorRtmpCommandNoName, "command does not start with a name string");
    }
    RtmpCommand cmd;
    cmd.name = values[0].as_string();
    if (values.size() > 1) {
        if (!values[1].is_number()) {
            return SRS_ERR(kErrorRtmpCommandBadTransactionId, "command %.64s transaction id is a %s",
                           cmd.name.c_str(), amf0_type_name(values[1].type()));
        }
        cmd.transaction_id = values[1].as_number();
    }
    if (values.size() > 2) cmd.command_object = std::move(values[2]);
    for (size_t i = 3; i < values.size(); i++) cmd.args.push_back(std::move(values[i]));
    *out = std::move(cmd);
    return Error();
}

Error decode_rtmp_command(const RtmpMessage& msg, RtmpCommand* out) {
    const uint8_t* data = nullptr;
    size_t size = 0;
    if (Error err = amf0_body_of(msg, kRtmpAmf0Command, kRtmpAmf3Command, &data, &size); !err.ok()) {
        return SRS_WRAP(err, "decode command");
    }
    return decode_rtmp_command_body(data, size, out);
}

SharedBytes encode_rtmp_command(const RtmpCommand& cmd) {
    Amf0Value tid = Amf0Value::number(cmd.transaction_id);
    return encode_values(cmd.name, {&tid, &cmd.command_object}, cmd.args);
}

RtmpMessage make_rtmp_command_message(const RtmpCommand& cmd, uint32_t stream_id) {
    RtmpMessage msg;
    msg.type = kRtmpAmf0Command;
    msg.stream_id = stream_id;
    msg.cs_id = stream_id == 0 ? kRtmpCidOverConnection : kRtmpCidOverStream;
    msg.payload = encode_rtmp_command(cmd);
    return msg;
}

Error decode_rtmp_data_body(const uint8_t* data, size_t size, RtmpData* out) {
    std::vector<Amf0Value> values;
    ByteReader r(data, size);
    if (Error err = amf0_decode_all(&r, &values); !err.ok()) return SRS_WRAP(err, "decode data");
    if (values.empty() || !values[0].is_string()) {
        return SRS_ERR(kErrorRtmpCommandNoName, "data message does not start with a name string");
    }
    out->name = values[0].as_string();
    values.erase(values.begin());
    out->values = std::move(values);
    return Error();
}

Error decode_rtmp_data(const RtmpMessage& msg, RtmpData* out) {
    const uint8_t* data = nullptr;
    size_t size = 0;
    if (Error err = amf0_body_of(msg, kRtmpAmf0Data, kRtmpAmf3Data, &data, &size); !err.ok()) {
        return SRS_WRAP(err, "decode data");
    }
    return decode_rtmp_data_body(data, size, out);
}

SharedBytes encode_rtmp_data(const RtmpData& data) { return encode_values(data.name, {}, data.values); }

RtmpMessage make_rtmp_data_message(const RtmpData& data, uint32_t stream_id) {
    RtmpMessage msg;
    msg.type = kRtmpAmf0Data;
    msg.stream_id = stream_id;
    msg.cs_id = kRtmpCidOverStream;
    msg.payload = encode_rtmp_data(data);
    return msg;
}

bool rtmp_metadata_for_players(const RtmpData& in, RtmpData* out) {
    if (in.name == kRtmpDataOnMetaData) {
        *out = in;
        return true;
    }
    if (in.name != kRtmpDataSetDataFrame || in.values.empty() || in.values[0].as_string() != kRtmpDataOnMetaData) {
        return false;
    }
    RtmpData stored;
    stored.name = kRtmpDataOnMetaData;
    stored.values.assign(in.values.begin() + 1, in.values.end());
    *out = std::move(stored);
    return true;
}

RtmpCommandKind classify_rtmp_command(std::string_view name) {
    static const struct {
        const char* name;
        RtmpCommandKind kind;
    } kTable[] = {
        {kRtmpCmdConnect, RtmpCommandKind::kConnect},
        {kRtmpCmdCreateStream, RtmpCommandKind::kCreateStream},
        {kRtmpCmdReleaseStream, RtmpCommandKind::kReleaseStream},
        {kRtmpCmdFCPublish, RtmpCommandKind::kFCPublish},
        {kRtmpCmdFCUnpublish, RtmpCommandKind::kFCUnpublish},
        {kRtmpCmdPublish, RtmpCommandKind::kPublish},
        {kRtmpCmdPlay, RtmpCommandKind::kPlay},
        {kRtmpCmdPause, RtmpCommandKind::kPause},
        {kRtmpCmdCloseStream, RtmpCommandKind::kCloseStream},
        {kRtmpCmdDeleteStream, RtmpCommandKind::kDeleteStream},
        {kRtmpCmdGetStreamLength, RtmpCommandKind::kGetStreamLength},
        {kRtmpCmdCheckBw, RtmpCommandKind::kCheckBw},
        {kRtmpCmdResult, RtmpCommandKind::kResult},
        {kRtmpCmdError, RtmpCommandKind::kError},
        {kRtmpCmdOnStatus, RtmpCommandKind::kOnStatus},
        {kRtmpCmdOnBWDone, RtmpCommandKind::kOnBWDone},
    };
    for (const auto& row : kTable) {
        if (name == row.name) return row.kind;
    }
    return RtmpCommandKind::kCall;
}

// ---- Typed views of client commands ----

namespace {

Error check_name(const RtmpCommand& cmd, const char* expected) {
    if (cmd.name != expected) {
        return SRS_ERR(kErrorRtmpCommandUnexpected, "expected %s, got %.64s", expected, cmd.name.c_str());
    }
    return Error();
}

// A required string argument.
Error required_string(const RtmpCommand& cmd, size_t index, const char* what, std::string* out) {
    const Amf0Value* v = cmd.arg(index);
    if (!v) return SRS_ERR(kErrorRtmpCommandMissingArg, "%s without %s", cmd.name.c_str(), what);
    if (!v->is_string()) {
        return SRS_ERR(kErrorRtmpCommandBadArg, "%s %s is a %s", cmd.name.c_str(), what, amf0_type_name(v->type()));
    }
    *out = v->as_string();
    return Error();
}

// An optional number argument: keeps *out when absent or not a number.
void optional_number(const RtmpCommand& cmd, size_t index, double* out) {
    const Amf0Value* v = cmd.arg(index);
    if (v && v->is_number()) *out = v->as_number();
}

RtmpCommand make_command(const char* name, double transaction_id, std::vector<Amf0Value> args = {}) {
    RtmpCommand cmd;
    cmd.name = name;
    cmd.transaction_id = transaction_id;
    cmd.args = std::move(args);
    return cmd;
}

template <class Request>
Error parse_stream_name_request(const RtmpCommand& cmd, Request* out) {
    if (Error err = check_name(cmd, Request::kName); !err.ok()) return err;
    *out = Request();
    out->transaction_id = cmd.transaction_id;
    // Advisory commands: a missing or non-string name is tolerated as "".
    if (const Amf0Value* v = cmd.arg(0)) out->stream_name = v->as_string();
    return Error();
}

template <class Request>
RtmpCommand stream_name_command(const Request& req) {
    return make_command(Request::kName, req.transaction_id, {Amf0Value::string(req.stream_name)});
}

}  // namespace

Error parse_rtmp_request(const RtmpCommand& cmd, RtmpConnectRequest* out) {
    if (Error err = check_name(cmd, kRtmpCmdConnect); !err.ok()) return err;
    const Amf0Value& obj = cmd.command_object;
    if (!obj.has_properties()) {
        return SRS_ERR(kErrorRtmpCommandMissingArg, "connect command object is a %s", amf0_type_name(obj.type()));
    }
    const Amf0Value* tc_url = obj.get("tcUrl");
    if (!tc_url || !tc_url->is_string()) return SRS_ERR(kErrorRtmpCommandMissingArg, "connect without tcUrl");

    *out = RtmpConnectRequest();
    out->transaction_id = cmd.transaction_id;
    out->tc_url = tc_url->as_string();
    out->app = obj.get_string("app");
    out->flash_ver = obj.get_string("flashVer");
    out->swf_url = obj.get_string("swfUrl");
    out->page_url = obj.get_string("pageUrl");
    out->object_encoding = obj.get_number("objectEncoding", 0);
    out->object = obj;
    out->args = cmd.args;
    return Error();
}

Error parse_rtmp_request(const RtmpCommand& cmd, RtmpCreateStreamRequest* out) {
    if (Error err = check_name(cmd, RtmpCreateStreamRequest::kName); !err.ok()) return err;
    out->transaction_id = cmd.transaction_id;
    return Error();
}

Error parse_rtmp_request(const RtmpCommand& cmd, RtmpReleaseStreamRequest* out) {
    return parse_stream_name_request(cmd, out);
}
Error parse_rtmp_request(const RtmpCommand& cmd, RtmpFCPublishRequest* out) {
    return parse_stream_name_request(cmd, out);
}
Error parse_rtmp_request(const RtmpCommand& cmd, RtmpFCUnpublishRequest* out) {
    return parse_stream_name_request(cmd, out);
}
Error parse_rtmp_request(const RtmpCommand& cmd, RtmpGetStreamLengthRequest* out) {
    return parse_stream_name_request(cmd, out);
}

Error parse_rtmp_request(const RtmpCommand& cmd, RtmpPublishRequest* out) {
    if (Error err = check_name(cmd, RtmpPublishRequest::kName); !err.ok()) return err;
    RtmpPublishRequest req;
    req.transaction_id = cmd.transaction_id;
    if (Error err = required_string(cmd, 0, "stream name", &req.stream_name); !err.ok()) return err;
    if (const Amf0Value* type = cmd.arg(1); type && type->is_string() && !type->as_string().empty()) {
        req.type = type->as_string();
    }
    *out = std::move(req);
    return Error();
}

Error parse_rtmp_request(const RtmpCommand& cmd, RtmpPlayRequest* out) {
    if (Error err = check_name(cmd, RtmpPlayRequest::kName); !err.ok()) return err;
    RtmpPlayRequest req;
    req.transaction_id = cmd.transaction_id;
    if (Error err = required_string(cmd, 0, "stream name", &req.stream_name); !err.ok()) return err;
    optional_number(cmd, 1, &req.start);
    optional_number(cmd, 2, &req.duration);
    // Flash sends a boolean; some clients send a number.
    if (const Amf0Value* reset = cmd.arg(3)) {
        if (reset->is_boolean()) req.reset = reset->as_bool();
        if (reset->is_number()) req.reset = reset->as_number() != 0;
    }
    *out = std::move(req);
    return Error();
}

Error parse_rtmp_request(const RtmpCommand& cmd, RtmpPauseRequest* out) {
    if (Error err = check_name(cmd, RtmpPauseRequest::kName); !err.ok()) return err;
    const Amf0Value* pause = cmd.arg(0);
    if (!pause) return SRS_ERR(kErrorRtmpCommandMissingArg, "pause without the pause flag");
    if (!pause->is_boolean()) {
        return SRS_ERR(kErrorRtmpCommandBadArg, "pause flag is a %s", amf0_type_name(pause->type()));
    }
    *out = RtmpPauseRequest();
    out->transaction_id = cmd.transaction_id;
    out->pause = pause->as_bool();
    optional_number(cmd, 1, &out->time_ms);
    return Error();
}

Error parse_rtmp_request(const RtmpCommand& cmd, RtmpCloseStreamRequest* out) {
    if (Error err = check_name(cmd, RtmpCloseStreamRequest::kName); !err.ok()) return err;
    out->transaction_id = cmd.transaction_id;
    return Error();
}

Error parse_rtmp_request(const RtmpCommand& cmd, RtmpDeleteStreamRequest* out) {
    if (Error err = check_name(cmd, RtmpDeleteStreamRequest::kName); !err.ok()) return err;
    const Amf0Value* id = cmd.arg(0);
    if (!id) return SRS_ERR(kErrorRtmpCommandMissingArg, "deleteStream without stream id");
    if (!id->is_number()) {
        return SRS_ERR(kErrorRtmpCommandBadArg, "deleteStream stream id is a %s", amf0_type_name(id->type()));
    }
    out->transaction_id = cmd.transaction_id;
    out->stream_id = id->as_number();
    return Error();
}

Error parse_rtmp_request(const RtmpCommand& cmd, RtmpCheckBwRequest* out) {
    if (Error err = check_name(cmd, RtmpCheckBwRequest::kName); !err.ok()) return err;
    out->transaction_id = cmd.transaction_id;
    return Error();
}

RtmpCommand to_rtmp_command(const RtmpConnectRequest& req) {
    RtmpCommand cmd = make_command(kRtmpCmdConnect, req.transaction_id, req.args);
    Amf0Value obj = req.object.has_properties() ? req.object : Amf0Value::object();
    auto set_string = [&obj](const char* key, const std::string& value) {
        if (!value.empty() || obj.get(key)) obj.set(key, Amf0Value::string(value));
    };
    set_string("app", req.app);
    set_string("flashVer", req.flash_ver);
    set_string("swfUrl", req.swf_url);
    obj.set("tcUrl", Amf0Value::string(req.tc_url));
    set_string("pageUrl", req.page_url);
    if (req.object_encoding != 0 || obj.get("objectEncoding")) {
        obj.set("objectEncoding", Amf0Value::number(req.object_encoding));
    }
    cmd.command_object = std::move(obj);
    return cmd;
}

RtmpCommand to_rtmp_command(const RtmpCreateStreamRequest& req) {
    return make_command(RtmpCreateStreamRequest::kName, req.transaction_id);
}
RtmpCommand to_rtmp_command(const RtmpReleaseStreamRequest& req) { return stream_name_command(req); }
RtmpCommand to_rtmp_command(const RtmpFCPublishRequest& req) { return stream_name_command(req); }
RtmpCommand to_rtmp_command(const RtmpFCUnpublishRequest& req) { return stream_name_command(req); }
RtmpCommand to_rtmp_command(const RtmpGetStreamLengthRequest& req) { return stream_name_command(req); }

RtmpCommand to_rtmp_command(const RtmpPublishRequest& req) {
    return make_command(RtmpPublishRequest::kName, req.transaction_id,
                        {Amf0Value::string(req.stream_name), Amf0Value::string(req.type)});
}

RtmpCommand to_rtmp_command(const RtmpPlayRequest& req) {
    return make_command(RtmpPlayRequest::kName, req.transaction_id,
                        {Amf0Value::string(req.stream_name), Amf0Value::number(req.start),
                         Amf0Value::number(req.duration), Amf0Value::boolean(req.reset)});
}

RtmpCommand to_rtmp_command(const RtmpPauseRequest& req) {
    return make_command(RtmpPauseRequest::kName, req.transaction_id,
                        {Amf0Value::boolean(req.pause), Amf0Value::number(req.time_ms)});
}

RtmpCommand to_rtmp_command(const RtmpCloseStreamRequest& req) {
    return make_command(RtmpCloseStreamRequest::kName, req.transaction_id);
}

RtmpCommand to_rtmp_command(const RtmpDeleteStreamRequest& req) {
    return make_command(RtmpDeleteStreamRequest::kName, req.transaction_id, {Amf0Value::number(req.stream_id)});
}

RtmpCommand to_rtmp_command(const RtmpCheckBwRequest& req) {
    return make_command(RtmpCheckBwRequest::kName, req.transaction_id);
}

// ---- Status objects ----

Amf0Value rtmp_status_object(const RtmpStatus& status) {
    Amf0Value obj = Amf0Value::object();
    obj.set("level", Amf0Value::string(status.level));
    obj.set("code", Amf0Value::string(status.code));
    obj.set("description", Amf0Value::string(status.description));
    if (!status.details.empty()) obj.set("details", Amf0Value::string(status.details));
    if (!status.client_id.empty()) obj.set("clientid", Amf0Value::string(status.client_id));
    return obj;
}

Error parse_rtmp_status(const RtmpCommand& cmd, RtmpStatus* out) {
    for (const Amf0Value& v : cmd.args) {
        if (!v.has_properties()) continue;
        RtmpStatus s;
        s.level = v.get_string("level");
        s.code = v.get_string("code");
        s.description = v.get_string("description");
        s.details = v.get_string("details");
        s.client_id = v.get_string("clientid");
        *out = std::move(s);
        return Error();
    }
    return SRS_ERR(kErrorRtmpCommandMissingArg, "%.64s without an info object", cmd.name.c_str());
}

// ---- What a server sends ----

namespace {

RtmpStatus stream_status(const char* level, const char* code, const std::string& stream,
                         const std::string& client_id, const std::string& description) {
    RtmpStatus s;
    s.level = level;
    s.code = code;
    s.description = description;
    s.details = stream;
    s.client_id = client_id;
    return s;
}

}  // namespace

RtmpCommand build_connect_result(double transaction_id, double object_encoding, const Amf0Value& server_data,
                                 const std::string& description) {
    RtmpCommand cmd = make_command(kRtmpCmdResult, transaction_id);
    cmd.command_object = Amf0Value::object()
                             .set("fmsVer", Amf0Value::string("FMS/3,5,3,888"))
                             .set("capabilities", Amf0Value::number(127))
                             .set("mode", Amf0Value::number(1));
    Amf0Value info = Amf0Value::object()
                         .set("level", Amf0Value::string(kRtmpLevelStatus))
                         .set("code", Amf0Value::string(kRtmpStatusConnectSuccess))
                         .set("description", Amf0Value::string(description))
                         .set("objectEncoding", Amf0Value::number(object_encoding));
    if (server_data.has_properties()) info.set("data", server_data);
    cmd.args.push_back(std::move(info));
    return cmd;
}

RtmpCommand build_connect_rejected(double transaction_id, const std::string& description) {
    return build_error(transaction_id, stream_status(kRtmpLevelError, kRtmpStatusConnectRejected, "", "",
                                                     description));
}

RtmpCommand build_create_stream_result(double transaction_id, double stream_id) {
    return make_command(kRtmpCmdResult, transaction_id, {Amf0Value::number(stream_id)});
}

RtmpCommand build_simple_result(double transaction_id) {
    return make_command(kRtmpCmdResult, transaction_id, {Amf0Value::undefined()});
}

RtmpCommand build_error(double transaction_id, const RtmpStatus& status) {
    return make_command(kRtmpCmdError, transaction_id, {rtmp_status_object(status)});
}

RtmpCommand build_on_bw_done() { return make_command(kRtmpCmdOnBWDone, 0); }

RtmpCommand build_on_status(const RtmpStatus& status) {
    return make_command(kRtmpCmdOnStatus, 0, {rtmp_status_object(status)});
}

RtmpCommand build_publish_start(const std::string& stream, const std::string& client_id,
                                const std::string& description) {
    return build_on_status(stream_status(kRtmpLevelStatus, kRtmpStatusPublishStart, stream, client_id, description));
}

RtmpCommand build_publish_bad_name(const std::string& stream, const std::string& client_id,
                                   const std::string& description) {
    return build_on_status(stream_status(kRtmpLevelError, kRtmpStatusPublishBadName, stream, client_id, description));
}

RtmpCommand build_unpublish_success(const std::string& stream, const std::string& client_id,
                                    const std::string& description) {
    return build_on_status(
        stream_status(kRtmpLevelStatus, kRtmpStatusUnpublishSuccess, stream, client_id, description));
}

RtmpCommand build_play_reset(const std::string& stream, const std::string& client_id,
                             const std::string& description) {
    return build_on_status(stream_status(kRtmpLevelStatus, kRtmpStatusPlayReset, stream, client_id, description));
}

RtmpCommand build_play_start(const std::string& stream, const std::string& client_id,
                             const std::string& description) {
    return build_on_status(stream_status(kRtmpLevelStatus, kRtmpStatusPlayStart, stream, client_id, description));
}

RtmpCommand build_play_stop(const std::string& stream, const std::string& client_id,
                            const std::string& description) {
    return build_on_status(stream_status(kRtmpLevelStatus, kRtmpStatusPlayStop, stream, client_id, description));
}

RtmpCommand build_play_unpublish_notify(const std::string& stream, const std::string& client_id,
                                        const std::string& description) {
    return build_on_status(
        stream_status(kRtmpLevelStatus, kRtmpStatusPlayUnpublishNotify, stream, client_id, description));
}

RtmpCommand build_play_publish_notify(const std::string& stream, const std::string& client_id,
                                      const std::string& description) {
    return build_on_status(
        stream_status(kRtmpLevelStatus, kRtmpStatusPlayPublishNotify, stream, client_id, description));
}

RtmpCommand build_pause_notify(const std::string& stream, const std::string& client_id,
                               const std::string& description) {
    return build_on_status(stream_status(kRtmpLevelStatus, kRtmpStatusPauseNotify, stream, client_id, description));
}

RtmpCommand build_unpause_notify(const std::string& stream, const std::string& client_id,
                                 const std::string& description) {
    return build_on_status(
        stream_status(kRtmpLevelStatus, kRtmpStatusUnpauseNotify, stream, client_id, description));
}

RtmpCommand build_on_fc_publish(const std::string& description) {
    Amf0Value info = Amf0Value::object()
                         .set("code", Amf0Value::string(kRtmpStatusPublishStart))
                         .set("description", Amf0Value::string(description));
    return make_command(kRtmpCmdOnFCPublish, 0, {std::move(info)});
}

RtmpCommand build_on_fc_unpublish(const std::string& description) {
    Amf0Value info = Amf0Value::object()
                         .set("code", Amf0Value::string(kRtmpStatusUnpublishSuccess))
                         .set("description", Amf0Value::string(description));
    return make_command(kRtmpCmdOnFCUnpublish, 0, {std::move(info)});
}

RtmpData build_data_start() {
    RtmpData data;
    data.name = kRtmpCmdOnStatus;
    data.values.push_back(Amf0Value::object().set("code", Amf0Value::string(kRtmpStatusDataStart)));
    return data;
}

RtmpData build_sample_access(bool audio, bool video) {
    RtmpData data;
    data.name = kRtmpDataSampleAccess;
    data.values = {Amf0Value::boolean(audio), Amf0Value::boolean(video)};
    return data;
}

Error parse_create_stream_result(const RtmpCommand& cmd, double* stream_id) {
    if (Error err = check_name(cmd, kRtmpCmdResult); !err.ok()) return SRS_WRAP(err, "createStream answer");
    for (const Amf0Value& v : cmd.args) {
        if (v.is_number()) {
            *stream_id = v.as_number();
            return Error();
        }
    }
    return SRS_ERR(kErrorRtmpCommandMissingArg, "createStream _result without a stream id");
}

}  // namespace srs

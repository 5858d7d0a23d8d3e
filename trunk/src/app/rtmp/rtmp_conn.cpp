#include "app/rtmp/rtmp_conn.hpp"

#include <unistd.h>

#include "app/live/live_source.hpp"
#include "app/security/access_check.hpp"
#include "core/log.hpp"
#include "core/version.hpp"
#include "io/runtime.hpp"

namespace srs {

// As SRS: a peer silent this long (handshake, commands, a stuck player) is gone.
static const utime_t kRtmpTimeoutUs = 30 * kUsPerSecond;
static const uint32_t kPeerBandwidth = 2500000;

RtmpServerConnection::RtmpServerConnection(ConnectionManager* manager, TcpConn* sock, LiveContext* ctx)
    : Connection(manager, sock, "RTMP"), ctx_(ctx), transport_(sock) {}

RtmpServerConnection::~RtmpServerConnection() { stop_coroutine(); }

Error RtmpServerConnection::serve() {
    socket()->set_recv_timeout(kRtmpTimeoutUs);
    socket()->set_send_timeout(kRtmpTimeoutUs);
    if (Error err = transport_.handshake_as_server(); !err.ok()) return SRS_WRAP(err, "rtmp handshake");
    srs_info("RTMP handshake done, complex=%d", transport_.used_complex_handshake());
    if (Error err = connect_app(); !err.ok()) return SRS_WRAP(err, "rtmp connect");
    Error err = identify_client(stream_id_);
    if (connect_hook_passed_) {
        HookRequest r = hook_request();
        r.send_bytes = static_cast<int64_t>(socket()->send_bytes());
        r.recv_bytes = static_cast<int64_t>(socket()->recv_bytes());
        ctx_->hooks().notify(HookAction::kClose, std::move(r));
    }
    return err;
}

HookRequest RtmpServerConnection::hook_request() const {
    HookRequest r;
    r.client_id = cid();
    r.ip = peer().ip;
    r.vhost = req_.vhost;
    r.app = req_.app;
    r.stream = req_.stream;
    r.param = req_.param;
    r.tc_url = req_.tc_url();
    r.page_url = info().page_url;
    if (!req_.stream.empty()) {
        if (LiveSource* s = ctx_->sources().find(req_.vhost, req_.app, req_.stream)) r.stream_id = s->id();
    }
    return r;
}

Error RtmpServerConnection::check_stream_hook(HookAction action) {
    Error err = ctx_->hooks().call(action, hook_request());
    if (err.ok()) return err;
    bool publish = action == HookAction::kPublish;
    send_refusal(publish, publish ? "refused by the on_publish hook" : "refused by the on_play hook");
    return SRS_WRAP(err, "RTMP %s %s", publish ? "publish" : "play", req_.stream_url().c_str());
}

std::string RtmpServerConnection::resolve_vhost(const std::string& host) const {
    std::shared_ptr<const Config> config = ctx_->config();
    return config->has_vhost(host) ? host : kDefaultVhost;
}

void RtmpServerConnection::update_info(ClientKind kind) {
    ClientInfo& i = info();
    i.kind = kind;
    i.vhost = req_.vhost;
    i.app = req_.app;
    i.stream = req_.stream;
    i.tc_url = req_.tc_url();
}

Error RtmpServerConnection::acknowledge(const RtmpCommand& cmd) {
    if (cmd.transaction_id <= 0) return Error();
    return transport_.send_command(build_simple_result(cmd.transaction_id), 0, kRtmpCidOverConnection);
}

Error RtmpServerConnection::send_on_stream(const RtmpCommand& cmd) {
    return transport_.send_command(cmd, stream_id_, kRtmpCidOverStream);
}

Error RtmpServerConnection::connect_app() {
    RtmpMessage msg;
    RtmpCommand cmd;
    while (true) {
        if (Error err = transport_.recv_message(&msg); !err.ok()) return SRS_WRAP(err, "wait connect");
        if (!msg.is_command()) continue;  // nothing else means anything before connect
        if (Error err = decode_rtmp_command(msg, &cmd); !err.ok()) return SRS_WRAP(err, "decode command");
        if (cmd.name == kRtmpCmdConnect) break;
        srs_warn("RTMP: ignore %s before connect", cmd.name.c_str());
    }
    RtmpConnectRequest connect;
    if (Error err = parse_rtmp_request(cmd, &connect); !err.ok()) return SRS_WRAP(err, "connect");
    if (Error err = discover_rtmp_request(connect.tc_url, "", &req_); !err.ok()) {
        return SRS_WRAP(err, "tcUrl %s", connect.tc_url.c_str());
    }
    connect_tc_url_ = connect.tc_url;
    object_encoding_ = connect.object_encoding;
    const std::string asked_vhost = req_.vhost;
    req_.vhost = resolve_vhost(req_.vhost);
    info().page_url = connect.page_url;
    info().swf_url = connect.swf_url;
    update_info(ClientKind::kUnknown);
    std::shared_ptr<const Config> config = ctx_->config();
    if (!config->get(req_.vhost, keys::vhost_enabled)) {
        transport_.send_command(build_connect_rejected(connect.transaction_id, "vhost disabled"), 0,
                                kRtmpCidOverConnection)
            .ignore();
        return SRS_ERR(kErrorVhostDisabled, "vhost %s is disabled", req_.vhost.c_str());
    }
    srs_trace("RTMP client ip=%s, tcUrl=%s, vhost=%s, app=%s, pageUrl=%s, swfUrl=%s, encoding=%d",
              peer().ip.c_str(), connect.tc_url.c_str(), req_.vhost.c_str(), req_.app.c_str(),
              connect.page_url.c_str(), connect.swf_url.c_str(), (int)object_encoding_);

    // refer.all, before anything else is answered (SRS checks it with the vhost).
    if (Error err = check_refer(*config, req_.vhost, ReferStage::kConnect, connect.page_url); !err.ok()) {
        transport_.send_command(build_connect_rejected(connect.transaction_id, "pageUrl refused by refer"), 0,
                                kRtmpCidOverConnection)
            .ignore();
        return SRS_WRAP(err, "rtmp connect %s", connect.tc_url.c_str());
    }
    if (Error err = check_connect_upstream(connect.transaction_id, asked_vhost); !err.ok()) return err;
    // on_connect, after the vhost and refer checks (as SRS): a failure refuses the connect.
    if (Error err = ctx_->hooks().call(HookAction::kConnect, hook_request()); !err.ok()) {
        transport_.send_command(build_connect_rejected(connect.transaction_id, "refused by the on_connect hook"), 0,
                                kRtmpCidOverConnection)
            .ignore();
        return SRS_WRAP(err, "rtmp connect %s", connect.tc_url.c_str());
    }
    connect_hook_passed_ = true;

    // The whole answer to connect in one write (see RtmpTransport::cork).
    transport_.cork();
    RtmpProtocol& proto = transport_.protocol();
    proto.send_window_ack_size(static_cast<uint32_t>(config->get(req_.vhost, keys::vhost_out_ack_size)));
    proto.send_set_peer_bandwidth(kPeerBandwidth, kRtmpLimitDynamic);
    proto.set_out_chunk_size(static_cast<uint32_t>(config->get(req_.vhost, keys::vhost_chunk_size)));

    Amf0Value data = Amf0Value::ecma_array();
    data.set("version", Amf0Value::string(SRS_VERSION_STRING));
    data.set("srs_server", Amf0Value::string(SRS_SIGNATURE));
    data.set("srs_pid", Amf0Value::number(getpid()));
    data.set("srs_id", Amf0Value::string(cid()));
    if (Error err = transport_.send_command(build_connect_result(connect.transaction_id, object_encoding_, data), 0,
                                            kRtmpCidOverConnection);
        !err.ok()) {
        return SRS_WRAP(err, "connect result");
    }
    if (Error err = transport_.send_command(build_on_bw_done(), 0, kRtmpCidOverConnection); !err.ok()) {
        return SRS_WRAP(err, "onBWDone");
    }
    if (Error err = transport_.uncork(); !err.ok()) return SRS_WRAP(err, "connect reply");
    return Error();
}

Error RtmpServerConnection::check_stream_access(AccessAction action) {
    std::shared_ptr<const Config> config = ctx_->config();
    bool publish = action == AccessAction::kPublish;
    ReferStage stage = publish ? ReferStage::kPublish : ReferStage::kPlay;
    Error err = check_refer(*config, req_.vhost, stage, info().page_url);
    const char* description = "pageUrl refused by refer";
    if (err.ok()) {
        err = check_security(*config, req_.vhost, action, peer().ip);
        description = "refused by the vhost's security rules";
    }
    if (err.ok()) return Error();
    send_refusal(publish, description);
    return SRS_WRAP(err, "RTMP %s %s", access_action_name(action), req_.stream_url().c_str());
}

void RtmpServerConnection::send_refusal(bool publish, const char* description) {
    // An error-level onStatus so the client can say why, then the connection closes.
    RtmpStatus status;
    status.level = kRtmpLevelError;
    status.code = publish ? "NetStream.Publish.Denied" : "NetStream.Play.Failed";
    status.description = description;
    status.details = req_.stream;
    status.client_id = cid();
    send_on_stream(build_on_status(status)).ignore();
}

Error RtmpServerConnection::identify_client(uint32_t stream_id) {
    bool fmle = false;
    RtmpMessage msg;
    while (true) {
        if (Error err = pull(); !err.ok()) return err;
        if (Error err = transport_.recv_message(&msg); !err.ok()) return SRS_WRAP(err, "identify client");
        if (!msg.is_command()) continue;
        RtmpCommand cmd;
        if (Error err = decode_rtmp_command(msg, &cmd); !err.ok()) return SRS_WRAP(err, "decode command");
        switch (classify_rtmp_command(cmd.name)) {
            case RtmpCommandKind::kCreateStream:
                if (Error err = transport_.send_command(build_create_stream_result(cmd.transaction_id, stream_id), 0,
                                                        kRtmpCidOverConnection);
                    !err.ok()) {
                    return SRS_WRAP(err, "createStream");
                }
                break;
            case RtmpCommandKind::kReleaseStream:
            case RtmpCommandKind::kFCPublish:
                // The FMLE/ffmpeg/OBS publish flow announces itself with these.
                fmle = true;
                if (Error err = acknowledge(cmd); !err.ok()) return SRS_WRAP(err, "%s", cmd.name.c_str());
                break;
            case RtmpCommandKind::kPublish: {
                RtmpPublishRequest req;
                if (Error err = parse_rtmp_request(cmd, &req); !err.ok()) return SRS_WRAP(err, "publish");
                return publish(req.stream_name, fmle);
            }
            case RtmpCommandKind::kPlay: {
                RtmpPlayRequest req;
                if (Error err = parse_rtmp_request(cmd, &req); !err.ok()) return SRS_WRAP(err, "play");
                return play(req.stream_name);
            }
            case RtmpCommandKind::kGetStreamLength:
            case RtmpCommandKind::kCheckBw:
            case RtmpCommandKind::kCall:
                if (Error err = acknowledge(cmd); !err.ok()) return SRS_WRAP(err, "%s", cmd.name.c_str());
                break;
            default:
                srs_info("RTMP: ignore %s while identifying", cmd.name.c_str());
                break;
        }
    }
}

}  // namespace srs

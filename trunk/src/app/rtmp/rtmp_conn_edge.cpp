// The edge side of an RTMP connection: token traverse at connect, and a
// publish relayed to an origin (both behind the StreamPuller). An edge's
// players are plain players: the pull they share is started in play().
#include "app/rtmp/rtmp_conn.hpp"
#include "core/log.hpp"

namespace srs {

Error RtmpServerConnection::check_connect_upstream(double transaction_id, const std::string& asked_vhost) {
    Error err = ctx_->puller().check_connect(pull_request(asked_vhost));
    if (err.ok()) return Error();
    srs_warn("RTMP connect %s refused by token traverse: %s", req_.tc_url().c_str(), err.summary().c_str());
    transport_.send_command(build_connect_rejected(transaction_id, "refused by the origin (token traverse)"), 0,
                            kRtmpCidOverConnection)
        .ignore();
    return SRS_WRAP(err, "edge token traverse %s", req_.tc_url().c_str());
}

Error RtmpServerConnection::publish_to_origin(const std::string& asked_vhost, bool fmle) {
    std::shared_ptr<const Config> config = ctx_->config();
    std::unique_ptr<PublishRelay> relay;
    if (Error err = ctx_->puller().open_publish_relay(pull_request(asked_vhost), &relay); !err.ok()) {
        send_on_stream(build_publish_bad_name(req_.stream, cid())).ignore();
        return SRS_WRAP(err, "RTMP edge publish %s", req_.stream_url().c_str());
    }
    if (fmle) {
        if (Error err = send_on_stream(build_on_fc_publish("Started publishing stream.")); !err.ok()) {
            return SRS_WRAP(err, "onFCPublish");
        }
    }
    if (Error err = send_on_stream(build_publish_start(req_.stream, cid())); !err.ok()) {
        return SRS_WRAP(err, "publish start");
    }
    srs_trace("RTMP edge %s %s%s, param=%s, to origin %s", client_kind_name(info().kind), req_.vhost.c_str(),
              req_.stream_url().c_str(), req_.param.c_str(), relay->upstream_url().c_str());

    socket()->set_recv_timeout(config->get(req_.vhost, keys::vhost_publish_normal_timeout) * kUsPerMs);
    RtmpMessage msg;
    // Ends with the publisher (unpublish, close, timeout) or the origin.
    while (true) {
        if (Error err = pull(); !err.ok()) return err;
        if (Error err = transport_.recv_message(&msg); !err.ok()) {
            return SRS_WRAP(err, "edge publish %s", req_.stream_url().c_str());
        }
        if (msg.is_av() || msg.is_data()) {
            if (Error err = relay->forward(msg); !err.ok()) return err;
            continue;
        }
        if (!msg.is_command()) continue;
        RtmpCommand cmd;
        if (Error err = decode_rtmp_command(msg, &cmd); !err.ok()) return SRS_WRAP(err, "decode command");
        switch (classify_rtmp_command(cmd.name)) {
            case RtmpCommandKind::kFCUnpublish:
                send_on_stream(build_on_fc_unpublish("Stop publishing stream.")).ignore();
                acknowledge(cmd).ignore();
                send_on_stream(build_unpublish_success(req_.stream, cid())).ignore();
                srs_trace("RTMP edge unpublish %s (FCUnpublish)", req_.stream_url().c_str());
                return Error();
            case RtmpCommandKind::kDeleteStream:
            case RtmpCommandKind::kCloseStream:
                srs_trace("RTMP edge unpublish %s (%s)", req_.stream_url().c_str(), cmd.name.c_str());
                return Error();
            default:
                if (Error err = acknowledge(cmd); !err.ok()) return err;
                break;
        }
    }
}

}  // namespace srs

// The playing side of an RTMP connection.
#include <memory>

#include "app/live/consumer_options.hpp"
#include "app/live/live_consumer.hpp"
#include "app/live/live_source.hpp"
#include "app/live/player_pump.hpp"
#include "app/rtmp/rtmp_conn.hpp"
#include "app/rtmp/rtmp_media_sender.hpp"
#include "core/log.hpp"

namespace srs {

// An RTMP player as the live pump sees it: batches leave as chunks through
// the shared headers (RtmpMediaSender); pause, closeStream and acks come in
// between; unpublish and republish are announced with onStatus.
class RtmpPlayWriter : public PlayerWriter {
  public:
    explicit RtmpPlayWriter(RtmpServerConnection* conn)
        : conn_(conn), sender_(conn->socket(), conn->stream_id_) {
        sender_.set_chunk_size(conn->transport_.protocol().out_chunk_size());
    }

    Error pull() override { return conn_->pull(); }

    Error poll_control(LiveConsumer* consumer, bool* done) override {
        incoming_.clear();
        if (Error err = conn_->transport_.poll_messages(&incoming_); !err.ok()) return SRS_WRAP(err, "play control");
        for (auto& m : incoming_) {
            if (Error err = conn_->on_play_control(m, consumer, done); !err.ok() || *done) return err;
        }
        return Error();
    }

    Error on_unpublish(bool* done) override {
        *done = false;
        const RtmpRequestInfo& req = conn_->req_;
        if (Error err = conn_->send_on_stream(build_play_unpublish_notify(req.stream, conn_->cid())); !err.ok()) {
            return SRS_WRAP(err, "unpublish notify");
        }
        return Error();
    }

    Error on_republish() override {
        const RtmpRequestInfo& req = conn_->req_;
        if (Error err = conn_->send_on_stream(build_play_publish_notify(req.stream, conn_->cid())); !err.ok()) {
            return SRS_WRAP(err, "publish notify");
        }
        return Error();
    }

    Error write(const std::vector<LiveMessagePtr>& msgs) override {
        if (Error err = sender_.send(msgs); !err.ok()) return SRS_WRAP(err, "play %s", conn_->req_.stream_url().c_str());
        return Error();
    }

    // Nagle was off while the player joined (see play()); tcp_nodelay
    // decides from now on.
    void on_joined() override {
        if (conn_->ctx_->config()->get(conn_->req_.vhost, keys::vhost_tcp_nodelay)) return;
        if (Error err = conn_->socket()->set_nodelay(false); !err.ok()) srs_warn("%s", err.summary().c_str());
    }

    uint64_t bytes_sent() const override { return conn_->socket()->send_bytes(); }

  private:
    RtmpServerConnection* conn_;
    RtmpMediaSender sender_;
    std::vector<RtmpMessage> incoming_;
};

Error RtmpServerConnection::play(const std::string& stream_name) {
    if (Error err = discover_rtmp_request(connect_tc_url_, stream_name, &req_); !err.ok()) {
        return SRS_WRAP(err, "play %s", stream_name.c_str());
    }
    const std::string asked_vhost = req_.vhost;
    req_.vhost = resolve_vhost(req_.vhost);
    if (req_.stream.empty()) return SRS_ERR(kErrorStreamNameEmpty, "play without a stream name");
    update_info(ClientKind::kRtmpPlay);
    if (Error err = check_stream_access(AccessAction::kPlay); !err.ok()) return err;
    if (Error err = check_stream_hook(HookAction::kPlay); !err.ok()) return err;
    // on_stop follows a passed on_play however the play ends, as SRS.
    Error err = play_stream(asked_vhost);
    ctx_->hooks().notify(HookAction::kStop, hook_request());
    return err;
}

Error RtmpServerConnection::play_stream(const std::string& asked_vhost) {
    ConsumerOptions options = consumer_options(*ctx_->config(), req_.vhost);
    // No Nagle while the player joins: the play reply and the first media
    // batch right behind it would otherwise wait for the player's delayed
    // ACK (~40 ms of time to first frame). tcp_nodelay decides afterwards.
    if (Error err = socket()->set_nodelay(true); !err.ok()) srs_warn("%s", err.summary().c_str());

    // StreamBegin, the two onStatus and the data messages in one write.
    transport_.cork();
    RtmpProtocol& proto = transport_.protocol();
    proto.send_user_control(kRtmpStreamBegin, stream_id_);
    if (Error err = send_on_stream(build_play_reset(req_.stream, cid()));
        !err.ok()) {
        return SRS_WRAP(err, "play reset");
    }
    if (Error err = send_on_stream(build_play_start(req_.stream, cid()));
        !err.ok()) {
        return SRS_WRAP(err, "play start");
    }
    if (Error err = transport_.send_data(build_sample_access(true, true), stream_id_); !err.ok()) {
        return SRS_WRAP(err, "sample access");
    }
    if (Error err = transport_.send_data(build_data_start(), stream_id_); !err.ok()) {
        return SRS_WRAP(err, "data start");
    }
    if (Error err = transport_.uncork(); !err.ok()) return SRS_WRAP(err, "play reply");

    LiveSource* source = ctx_->sources().fetch_or_create(req_.vhost, req_.app, req_.stream);
    std::unique_ptr<LiveConsumer> consumer(source->create_consumer(options));
    // An edge's stream (or one another origin owns): the first player
    // starts the pull, the others share it.
    bool pulled = false;
    if (Error err = ctx_->puller().on_play(source, pull_request(asked_vhost), &pulled); !err.ok()) {
        return SRS_WRAP(err, "RTMP play %s", req_.stream_url().c_str());
    }
    srs_trace("RTMP play %s%s, param=%s, mw=%d ms/%d msgs, realtime=%d, queue=%d s, publishing=%d",
              req_.vhost.c_str(), req_.stream_url().c_str(), req_.param.c_str(),
              (int)(options.mw_latency_us / kUsPerMs), options.mw_msgs, options.realtime,
              (int)(options.queue_length_us / kUsPerSecond), source->publishing());
    return play_loop(consumer.get());
}

PullRequest RtmpServerConnection::pull_request(const std::string& asked_vhost) const {
    PullRequest r;
    r.vhost = req_.vhost;
    r.asked_vhost = asked_vhost;
    r.app = req_.app;
    r.stream = req_.stream;
    r.param = req_.param;
    return r;
}

Error RtmpServerConnection::play_loop(LiveConsumer* consumer) {
    transport_.use_player_input();
    RtmpPlayWriter writer(this);
    PlayerPump pump(consumer, &writer);
    pump.set_pithy_print("PLA", req_.stream_url(), ctx_->config()->get(keys::pithy_print_ms) * kUsPerMs);
    return pump.run();
}

Error RtmpServerConnection::on_play_control(RtmpMessage& msg, LiveConsumer* consumer, bool* done) {
    *done = false;
    if (!msg.is_command()) return Error();
    RtmpCommand cmd;
    if (Error err = decode_rtmp_command(msg, &cmd); !err.ok()) return SRS_WRAP(err, "decode command");
    switch (classify_rtmp_command(cmd.name)) {
        case RtmpCommandKind::kPause: {
            RtmpPauseRequest req;
            if (Error err = parse_rtmp_request(cmd, &req); !err.ok()) return SRS_WRAP(err, "pause");
            consumer->set_paused(req.pause);
            srs_trace("RTMP %s %s", req.pause ? "pause" : "unpause", req_.stream_url().c_str());
            RtmpCommand notify = req.pause ? build_pause_notify(req_.stream, cid())
                                           : build_unpause_notify(req_.stream, cid());
            return send_on_stream(notify);
        }
        case RtmpCommandKind::kCloseStream:
        case RtmpCommandKind::kDeleteStream:
            srs_trace("RTMP stop playing %s (%s)", req_.stream_url().c_str(), cmd.name.c_str());
            *done = true;
            return Error();
        default:
            return acknowledge(cmd);
    }
}

}  // namespace srs

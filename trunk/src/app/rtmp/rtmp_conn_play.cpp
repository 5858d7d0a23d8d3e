// The playing side of an RTMP connection.
#include <memory>

#include "app/live/live_consumer.hpp"
#include "app/live/live_source.hpp"
#include "app/rtmp/rtmp_conn.hpp"
#include "app/rtmp/rtmp_media_sender.hpp"
#include "core/log.hpp"

namespace srs {

// How many messages one send takes from the queue at most.
static const size_t kMaxMessagesPerSend = 512;
// Longest wait for media before the player looks at its socket again
// (pause, closeStream, a peer that left).
static const utime_t kPlayIdleWaitUs = 500 * kUsPerMs;

Error RtmpServerConnection::play(const std::string& stream_name) {
    if (Error err = discover_rtmp_request(req_.tc_url(), stream_name, &req_); !err.ok()) {
        return SRS_WRAP(err, "play %s", stream_name.c_str());
    }
    req_.vhost = resolve_vhost(req_.vhost);
    if (req_.stream.empty()) return SRS_ERR(kErrorStreamNameEmpty, "play without a stream name");
    update_info(ClientKind::kRtmpPlay);

    const Config& config = ctx_->config();
    ConsumerOptions options;
    options.queue_length_us = config.vhost_get_int(req_.vhost, "play.queue_length") * kUsPerSecond;
    options.realtime = config.vhost_get_bool(req_.vhost, "min_latency");
    options.mw_latency_us = config.vhost_get_int(req_.vhost, "play.mw_latency") * kUsPerMs;
    options.mw_msgs = static_cast<int>(config.vhost_get_int(req_.vhost, "play.mw_msgs"));
    if (options.realtime && !config.vhost_is_set(req_.vhost, "play.mw_msgs")) options.mw_msgs = 0;
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
    srs_trace("RTMP play %s%s, param=%s, mw=%d ms/%d msgs, realtime=%d, queue=%d s, publishing=%d",
              req_.vhost.c_str(), req_.stream_url().c_str(), req_.param.c_str(),
              (int)(options.mw_latency_us / kUsPerMs), options.mw_msgs, options.realtime,
              (int)(options.queue_length_us / kUsPerSecond), source->publishing());
    return play_loop(source, consumer.get());
}

Error RtmpServerConnection::play_loop(LiveSource* source, LiveConsumer* consumer) {
    (void)source;
    RtmpMediaSender sender(socket(), stream_id_);
    sender.set_chunk_size(transport_.protocol().out_chunk_size());
    const ConsumerOptions& options = consumer->options();
    utime_t wait_us = options.realtime ? kPlayIdleWaitUs : std::min(options.mw_latency_us, kPlayIdleWaitUs);
    if (wait_us <= 0) wait_us = kPlayIdleWaitUs;
    utime_t pithy_us = ctx_->config().pithy_print_ms() * kUsPerMs;

    std::vector<LiveMessagePtr> msgs;
    std::vector<RtmpMessage> incoming;
    utime_t start = monotonic_us();
    utime_t last_print = start;
    uint64_t last_out = socket()->send_bytes();
    bool joining = true;  // until the first media batch left
    while (true) {
        if (Error err = pull(); !err.ok()) return err;

        // Control from the player: pause, closeStream, acks (handled inside).
        incoming.clear();
        if (Error err = transport_.poll_messages(&incoming); !err.ok()) return SRS_WRAP(err, "play control");
        for (auto& m : incoming) {
            bool done = false;
            if (Error err = on_play_control(m, consumer, &done); !err.ok()) return err;
            if (done) return Error();
        }

        if (consumer->take_unpublished()) {
            if (Error err = send_on_stream(build_play_unpublish_notify(req_.stream, cid()));
                !err.ok()) {
                return SRS_WRAP(err, "unpublish notify");
            }
        }
        if (consumer->take_republished()) {
            if (Error err = send_on_stream(build_play_publish_notify(req_.stream, cid()));
                !err.ok()) {
                return SRS_WRAP(err, "publish notify");
            }
        }

        consumer->wait(wait_us);
        if (consumer->paused()) continue;
        msgs.clear();
        consumer->dump(&msgs, kMaxMessagesPerSend);
        if (!msgs.empty()) {
            if (Error err = sender.send(msgs); !err.ok()) return SRS_WRAP(err, "play %s", req_.stream_url().c_str());
            if (joining && !ctx_->config().vhost_get_bool(req_.vhost, "tcp_nodelay")) {
                if (Error err = socket()->set_nodelay(false); !err.ok()) srs_warn("%s", err.summary().c_str());
            }
            joining = false;
        }

        utime_t now = monotonic_us();
        if (now - last_print >= pithy_us) {
            uint64_t out = socket()->send_bytes();
            int okbps = (int)((out - last_out) * 8 * 1000 / (uint64_t)(now - last_print));
            srs_trace("-> PLA time=%d ms, msgs=%llu, okbps=%d, ikbps=0, queue=%zu, dropped=%llu, mw=%d/%d, stream=%s",
                      (int)((now - start) / kUsPerMs), (unsigned long long)sender.messages_sent(), okbps,
                      consumer->size(), (unsigned long long)consumer->dropped(),
                      (int)(options.mw_latency_us / kUsPerMs), options.mw_msgs, req_.stream_url().c_str());
            last_print = now;
            last_out = out;
        }
    }
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

// The publishing side of an RTMP connection.
#include "app/live/live_source.hpp"
#include "app/rtmp/publish_read_batching.hpp"
#include "app/rtmp/rtmp_conn.hpp"

#include "core/log.hpp"

namespace srs {

namespace {

TimeJitter parse_jitter(const std::string& v) {
    if (v == "zero") return TimeJitter::kZero;
    if (v == "off") return TimeJitter::kOff;
    return TimeJitter::kFull;
}

// Unpublishes when the publish ends, however it ends.
class PublishGuard {
  public:
    explicit PublishGuard(LiveSource* source) : source_(source) {}
    ~PublishGuard() { source_->on_unpublish(); }

  private:
    LiveSource* source_;
};

// The wait before a publisher's next read after a small one (see
// PublishReadBatching): the live sources count the load.
utime_t read_wait_us(const Config& config, const std::string& vhost, size_t streams, utime_t message_interval) {
    PublishReadInputs in;
    in.mr = config.get(vhost, keys::vhost_publish_mr);
    in.mr_set = config.is_set(vhost, keys::vhost_publish_mr);
    in.mr_latency_ms = static_cast<int>(config.get(vhost, keys::vhost_publish_mr_latency));
    in.min_latency = config.get(vhost, keys::vhost_min_latency);
    in.active_streams = streams;
    in.message_interval_us = message_interval;
    return PublishReadBatching::wait_us(in);
}

}  // namespace

Error RtmpServerConnection::publish(const std::string& stream_name, bool fmle) {
    if (Error err = discover_rtmp_request(connect_tc_url_, stream_name, &req_); !err.ok()) {
        return SRS_WRAP(err, "publish %s", stream_name.c_str());
    }
    const std::string asked_vhost = req_.vhost;
    req_.vhost = resolve_vhost(req_.vhost);
    if (req_.stream.empty()) return SRS_ERR(kErrorStreamNameEmpty, "publish without a stream name");
    update_info(fmle ? ClientKind::kFmlePublish : ClientKind::kFlashPublish);
    if (Error err = check_stream_access(AccessAction::kPublish); !err.ok()) return err;
    if (Error err = check_stream_hook(HookAction::kPublish); !err.ok()) return err;
    // on_unpublish follows a passed on_publish however the publish ends (busy, refused claim, EOF), as SRS.
    Error err = publish_stream(asked_vhost, fmle);
    ctx_->hooks().notify(HookAction::kUnpublish, hook_request());
    return err;
}

Error RtmpServerConnection::publish_stream(const std::string& asked_vhost, bool fmle) {
    StreamPuller& puller = ctx_->puller();
    if (puller.relays_publish(req_.vhost)) return publish_to_origin(asked_vhost, fmle);

    LiveSource* source = ctx_->sources().find(req_.vhost, req_.app, req_.stream);
    // Our pull of the stream from its owner is no local publisher: the claim judges.
    std::string upstream;
    if (source && source->publishing() && !puller.pulled_from(source, &upstream)) return refuse_busy_publish(source);
    // Claim the stream across the cluster first (a Redis round trip with the
    // stream registry on): another origin may publish it already.
    if (Error err = ctx_->stream_claims().claim(req_.vhost, req_.app, req_.stream); err.failed()) {
        send_on_stream(build_publish_bad_name(req_.stream, cid())).ignore();
        return SRS_WRAP(err, "publish %s", req_.stream_url().c_str());
    }
    // The claim may have yielded: look again, another publisher of ours may have come first.
    source = ctx_->sources().fetch_or_create(req_.vhost, req_.app, req_.stream);
    // We own the stream now (the old owner's key expired): our pull of it ends
    // and the publisher takes the source (a pull claims nothing, so ending it
    // leaves our fresh claim alone).
    puller.stop_pull(source);
    if (source->publishing()) return refuse_busy_publish(source);

    std::shared_ptr<const Config> config = ctx_->config();
    SourceOptions options;
    options.gop_cache = config->get(req_.vhost, keys::vhost_play_gop_cache);
    options.gop_cache_max_frames = static_cast<int>(config->get(req_.vhost, keys::vhost_play_gop_cache_max_frames));
    options.jitter = parse_jitter(config->get(req_.vhost, keys::vhost_play_time_jitter));
    options.param = req_.param;
    options.tc_url = req_.tc_url();
    options.client_ip = peer_ip();
    if (Error err = source->on_publish(cid(), options); !err.ok()) {
        ctx_->stream_claims().unclaim(req_.vhost, req_.app, req_.stream);
        return SRS_WRAP(err, "publish");
    }
    PublishGuard guard(source);

    if (fmle) {
        if (Error err = send_on_stream(build_on_fc_publish("Started publishing stream."));
            !err.ok()) {
            return SRS_WRAP(err, "onFCPublish");
        }
    }
    if (Error err = send_on_stream(build_publish_start(req_.stream, cid()));
        !err.ok()) {
        return SRS_WRAP(err, "publish start");
    }
    srs_trace("RTMP %s %s%s, param=%s", client_kind_name(info().kind), req_.vhost.c_str(), req_.stream_url().c_str(),
              req_.param.c_str());
    return publish_loop(source);
}

Error RtmpServerConnection::refuse_busy_publish(LiveSource* source) {
    srs_warn("RTMP publish %s denied: already published by %s", req_.stream_url().c_str(),
             source->publisher_cid().c_str());
    send_on_stream(build_publish_bad_name(req_.stream, cid())).ignore();
    return SRS_ERR(kErrorStreamBusy, "stream %s is busy", req_.stream_url().c_str());
}

Error RtmpServerConnection::publish_loop(LiveSource* source) {
    std::shared_ptr<const Config> config = ctx_->config();
    utime_t first_timeout = config->get(req_.vhost, keys::vhost_publish_firstpkt_timeout) * kUsPerMs;
    utime_t normal_timeout = config->get(req_.vhost, keys::vhost_publish_normal_timeout) * kUsPerMs;
    utime_t pithy_us = config->get(keys::pithy_print_ms) * kUsPerMs;
    socket()->set_recv_timeout(first_timeout);
    utime_t read_wait = read_wait_us(*config, req_.vhost, ctx_->sources().size(), 0);
    transport_.set_merged_read(read_wait);
    // The load and this publisher's message rate change: look again now and then.
    utime_t last_load_check = monotonic_us();
    uint64_t msgs_at_check = 0;

    bool got_media = false;
    uint64_t msgs = 0;
    utime_t start = monotonic_us();
    utime_t last_print = start;
    uint64_t last_bytes = socket()->recv_bytes();
    RtmpMessage msg;
    while (true) {
        if (Error err = pull(); !err.ok()) return err;
        if (Error err = transport_.recv_message(&msg); !err.ok()) {
            if (err.code() == kErrorSocketTimeout) {
                return SRS_WRAP(err, "publish %s: no media for %d ms", req_.stream_url().c_str(),
                                (int)((got_media ? normal_timeout : first_timeout) / kUsPerMs));
            }
            return SRS_WRAP(err, "publish %s", req_.stream_url().c_str());
        }
        if (!got_media && msg.is_av()) {
            got_media = true;
            socket()->set_recv_timeout(normal_timeout);
        }
        msgs++;
        bool done = false;
        if (Error err = on_publish_message(source, msg, &done); !err.ok()) return err;
        if (done) return Error();

        utime_t now = monotonic_us();
        if (now - last_load_check >= kUsPerSecond) {
            utime_t interval = msgs > msgs_at_check ? (now - last_load_check) / (utime_t)(msgs - msgs_at_check) : 0;
            read_wait = read_wait_us(*ctx_->config(), req_.vhost, ctx_->sources().size(), interval);
            transport_.set_merged_read(read_wait);
            last_load_check = now;
            msgs_at_check = msgs;
        }
        if (now - last_print >= pithy_us) {
            uint64_t bytes = socket()->recv_bytes();
            int ikbps = (int)((bytes - last_bytes) * 8 * 1000 / (uint64_t)(now - last_print));
            // mr: SRS's merged read as configured; rwait: the read wait in
            // force, mr's or the load's (PublishReadBatching).
            int mr_ms = merged_read_ms();
            srs_trace("<- CPB time=%d ms, msgs=%llu, ikbps=%d, okbps=0, mr=%d/%d, rwait=%dms, stream=%s",
                      (int)((now - start) / kUsPerMs), (unsigned long long)msgs, ikbps, mr_ms > 0 ? 1 : 0, mr_ms,
                      (int)(read_wait / kUsPerMs), req_.stream_url().c_str());
            last_print = now;
            last_bytes = bytes;
        }
    }
}

// publish.mr_latency when publish.mr is on, else 0. min_latency wins: a
// realtime vhost never delays its reads.
int RtmpServerConnection::merged_read_ms() const {
    std::shared_ptr<const Config> config = ctx_->config();
    if (!config->get(req_.vhost, keys::vhost_publish_mr) || config->get(req_.vhost, keys::vhost_min_latency)) return 0;
    return static_cast<int>(config->get(req_.vhost, keys::vhost_publish_mr_latency));
}

Error RtmpServerConnection::on_publish_message(LiveSource* source, RtmpMessage& msg, bool* done) {
    *done = false;
    if (msg.type == kRtmpAudio) {
        if (Error err = source->on_audio(msg.timestamp, std::move(msg.payload)); !err.ok()) return err;
        return Error();
    }
    if (msg.type == kRtmpVideo) {
        if (Error err = source->on_video(msg.timestamp, std::move(msg.payload)); !err.ok()) return err;
        return Error();
    }
    if (msg.is_data()) {
        RtmpData data, meta;
        if (Error err = decode_rtmp_data(msg, &data); !err.ok()) {
            srs_warn("RTMP: ignore undecodable data message: %s", err.summary().c_str());
            return Error();
        }
        if (rtmp_metadata_for_players(data, &meta)) {
            if (Error err = source->on_metadata(encode_rtmp_data(meta)); !err.ok()) return err;
        }
        return Error();
    }
    if (!msg.is_command()) return Error();

    RtmpCommand cmd;
    if (Error err = decode_rtmp_command(msg, &cmd); !err.ok()) return SRS_WRAP(err, "decode command");
    switch (classify_rtmp_command(cmd.name)) {
        case RtmpCommandKind::kFCUnpublish:
            // ffmpeg/OBS: FCUnpublish, then deleteStream. Answer as FMS does.
            send_on_stream(build_on_fc_unpublish("Stop publishing stream."))
                .ignore();
            acknowledge(cmd).ignore();
            send_on_stream(build_unpublish_success(req_.stream, cid()))
                .ignore();
            *done = true;
            srs_trace("RTMP unpublish %s (FCUnpublish)", req_.stream_url().c_str());
            return Error();
        case RtmpCommandKind::kDeleteStream:
        case RtmpCommandKind::kCloseStream:
            *done = true;
            srs_trace("RTMP unpublish %s (%s)", req_.stream_url().c_str(), cmd.name.c_str());
            return Error();
        default:
            return acknowledge(cmd);
    }
}

}  // namespace srs

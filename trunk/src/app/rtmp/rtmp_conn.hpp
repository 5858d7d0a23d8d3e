// An RTMP client of the server: handshake, connect, then one of publish or
// play (ffmpeg/OBS publish flow, the Flash flow, players).
#pragma once

#include <memory>
#include <string>

#include "app/conn/connection.hpp"
#include "app/conn/live_context.hpp"
#include "app/hooks/http_hooks.hpp"
#include "app/live/stream_puller.hpp"
#include "app/upstream/rtmp_transport.hpp"
#include "kernel/access/access_rules.hpp"
#include "protocol/rtmp/rtmp_url.hpp"

namespace srs {

class LiveConsumer;
class LiveSource;

class RtmpServerConnection : public Connection {
  public:
    RtmpServerConnection(ConnectionManager* manager, TcpConn* sock, LiveContext* ctx);
    ~RtmpServerConnection() override;

    const RtmpRequestInfo& request() const { return req_; }
    // RTMP carries only streams: listed from the first byte, as SRS does.
    bool listed() const override { return true; }

  protected:
    Error serve() override;

  private:
    friend class RtmpPlayWriter;
    Error connect_app();
    Error identify_client(uint32_t stream_id);
    std::string resolve_vhost(const std::string& host) const;
    // Answers a command that only needs a _result, when the client waits for one.
    Error acknowledge(const RtmpCommand& cmd);
    // Sends a command on the client's message stream (onStatus and friends).
    Error send_on_stream(const RtmpCommand& cmd);

    // What this client asked, for the puller (an edge names it to its origin).
    PullRequest pull_request(const std::string& asked_vhost) const;
    // Edge vhost with token_traverse: the origin judges connect first.
    Error check_connect_upstream(double transaction_id, const std::string& asked_vhost);

    // The vhost's refer.publish|play and security rules for this client;
    // a refused client gets an error onStatus and the error closes it.
    Error check_stream_access(AccessAction action);
    // The error onStatus a refused publisher (NetStream.Publish.Denied) or
    // player (NetStream.Play.Failed) gets before the connection closes.
    void send_refusal(bool publish, const char* description);
    // What the http_hooks are told about this client now (stream_id when the source exists).
    HookRequest hook_request() const;
    // on_publish / on_play: a failure refuses the client like check_stream_access.
    Error check_stream_hook(HookAction action);

    Error publish(const std::string& stream_name, bool fmle);
    // After the checks and on_publish: the publish itself, until it ends.
    Error publish_stream(const std::string& asked_vhost, bool fmle);
    // Edge vhost: the publish is relayed to an origin (StreamPuller::open_publish_relay).
    Error publish_to_origin(const std::string& asked_vhost, bool fmle);
    Error publish_loop(LiveSource* source);
    Error on_publish_message(LiveSource* source, RtmpMessage& msg, bool* done);
    // Answers NetStream.Publish.BadName and returns kErrorStreamBusy.
    Error refuse_busy_publish(LiveSource* source);
    int merged_read_ms() const;

    Error play(const std::string& stream_name);
    // After the checks and on_play: the play itself, until it ends.
    Error play_stream(const std::string& asked_vhost);
    Error play_loop(LiveConsumer* consumer);
    Error on_play_control(RtmpMessage& msg, LiveConsumer* consumer, bool* done);

    LiveContext* ctx_;
    RtmpTransport transport_;
    RtmpRequestInfo req_;
    // connect's tcUrl as sent: publish and play read the stream name against
    // it, so a vhost given as ?vhost= (or other params) on the app is kept.
    std::string connect_tc_url_;
    void update_info(ClientKind kind);
    double object_encoding_ = 0;
    uint32_t stream_id_ = 1;
    bool connect_hook_passed_ = false;  // on_connect passed (or had no URL): on_close at the end
};

}  // namespace srs

// An RTMP client: connect to a server, then play or publish one stream.
//
// Built on RtmpTransport (which owns the read buffer, the handshake and the
// chunk protocol), so it speaks exactly what the server parses. Used by the
// unit tests, the load tools (research/tools/sb_rtmp_*) and, later, forward.
//
//   RtmpClient client;
//   if (Error err = client.connect("rtmp://127.0.0.1:1935/live/livestream", 10 * kUsPerSecond); !err.ok()) ...
//   if (Error err = client.play(); !err.ok()) ...
//   for (RtmpMessage msg;;) { if (Error err = client.recv_message(&msg); !err.ok()) break; ... }
//
// Contract:
// - connect() takes numeric hosts, and names when given a resolver
//   (set_resolver: the server's HostResolver looks them up off the coroutine
//   thread; every address is tried in turn); the port defaults to 1935. The
//   timeout bounds the lookup plus the TCP connects and is then the socket's receive and send timeout for every later call,
//   until set_recv_timeout()/set_send_timeout() change it. A failed connect()
//   leaves nothing open, so it can be called again.
// - connect()/play()/publish() return once the server said yes; a refusal
//   (_error, or onStatus with level "error") is an error whose message
//   carries the status code, e.g. "NetStream.Publish.BadName".
// - Protocol control (chunk size, window ack size, peer bandwidth, pings,
//   acknowledgements) is answered inside; recv_message() returns everything
//   else, including audio/video/data that arrived while play() waited for
//   NetStream.Play.Start, in the order it came.
// - Each call is made by one coroutine at a time.
#pragma once

#include <sys/uio.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "app/upstream/rtmp_transport.hpp"
#include "core/clock.hpp"
#include "core/error.hpp"
#include "core/shared_buffer.hpp"
#include "io/socket.hpp"
#include "kernel/flv/amf0.hpp"
#include "protocol/rtmp/rtmp_command.hpp"
#include "protocol/rtmp/rtmp_message.hpp"
#include "protocol/rtmp/rtmp_url.hpp"

namespace srs {

class HostResolver;

// A short name for what kind of failure ended a client session, for counters
// and reports: "connect", "timeout", "closed", "io", "rejected", "handshake",
// "protocol", "interrupted" or "other".
const char* rtmp_client_error_kind(const Error& err);

class RtmpClient {
  public:
    RtmpClient();
    ~RtmpClient();  // closes the socket without the goodbye commands of close()
    RtmpClient(const RtmpClient&) = delete;
    RtmpClient& operator=(const RtmpClient&) = delete;

    // flashVer sent in connect (default "LNX 9,0,124,2", as ffmpeg's player).
    void set_flash_ver(const std::string& v) { flash_ver_ = v; }
    // The tcUrl sent in connect instead of the URL's (an edge names the
    // origin's vhost there while it connects to the origin's IP); "": the URL's.
    void set_tc_url(const std::string& tc_url) { tc_url_ = tc_url; }
    // Resolves host names (not owned); nullptr: numeric hosts only.
    void set_resolver(HostResolver* resolver) { resolver_ = resolver; }
    // Buffer length announced to the server after play (SetBufferLength), ms.
    void set_buffer_length_ms(uint32_t ms) { buffer_length_ms_ = ms; }

    // TCP connect to rtmp://ip[:port]/app/stream[?params], handshake (complex
    // offered, simple accepted), connect command, wait for its _result.
    Error connect(const std::string& url, utime_t timeout_us, bool complex_handshake = true);
    // createStream, play (stream?params), SetBufferLength; waits for
    // NetStream.Play.Start.
    Error play();
    // ffmpeg's flow: releaseStream, FCPublish, createStream, publish "live";
    // waits for NetStream.Publish.Start.
    Error publish();

    // The next message that is not protocol control (blocks, recv timeout).
    Error recv_message(RtmpMessage* msg);
    // What has arrived, without waiting (publishers drain acks and status).
    Error poll_messages(std::vector<RtmpMessage>* out);

    // Audio (8) or video (9) on the published stream: the payload is written
    // straight from the buffer (chunk headers + writev, no copy).
    Error send_media(uint8_t type, uint32_t timestamp, SharedBytes payload);
    // "@setDataFrame", "onMetaData", {metadata} (an object or ECMA array).
    Error send_metadata(const Amf0Value& metadata, uint32_t timestamp = 0);
    // Any AMF0 data message on the stream.
    Error send_data(const RtmpData& data, uint32_t timestamp = 0);
    // Several audio (8), video (9) or AMF0 data (18) messages in as few
    // writev calls as IOV_MAX allows, in order; each message's type,
    // timestamp and payload are used, stream and chunk stream ids are ours.
    Error send_messages(const RtmpMessage* msgs, size_t count);
    // Set Chunk Size for everything sent after it (128..65536).
    Error set_chunk_size(uint32_t size);

    // Publishers: FCUnpublish + deleteStream; players: deleteStream. Then the
    // socket is closed. Safe to call more than once or before connect.
    Error close();

    void set_recv_timeout(utime_t us);
    void set_send_timeout(utime_t us);

    // ---- state ----
    bool connected() const { return connected_; }
    bool playing() const { return playing_; }
    bool publishing() const { return publishing_; }
    const RtmpRequestInfo& request() const { return req_; }
    uint32_t stream_id() const { return stream_id_; }
    bool used_complex_handshake() const { return transport_ && transport_->used_complex_handshake(); }
    // The "data" object of connect's _result (SRS puts srs_server, srs_id,
    // srs_pid... there); undefined when the server sent none.
    const Amf0Value& server_info() const { return server_info_; }
    // The info object of the last status answer (connect, play, publish).
    const RtmpStatus& last_status() const { return last_status_; }
    // The info object of the last _error answer, whole (an RTMP 302 carries
    // its target in "ex"); undefined when there was none.
    const Amf0Value& rejection_info() const { return rejection_info_; }
    RtmpTransport* transport() { return transport_.get(); }
    TcpConn* socket() { return sock_.get(); }

    // ---- counters (of this connection) ----
    uint64_t bytes_in() const { return sock_ ? sock_->recv_bytes() : 0; }
    uint64_t bytes_out() const { return sock_ ? sock_->send_bytes() : 0; }
    uint64_t messages_in() const { return messages_in_; }    // returned by recv/poll
    uint64_t media_out() const { return media_out_; }              // messages sent by send_media/send_messages
    uint64_t media_bytes_out() const { return media_bytes_out_; }  // their payload bytes

  private:
    Error do_connect(const std::string& url, utime_t timeout_us, bool complex_handshake);
    // createStream, then its _result: sets stream_id_.
    Error create_stream();
    Error send_command(const RtmpCommand& cmd, uint32_t stream_id);
    // Reads until the answer to transaction `tid` (_result/_error), keeping
    // media and data for recv_message.
    Error wait_result(double tid, RtmpCommand* out);
    // Reads until an onStatus whose code is `code` (or any error level).
    Error wait_status(const char* code);
    Error recv_raw(RtmpMessage* msg);
    Error write_iovecs(const struct iovec* iov, size_t count);
    Error require_state(bool ok, const char* what) const;
    bool is_advisory(double tid) const { return tid > 0 && (tid == advisory_tids_[0] || tid == advisory_tids_[1]); }

    std::unique_ptr<TcpConn> sock_;
    std::unique_ptr<RtmpTransport> transport_;
    RtmpRequestInfo req_;
    std::string flash_ver_ = "LNX 9,0,124,2";
    uint32_t buffer_length_ms_ = 3000;
    double next_tid_ = 2;  // connect is 1
    double advisory_tids_[2] = {0, 0};  // releaseStream, FCPublish: an _error to them is not fatal
    uint32_t stream_id_ = 0;
    bool connected_ = false;
    bool playing_ = false;
    bool publishing_ = false;
    std::string tc_url_;
    HostResolver* resolver_ = nullptr;
    Amf0Value server_info_;
    Amf0Value rejection_info_;
    RtmpStatus last_status_;
    // Media/data that came while waiting for an answer, in arrival order.
    std::deque<RtmpMessage> pending_;
    size_t pending_bytes_ = 0;  // their payloads

    // send_messages scratch, reused: chunk headers (first, continuation per
    // message) and iovecs.
    std::vector<std::string> headers_;
    std::vector<struct iovec> iov_;

    uint64_t messages_in_ = 0;
    uint64_t media_out_ = 0;
    uint64_t media_bytes_out_ = 0;
};

}  // namespace srs

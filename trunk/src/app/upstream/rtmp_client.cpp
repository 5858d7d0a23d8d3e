#include "app/upstream/rtmp_client.hpp"

#include <vector>

#include "io/host_resolver.hpp"
#include "protocol/rtmp/rtmp_chunk.hpp"

namespace srs {

namespace {

// Media and data kept while waiting for an answer: a server that streams this
// much before answering is broken.
constexpr size_t kMaxPendingMessages = 4096;
// And this many payload bytes (4096 messages of up to 16 MB each would be
// 64 GB).
constexpr size_t kMaxPendingBytes = 32 * 1024 * 1024;
// Most iovecs one writev takes (Linux IOV_MAX).
constexpr size_t kMaxIovPerWrite = 1024;

// The info object of a status answer, when it has one.
bool read_status(const RtmpCommand& cmd, RtmpStatus* out) {
    Error err = parse_rtmp_status(cmd, out);
    if (err.ok()) return true;
    err.ignore();
    return false;
}

const char* status_code_or(const RtmpStatus& s, const char* fallback) {
    return s.code.empty() ? fallback : s.code.c_str();
}

}  // namespace

const char* rtmp_client_error_kind(const Error& err) {
    const int code = err.code();
    switch (code) {
        case kSuccess: return "none";
        case kErrorSocketConnect:
        case kErrorSocketCreate: return "connect";
        case kErrorSocketTimeout: return "timeout";
        case kErrorSocketClosed: return "closed";
        case kErrorSocketRead:
        case kErrorSocketWrite: return "io";
        case kErrorThreadInterrupted:
        case kErrorThreadTerminated: return "interrupted";
        case kErrorRtmpClientRejected: return "rejected";
        case kErrorRtmpHandshakeVersion:
        case kErrorRtmpHandshakeCrypto:
        case kErrorRtmpHandshakeState: return "handshake";
        default: break;
    }
    // Malformed chunks, control messages, AMF0 or commands from the peer.
    if (code > kErrorRtmpBase && code < kErrorAppBase && code != kErrorRtmpClientState &&
        code != kErrorRtmpClientNoDns && code != kErrorRtmpUrlInvalid) {
        return "protocol";
    }
    if (code == kErrorBufferOverflow) return "protocol";
    return "other";
}

RtmpClient::RtmpClient() = default;

RtmpClient::~RtmpClient() {
    transport_.reset();
    sock_.reset();
}

Error RtmpClient::require_state(bool ok, const char* what) const {
    if (ok) return Error();
    return SRS_ERR(kErrorRtmpClientState, "rtmp client: %s (connected=%d, playing=%d, publishing=%d)", what,
                   connected_, playing_, publishing_);
}

void RtmpClient::set_recv_timeout(utime_t us) {
    if (sock_) sock_->set_recv_timeout(us);
}

void RtmpClient::set_send_timeout(utime_t us) {
    if (sock_) sock_->set_send_timeout(us);
}

Error RtmpClient::connect(const std::string& url, utime_t timeout_us, bool complex_handshake) {
    if (Error err = require_state(!sock_, "connect twice"); !err.ok()) return err;
    Error err = do_connect(url, timeout_us, complex_handshake);
    if (!err.ok()) {
        // Nothing half-open stays behind: the client can connect again.
        transport_.reset();
        sock_.reset();
        pending_.clear();
        pending_bytes_ = 0;
    }
    return err;
}

Error RtmpClient::do_connect(const std::string& url, utime_t timeout_us, bool complex_handshake) {
    rejection_info_ = Amf0Value();
    if (Error err = parse_rtmp_url(url, &req_); !err.ok()) return SRS_WRAP(err, "url %s", url.c_str());
    std::vector<std::string> addresses;
    utime_t until = monotonic_us() + timeout_us;
    if (is_ip_literal(req_.host)) {
        addresses.push_back(req_.host);
    } else if (!resolver_) {
        return SRS_ERR(kErrorRtmpClientNoDns, "host %s of %s is not an IP address (no resolver)", req_.host.c_str(),
                       url.c_str());
    } else if (Error err = resolver_->resolve(req_.host, timeout_us, &addresses); !err.ok()) {
        return SRS_WRAP(err, "url %s", url.c_str());
    }

    // Each address in turn, all within the one timeout.
    TcpConn* raw = nullptr;
    Error last;
    for (const std::string& ip : addresses) {
        utime_t left = timeout_us < 0 ? -1 : until - monotonic_us();
        if (timeout_us >= 0 && left <= 0) break;
        last.ignore();
        last = TcpConn::connect(ip, req_.port, left, &raw);
        if (last.ok()) break;
    }
    if (!raw) {
        if (last.ok()) return SRS_ERR(kErrorSocketTimeout, "tcp connect %s:%d: timed out", req_.host.c_str(), req_.port);
        return SRS_WRAP(last, "tcp connect %s:%d", req_.host.c_str(), req_.port);
    }
    sock_.reset(raw);
    sock_->set_recv_timeout(timeout_us);
    sock_->set_send_timeout(timeout_us);
    // C2 and connect (and each command after) are small writes that must not
    // wait for the server's delayed ACK: ~40 ms per step of a join otherwise.
    if (Error err = sock_->set_nodelay(true); !err.ok()) return SRS_WRAP(err, "nodelay");
    transport_.reset(new RtmpTransport(sock_.get()));
    if (Error err = transport_->handshake_as_client(complex_handshake); !err.ok()) {
        return SRS_WRAP(err, "handshake with %s:%d", req_.host.c_str(), req_.port);
    }

    // The properties ffmpeg and Flash players send; servers log or ignore them.
    RtmpConnectRequest creq;
    creq.transaction_id = 1;
    creq.tc_url = tc_url_.empty() ? req_.tc_url() : tc_url_;
    creq.app = req_.app;
    creq.flash_ver = flash_ver_;
    creq.object = Amf0Value::object();
    creq.object.set("app", Amf0Value::string(req_.app));
    creq.object.set("flashVer", Amf0Value::string(flash_ver_));
    creq.object.set("tcUrl", Amf0Value::string(creq.tc_url));
    creq.object.set("fpad", Amf0Value::boolean(false));
    creq.object.set("capabilities", Amf0Value::number(15));
    creq.object.set("audioCodecs", Amf0Value::number(4071));
    creq.object.set("videoCodecs", Amf0Value::number(252));
    creq.object.set("videoFunction", Amf0Value::number(1));
    if (Error err = send_command(to_rtmp_command(creq), 0); !err.ok()) return SRS_WRAP(err, "send connect");

    RtmpCommand res;
    if (Error err = wait_result(1, &res); !err.ok()) return SRS_WRAP(err, "connect %s", creq.tc_url.c_str());
    RtmpStatus status;
    if (read_status(res, &status)) last_status_ = status;
    for (const Amf0Value& v : res.args) {
        if (const Amf0Value* data = v.get("data"); data && data->has_properties()) server_info_ = *data;
    }
    connected_ = true;
    return Error();
}

Error RtmpClient::create_stream() {
    const double tid = next_tid_++;
    RtmpCreateStreamRequest create;
    create.transaction_id = tid;
    if (Error err = send_command(to_rtmp_command(create), 0); !err.ok()) return SRS_WRAP(err, "createStream");
    RtmpCommand res;
    if (Error err = wait_result(tid, &res); !err.ok()) return SRS_WRAP(err, "createStream");
    double sid = 0;
    if (Error err = parse_create_stream_result(res, &sid); !err.ok()) return SRS_WRAP(err, "createStream");
    stream_id_ = static_cast<uint32_t>(sid);
    return Error();
}

Error RtmpClient::play() {
    if (Error err = require_state(connected_ && !playing_ && !publishing_, "play"); !err.ok()) return err;
    if (Error err = create_stream(); !err.ok()) return err;

    RtmpPlayRequest req;
    req.transaction_id = 0;  // as Flash: play answers with onStatus, not _result
    req.stream_name = req_.stream_with_param();
    if (Error err = send_command(to_rtmp_command(req), stream_id_); !err.ok()) return SRS_WRAP(err, "play");
    transport_->protocol().send_user_control(kRtmpSetBufferLength, stream_id_, buffer_length_ms_);
    if (Error err = transport_->flush(); !err.ok()) return SRS_WRAP(err, "set buffer length");
    if (Error err = wait_status(kRtmpStatusPlayStart); !err.ok()) {
        return SRS_WRAP(err, "play %s", req_.stream_url().c_str());
    }
    playing_ = true;
    return Error();
}

Error RtmpClient::publish() {
    if (Error err = require_state(connected_ && !playing_ && !publishing_, "publish"); !err.ok()) return err;
    const std::string name = req_.stream_with_param();
    // releaseStream and FCPublish are advisory: ffmpeg sends them without
    // waiting, and so do we (an _error to them is ignored in wait_result).
    RtmpReleaseStreamRequest release;
    release.transaction_id = next_tid_++;
    release.stream_name = name;
    if (Error err = send_command(to_rtmp_command(release), 0); !err.ok()) return SRS_WRAP(err, "releaseStream");
    advisory_tids_[0] = release.transaction_id;
    RtmpFCPublishRequest fcpublish;
    fcpublish.transaction_id = next_tid_++;
    fcpublish.stream_name = name;
    if (Error err = send_command(to_rtmp_command(fcpublish), 0); !err.ok()) return SRS_WRAP(err, "FCPublish");
    advisory_tids_[1] = fcpublish.transaction_id;
    if (Error err = create_stream(); !err.ok()) return err;

    RtmpPublishRequest req;
    req.transaction_id = next_tid_++;
    req.stream_name = name;
    req.type = "live";
    if (Error err = send_command(to_rtmp_command(req), stream_id_); !err.ok()) return SRS_WRAP(err, "publish");
    if (Error err = wait_status(kRtmpStatusPublishStart); !err.ok()) {
        return SRS_WRAP(err, "publish %s", req_.stream_url().c_str());
    }
    publishing_ = true;
    return Error();
}

Error RtmpClient::send_command(const RtmpCommand& cmd, uint32_t stream_id) {
    return transport_->send_message(make_rtmp_command_message(cmd, stream_id));
}

Error RtmpClient::recv_raw(RtmpMessage* msg) {
    if (!transport_) return SRS_ERR(kErrorRtmpClientState, "rtmp client: not connected");
    return transport_->recv_message(msg);
}

Error RtmpClient::wait_result(double tid, RtmpCommand* out) {
    RtmpMessage msg;
    while (true) {
        if (Error err = recv_raw(&msg); !err.ok()) return SRS_WRAP(err, "wait for answer %g", tid);
        if (!msg.is_command()) {
            if (pending_.size() >= kMaxPendingMessages || pending_bytes_ + msg.payload.size() > kMaxPendingBytes) {
                return SRS_ERR(kErrorRtmpClientState, "%zu messages (%zu bytes) before the answer %g",
                               pending_.size(), pending_bytes_, tid);
            }
            pending_bytes_ += msg.payload.size();
            pending_.push_back(std::move(msg));
            continue;
        }
        RtmpCommand cmd;
        if (Error err = decode_rtmp_command(msg, &cmd); !err.ok()) return SRS_WRAP(err, "decode answer");
        const RtmpCommandKind kind = classify_rtmp_command(cmd.name);
        if ((kind == RtmpCommandKind::kResult || kind == RtmpCommandKind::kError) && cmd.transaction_id == tid) {
            if (kind == RtmpCommandKind::kError) {
                RtmpStatus status;
                if (read_status(cmd, &status)) last_status_ = status;
                for (const Amf0Value& v : cmd.args) {
                    if (v.has_properties()) {
                        rejection_info_ = v;
                        break;
                    }
                }
                return SRS_ERR(kErrorRtmpClientRejected, "rejected: %s %s", status_code_or(status, "_error"),
                               status.description.c_str());
            }
            *out = std::move(cmd);
            return Error();
        }
        if (kind == RtmpCommandKind::kOnStatus) {
            RtmpStatus status;
            if (read_status(cmd, &status) && status.level == kRtmpLevelError) {
                last_status_ = status;
                return SRS_ERR(kErrorRtmpClientRejected, "rejected: %s %s", status_code_or(status, "onStatus"),
                               status.description.c_str());
            }
        }
        // onBWDone, onFCPublish, answers to advisory commands: nothing to do.
    }
}

Error RtmpClient::wait_status(const char* code) {
    RtmpMessage msg;
    while (true) {
        if (Error err = recv_raw(&msg); !err.ok()) return SRS_WRAP(err, "wait for %s", code);
        if (!msg.is_command()) {
            if (pending_.size() >= kMaxPendingMessages || pending_bytes_ + msg.payload.size() > kMaxPendingBytes) {
                return SRS_ERR(kErrorRtmpClientState, "%zu messages (%zu bytes) before %s", pending_.size(),
                               pending_bytes_, code);
            }
            pending_bytes_ += msg.payload.size();
            pending_.push_back(std::move(msg));
            continue;
        }
        RtmpCommand cmd;
        if (Error err = decode_rtmp_command(msg, &cmd); !err.ok()) return SRS_WRAP(err, "decode status");
        const RtmpCommandKind kind = classify_rtmp_command(cmd.name);
        if (kind != RtmpCommandKind::kOnStatus && kind != RtmpCommandKind::kError) continue;
        RtmpStatus status;
        Error parsed = parse_rtmp_status(cmd, &status);
        if (kind == RtmpCommandKind::kError) {
            parsed.ignore();  // an _error without an info object is still a refusal
            // _error answers to releaseStream/FCPublish (some servers send
            // them) do not stop a publish; any other _error does.
            if (is_advisory(cmd.transaction_id)) continue;
            last_status_ = status;
            return SRS_ERR(kErrorRtmpClientRejected, "rejected: %s %s", status_code_or(status, "_error"),
                           status.description.c_str());
        }
        if (!parsed.ok()) return SRS_WRAP(parsed, "status");
        if (status.level == kRtmpLevelError) {
            last_status_ = status;
            return SRS_ERR(kErrorRtmpClientRejected, "rejected: %s %s", status_code_or(status, "onStatus"),
                           status.description.c_str());
        }
        if (status.code == code) {
            last_status_ = status;
            return Error();
        }
        // NetStream.Play.Reset and friends come first.
    }
}

Error RtmpClient::recv_message(RtmpMessage* msg) {
    if (!pending_.empty()) {
        pending_bytes_ -= pending_.front().payload.size();
        *msg = std::move(pending_.front());
        pending_.pop_front();
        messages_in_++;
        return Error();
    }
    if (Error err = recv_raw(msg); !err.ok()) return err;
    messages_in_++;
    return Error();
}

Error RtmpClient::poll_messages(std::vector<RtmpMessage>* out) {
    if (!transport_) return SRS_ERR(kErrorRtmpClientState, "rtmp client: not connected");
    const size_t before = out->size();
    while (!pending_.empty()) {
        out->push_back(std::move(pending_.front()));
        pending_.pop_front();
    }
    pending_bytes_ = 0;
    Error err = transport_->poll_messages(out);
    messages_in_ += out->size() - before;
    return err;
}

Error RtmpClient::write_iovecs(const struct iovec* iov, size_t count) {
    while (count > 0) {
        size_t n = count < kMaxIovPerWrite ? count : kMaxIovPerWrite;
        if (Error err = sock_->writev(iov, static_cast<int>(n)); !err.ok()) return err;
        iov += n;
        count -= n;
    }
    return Error();
}

Error RtmpClient::send_media(uint8_t type, uint32_t timestamp, SharedBytes payload) {
    if (type != kRtmpAudio && type != kRtmpVideo) {
        return SRS_ERR(kErrorRtmpClientState, "send_media: type %u is not audio or video", type);
    }
    RtmpMessage msg;
    msg.type = type;
    msg.timestamp = timestamp;
    msg.payload = std::move(payload);
    return send_messages(&msg, 1);
}

Error RtmpClient::send_messages(const RtmpMessage* msgs, size_t count) {
    if (Error err = require_state(publishing_, "send media"); !err.ok()) return err;
    const uint32_t chunk_size = transport_->protocol().out_chunk_size();
    size_t need = 0;
    for (size_t i = 0; i < count; i++) {
        const RtmpMessage& m = msgs[i];
        if (m.type != kRtmpAudio && m.type != kRtmpVideo && m.type != kRtmpAmf0Data) {
            return SRS_ERR(kErrorRtmpClientState, "send_messages: type %u is not audio, video or data", m.type);
        }
        if (m.payload.size() > kRtmpMaxMessageSize) {
            return SRS_ERR(kErrorRtmpChunkMessageTooLarge, "send_messages: %zu bytes", m.payload.size());
        }
        need += 2 * RtmpChunkEncoder::chunk_count(m.payload.size(), chunk_size);
    }
    // Control bytes the protocol queued (acks, pongs, chunk size) go first.
    if (Error err = transport_->flush(); !err.ok()) return SRS_WRAP(err, "flush control");

    if (headers_.size() < 2 * count) headers_.resize(2 * count);
    if (iov_.size() < need) iov_.resize(need);
    size_t used = 0;
    uint64_t bytes = 0;
    RtmpMessage head;  // the ids the headers carry; the payload only for its size
    for (size_t i = 0; i < count; i++) {
        const RtmpMessage& m = msgs[i];
        head.type = m.type;
        head.timestamp = m.timestamp;
        head.stream_id = stream_id_;
        head.cs_id = m.type == kRtmpAudio ? kRtmpCidAudio : m.type == kRtmpVideo ? kRtmpCidVideo : kRtmpCidOverStream;
        head.payload = m.payload;
        std::string& first = headers_[2 * i];
        std::string& cont = headers_[2 * i + 1];
        RtmpChunkEncoder::encode_headers(head, chunk_size, &first, &cont);
        used += RtmpChunkEncoder::fill_iovecs(first, cont, m.payload.data(), m.payload.size(), chunk_size,
                                              iov_.data() + used, iov_.size() - used);
        bytes += m.payload.size();
    }
    if (Error err = write_iovecs(iov_.data(), used); !err.ok()) return SRS_WRAP(err, "send media");
    media_out_ += count;
    media_bytes_out_ += bytes;
    return Error();
}

Error RtmpClient::send_data(const RtmpData& data, uint32_t timestamp) {
    if (Error err = require_state(publishing_, "send data"); !err.ok()) return err;
    RtmpMessage msg = make_rtmp_data_message(data, stream_id_);
    msg.timestamp = timestamp;
    return transport_->send_message(msg);
}

Error RtmpClient::send_metadata(const Amf0Value& metadata, uint32_t timestamp) {
    RtmpData data;
    data.name = kRtmpDataSetDataFrame;
    data.values.push_back(Amf0Value::string(kRtmpDataOnMetaData));
    data.values.push_back(metadata);
    return send_data(data, timestamp);
}

Error RtmpClient::set_chunk_size(uint32_t size) {
    if (Error err = require_state(transport_ != nullptr, "set chunk size"); !err.ok()) return err;
    if (size < kRtmpMinChunkSize || size > kRtmpMaxChunkSize) {
        return SRS_ERR(kErrorRtmpChunkSizeInvalid, "chunk size %u outside %u..%u", size, kRtmpMinChunkSize,
                       kRtmpMaxChunkSize);
    }
    transport_->protocol().set_out_chunk_size(size);
    return transport_->flush();
}

Error RtmpClient::close() {
    Error result;
    if (transport_ && sock_) {
        if (publishing_) {
            RtmpFCUnpublishRequest fcun;
            fcun.transaction_id = next_tid_++;
            fcun.stream_name = req_.stream_with_param();
            result = send_command(to_rtmp_command(fcun), 0);
        }
        if ((publishing_ || playing_) && result.ok()) {
            RtmpDeleteStreamRequest del;
            del.transaction_id = next_tid_++;
            del.stream_id = stream_id_;
            result = send_command(to_rtmp_command(del), 0);
        }
    }
    transport_.reset();
    if (sock_) sock_->close();
    sock_.reset();
    pending_.clear();
    pending_bytes_ = 0;
    connected_ = playing_ = publishing_ = false;
    stream_id_ = 0;
    if (!result.ok()) return SRS_WRAP(result, "close %s", req_.stream_url().c_str());
    return Error();
}

}  // namespace srs

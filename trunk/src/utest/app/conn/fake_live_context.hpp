// Fakes of the server's side for tests. A LiveContext for tests of what connections and handlers ask of the
// server (API, exporter): a config loaded from text, empty sources and
// clients, and /proc samples a test can set.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "app/hooks/http_hooks.hpp"
#include "app/registry/memory_stream_registry.hpp"
#include "app/conn/server_context.hpp"

namespace srs {

// A puller for a server without edges or a registry: nothing is pulled.
class NoStreamPuller : public StreamPuller {
  public:
    bool may_pull(const std::string&) const override { return false; }
    Error on_play(LiveSource*, const PullRequest&, bool* pulled) override {
        *pulled = false;
        return Error();
    }
    bool pulled_from(const LiveSource*, std::string*) const override { return false; }
    bool stop_pull(LiveSource*) override { return false; }
    bool relays_publish(const std::string&) const override { return false; }
    Error check_connect(const PullRequest&) override { return Error(); }
    Error open_publish_relay(const PullRequest&, std::unique_ptr<PublishRelay>*) override {
        return SRS_ERR(kErrorEdgeNoOrigin, "no upstream in tests");
    }
};

class FakeLiveContext : public ServerContext {
  public:
    explicit FakeLiveContext(const std::string& conf = "listen 1935;\n") {
        Error err = Config::load_text(conf, "t.conf", &config_);
        EXPECT_TRUE(err.ok()) << err.summary();
    }
    std::shared_ptr<const Config> config() const override { return config_; }
    SourceManager& sources() override { return sources_; }
    ClientRegistry& clients() override { return clients_; }
    StreamPuller& puller() override { return puller_; }
    Error reload() override { return Error(); }
    utime_t start_wall_us() const override { return 0; }
    const ProcStatsSampler& proc_stats() const override { return stats_; }
    ProcStatsSampler& mutable_stats() { return stats_; }
    StreamClaims& stream_claims() override { return claims_; }
    HttpHooks& hooks() override { return hooks_; }
    const HttpClientOptions& http_client_options() const override { return http_options_; }

  private:
    std::shared_ptr<const Config> config_;
    SourceManager sources_;
    ClientRegistry clients_;
    NoStreamPuller puller_;
    ProcStatsSampler stats_;
    HttpClientOptions http_options_;
    MemoryStreamRegistry registry_;
    StreamClaims claims_{&registry_, "rtmp://127.0.0.1:1935", &sources_};
    HttpHooks hooks_{[this] { return config_; }, HttpClientOptions()};
};

// A client that is not a TCP connection, as a WebRTC session on the shared
// UDP socket will be: its counters are fields a test sets.
class FakeRtcSession : public Client {
  public:
    explicit FakeRtcSession(std::string cid) : cid_(std::move(cid)) {}
    const std::string& cid() const override { return cid_; }
    const std::string& protocol() const override { return protocol_; }
    std::string peer_ip() const override { return "192.0.2.7"; }
    uint64_t send_bytes() const override { return sent; }
    uint64_t recv_bytes() const override { return received; }
    void expire() override { expired = true; }

    uint64_t sent = 0, received = 0;
    bool expired = false;

  private:
    std::string cid_;
    std::string protocol_ = "RTC";
};

}  // namespace srs

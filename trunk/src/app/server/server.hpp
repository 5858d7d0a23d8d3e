// The server object and the composition root: it builds every subsystem and
// hands each what it uses; nothing but main includes it. It owns the config,
// the listeners, every connection and the signal loop. Everything long-lived
// hangs off it (no other global state but the logger), so shutdown frees it
// all and leak checkers see it alive.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app/config/config.hpp"
#include "app/dvr/dvr_manager.hpp"
#include "app/edge/edge_manager.hpp"
#include "app/ffmpeg/ffmpeg_manager.hpp"
#include "app/hls/hls_manager.hpp"
#include "app/live/hls_memory_store.hpp"
#include "app/forward/forwarder.hpp"
#include "app/server/publish_bridges.hpp"
#include "app/hooks/http_hooks.hpp"
#include "app/conn/connection.hpp"
#include "app/api/http_api.hpp"
#include "app/api/rtc_api.hpp"
#include "app/rtc/rtc_server.hpp"
#include "app/exporter/exporter.hpp"
#include "app/api/heartbeat.hpp"
#include "app/http/http_flv.hpp"
#include "app/http/http_static.hpp"
#include "app/conn/server_context.hpp"
#include "app/live/source_manager.hpp"
#include "app/registry/registry_origin_locator.hpp"
#include "app/registry/stream_claims.hpp"
#include "app/registry/stream_registry.hpp"
#include "app/conn/tcp_acceptor.hpp"
#include "core/error.hpp"
#include "io/blocking_worker.hpp"
#include "io/host_resolver.hpp"
#include "io/signal_pipe.hpp"

namespace srs {

class Server : public TcpClientHandler, public ServerContext {
  public:
    // conf_path: where SIGHUP reloads from ("" when running from env only).
    Server(std::shared_ptr<const Config> config, std::string conf_path);
    ~Server() override;

    // Opens listeners and starts the coroutines. Call after init_runtime().
    Error initialize();
    // Runs until a quit signal; returns after everything was stopped.
    Error run();
    // Called once when the loop ends on a quit signal, before anything is
    // stopped (main's profilers use it to take a last look).
    void set_quit_hook(std::function<void()> hook) { quit_hook_ = std::move(hook); }

    std::shared_ptr<const Config> config() const override { return config_; }
    SourceManager& sources() override { return sources_; }
    ClientRegistry& clients() override { return clients_; }
    StreamPuller& puller() override { return edge_; }
    utime_t start_wall_us() const override { return start_wall_us_; }
    const ProcStatsSampler& proc_stats() const override { return proc_stats_; }
    StreamClaims& stream_claims() override { return *claims_; }
    HttpHooks& hooks() override { return hooks_; }
    const HttpClientOptions& http_client_options() const override { return http_options_; }

    // Signal actions, also used by the API.
    Error reload() override;
    void reopen_log();

    void on_tcp_client(TcpAcceptor* acceptor, TcpConn* conn) override;

  private:
    enum class QuitMode { kNone, kFast, kGraceful };
    Error listen_rtmp();
    Error listen_http();
    // Opens the exporter's listener for `options` (closes it when off);
    // keeps the running one if the new one cannot be opened.
    Error listen_exporter(const ExporterOptions& options);
    void close_listeners();
    // The resolver and http_client_options(), from `http_client { }`.
    Error start_http_client();
    void on_signal(int signo);
    void graceful_quit();
    void check_parent();

    std::shared_ptr<const Config> config_;  // replaced whole by reload()
    std::string conf_path_;
    std::vector<std::unique_ptr<TcpAcceptor>> rtmp_listeners_;
    std::vector<std::unique_ptr<TcpAcceptor>> http_listeners_;
    std::unique_ptr<HttpFlvHandler> http_flv_;
    std::unique_ptr<HttpStaticHandler> http_static_;
    std::unique_ptr<HttpApiHandler> http_api_;
    // After http_api_ (destroyed before it): its reports carry the API's identity.
    std::unique_ptr<Heartbeat> heartbeat_;
    // Lives as long as the server: keep-alive scrapes hold it across reloads.
    std::unique_ptr<ExporterHandler> exporter_;
    std::vector<std::unique_ptr<TcpAcceptor>> exporter_listeners_;
    bool api_on_http_port_ = false;
    // Outlives the connections: one may be waiting for a job at shutdown.
    BlockingWorker blocking_worker_;
    // Outlives every outbound client (heartbeat, forwarders, edge pulls):
    // they may be waiting for a lookup when they stop.
    HostResolver resolver_;
    HttpClientOptions http_options_;  // resolver_ plus the TLS settings
    // Outlives the connections and WebRTC sessions that call or queue hooks.
    HttpHooks hooks_;
    // Outlive the sources, which tell the claims of every unpublish.
    std::unique_ptr<StreamRegistry> registry_;
    std::unique_ptr<StreamClaims> claims_;
    // The registry as the edge's locator (stream_registry.enabled only: an
    // in-memory registry knows no other origin).
    std::unique_ptr<RegistryOriginLocator> registry_locator_;
    // Declared before the connections: connections hold sources, so they
    // are stopped first (members are destroyed in reverse order).
    SourceManager sources_;
    // The sources' forward factory (vhost.forward); taken back from them
    // before they stop, so its forwarders end first.
    ForwardManager forward_;
    // ingest, transcode and exec (vhost.ingest/transcode/exec): its
    // processes are stopped and reaped first at quit.
    FfmpegManager ffmpeg_;
    // hls_storage memory and LL-HLS files: written by hls_, answered by
    // http_static_'s connections (declared before connections_, which park on it).
    HlsMemoryStore hls_store_;
    // vhost.hls: a writer per publish; disposes of the files at quit.
    HlsManager hls_;
    // vhost.dvr: a recorder per publish (closed at unpublish).
    DvrManager dvr_;
    // What the sources call on each publish: forward_, ffmpeg_, hls_, then dvr_.
    PublishBridges publish_bridges_;
    // Outlives the connection manager, which registers its connections.
    ClientRegistry clients_;
    ConnectionManager connections_;
    // After the sources and the registry: its pulls publish the one and are
    // listed in the other, so it is destroyed (and stopped) before both.
    EdgeManager edge_;
    // After the registry and the sources: its sessions are in both.
    std::unique_ptr<RtcServer> rtc_;
    std::unique_ptr<RtcApiHandler> rtc_api_;
    SignalPipe signals_;
    QuitMode quit_ = QuitMode::kNone;
    std::function<void()> quit_hook_;
    pid_t parent_pid_;
    utime_t start_wall_us_;
    SnmpStat udp_prev_;  // kernel UDP counters at the last stats sample
    utime_t last_udp_check_us_ = 0;
    ProcStatsSampler proc_stats_;
    utime_t last_sample_us_ = 0;
    void sample_stats();
};

}  // namespace srs

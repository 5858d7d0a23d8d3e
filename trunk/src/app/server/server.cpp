#include "app/server/server.hpp"

#include <signal.h>
#include <unistd.h>

#include "app/stats/diagnostics.hpp"
#include "app/http/http_conn.hpp"
#include "app/rtmp/rtmp_conn.hpp"
#include "app/api/tcmalloc_api.hpp"
#include "app/registry/registry_factory.hpp"
#include "app/server/wakeup_coalesce.hpp"
#include "core/log.hpp"
#include "io/runtime.hpp"
#include "protocol/tls/tls_client.hpp"

namespace srs {

namespace {

// What relative hls_path and http_server.dir are relative to.
std::string server_working_dir() {
    char buf[4096];
    return getcwd(buf, sizeof(buf)) ? std::string(buf) : std::string("/");
}

}  // namespace

Server::Server(std::shared_ptr<const Config> config, std::string conf_path)
    : config_(std::move(config)),
      conf_path_(std::move(conf_path)),
      // The HTTP client's base options (resolver, TLS) come with
      // start_http_client(); the hooks set only the timeouts and the answer bound.
      hooks_([this] { return config_; }, HttpClientOptions()),
      forward_([this] { return config_; }),
      ffmpeg_([this] { return config_; }),
      hls_store_(server_working_dir()),
      hls_([this] { return config_; }, &hooks_, &clients_, &hls_store_),
      dvr_([this] { return config_; }, &hooks_),
      publish_bridges_({&forward_, &ffmpeg_, &hls_, &dvr_}),
      connections_(&clients_),
      edge_([this] { return config_; }, &clients_),
      parent_pid_(getppid()),
      start_wall_us_(wall_us()) {}

Server::~Server() {
    if (heartbeat_) heartbeat_->stop();
    ffmpeg_.stop();
    close_listeners();
    connections_.stop();
    if (http_static_) http_static_->stop();  // its HLS sessions leave the clients registry
    if (rtc_) rtc_->stop();
    edge_.stop();
    sources_.set_forward_factory(nullptr);
    sources_.stop();
    sources_.set_publish_observer(nullptr);
    registry_.reset();  // a Redis registry gives our streams up as it stops
    hooks_.stop();      // after the sessions, whose ends may have queued hooks
    blocking_worker_.stop();
    resolver_.stop();
}

Error Server::initialize() {
    if (Error err = signals_.open({SIGHUP, SIGUSR1, SIGUSR2, SIGTERM, SIGINT, SIGQUIT}); !err.ok()) {
        return SRS_WRAP(err, "signals");
    }
    apply_tcmalloc_release_rate(*config_);
    apply_wakeup_coalesce(*config_);
    if (Error err = blocking_worker_.start(); !err.ok()) return SRS_WRAP(err, "blocking worker");
    if (Error err = start_http_client(); !err.ok()) return SRS_WRAP(err, "http client");
    hooks_.set_client_options(http_options_);
    if (Error err = connections_.start(); !err.ok()) return SRS_WRAP(err, "connection manager");
    if (Error err = sources_.start(); !err.ok()) return SRS_WRAP(err, "source manager");
    StreamRegistrySetup registry;
    if (Error err = make_stream_registry(*config_, &registry); err.failed()) return SRS_WRAP(err, "stream registry");
    registry_ = std::move(registry.registry);
    claims_.reset(new StreamClaims(registry_.get(), registry.self, &sources_));
    sources_.set_publish_observer(claims_.get());
    if (config_->get(keys::stream_registry_enabled)) {
        registry_locator_.reset(new RegistryOriginLocator(registry_.get(), registry.self));
        edge_.set_registry(registry_locator_.get());
    }
    if (Error err = edge_.start(); !err.ok()) return SRS_WRAP(err, "edge manager");
    forward_.set_http_options(http_options_);
    if (Error err = hls_.start(); !err.ok()) return SRS_WRAP(err, "hls");
    sources_.set_forward_factory(&publish_bridges_);
    dvr_.recover();  // before any publisher can start a recording
    if (Error err = listen_rtmp(); !err.ok()) return SRS_WRAP(err, "listen");
    // After the RTMP listeners: ingests publish to them.
    if (Error err = ffmpeg_.start(); !err.ok()) return SRS_WRAP(err, "ffmpeg");
    rtc_.reset(new RtcServer(this));
    if (Error err = listen_http(); !err.ok()) return SRS_WRAP(err, "listen http");
    forward_.set_service_id(http_api_->service_id());
    hooks_.set_service_id(http_api_->service_id());
    if (Error err = hooks_.start(); !err.ok()) return SRS_WRAP(err, "http hooks");
    dvr_.post_recovered();
    exporter_.reset(new ExporterHandler(this, http_api_->service_id()));
    if (Error err = listen_exporter(read_exporter_options(*config_)); !err.ok()) return SRS_WRAP(err, "exporter");
    proc_stats_.sample();
    udp_prev_ = proc_stats_.last().snmp;
    last_udp_check_us_ = monotonic_us();
    if (config_->get(keys::rtc_server_enabled)) {
        std::string warning = udp_buffer_warning(read_sysctl_int("/proc/sys/net/core/rmem_max"),
                                                 read_sysctl_int("/proc/sys/net/core/wmem_max"));
        if (!warning.empty()) srs_warn("UDP: %s", warning.c_str());
    }
    // $CANDIDATE in rtc_server.candidate reads the environment.
    auto env = [](const char* name) -> const char* { return getenv(name); };
    if (Error err = rtc_->start(read_rtc_server_options(*config_, env)); !err.ok()) return SRS_WRAP(err, "rtc");
    heartbeat_.reset(new Heartbeat(this, http_api_.get()));
    if (Error err = heartbeat_->start(); !err.ok()) return SRS_WRAP(err, "heartbeat");
    return Error();
}

Error Server::start_http_client() {
    if (Error err = resolver_.start(); !err.ok()) return SRS_WRAP(err, "host resolver");
    http_options_.resolver = &resolver_;
    http_options_.verify_tls = config_->get(keys::http_client_verify_tls);
    http_options_.ca_file = config_->get(keys::http_client_ca_file);
    // Loading the trust store reads files: once, here, not per request.
    if (Error err = TlsClientContext::create(http_options_.verify_tls, http_options_.ca_file, &http_options_.tls_context);
        !err.ok()) {
        return SRS_WRAP(err, "http_client.ca_file");
    }
    if (!http_options_.verify_tls) srs_warn("http_client.verify_tls off: https peers are not authenticated");
    return Error();
}

Error Server::listen_rtmp() {
    // Open the new set before closing the old one, so a reload that keeps a
    // port never refuses clients (SO_REUSEPORT lets both bind), and a reload
    // whose ports cannot be bound keeps the old listeners.
    std::vector<std::unique_ptr<TcpAcceptor>> fresh;
    for (const auto& ep : config_->get(keys::listen)) {
        std::unique_ptr<TcpAcceptor> acceptor(new TcpAcceptor("RTMP", ep.ip, ep.port, this));
        acceptor->set_reuseport_balance(static_cast<int>(config_->get(keys::reuseport_balance)));
        if (Error err = acceptor->listen(); !err.ok()) return err;
        fresh.push_back(std::move(acceptor));
    }
    for (auto& l : rtmp_listeners_) l->close();
    rtmp_listeners_ = std::move(fresh);
    return Error();
}

Error Server::listen_http() {
    std::shared_ptr<const Config> config = config_;
    bool server_on = config->get(keys::http_server_enabled);
    bool api_on = config->get(keys::http_api_enabled);
    auto server_eps = config->get(keys::http_server_listen);
    auto api_eps = config->get(keys::http_api_listen);
    // Same port for both: the API is served by the HTTP server, as SRS does.
    api_on_http_port_ = server_on && api_on && !server_eps.empty() && !api_eps.empty() &&
                        server_eps[0].port == api_eps[0].port;
    http_flv_.reset(new HttpFlvHandler(this));
    http_static_.reset(
        new HttpStaticHandler(config->get(keys::http_server_dir), &blocking_worker_, this, &hls_store_));
    if (Error err = http_static_->start(); !err.ok()) return SRS_WRAP(err, "hls_ctx");
    http_api_.reset(new HttpApiHandler(this, rtc_.get()));
    rtc_api_.reset(new RtcApiHandler(this, http_api_.get(), rtc_.get()));
    if (server_on) {
        for (const auto& ep : server_eps) {
            std::unique_ptr<TcpAcceptor> a(new TcpAcceptor("HTTP", ep.ip, ep.port, this));
            a->set_reuseport_balance(static_cast<int>(config->get(keys::reuseport_balance)));
            if (Error err = a->listen(); !err.ok()) return err;
            http_listeners_.push_back(std::move(a));
        }
    }
    if (api_on && !api_on_http_port_) {
        for (const auto& ep : api_eps) {
            std::unique_ptr<TcpAcceptor> a(new TcpAcceptor("API", ep.ip, ep.port, this));
            if (Error err = a->listen(); !err.ok()) return err;
            http_listeners_.push_back(std::move(a));
        }
    }
    return Error();
}

Error Server::listen_exporter(const ExporterOptions& options) {
    // As listen_rtmp(): the new listener before the old one closes.
    std::vector<std::unique_ptr<TcpAcceptor>> fresh;
    if (options.enabled) {
        for (const auto& ep : options.listen) {
            std::unique_ptr<TcpAcceptor> a(new TcpAcceptor("EXPORTER", ep.ip, ep.port, this));
            if (Error err = a->listen(); !err.ok()) return err;
            fresh.push_back(std::move(a));
        }
    }
    for (auto& l : exporter_listeners_) l->close();
    exporter_listeners_ = std::move(fresh);
    exporter_->set_options(options);
    if (options.enabled) {
        for (const auto& l : exporter_listeners_) {
            srs_trace("exporter: Prometheus metrics at http://%s/metrics, label=%s, tag=%s",
                      l->endpoint().to_string().c_str(), options.label.c_str(), options.tag.c_str());
        }
    }
    return Error();
}

void Server::close_listeners() {
    for (auto& l : rtmp_listeners_) l->close();
    rtmp_listeners_.clear();
    for (auto& l : http_listeners_) l->close();
    http_listeners_.clear();
    for (auto& l : exporter_listeners_) l->close();
    exporter_listeners_.clear();
}

void Server::on_tcp_client(TcpAcceptor* acceptor, TcpConn* conn) {
    std::unique_ptr<TcpConn> sock(conn);
    size_t limit = static_cast<size_t>(config_->get(keys::max_connections));
    // HLS sessions are clients but not connections (as SRS counts).
    size_t used = clients_.size() - (http_static_ ? http_static_->hls_sessions() : 0);
    if (used >= limit) {
        srs_warn("drop %s client %s: max_connections=%zu reached", acceptor->kind().c_str(),
                 sock->peer().to_string().c_str(), limit);
        return;  // closes the socket
    }
    Connection* c = nullptr;
    if (acceptor->kind() == "HTTP") {
        std::vector<HttpHandler*> handlers = {http_flv_.get()};
        if (api_on_http_port_) {
            handlers.push_back(http_api_.get());
            handlers.push_back(rtc_api_.get());
        }
        handlers.push_back(http_static_.get());
        c = new HttpServerConnection(&connections_, sock.release(), "HTTP", handlers,
                                     config_->get(keys::http_server_crossdomain));
    } else if (acceptor->kind() == "EXPORTER") {
        c = new HttpServerConnection(&connections_, sock.release(), "EXPORTER", {exporter_.get()}, false);
    } else if (acceptor->kind() == "API") {
        c = new HttpServerConnection(&connections_, sock.release(), "API", {http_api_.get(), rtc_api_.get()},
                                     config_->get(keys::http_api_crossdomain));
    } else {
        c = new RtmpServerConnection(&connections_, sock.release(), this);
    }
    if (Error err = connections_.add(c); !err.ok()) {
        srs_error("accept %s client: %s", acceptor->kind().c_str(), err.describe().c_str());
    }
}

Error Server::run() {
    while (quit_ == QuitMode::kNone) {
        int signo = 0;
        // Wake once a second for the parent check (asprocess).
        if (Error err = signals_.wait(&signo, 1000 * kUsPerMs); !err.ok()) return SRS_WRAP(err, "signal loop");
        if (signo) on_signal(signo);
        if (config_->get(keys::asprocess)) check_parent();
        sample_stats();
    }
    if (quit_hook_) quit_hook_();
    // Ingests and transcodes are clients of ours that never leave by
    // themselves: stopped (and reaped) before anything waits for clients.
    ffmpeg_.stop();
    if (quit_ == QuitMode::kGraceful) graceful_quit();
    close_listeners();
    connections_.stop();
    edge_.stop();  // unpublishes what it pulls: before the sources go
    sources_.stop();
    hls_.stop();  // after the writers closed their last segments
    srs_trace("server stopped");
    return Error();
}

void Server::on_signal(int signo) {
    switch (signo) {
        case SIGHUP:
            srs_trace("SIGHUP: reload %s", conf_path_.c_str());
            if (Error err = reload(); !err.ok()) {
                srs_error("reload failed, keep the running config: %s", err.describe().c_str());
            }
            break;
        case SIGUSR1:
            srs_trace("SIGUSR1: reopen log");
            reopen_log();
            break;
        case SIGTERM:
            if (config_->get(keys::force_grace_quit)) {
                srs_trace("SIGTERM: force_grace_quit on, quit gracefully");
                quit_ = QuitMode::kGraceful;
            } else {
                srs_trace("SIGTERM: fast quit");
                quit_ = QuitMode::kFast;
            }
            break;
        case SIGINT:
            srs_trace("SIGINT: fast quit");
            quit_ = QuitMode::kFast;
            break;
        case SIGQUIT:
            srs_trace("SIGQUIT: graceful quit");
            quit_ = QuitMode::kGraceful;
            break;
        default:
            srs_warn("signal %d ignored", signo);
            break;
    }
}

void Server::graceful_quit() {
    // Give load balancers time to stop sending clients, then stop accepting
    // and let the connections finish, at most grace_final_wait.
    utime_t start_wait = config_->get(keys::grace_start_wait) * kUsPerMs;
    srs_trace("graceful quit: wait %d ms before closing listeners", (int)(start_wait / kUsPerMs));
    if (Error err = sleep_us(start_wait); !err.ok()) err.ignore();
    close_listeners();
    utime_t deadline = monotonic_us() + config_->get(keys::grace_final_wait) * kUsPerMs;
    while (connections_.size() > 0 && monotonic_us() < deadline) {
        if (Error err = sleep_us(100 * kUsPerMs); !err.ok()) {
            err.ignore();
            break;
        }
    }
    srs_trace("graceful quit: %zu connections left, closing them", connections_.size());
}

void Server::sample_stats() {
    // Every 5 s: enough for 30 s bit rates, cheap for thousands of clients.
    utime_t now = monotonic_us();
    if (now - last_sample_us_ < 5 * kUsPerSecond) return;
    last_sample_us_ = now;
    proc_stats_.sample();
    // The kernel's UDP drop counters are system-wide: worth a line only
    // while we have a UDP port of our own.
    const SnmpStat& snmp = proc_stats_.last().snmp;
    if (config_->get(keys::rtc_server_enabled)) {
        std::string loss = udp_loss_text(udp_prev_, snmp);
        if (!loss.empty()) {
            srs_warn("UDP: the kernel dropped datagrams in the last %ds, %s (netstat -suna; raise "
                     "net.core.rmem_max/wmem_max)",
                     (int)((now - last_udp_check_us_) / kUsPerSecond), loss.c_str());
        }
    }
    udp_prev_ = snmp;
    last_udp_check_us_ = now;
    for (LiveSource* s : sources_.sources()) s->sample_kbps(now);
    clients_.sample_kbps(now);
}

void Server::check_parent() {
    if (getppid() != parent_pid_) {
        srs_trace("asprocess: parent %d is gone, quit", (int)parent_pid_);
        quit_ = QuitMode::kFast;
    }
}

void Server::reopen_log() {
    if (Error err = Logger::instance().reopen(); !err.ok()) {
        // Nowhere better to say it than the old log.
        srs_error("reopen log: %s", err.describe().c_str());
    }
}

Error Server::reload() {
    if (conf_path_.empty()) return SRS_ERR(kErrorConfigInvalid, "no config file to reload (started with -e)");
    std::shared_ptr<const Config> fresh;
    if (Error err = Config::load_file(conf_path_, &fresh); !err.ok()) return SRS_WRAP(err, "reload");
    for (const auto& w : fresh->warnings()) srs_warn("%s", w.c_str());

    std::vector<std::string> changed = Config::diff(*config_, *fresh);
    bool relisten = false;
    for (const auto& path : changed) {
        if (!Config::reloadable(path)) {
            srs_warn("reload: %s changed, takes effect after a restart", path.c_str());
        } else {
            srs_trace("reload: %s changed", path.c_str());
        }
        if (path == "listen") relisten = true;
    }
    // The new tree becomes the running one; snapshots taken before keep the
    // old one alive until they are dropped.
    config_ = std::move(fresh);
    apply_tcmalloc_release_rate(*config_);
    apply_wakeup_coalesce(*config_);
    if (relisten) {
        if (Error err = listen_rtmp(); !err.ok()) return SRS_WRAP(err, "reload listen");
    }
    ffmpeg_.on_reload();
    ExporterOptions exporter = read_exporter_options(*config_);
    // exporter_ exists once initialize() ran (a reload before it only swaps the config).
    if (exporter_ && !(exporter == exporter_->options())) {
        if (exporter.enabled == exporter_->options().enabled && exporter.listen == exporter_->options().listen) {
            exporter_->set_options(exporter);  // label or tag: nothing to reopen
        } else if (Error err = listen_exporter(exporter); !err.ok()) {
            return SRS_WRAP(err, "reload exporter");
        }
    }
    srs_trace("reload done, %zu changes", changed.size());
    return Error();
}

}  // namespace srs

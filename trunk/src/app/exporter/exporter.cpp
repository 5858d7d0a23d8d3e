#include "app/exporter/exporter.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include "core/version.hpp"

namespace srs {

ExporterOptions read_exporter_options(const Config& config) {
    ExporterOptions o;
    o.enabled = config.get(keys::exporter_enabled);
    o.listen = config.get(keys::exporter_listen);
    o.label = config.get(keys::exporter_label);
    o.tag = config.get(keys::exporter_tag);
    return o;
}

ClientCounts count_clients(const ClientRegistry& clients) {
    ClientCounts n;
    for (ClientKind kind : {ClientKind::kFmlePublish, ClientKind::kFlashPublish, ClientKind::kRtmpPlay,
                            ClientKind::kFlvPlay}) {
        n.by_type[client_kind_name(kind)] = 0;
    }
    ClientTotals totals = clients.totals();
    n.clients_total = totals.clients;
    n.clients_errs_total = totals.errors;
    n.recv_bytes_total = totals.recv_bytes;
    n.send_bytes_total = totals.send_bytes;
    // As the totals: a client once it published or played.
    for (const Client* c : clients.clients()) {
        if (c->info().kind == ClientKind::kUnknown) continue;
        n.clients++;
        n.by_type[client_kind_name(c->info().kind)]++;
    }
    return n;
}

MetricsSnapshot collect_metrics(ServerContext* ctx, const ExporterOptions& options, const std::string& service_id) {
    MetricsSnapshot s;
    BuildInfo& b = s.build;
    std::string server_id = ctx->config()->get(keys::server_id);
    b.server = server_id.empty() ? "vid-" + service_id.substr(0, 7) : server_id;  // as the API's "server"
    b.service = service_id;
    b.pid = std::to_string(getpid());
    b.build_date = __DATE__ " " __TIME__;
    b.major = std::to_string(SRS_VERSION_MAJOR);
    b.version = SRS_VERSION_STRING;
    b.label = options.label;
    b.tag = options.tag;

    struct utsname u;
    if (uname(&u) == 0) {
        s.uname = {true, u.sysname, u.nodename, u.release, u.version, u.machine};
    }

    const ProcSnapshot& proc = ctx->proc_stats().last();
    s.cpu_percent = proc.self.percent * 100;
    long page = sysconf(_SC_PAGESIZE);
    s.memory_kb = proc.self.rss * (page > 0 ? page : 4096) / 1024;

    ClientCounts clients = count_clients(ctx->clients());
    s.send_bytes_total = clients.send_bytes_total;
    s.receive_bytes_total = clients.recv_bytes_total;
    s.streams = static_cast<int64_t>(ctx->sources().size());
    s.clients = clients.clients;
    s.clients_total = clients.clients_total;
    s.clients_errs_total = clients.clients_errs_total;
    s.clients_by_type.assign(clients.by_type.begin(), clients.by_type.end());
    s.dropped_messages_total = ctx->sources().dropped_messages_total();

    const SnmpStat& snmp = proc.snmp;
    s.udp_ok = snmp.ok;
    s.udp_rcvbuf_errors_total = static_cast<uint64_t>(snmp.udp_rcvbuf_errors);
    s.udp_sndbuf_errors_total = static_cast<uint64_t>(snmp.udp_sndbuf_errors);
    return s;
}

bool ExporterHandler::match(const HttpRequest& req) const { return req.path == "/metrics"; }

Error ExporterHandler::serve(const HttpRequest& req, HttpResponse* res) {
    if (!options_.enabled) return res->send_error(404);
    if (req.method != "GET" && req.method != "HEAD") {
        res->head().set("Allow", "GET, HEAD");
        return res->send_error(405);
    }
    return res->send(200, kMetricsContentType, render_metrics(collect_metrics(ctx_, options_, service_id_)));
}

}  // namespace srs

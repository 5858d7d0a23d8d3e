// The Prometheus text exposition format (version 0.0.4) of the server's
// metrics, as a pure function: a snapshot of numbers and names in, the body
// of GET /metrics out. Nothing here reads a clock, a file or a socket, so the
// unit tests compare exact text.
//
// The metric names and labels are SRS's exporter's (srs_build_info,
// srs_node_uname_info, srs_cpu_percent, srs_memory, srs_send_bytes_total,
// srs_receive_bytes_total, srs_streams, srs_clients, srs_clients_total,
// srs_clients_errs_total); the rest are ours and listed in docs/exporter.md.
// Every family has # HELP and # TYPE; every *_total is a counter and every
// counter ends in _total.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace srs {

struct BuildInfo {
    std::string server;   // server_id, or the generated "vid-..." the API shows
    std::string service;  // random per process, as the API's "service"
    std::string pid;
    std::string build_date;
    std::string major;
    std::string version;
    std::string label;  // exporter.label; the label is left out when empty
    std::string tag;    // exporter.tag; the label is left out when empty
};

struct UnameInfo {
    bool ok = false;  // false: srs_node_uname_info is left out
    std::string sysname, nodename, release, version, machine;
};

struct MetricsSnapshot {
    BuildInfo build;
    UnameInfo uname;
    double cpu_percent = 0;  // this process, 100 = one core busy
    int64_t memory_kb = 0;   // resident set size
    uint64_t send_bytes_total = 0;
    uint64_t receive_bytes_total = 0;
    int64_t streams = 0;
    int64_t clients = 0;
    uint64_t clients_total = 0;
    uint64_t clients_errs_total = 0;
    // Current clients per type ("rtmp-play", "fmle-publish", ...), in the
    // order given; they add up to `clients`.
    std::vector<std::pair<std::string, int64_t>> clients_by_type;
    // Messages dropped from players' queues that fell queue_length behind.
    uint64_t dropped_messages_total = 0;
    // The kernel's UDP counters (/proc/net/snmp, the whole network
    // namespace); udp_ok false leaves them out.
    bool udp_ok = false;
    uint64_t udp_rcvbuf_errors_total = 0;
    uint64_t udp_sndbuf_errors_total = 0;
};

// The Content-Type of the text format.
extern const char* const kMetricsContentType;

// The whole exposition, families in a fixed order, ending with "\n".
std::string render_metrics(const MetricsSnapshot& s);

// A label value as the text format wants it between double quotes:
// '\' -> "\\", '"' -> "\"", newline -> "\n"; bytes that are not well-formed
// UTF-8 become '?'.
std::string escape_label_value(std::string_view v);
// A HELP text: '\' -> "\\", newline -> "\n" (quotes stay), UTF-8 as above.
std::string escape_help(std::string_view v);
// A sample value: integers without a fraction, others shortest round-trip
// ("0.25", "1e+21"), "NaN", "+Inf", "-Inf".
std::string format_metric_value(double v);

}  // namespace srs

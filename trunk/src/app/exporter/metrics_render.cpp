#include "app/exporter/metrics_render.hpp"

#include <charconv>
#include <cmath>

namespace srs {

const char* const kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

namespace {

// Length of the well-formed UTF-8 sequence at s[i] (1..4), or 0.
size_t utf8_sequence_length(std::string_view s, size_t i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) return 1;
    size_t n = 0;
    uint32_t cp = 0, min = 0;
    if ((c & 0xe0) == 0xc0) {
        n = 2, cp = c & 0x1f, min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
        n = 3, cp = c & 0x0f, min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
        n = 4, cp = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (i + n > s.size()) return 0;
    for (size_t k = 1; k < n; k++) {
        auto cc = static_cast<unsigned char>(s[i + k]);
        if ((cc & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (cc & 0x3f);
    }
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF.
    if (cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return 0;
    return n;
}

std::string escape(std::string_view v, bool quote) {
    std::string out;
    out.reserve(v.size());
    size_t i = 0;
    while (i < v.size()) {
        size_t n = utf8_sequence_length(v, i);
        if (n == 0) {
            out += '?';
            i++;
            continue;
        }
        char c = v[i];
        if (n == 1 && c == '\\') {
            out += "\\\\";
        } else if (n == 1 && c == '\n') {
            out += "\\n";
        } else if (n == 1 && c == '"' && quote) {
            out += "\\\"";
        } else {
            out.append(v.data() + i, n);
        }
        i += n;
    }
    return out;
}

using Labels = std::vector<std::pair<const char*, std::string>>;

// Appends families to one string: a family's HELP and TYPE lines, then its
// samples. Names are constants of this file, valid by construction.
class Exposition {
  public:
    void family(const char* name, const char* type, const char* help) {
        out_ += "# HELP ";
        out_ += name;
        out_ += ' ';
        out_ += escape_help(help);
        out_ += "\n# TYPE ";
        out_ += name;
        out_ += ' ';
        out_ += type;
        out_ += '\n';
    }
    void sample(const char* name, const Labels& labels, const std::string& value) {
        out_ += name;
        if (!labels.empty()) {
            out_ += '{';
            for (size_t i = 0; i < labels.size(); i++) {
                if (i) out_ += ',';
                out_ += labels[i].first;
                out_ += "=\"";
                out_ += escape_label_value(labels[i].second);
                out_ += '"';
            }
            out_ += '}';
        }
        out_ += ' ';
        out_ += value;
        out_ += '\n';
    }
    // A family of one unlabelled sample.
    void gauge(const char* name, const char* help, const std::string& value) {
        family(name, "gauge", help);
        sample(name, {}, value);
    }
    void counter(const char* name, const char* help, uint64_t value) {
        family(name, "counter", help);
        sample(name, {}, std::to_string(value));
    }
    std::string take() { return std::move(out_); }

  private:
    std::string out_;
};

}  // namespace

std::string escape_label_value(std::string_view v) { return escape(v, true); }

std::string escape_help(std::string_view v) { return escape(v, false); }

std::string format_metric_value(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof(buf), v);
    return std::string(buf, r.ptr);
}

std::string render_metrics(const MetricsSnapshot& s) {
    Exposition e;
    if (s.uname.ok) {
        e.family("srs_node_uname_info", "gauge", "Labeled system information as provided by the uname system call.");
        e.sample("srs_node_uname_info",
                 {{"sysname", s.uname.sysname},
                  {"nodename", s.uname.nodename},
                  {"release", s.uname.release},
                  {"version", s.uname.version},
                  {"machine", s.uname.machine}},
                 "1");
    }

    const BuildInfo& b = s.build;
    Labels build = {{"server", b.server},         {"service", b.service}, {"pid", b.pid},
                    {"build_date", b.build_date}, {"major", b.major},     {"version", b.version}};
    if (!b.label.empty()) build.emplace_back("label", b.label);
    if (!b.tag.empty()) build.emplace_back("tag", b.tag);
    e.family("srs_build_info", "gauge", "Constant 1, labeled by the server's identity, version and build date.");
    e.sample("srs_build_info", build, "1");

    e.gauge("srs_cpu_percent", "CPU this process used since the previous sample, in percent of one core.",
            format_metric_value(s.cpu_percent));
    e.gauge("srs_memory", "Resident memory of this process, in kB.", std::to_string(s.memory_kb));
    e.counter("srs_send_bytes_total", "Bytes the server sent to all its TCP clients.", s.send_bytes_total);
    e.counter("srs_receive_bytes_total", "Bytes the server received from all its TCP clients.",
              s.receive_bytes_total);
    e.gauge("srs_streams", "Live streams the server holds now.", std::to_string(s.streams));
    e.gauge("srs_clients", "Stream clients (publishers and players) connected now.", std::to_string(s.clients));
    e.counter("srs_clients_total", "Stream clients since the server started.", s.clients_total);
    e.counter("srs_clients_errs_total",
              "Stream connections that ended with an error (a broken handshake included) since the server started.",
              s.clients_errs_total);

    e.family("srs_clients_by_type", "gauge", "Stream clients connected now, per client type.");
    for (const auto& t : s.clients_by_type) {
        e.sample("srs_clients_by_type", {{"type", t.first}}, std::to_string(t.second));
    }
    e.counter("srs_dropped_messages_total",
              "Messages dropped from the queues of players that fell queue_length behind.", s.dropped_messages_total);
    if (s.udp_ok) {
        e.counter("srs_udp_rcvbuf_errors_total",
                  "UDP datagrams the kernel dropped for a full receive buffer (RcvbufErrors of /proc/net/snmp, the "
                  "whole network namespace).",
                  s.udp_rcvbuf_errors_total);
        e.counter("srs_udp_sndbuf_errors_total",
                  "UDP datagrams the kernel dropped for a full send buffer (SndbufErrors of /proc/net/snmp, the "
                  "whole network namespace).",
                  s.udp_sndbuf_errors_total);
    }
    return e.take();
}

}  // namespace srs

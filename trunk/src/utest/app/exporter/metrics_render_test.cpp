// render_metrics(): exact text of the exposition for given snapshots, label
// escaping and value formatting.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "app/exporter/metrics_render.hpp"

using namespace srs;

namespace {

MetricsSnapshot full_snapshot() {
    MetricsSnapshot s;
    s.build = {"vid-abc1234", "abc12345", "42", "Nov 24 2026 21:00:00", "7", "7.0.0", "L", "T"};
    s.uname = {true, "Linux", "box", "6.1.0", "#1 SMP", "x86_64"};
    s.cpu_percent = 12.5;
    s.memory_kb = 20480;
    s.send_bytes_total = 1000;
    s.receive_bytes_total = 2000;
    s.streams = 1;
    s.clients = 3;
    s.clients_total = 5;
    s.clients_errs_total = 1;
    s.clients_by_type = {{"fmle-publish", 1}, {"rtmp-play", 2}};
    s.dropped_messages_total = 7;
    s.udp_ok = true;
    s.udp_rcvbuf_errors_total = 3;
    s.udp_sndbuf_errors_total = 4;
    return s;
}

}  // namespace

TEST(AppMetricsRender, FullSnapshotExactText) {
    const std::string want =
        "# HELP srs_node_uname_info Labeled system information as provided by the uname system call.\n"
        "# TYPE srs_node_uname_info gauge\n"
        "srs_node_uname_info{sysname=\"Linux\",nodename=\"box\",release=\"6.1.0\",version=\"#1 SMP\","
        "machine=\"x86_64\"} 1\n"
        "# HELP srs_build_info Constant 1, labeled by the server's identity, version and build date.\n"
        "# TYPE srs_build_info gauge\n"
        "srs_build_info{server=\"vid-abc1234\",service=\"abc12345\",pid=\"42\",build_date=\"Nov 24 2026 21:00:00\","
        "major=\"7\",version=\"7.0.0\",label=\"L\",tag=\"T\"} 1\n"
        "# HELP srs_cpu_percent CPU this process used since the previous sample, in percent of one core.\n"
        "# TYPE srs_cpu_percent gauge\n"
        "srs_cpu_percent 12.5\n"
        "# HELP srs_memory Resident memory of this process, in kB.\n"
        "# TYPE srs_memory gauge\n"
        "srs_memory 20480\n"
        "# HELP srs_send_bytes_total Bytes the server sent to all its TCP clients.\n"
        "# TYPE srs_send_bytes_total counter\n"
        "srs_send_bytes_total 1000\n"
        "# HELP srs_receive_bytes_total Bytes the server received from all its TCP clients.\n"
        "# TYPE srs_receive_bytes_total counter\n"
        "srs_receive_bytes_total 2000\n"
        "# HELP srs_streams Live streams the server holds now.\n"
        "# TYPE srs_streams gauge\n"
        "srs_streams 1\n"
        "# HELP srs_clients Stream clients (publishers and players) connected now.\n"
        "# TYPE srs_clients gauge\n"
        "srs_clients 3\n"
        "# HELP srs_clients_total Stream clients since the server started.\n"
        "# TYPE srs_clients_total counter\n"
        "srs_clients_total 5\n"
        "# HELP srs_clients_errs_total Stream connections that ended with an error (a broken handshake included) since "
        "the server started.\n"
        "# TYPE srs_clients_errs_total counter\n"
        "srs_clients_errs_total 1\n"
        "# HELP srs_clients_by_type Stream clients connected now, per client type.\n"
        "# TYPE srs_clients_by_type gauge\n"
        "srs_clients_by_type{type=\"fmle-publish\"} 1\n"
        "srs_clients_by_type{type=\"rtmp-play\"} 2\n"
        "# HELP srs_dropped_messages_total Messages dropped from the queues of players that fell queue_length "
        "behind.\n"
        "# TYPE srs_dropped_messages_total counter\n"
        "srs_dropped_messages_total 7\n"
        "# HELP srs_udp_rcvbuf_errors_total UDP datagrams the kernel dropped for a full receive buffer "
        "(RcvbufErrors of /proc/net/snmp, the whole network namespace).\n"
        "# TYPE srs_udp_rcvbuf_errors_total counter\n"
        "srs_udp_rcvbuf_errors_total 3\n"
        "# HELP srs_udp_sndbuf_errors_total UDP datagrams the kernel dropped for a full send buffer "
        "(SndbufErrors of /proc/net/snmp, the whole network namespace).\n"
        "# TYPE srs_udp_sndbuf_errors_total counter\n"
        "srs_udp_sndbuf_errors_total 4\n";
    EXPECT_EQ(render_metrics(full_snapshot()), want);
}

// What SRS leaves out: label and tag when empty; ours: uname and UDP when
// they could not be read. A type with no samples keeps its HELP and TYPE.
TEST(AppMetricsRender, OptionalPartsAreLeftOut) {
    MetricsSnapshot s = full_snapshot();
    s.build.label.clear();
    s.build.tag.clear();
    s.uname.ok = false;
    s.udp_ok = false;
    s.clients_by_type.clear();
    std::string text = render_metrics(s);
    EXPECT_EQ(text.find("srs_node_uname_info"), std::string::npos);
    EXPECT_EQ(text.find("srs_udp_"), std::string::npos);
    EXPECT_NE(text.find("srs_build_info{server=\"vid-abc1234\",service=\"abc12345\",pid=\"42\","
                        "build_date=\"Nov 24 2026 21:00:00\",major=\"7\",version=\"7.0.0\"} 1\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("# TYPE srs_clients_by_type gauge\n# HELP srs_dropped_messages_total"), std::string::npos);
    // Still one HELP and one TYPE per family, counters end in _total.
    size_t helps = 0, types = 0;
    for (size_t p = 0; (p = text.find("# HELP ", p)) != std::string::npos; p++) helps++;
    for (size_t p = 0; (p = text.find("# TYPE ", p)) != std::string::npos; p++) {
        types++;
        size_t eol = text.find('\n', p);
        std::string line = text.substr(p, eol - p);
        if (line.size() > 8 && line.compare(line.size() - 8, 8, " counter") == 0) {
            EXPECT_NE(line.find("_total counter"), std::string::npos) << line;
        }
    }
    EXPECT_EQ(helps, types);
    EXPECT_EQ(helps, 11u);  // 14 families less uname and the two UDP ones
}

TEST(AppMetricsRender, LabelValuesAreEscaped) {
    EXPECT_EQ(escape_label_value("plain"), "plain");
    EXPECT_EQ(escape_label_value("a\"b"), "a\\\"b");
    EXPECT_EQ(escape_label_value("a\\b"), "a\\\\b");
    EXPECT_EQ(escape_label_value("a\nb"), "a\\nb");
    EXPECT_EQ(escape_label_value(""), "");
    // UTF-8 passes; broken sequences, overlongs and surrogates become '?'.
    EXPECT_EQ(escape_label_value("caf\xc3\xa9 \xe6\x97\xa5"), "caf\xc3\xa9 \xe6\x97\xa5");
    EXPECT_EQ(escape_label_value("a\xff" "b"), "a?b");
    EXPECT_EQ(escape_label_value("\xc3"), "?");             // truncated at the end
    EXPECT_EQ(escape_label_value("\xc0\xaf"), "??");        // overlong '/'
    EXPECT_EQ(escape_label_value("\xed\xa0\x80"), "???");   // a UTF-16 surrogate
    EXPECT_EQ(escape_label_value(std::string("a\0b", 3)), std::string("a\0b", 3));
    // HELP text keeps its quotes.
    EXPECT_EQ(escape_help("say \"hi\"\\\n"), "say \"hi\"\\\\\\n");

    MetricsSnapshot s = full_snapshot();
    s.build.label = "ev\"il\\\n";
    s.build.tag = "x\"} 1\nsrs_fake 1";
    std::string text = render_metrics(s);
    EXPECT_NE(text.find(",label=\"ev\\\"il\\\\\\n\",tag=\"x\\\"} 1\\nsrs_fake 1\"} 1\n"), std::string::npos) << text;
    EXPECT_EQ(text.find("\nsrs_fake"), std::string::npos);
}

TEST(AppMetricsRender, ValuesAreFormattedForPrometheus) {
    EXPECT_EQ(format_metric_value(0), "0");
    EXPECT_EQ(format_metric_value(150), "150");
    EXPECT_EQ(format_metric_value(0.25), "0.25");
    EXPECT_EQ(format_metric_value(-3.5), "-3.5");
    EXPECT_EQ(format_metric_value(1e21), "1e+21");
    EXPECT_EQ(format_metric_value(std::nan("")), "NaN");
    EXPECT_EQ(format_metric_value(std::numeric_limits<double>::infinity()), "+Inf");
    EXPECT_EQ(format_metric_value(-std::numeric_limits<double>::infinity()), "-Inf");

    MetricsSnapshot s;
    s.send_bytes_total = 18446744073709551615ULL;  // counters stay exact past 2^53
    s.cpu_percent = 33.333333333333336;
    std::string text = render_metrics(s);
    EXPECT_NE(text.find("\nsrs_send_bytes_total 18446744073709551615\n"), std::string::npos);
    EXPECT_NE(text.find("\nsrs_cpu_percent 33.333333333333336\n"), std::string::npos);
    EXPECT_EQ(text.back(), '\n');
}

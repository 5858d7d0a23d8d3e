#include "app/config/config_directives.hpp"

#include <arpa/inet.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <unordered_map>

#include "core/strings.hpp"
#include "kernel/access/access_rules.hpp"

namespace srs {

namespace {

constexpr bool kLive = true;      // SIGHUP applies a change
constexpr bool kRestart = false;  // a change needs a restart
constexpr int64_t kI32Max = 2147483647;
constexpr int64_t kHourMs = 3600 * 1000;

// Row builders, so the table below reads as data.
DirectiveSpec row(const char* path, ArgKind kind, const char* def, bool reload, const char* doc) {
    return DirectiveSpec{path, kind, def, 0, 0, 1, 1, "", reload, true, nullptr, doc, nullptr, false, false};
}
DirectiveSpec Bool(const char* path, const char* def, bool reload, const char* doc) {
    return row(path, ArgKind::kBool, def, reload, doc);
}
DirectiveSpec Int(const char* path, const char* def, int64_t min, int64_t max, bool reload, const char* doc) {
    DirectiveSpec s = row(path, ArgKind::kInt, def, reload, doc);
    s.min = min;
    s.max = max;
    return s;
}
DirectiveSpec Float(const char* path, const char* def, int64_t min, int64_t max, bool reload, const char* doc) {
    DirectiveSpec s = Int(path, def, min, max, reload, doc);
    s.kind = ArgKind::kFloat;
    return s;
}
DirectiveSpec Str(const char* path, const char* def, bool reload, const char* doc) {
    return row(path, ArgKind::kString, def, reload, doc);
}
DirectiveSpec Enum(const char* path, const char* def, const char* values, bool reload, const char* doc) {
    DirectiveSpec s = row(path, ArgKind::kEnum, def, reload, doc);
    s.values = values;
    return s;
}
DirectiveSpec List(const char* path, const char* def, bool reload, const char* doc) {
    DirectiveSpec s = row(path, ArgKind::kList, def, reload, doc);
    s.max_args = 64;
    return s;
}
DirectiveSpec Endpoints(const char* path, const char* def, int max_args, bool reload, const char* doc) {
    DirectiveSpec s = row(path, ArgKind::kEndpoint, def, reload, doc);
    s.max_args = max_args;
    return s;
}
DirectiveSpec Block(const char* path, const char* doc) {
    DirectiveSpec s = row(path, ArgKind::kBlock, "", kRestart, doc);
    s.min_args = s.max_args = 0;
    return s;
}
// A security rule row (allow, deny): two arguments per line, and unlike any
// other row every line counts (their arguments are appended in conf order).
// The environment gives the pairs as one list ("play 10.0.0.0/8 publish all").
DirectiveSpec Rule(const char* path, bool reload, const char* doc) {
    DirectiveSpec s = row(path, ArgKind::kAccessRule, "", reload, doc);
    s.min_args = 2;
    s.max_args = 128;
    return s;
}
// A vhost row whose default is a global row's value.
DirectiveSpec Inherit(DirectiveSpec s, const char* global) {
    s.inherit = global;
    return s;
}
// A row whose kind, default, range and doc are known but whose value no code
// reads yet: the conf is validated as usual, then the directive is ignored
// with a warning. Implementing it is removing this wrapper.
DirectiveSpec NotYet(DirectiveSpec s) {
    s.implemented = false;
    return s;
}
// A row the server acts on only in part: a conf that changes it is warned
// with `what` is missing, so it never seems to work when it does not.
[[maybe_unused]] DirectiveSpec Partly(DirectiveSpec s, const char* what) {
    s.partial = what;
    return s;
}
// A directive SRS knows and this server does not implement yet, not even its
// arguments (any arguments and any block are accepted).
DirectiveSpec Todo(const char* path, const char* doc) {
    DirectiveSpec s = row(path, ArgKind::kAny, "", kRestart, doc);
    s.implemented = false;
    return s;
}

// A block that may appear many times (see DirectiveSpec::repeated); `example`
// is the name full.conf shows, `args` how many names it takes at most.
DirectiveSpec Repeated(const char* path, const char* example, int max_args, const char* doc) {
    DirectiveSpec s = Block(path, doc);
    s.default_value = example;
    s.max_args = max_args;
    s.reloadable = kLive;
    s.repeated = true;
    return s;
}
// A block of free `-name value` FFmpeg options (see DirectiveSpec::free_form).
DirectiveSpec Options(const char* path, const char* doc) {
    DirectiveSpec s = Block(path, doc);
    s.reloadable = kLive;
    s.free_form = true;
    return s;
}

// Rows of an FFmpeg engine block, under `prefix` ("vhost.ingest.engine").
// The paths must outlive the table: they are kept in a static list.
void add_engine_rows(std::vector<DirectiveSpec>* t, const std::string& prefix) {
    static std::vector<std::unique_ptr<std::string>> paths;
    auto at = [&](const char* leaf) {
        paths.emplace_back(new std::string(prefix + "." + leaf));
        return paths.back()->c_str();
    };
    t->push_back(Bool(at("enabled"), "off", kLive, "Run this engine (an ingest runs a disabled engine as a copy)."));
    t->push_back(Options(at("perfile"), "Options before the input, `name value;` -> `-name value` (e.g. "
                                        "`rtsp_transport tcp;`)."));
    t->push_back(Str(at("iformat"), "flv", kLive, "Input format (-f before -i), for rtmp:// inputs only; off: none."));
    t->push_back(Options(at("vfilter"), "Options after the input, `name value;` -> `-name value` (e.g. `i "
                                        "logo.png; filter_complex 'overlay=10:10';`)."));
    t->push_back(Str(at("vcodec"), "", kLive, "libx264, copy, or vn (no video)."));
    t->push_back(Int(at("vbitrate"), "0", 0, 1000000, kLive, "Video kbps (-b:v); 0: the encoder's choice."));
    t->push_back(Float(at("vfps"), "0", 0, 1000, kLive, "Frame rate (-r); 0: the input's."));
    t->push_back(Int(at("vwidth"), "0", 0, 16384, kLive, "Width (-s WxH with vheight, rounded down to even); 0: "
                                                         "the input's."));
    t->push_back(Int(at("vheight"), "0", 0, 16384, kLive, "Height, as vwidth."));
    t->push_back(Int(at("vthreads"), "0", 0, 256, kLive, "Encoder threads (-threads); 0: the encoder's choice."));
    t->push_back(Str(at("vprofile"), "", kLive, "H.264 profile (-profile:v): baseline, main, high..."));
    t->push_back(Str(at("vpreset"), "", kLive, "x264 preset (-preset): ultrafast ... placebo."));
    t->push_back(Options(at("vparams"), "More video options, `name value;` -> `-name value`."));
    t->push_back(Str(at("acodec"), "", kLive, "aac, libfdk_aac, mp3, opus, copy, or an (no audio)."));
    t->push_back(Int(at("abitrate"), "0", 0, 100000, kLive, "Audio kbps (-b:a); 0: the encoder's choice."));
    t->push_back(Int(at("asample_rate"), "0", 0, 384000, kLive, "Sample rate (-ar); 0: the input's."));
    t->push_back(Int(at("achannels"), "0", 0, 2, kLive, "Channels (-ac), 1 or 2; 0: the input's."));
    t->push_back(Options(at("aparams"), "More audio options, `name value;` -> `-name value` (with acodec copy "
                                        "only `bsf:a aac_adtstoasc` is passed)."));
    t->push_back(Str(at("oformat"), "flv", kLive, "Output format (-f before the output); off: none."));
    t->push_back(Str(at("output"), "", kLive, "Where FFmpeg publishes, with variables [vhost] [port] [app] "
                                              "[stream] [param] [engine] (docs/ffmpeg.md)."));
}

// ingest, transcode and exec (docs/ffmpeg.md).
void add_ffmpeg_rows(std::vector<DirectiveSpec>* t) {
    t->push_back(Repeated("vhost.ingest", "livestream", 1, "Ingest: FFmpeg pulls a file or a stream and publishes "
                                                          "it here, restarted when it exits (`ingest NAME { }`, "
                                                          "one per name)."));
    t->push_back(Bool("vhost.ingest.enabled", "off", kLive, "Run this ingest."));
    DirectiveSpec input = Block("vhost.ingest.input", "What FFmpeg reads.");
    input.reloadable = kLive;
    t->push_back(input);
    t->push_back(Enum("vhost.ingest.input.type", "file", "file|stream", kLive, "file: read at its own pace (-re); "
                                                                              "stream: as it comes."));
    t->push_back(Str("vhost.ingest.input.url", "", kLive, "The file path or stream URL."));
    t->push_back(Str("vhost.ingest.ffmpeg", "./objs/ffmpeg/bin/ffmpeg", kLive, "FFmpeg's path; a path that does "
                                                                              "not exist falls back to ffmpeg "
                                                                              "in PATH, with a warning."));
    t->push_back(Repeated("vhost.ingest.engine", "", 1, "How the ingest encodes: one FFmpeg per engine. Also "
                                                        "takes the option blocks perfile, vfilter, vparams and "
                                                        "aparams, whose `name value;` lines become `-name value` "
                                                        "(docs/ffmpeg.md)."));
    add_engine_rows(t, "vhost.ingest.engine");
    t->push_back(Repeated("vhost.transcode", "live", 1, "Transcode: on each publish of a stream in the scope "
                                                       "(`transcode [app[/stream]] { }`; none: the vhost), one "
                                                       "FFmpeg per enabled engine, stopped on unpublish."));
    t->push_back(Bool("vhost.transcode.enabled", "off", kLive, "Transcode streams in this scope."));
    t->push_back(Str("vhost.transcode.ffmpeg", "./objs/ffmpeg/bin/ffmpeg", kLive, "FFmpeg's path, as ingest's."));
    t->push_back(Repeated("vhost.transcode.engine", "ff", 1, "One output of the transcode: `engine NAME { }`, with the "
                                                             "rows below and the option blocks perfile, vfilter, "
                                                             "vparams and aparams (`name value;` -> `-name value`, "
                                                             "docs/ffmpeg.md)."));
    add_engine_rows(t, "vhost.transcode.engine");
    DirectiveSpec exec = Block("vhost.exec", "Exec: run programs while a stream is published.");
    exec.reloadable = kLive;
    t->push_back(exec);
    t->push_back(Bool("vhost.exec.enabled", "off", kLive, "Run the publish commands."));
    DirectiveSpec publish = List("vhost.exec.publish", "", kLive, "A command started on each publish and stopped "
                                                                  "on unpublish, with variables [vhost] [port] "
                                                                  "[app] [stream] [tcUrl] [param] [url]; one per "
                                                                  "line.");
    publish.max_args = 1024;
    publish.repeated = true;
    t->push_back(publish);
}

std::vector<DirectiveSpec> build_table() {
    DirectiveSpec vhost = Block("vhost", "A virtual host: `vhost NAME { ... }`; __defaultVhost__ serves clients "
                                         "that name no vhost.");
    vhost.min_args = vhost.max_args = 1;
    vhost.reloadable = kLive;
    std::vector<DirectiveSpec> t = {
        // Process.
        Str("server_id", "", kRestart, "Server id in API answers; empty: generated once and kept beside the pid file."),
        Str("pid", "./objs/srs.pid", kRestart, "PID file, write-locked so only one server runs from it."),
        Str("work_dir", "./", kRestart, "Directory to change to at start; relative paths start from it."),
        Bool("daemon", "on", kRestart, "Run in the background (fork and detach)."),
        Bool("disable_daemon_for_docker", "on", kRestart, "Stay in the foreground when running in a container."),
        Bool("asprocess", "off", kRestart, "Quit when the parent process goes away (for supervisors)."),
        NotYet(Bool("in_docker", "off", kRestart, "Say the server runs in a container instead of detecting it.")),
        NotYet(Bool("empty_ip_ok", "on", kRestart, "Start even when no network interface has an address.")),
        NotYet(Bool("inotify_auto_reload", "off", kRestart, "Reload when the conf file changes.")),
        NotYet(Bool("auto_reload_for_docker", "on", kRestart, "In a container, reload on conf changes even without "
                                                       "inotify_auto_reload.")),
        Float("tcmalloc_release_rate", "0.8", 0, 10, kLive, "How eagerly tcmalloc returns unused memory to the "
                                                            "system, 0 never, 10 at once (--gperf=on builds)."),
        Int("wakeup_coalesce_us", "1000", 0, 100000, kLive,
            "Under load (I/O wake-ups less than half this apart on average), wake for I/O at most once per "
            "this many us, so reads find batches; idle or light load never waits. 0: off. Off while any vhost "
            "has min_latency on."),
        NotYet(Bool("query_latest_version", "off", kRestart, "Ask the project's server which version is the latest.")),
        NotYet(Int("first_wait_for_qlv", "300", 0, 86400, kRestart, "Seconds before the first version query.")),
        NotYet(Bool("is_full", "off", kRestart, "Marks a reference conf; has no effect on the server.")),
        // Logs.
        Enum("srs_log_tank", "file", "console|file", kRestart, "Where the log goes."),
        Enum("srs_log_level", "trace", "verbose|info|trace|warn|error", kRestart, "Lowest level written."),
        Enum("srs_log_level_v2", "", "TRACE|DEBUG|INFO|WARN|ERROR", kRestart,
             "Lowest level written, in the names log lines use; wins over srs_log_level when set."),
        Str("srs_log_file", "./objs/srs.log", kRestart, "Log file when srs_log_tank is file; SIGUSR1 reopens it."),
        Bool("utc_time", "off", kRestart, "Log times in UTC instead of local time."),
        NotYet(Str("ff_log_dir", "./objs", kRestart,
               "Directory for the logs of FFmpeg processes; /dev/null drops them.")),
        NotYet(Enum("ff_log_level", "info", "quiet|panic|fatal|error|warning|info|verbose|debug|trace", kRestart,
             "Log level given to FFmpeg processes.")),
        Int("pithy_print_ms", "10000", 100, kHourMs, kLive, "Interval of the periodic status lines, in ms."),
        // Connections and graceful quit.
        Int("max_connections", "1000", 1, 1000000, kLive, "Connections beyond this many are closed at once."),
        Int("grace_start_wait", "2300", 0, kHourMs, kLive, "Graceful quit (SIGQUIT): ms to wait before closing "
                                                           "the listeners."),
        Int("grace_final_wait", "3200", 0, kHourMs, kLive, "Graceful quit: ms to wait after closing the listeners "
                                                           "before exiting."),
        Bool("force_grace_quit", "off", kLive, "Quit gracefully on SIGTERM too (for Kubernetes)."),
        Int("reuseport_balance", "0", 0, 256, kRestart,
            "Not SRS's. N > 0: N processes share the RTMP and HTTP ports, and new connections go to the "
            "N sockets of each port in turn (an eBPF program, SO_ATTACH_REUSEPORT_EBPF; needs CAP_BPF or root) "
            "instead of by the kernel's hash; 0: the hash (docs/cluster.md)."),
        // RTMP.
        Endpoints("listen", "1935", 64, kLive, "RTMP listen endpoints: port, ip:port or [ipv6]:port, several "
                                               "allowed."),
        Int("chunk_size", "60000", 128, 65536, kLive, "RTMP chunk size the server sends with; a vhost can "
                                                      "override it."),

        Block("http_api", "The HTTP API (/api/v1/...)."),
        Bool("http_api.enabled", "off", kRestart, "Serve the HTTP API."),
        Endpoints("http_api.listen", "1985", 1, kRestart, "Endpoint of the API; the same as http_server.listen "
                                                          "shares that port."),
        Bool("http_api.crossdomain", "on", kRestart, "Answer CORS requests."),
        Block("http_api.raw_api", "The /api/v1/raw endpoint."),
        Bool("http_api.raw_api.enabled", "off", kRestart, "Serve /api/v1/raw."),
        Bool("http_api.raw_api.allow_reload", "off", kRestart, "Let /api/v1/raw?rpc=reload reload the conf."),
        Todo("http_api.raw_api.allow_query", "Removed from SRS (query the conf over the API)."),
        Todo("http_api.raw_api.allow_update", "Removed from SRS (change the conf over the API)."),
        Block("http_api.auth", "HTTP Basic authentication of the API."),
        Bool("http_api.auth.enabled", "off", kRestart, "Require a user name and password."),
        Str("http_api.auth.username", "", kRestart, "User name for Basic authentication."),
        Str("http_api.auth.password", "", kRestart, "Password for Basic authentication."),
        Block("http_api.https", "The API over HTTPS."),
        NotYet(Bool("http_api.https.enabled", "off", kRestart, "Serve the API over HTTPS too.")),
        NotYet(Endpoints("http_api.https.listen", "1990", 1, kRestart, "HTTPS endpoint of the API.")),
        NotYet(Str("http_api.https.key", "./conf/server.key", kRestart, "Private key file (PEM).")),
        NotYet(Str("http_api.https.cert", "./conf/server.crt", kRestart, "Certificate file (PEM).")),

        Block("http_server", "The HTTP server: static files and HTTP-FLV streams."),
        Bool("http_server.enabled", "off", kRestart, "Serve HTTP."),
        Endpoints("http_server.listen", "8080", 1, kRestart, "Endpoint of the HTTP server."),
        Str("http_server.dir", "./objs/nginx/html", kRestart, "Root directory of static files."),
        Bool("http_server.crossdomain", "on", kRestart, "Answer CORS requests."),
        Block("http_server.https", "The HTTP server over HTTPS."),
        NotYet(Bool("http_server.https.enabled", "off", kRestart, "Serve HTTPS too.")),
        NotYet(Endpoints("http_server.https.listen", "8088", 1, kRestart, "HTTPS endpoint.")),
        NotYet(Str("http_server.https.key", "./conf/server.key", kRestart, "Private key file (PEM).")),
        NotYet(Str("http_server.https.cert", "./conf/server.crt", kRestart, "Certificate file (PEM).")),

        Block("rtc_server", "The WebRTC server (one UDP port for every session)."),
        Bool("rtc_server.enabled", "off", kRestart, "Serve WebRTC: open the UDP port (and TCP when configured) and "
                                                   "answer WHIP/WHEP and /rtc/v1/ on the API."),
        Int("rtc_server.listen", "8000", 1, 65535, kRestart, "UDP port for WebRTC media."),
        Block("rtc_server.tcp", "WebRTC media over TCP."),
        Bool("rtc_server.tcp.enabled", "off", kRestart, "Accept WebRTC media over TCP."),
        Int("rtc_server.tcp.listen", "8000", 1, 65535, kRestart, "TCP port for WebRTC media."),
        Enum("rtc_server.protocol", "udp", "udp|tcp|all", kRestart, "Transports offered in candidates."),
        Str("rtc_server.candidate", "*", kRestart, "Address given to peers: an IP, a name, $ENV_VAR, or * to "
                                                   "detect one."),
        Bool("rtc_server.use_auto_detect_network_ip", "on", kRestart, "With candidate *, use the addresses of "
                                                                      "the interfaces."),
        Enum("rtc_server.ip_family", "ipv4", "ipv4|ipv6|all", kRestart, "Address families detected for *."),
        Bool("rtc_server.api_as_candidates", "on", kRestart,
               "Also offer the host the client used for the API."),
        NotYet(Bool("rtc_server.resolve_api_domain", "on", kRestart, "Resolve that host when it is a domain name.")),
        NotYet(Bool("rtc_server.keep_api_domain", "off", kRestart, "Offer the domain name itself as a candidate.")),
        Bool("rtc_server.ecdsa", "on", kRestart, "DTLS certificate with ECDSA (off: RSA)."),
        Bool("rtc_server.encrypt", "on", kRestart, "Encrypt media with SRTP (off only for debugging)."),
        Int("rtc_server.reuseport", "1", 1, 256, kRestart, "UDP sockets sharing the port (SO_REUSEPORT)."),
        Bool("rtc_server.gso", "on", kRestart, "Send a player's packets of one frame as one UDP GSO message "
                                               "(not SRS's; off if a NIC misbehaves)."),
        Bool("rtc_server.merge_nalus", "off", kRestart, "Send the NALUs of a frame in one packet when they fit."),
        Int("rtc_server.pending_sessions", "500", 1, 1000000, kLive,
            "Sessions made by an offer whose peer has not yet passed a STUN check (not SRS's): at most this many; "
            "more offers get 503 (code 1074). They count against neither max_connections nor the API's clients."),
        Int("rtc_server.pending_sessions_per_ip", "50", 0, 1000000, kLive,
            "At most this many of them signalled from one address (IPv6: one /64); 0: no bound per address. "
            "Raise it behind a signalling proxy, whose address every offer has."),
        Int("rtc_server.pending_timeout", "10", 1, 300, kLive,
            "Seconds a pending session waits for its first verified STUN binding before it is freed."),
        Block("rtc_server.black_hole", "Copy plaintext RTP to an address, for debugging with wireshark."),
        NotYet(Bool("rtc_server.black_hole.enabled", "off", kRestart, "Send the copy.")),
        NotYet(Str("rtc_server.black_hole.addr", "", kRestart, "ip:port that receives the copy.")),

        Block("stats", "System statistics for the API."),
        NotYet(Bool("stats.enabled", "on", kRestart, "Collect CPU, memory, network and disk statistics.")),
        NotYet(Int("stats.network", "0", 0, 64, kRestart, "Index of the network interface reported.")),
        NotYet(List("stats.disk", "", kRestart, "Disk devices to report, e.g. sda sdb.")),

        Block("heartbeat", "Periodic report to a management server (POST of JSON, see docs/cluster.md)."),
        Bool("heartbeat.enabled", "off", kRestart, "Send heartbeats."),
        Float("heartbeat.interval", "9.9", 0, 3600, kRestart, "Seconds between heartbeats (above 0)."),
        Str("heartbeat.url", "http://127.0.0.1:8085/api/v1/servers", kRestart,
            "URL the heartbeat is POSTed to: http[s]://host[:port]/path (a DNS name, an IP or localhost)."),
        Str("heartbeat.device_id", "", kRestart, "Device id put in the heartbeat."),
        Bool("heartbeat.summaries", "off", kRestart, "Include the /api/v1/summaries data."),
        Bool("heartbeat.ports", "off", kRestart, "Include the listening ports (rtmp, http, api, rtc)."),
        Block("http_client", "Ours (not SRS's): the server's outbound HTTP requests (heartbeat, forward backend, "
                             "hooks), see docs/config.md."),
        Bool("http_client.verify_tls", "on", kRestart, "https: check the server's certificate chain and name; off "
                                                       "accepts any certificate (tests, self-signed servers)."),
        Str("http_client.ca_file", "", kRestart, "https: PEM file of the CAs to trust; empty: the system store."),

        Block("circuit_breaker", "Shed work when the CPU is saturated."),
        NotYet(Bool("circuit_breaker.enabled", "on", kRestart, "Watch the CPU and shed optional work.")),
        NotYet(Int("circuit_breaker.high_threshold", "90", 0, 100, kRestart, "CPU percent of the high level.")),
        NotYet(Int("circuit_breaker.high_pulse", "2", 0, 100, kRestart, "Seconds above it before the high level.")),
        NotYet(Int("circuit_breaker.critical_threshold", "95", 0, 100, kRestart, "CPU percent of the critical level.")),
        NotYet(Int("circuit_breaker.critical_pulse", "1", 0, 100, kRestart,
               "Seconds above it before the critical level.")),
        NotYet(Int("circuit_breaker.dying_threshold", "99", 0, 100, kRestart, "CPU percent of the dying level.")),
        NotYet(Int("circuit_breaker.dying_pulse", "5", 0, 100, kRestart, "Seconds above it before the dying level.")),

        Block("exporter", "Prometheus metrics: GET /metrics on a listener of its own (docs/exporter.md)."),
        Bool("exporter.enabled", "off", kLive, "Serve /metrics; SIGHUP starts or stops the listener."),
        Endpoints("exporter.listen", "9972", 1, kLive, "Endpoint of the exporter; SIGHUP moves it (the old one "
                                                      "closes once the new one listens)."),
        Str("exporter.label", "", kLive, "Value of the label `label` of srs_build_info; empty: no such label."),
        Str("exporter.tag", "", kLive, "Value of the label `tag` of srs_build_info; empty: no such label."),

        Block("stream_registry", "Origin cluster: which origin publishes each stream, in Redis (docs/cluster.md)."),
        Bool("stream_registry.enabled", "off", kRestart, "Register published streams in Redis (off: in memory, "
                                                         "one process needs nothing else)."),
        Str("stream_registry.redis", "redis://127.0.0.1:6379/0", kRestart,
            "Redis as redis://IP:PORT/DB (numeric IP or localhost; DB selected after each connect)."),
        Int("stream_registry.ttl", "10", 1, 3600, kRestart,
            "Seconds a stream's key lives in Redis unless its owner refreshes it (every 3 s)."),
        Str("stream_registry.advertise", "", kRestart,
            "Host other servers pull from, in the owner URL rtmp://HOST:PORT (PORT: the first listen port); "
            "empty: the first non-loopback IPv4 address, else 127.0.0.1."),

        Todo("srt_server", "SRT server."),
        Todo("stream_caster", "MPEG-TS over UDP, FLV over HTTP POST and GB28181 ingest."),
        Todo("threads", "Thread pool settings (SRS has one thread)."),
        Todo("tencentcloud_cls", "Logs to Tencent Cloud CLS."),
        Todo("tencentcloud_apm", "Traces to Tencent Cloud APM."),

        vhost,
        Bool("vhost.enabled", "on", kLive, "Serve this vhost."),
        Bool("vhost.min_latency", "off", kLive, "Realtime mode: send each message at once, no merged read."),
        Bool("vhost.tcp_nodelay", "off", kLive, "Set TCP_NODELAY on player connections."),
        Inherit(Int("vhost.chunk_size", "60000", 128, 65536, kLive, "RTMP chunk size; default: the global "
                                                                    "chunk_size."),
                "chunk_size"),
        NotYet(Int("vhost.in_ack_size", "0", 0, kI32Max, kLive,
                   "Acknowledge every this many bytes received, for encoders that wait for it; 0: only when asked.")),
        Int("vhost.out_ack_size", "2500000", 0, kI32Max, kLive, "Window players are asked to acknowledge, in "
                                                                "bytes; 0: do not ask."),

        Block("vhost.play", "How streams are sent to players."),
        Bool("vhost.play.gop_cache", "on", kLive, "Keep the last GOP so new players start at once."),
        Int("vhost.play.gop_cache_max_frames", "2500", 0, 1000000, kLive, "Most frames in the GOP cache; 0: no "
                                                                         "limit."),
        Int("vhost.play.queue_length", "30", 1, 3600, kLive, "Seconds a player queue holds before dropping to "
                                                            "the next keyframe."),
        Enum("vhost.play.time_jitter", "full", "full|zero|off", kLive, "Timestamp correction: full (start at 0, "
                                                                       "monotonic), zero (start at 0) or off."),
        NotYet(Bool("vhost.play.atc", "off", kLive, "Keep the encoder's absolute timestamps (for several origins).")),
        NotYet(Bool("vhost.play.mix_correct", "off", kLive, "Reorder audio and video into one monotonic stream.")),
        NotYet(Bool("vhost.play.atc_auto", "off", kLive, "Turn atc on when the metadata asks for it.")),
        Int("vhost.play.mw_latency", "350", 0, 10000, kLive, "Merged write: ms of messages a player waits for "
                                                            "before a write."),
        Int("vhost.play.mw_msgs", "8", 0, 128, kLive, "Merged write: messages a player waits for before a write."),
        NotYet(Float("vhost.play.send_min_interval", "0", 0, 10000, kLive, "Least ms between two sends to a player; 0: "
                                                                   "no pacing.")),
        NotYet(Bool("vhost.play.reduce_sequence_header", "off", kLive, "Send a repeated sequence header only when it "
                                                               "changed.")),

        Block("vhost.publish", "How streams are received from publishers."),
        Bool("vhost.publish.mr", "off", kLive, "Merged read: after a read that empties the socket the publisher's "
                                              "next read waits mr_latency, so one read takes many messages (less "
                                              "CPU, up to mr_latency more delay). Not written: the same only under "
                                              "load, within a budget of 10,000 reads a second for all publishers "
                                              "(docs/rtmp.md); off written: never. Ignored with min_latency on."),
        Int("vhost.publish.mr_latency", "350", 0, 10000, kLive, "Merged read: ms the next read waits; 0: no wait."),
        Int("vhost.publish.firstpkt_timeout", "20000", 0, kHourMs, kLive, "ms to wait for the first packet."),
        Int("vhost.publish.normal_timeout", "5000", 0, kHourMs, kLive, "ms to wait for each later packet."),
        NotYet(Bool("vhost.publish.parse_sps", "on", kLive, "Parse the H.264 SPS for the size and profile.")),
        NotYet(Bool("vhost.publish.try_annexb_first", "on", kLive,
               "Try Annex B before IBMF when a frame is ambiguous.")),
        NotYet(Int("vhost.publish.kickoff_for_idle", "0", 0, 86400, kLive, "Seconds without players before the "
                                                                   "publisher is closed; 0: never.")),

        Block("vhost.http_remux", "Live streams over HTTP (HTTP-FLV and friends)."),
        Bool("vhost.http_remux.enabled", "off", kLive, "Serve the vhost's streams over HTTP."),
        Float("vhost.http_remux.fast_cache", "0", 0, 3600, kLive, "Seconds of audio an HTTP-MP3/AAC player starts "
                                                         "with (from the GOP cache); 0: start live."),
        Bool("vhost.http_remux.drop_if_not_match", "on", kLive, "Drop frames of a codec the stream did not "
                                                               "announce."),
        Bool("vhost.http_remux.has_audio", "on", kLive, "Announce audio (FLV header, TS PMT)."),
        Bool("vhost.http_remux.has_video", "on", kLive, "Announce video (FLV header, TS PMT)."),
        Bool("vhost.http_remux.guess_has_av", "on", kLive, "Announce only what the stream actually carries."),
        Str("vhost.http_remux.mount", "[vhost]/[app]/[stream].flv", kLive, "URL path of a stream; the extension "
                                                                          "picks the format (.flv .ts .aac .mp3)."),

        Block("vhost.rtc", "WebRTC for this vhost."),
        Bool("vhost.rtc.enabled", "off", kRestart, "Serve WebRTC."),
        Bool("vhost.rtc.nack", "on", kRestart, "Ask for and answer retransmissions (NACK)."),
        Bool("vhost.rtc.nack_no_copy", "on", kRestart, "Retransmit from the ring buffer without copying."),
        Bool("vhost.rtc.twcc", "on", kRestart, "Transport-wide congestion control feedback."),
        Int("vhost.rtc.stun_timeout", "30", 1, 3600, kRestart, "Seconds without STUN before a session ends."),
        NotYet(Bool("vhost.rtc.stun_strict_check", "off", kRestart, "Check STUN credentials strictly.")),
        Enum("vhost.rtc.dtls_role", "passive", "passive|active", kRestart, "DTLS role of the server."),
        NotYet(Enum("vhost.rtc.dtls_version", "auto", "auto|dtls1.0|dtls1.2", kRestart, "DTLS version.")),
        Int("vhost.rtc.drop_for_pt", "0", 0, 127, kRestart,
               "Drop RTP of this payload type (debugging); 0: none."),
        Bool("vhost.rtc.rtmp_to_rtc", "off", kLive, "Let WebRTC players play RTMP streams (AAC to Opus)."),
        Bool("vhost.rtc.keep_bframe", "off", kLive, "Send B-frames to every WebRTC player; off: to the players "
                                                    "whose negotiated H.264 profile has them."),
        NotYet(Bool("vhost.rtc.keep_avc_nalu_sei", "on", kRestart, "Keep H.264 SEI NALUs for WebRTC players.")),
        Int("vhost.rtc.opus_bitrate", "48000", 8000, 320000, kLive, "Opus bitrate when transcoding from AAC."),
        Int("vhost.rtc.aac_bitrate", "48000", 8000, 320000, kLive, "AAC bitrate when transcoding from Opus."),
        Bool("vhost.rtc.rtc_to_rtmp", "off", kLive, "Let RTMP and HTTP-FLV players play WebRTC streams."),
        Float("vhost.rtc.pli_for_rtmp", "6.0", 0, 30, kLive, "Seconds between keyframe requests to WebRTC "
                                                          "publishers for RTMP players; 0: none."),

        Block("vhost.cluster", "Edge and origin cluster: where this vhost's streams come from."),
        Enum("vhost.cluster.mode", "local", "local|remote", kLive, "local: this server is the origin; remote: an "
                                                                  "edge that pulls played streams from an origin "
                                                                  "and pushes published ones to it."),
        List("vhost.cluster.origin", "", kLive, "Edge: origins as HOST[:PORT] (port 1935 by default, numeric "
                                                "hosts), tried in turn."),
        Bool("vhost.cluster.token_traverse", "off", kLive, "Edge: before answering a client's connect, connect to "
                                                           "the origin with its tcUrl params and refuse the client "
                                                           "when the origin refuses (the origin authenticates)."),
        Str("vhost.cluster.vhost", "", kLive, "Edge: the vhost put in the tcUrl sent to the origin; empty: this "
                                              "vhost's name."),
        NotYet(Bool("vhost.cluster.debug_srs_upnode", "on", kLive, "Edge: ask an SRS origin for its ip, pid and id.")),
        Enum("vhost.cluster.protocol", "rtmp", "rtmp|flv", kLive, "Edge: pull over RTMP, or over HTTP-FLV (GET "
                                                                  "http://HOST:PORT/app/stream.flv: the origin "
                                                                  "entries then name HTTP ports)."),
        Bool("vhost.cluster.follow_client", "off", kLive, "Edge: use the vhost the client asked for in the tcUrl "
                                                          "sent to the origin (over cluster.vhost)."),
        NotYet(Bool("vhost.cluster.origin_cluster", "off", kLive, "Origin cluster: ask coworkers where a stream is.")),
        NotYet(List("vhost.cluster.coworkers", "", kLive, "Origin cluster: the other origins' API HOST:PORT.")),
        Block("vhost.forward", "Forward: publish every stream of this vhost again to other servers (the old "
                               "one-line form `forward HOST:PORT ...;` reads as enabled on + destination)."),
        Bool("vhost.forward.enabled", "off", kLive, "Forward the streams published from now on."),
        List("vhost.forward.destination", "", kLive, "HOST:PORT (port 1935 by default; an IP or a DNS name): each "
                                                     "publish goes to rtmp://HOST:PORT/app/stream with its "
                                                     "param (and ?vhost= for a named vhost); retried every 3 s."),
        Str("vhost.forward.backend", "", kLive, "on_forward: an http:// or https:// URL asked for the destinations (full RTMP "
                                                "URLs in data.urls) at each publish, instead of destination; "
                                                "asked again every 3 s while it fails."),
        Block("vhost.refer", "Refer (anti-hotlinking): the RTMP connect's pageUrl must be on a listed domain "
                             "(docs/security.md)."),
        Bool("vhost.refer.enabled", "off", kLive, "Check the pageUrl of RTMP clients."),
        List("vhost.refer.all", "", kLive, "Domains checked at connect, for every RTMP client: the pageUrl's host "
                                           "must end with one of them; unset: no check."),
        List("vhost.refer.publish", "", kLive, "Domains checked when an RTMP client publishes; unset: no check."),
        List("vhost.refer.play", "", kLive, "Domains checked when an RTMP client plays; unset: no check."),
        Block("vhost.security", "Allow and deny publishers and players by client address: deny rules first, then, "
                                "if any allow rule exists, an allow rule must match (docs/security.md)."),
        Bool("vhost.security.enabled", "off", kLive, "Check every publisher and player (RTMP, HTTP-FLV, WebRTC); "
                                                     "on with no rule refuses everyone."),
        Rule("vhost.security.allow", kLive, "`allow ACTION TARGET;` (ACTION publish or play; TARGET all, an IPv4 or "
                                            "IPv6 address or network), one per line: with any allow rule (for either "
                                            "action), a client must match one for its action."),
        Rule("vhost.security.deny", kLive, "`deny ACTION TARGET;` as allow, one per line: a match refuses the "
                                           "client, before any allow rule."),
        Todo("vhost.http_static", "Static files per vhost."),
        Block("vhost.http_hooks", "HTTP callbacks: each hook POSTs SRS's JSON body to its URLs in order; the first "
                                  "failure fails the hook (docs/hooks.md)."),
        Bool("vhost.http_hooks.enabled", "off", kLive, "Call the hooks below; the running config is read at each call."),
        List("vhost.http_hooks.on_connect", "", kLive, "URLs told of an RTMP connect; a failure refuses the client."),
        List("vhost.http_hooks.on_close", "", kLive, "URLs told when a client whose on_connect passed leaves, with its "
                                                     "bytes; failures are logged."),
        List("vhost.http_hooks.on_publish", "", kLive, "URLs asked before a publish (RTMP, WHIP, /rtc/v1/publish); a "
                                                       "failure refuses the publisher."),
        List("vhost.http_hooks.on_unpublish", "", kLive, "URLs told when a publish whose on_publish passed ends; "
                                                         "failures are logged."),
        List("vhost.http_hooks.on_play", "", kLive, "URLs asked before a play (RTMP, HTTP-FLV, WHEP, /rtc/v1/play); a "
                                                    "failure refuses the player."),
        List("vhost.http_hooks.on_stop", "", kLive, "URLs told when a play whose on_play passed ends; failures are "
                                                    "logged."),
        List("vhost.http_hooks.on_dvr", "", kLive, "URLs told of each DVR file, through the asynchronous queue."),
        List("vhost.http_hooks.on_hls", "", kLive, "URLs told of each HLS segment, through the asynchronous queue."),
        List("vhost.http_hooks.on_hls_notify", "", kLive, "URL templates ([server_id] [app] [stream] [ts_url] "
                                                          "[param]) one of which is fetched (GET, body ignored) "
                                                          "for each HLS segment, through the asynchronous queue."),
        Int("vhost.http_hooks.timeout", "5000", 100, 60000, kLive, "Ours: ms one hook call may take in all (connect, "
                                                                   "send, the whole answer); past it the call fails."),
        Todo("vhost.srt", "SRT for this vhost."),
        Block("vhost.hls", "HLS: the vhost's streams cut into segments and playlists (docs/hls.md)."),
        Bool("vhost.hls.enabled", "off", kLive, "Make HLS of every stream published from now on."),
        Float("vhost.hls.hls_fragment", "10", 0, 3600, kLive, "Seconds: the shortest segment."),
        Float("vhost.hls.hls_td_ratio", "1.0", 1, 100, kLive, "A segment is cut once it is hls_fragment x "
                                                                     "this long (at the next keyframe with "
                                                                     "hls_wait_keyframe); also the target duration "
                                                                     "floor."),
        Float("vhost.hls.hls_aof_ratio", "2.1", 1, 100, kLive, "Audio only: a segment is cut once it is "
                                                                      "hls_fragment x this long."),
        Float("vhost.hls.hls_window", "60", 0, 86400, kLive, "Seconds of segments the playlist lists."),
        Enum("vhost.hls.hls_on_error", "continue", "ignore|disconnect|continue", kLive,
                    "When writing HLS fails: ignore (stop HLS of the stream), disconnect (the publisher) or "
                    "continue (retry at the next segment)."),
        Str("vhost.hls.hls_path", "./objs/nginx/html", kLive, "Folder the playlists and segments go under."),
        Str("vhost.hls.hls_m3u8_file", "[app]/[stream].m3u8", kLive, "Playlist path under hls_path; "
                                                                           "[vhost] [app] [stream]."),
        Str("vhost.hls.hls_ts_file", "[app]/[stream]-[seq].ts", kLive, "Segment path under hls_path; also "
                                                                             "[seq] [duration] [timestamp] [2006] "
                                                                             "[01] [02] [15] [04] [05] [999]."),
        Bool("vhost.hls.hls_ts_floor", "off", kLive, "[timestamp] in hls_ts_file counts hls_fragments of the "
                                                            "wall clock, one up per segment; cuts are steered to "
                                                            "follow the clock."),
        Str("vhost.hls.hls_entry_prefix", "", kLive, "URL put before each segment's name in the playlist; "
                                                            "empty: names relative to the playlist."),
        Enum("vhost.hls.hls_acodec", "aac", "aac|mp3|an", kLive, "Audio codec the PMT names before the "
                                                                        "stream says; an: none."),
        Enum("vhost.hls.hls_vcodec", "h264", "h264|h265|hevc|vn", kLive, "Video codec the PMT names "
                                                                                "before the stream says; vn: "
                                                                                "none."),
        Bool("vhost.hls.hls_cleanup", "on", kLive, "Delete segments that leave the window."),
        Int("vhost.hls.hls_dispose", "120", 0, 86400 * 30, kLive, "Seconds without packets after which the "
                                                                        "playlist and segments are deleted; 0: "
                                                                        "never."),
        Bool("vhost.hls.hls_wait_keyframe", "on", kLive, "Cut segments at video keyframes only."),
        Int("vhost.hls.hls_nb_notify", "64", 0, 1 << 20, kLive, "Bytes read of each on_hls_notify answer's body "
                                                                 "before the connection closes."),
        Bool("vhost.hls.hls_ctx", "on", kLive, "Give each playlist player a session (hls_ctx): counted, "
                                               "checked and hooked like other players."),
        Bool("vhost.hls.hls_ts_ctx", "on", kLive, "Count segment bytes to the session of hls_ctx."),
        Bool("vhost.hls.hls_keys", "off", kLive, "Encrypt segments with AES-128."),
        Int("vhost.hls.hls_fragments_per_key", "5", 1, 1 << 20, kLive, "Segments per key."),
        Str("vhost.hls.hls_key_file", "[app]/[stream]-[seq].key", kLive, "Key file name; [vhost] [app] "
                                                                               "[stream] [seq]."),
        Str("vhost.hls.hls_key_file_path", "", kLive, "Folder of the key files; empty: hls_path."),
        Str("vhost.hls.hls_key_url", "", kLive, "URL put before the key file name in the playlist; empty: "
                                                       "relative."),
        Bool("vhost.hls.hls_dts_directly", "on", kLive, "Take audio DTS from the stream's timestamps as "
                                                               "they are."),
        Bool("vhost.hls.hls_use_fmp4", "off", kLive, "fMP4 segments (.m4s) and an init segment instead of "
                                                            "MPEG-TS."),
        Str("vhost.hls.hls_fmp4_file", "[app]/[stream]-[seq].m4s", kLive, "fMP4 segment path under "
                                                                                "hls_path."),
        Str("vhost.hls.hls_init_file", "[app]/[stream]/init.mp4", kLive, "fMP4 init segment path under "
                                                                              "hls_path."),
        Enum("vhost.hls.hls_storage", "disk", "disk|memory", kLive, "Ours: disk writes files under hls_path; "
             "memory keeps them in the server and its HTTP server answers them at the same URLs."),
        Bool("vhost.hls.hls_ll", "off", kLive, "Ours: Low-Latency HLS (parts, blocking reload, delta updates); "
             "implies hls_use_fmp4 on, hls_storage memory and hls_keys off."),
        Float("vhost.hls.hls_part", "0.2", 0.05, 5, kLive, "Ours: seconds, the LL-HLS part target."),
        Todo("vhost.hds", "HDS."),
        Todo("vhost.dash", "MPEG-DASH."),
        Block("vhost.dvr", "DVR: record streams to FLV or MP4 files (docs/dvr.md)."),
        Bool("vhost.dvr.enabled", "off", kLive, "Record the streams dvr_apply names."),
        List("vhost.dvr.dvr_apply", "all", kRestart, "all, or the app/stream names recorded."),
        Enum("vhost.dvr.dvr_plan", "session", "session|segment", kLive, "session: one file per publish; "
                                                                              "segment: a new file every "
                                                                              "dvr_duration."),
        Str("vhost.dvr.dvr_path", "./objs/nginx/html/[app]/[stream].[timestamp].flv", kLive,
                   "File of a recording; .mp4 picks MP4; a path without .flv or .mp4 is a folder. [vhost] [app] "
                   "[stream] [2006] [01] [02] [15] [04] [05] [999] [timestamp]."),
        Int("vhost.dvr.dvr_duration", "30", 1, 86400, kLive, "Segment plan: seconds per file."),
        Bool("vhost.dvr.dvr_wait_keyframe", "on", kLive, "Segment plan: start each file at a keyframe."),
        Enum("vhost.dvr.time_jitter", "full", "full|zero|off", kLive, "Timestamps written: full (corrected "
                                                                           "to start at 0 and rise), zero "
                                                                           "(start at 0) or off (as "
                                                                           "published)."),
        Todo("vhost.bandcheck", "Obsolete bandwidth check."),
    };
    add_ffmpeg_rows(&t);
    return t;
}

}  // namespace

const std::vector<DirectiveSpec>& directive_table() {
    static const std::vector<DirectiveSpec> table = build_table();
    return table;
}

const DirectiveSpec* find_directive(const std::string& path) {
    static const std::unordered_map<std::string, const DirectiveSpec*> index = [] {
        std::unordered_map<std::string, const DirectiveSpec*> m;
        for (const DirectiveSpec& s : directive_table()) m[s.path] = &s;
        return m;
    }();
    auto it = index.find(path);
    return it == index.end() ? nullptr : it->second;
}

std::string directive_env_name(const std::string& path) {
    std::string env = "SRS_";
    for (char c : path) env += c == '.' ? '_' : static_cast<char>(toupper(static_cast<unsigned char>(c)));
    return env;
}

bool is_typed_directive(const DirectiveSpec& spec) {
    return spec.kind != ArgKind::kBlock && spec.kind != ArgKind::kAny;
}

bool is_value_directive(const DirectiveSpec& spec) { return spec.implemented && is_typed_directive(spec); }

bool in_repeated_row(const std::string& path) {
    for (size_t end = path.size(); end != std::string::npos && end > 0; end = path.rfind('.', end - 1)) {
        const DirectiveSpec* spec = find_directive(path.substr(0, end));
        if (spec && spec->repeated) return true;
    }
    return false;
}

bool block_has_values(const DirectiveSpec& block) {
    std::string prefix = std::string(block.path) + ".";
    for (const DirectiveSpec& s : directive_table()) {
        if (is_value_directive(s) && strncmp(s.path, prefix.c_str(), prefix.size()) == 0) return true;
    }
    return false;
}

std::vector<std::string> directive_default_args(const DirectiveSpec& spec) {
    std::vector<std::string> args;
    std::string cur;
    for (const char* p = spec.default_value; *p; ++p) {
        if (*p == ' ') {
            if (!cur.empty()) args.push_back(cur);
            cur.clear();
        } else {
            cur += *p;
        }
    }
    if (!cur.empty()) args.push_back(cur);
    return args;
}

namespace {

// The table spelling of an enum value, or nullptr.
bool match_enum(const char* values, const std::string& arg, std::string* canonical) {
    std::string cur;
    for (const char* p = values;; ++p) {
        if (*p == '|' || *p == '\0') {
            if (!arg.empty() && iequals(cur, arg)) {
                *canonical = cur;
                return true;
            }
            cur.clear();
            if (*p == '\0') return false;
        } else {
            cur += *p;
        }
    }
}

Error validate_one(const DirectiveSpec& spec, const std::string& where, std::string* arg) {
    const char* name = spec.path;
    switch (spec.kind) {
        case ArgKind::kBool:
            if (*arg != "on" && *arg != "off") {
                return SRS_ERR(kErrorConfigDirective, "%s: %s must be on or off, not \"%s\"", where.c_str(), name,
                               arg->c_str());
            }
            return Error();
        case ArgKind::kInt: {
            int64_t v = 0;
            if (!parse_integer(*arg, &v)) {
                return SRS_ERR(kErrorConfigDirective, "%s: %s must be an integer, not \"%s\"", where.c_str(), name,
                               arg->c_str());
            }
            if (v < spec.min || v > spec.max) {
                return SRS_ERR(kErrorConfigDirective, "%s: %s %lld is out of range [%lld, %lld]", where.c_str(), name,
                               (long long)v, (long long)spec.min, (long long)spec.max);
            }
            return Error();
        }
        case ArgKind::kFloat: {
            double v = 0;
            if (!parse_double(*arg, &v)) {
                return SRS_ERR(kErrorConfigDirective, "%s: %s must be a number, not \"%s\"", where.c_str(), name,
                               arg->c_str());
            }
            if (v < static_cast<double>(spec.min) || v > static_cast<double>(spec.max)) {
                return SRS_ERR(kErrorConfigDirective, "%s: %s %s is out of range [%lld, %lld]", where.c_str(), name,
                               arg->c_str(), (long long)spec.min, (long long)spec.max);
            }
            return Error();
        }
        case ArgKind::kEnum: {
            std::string canonical;
            if (!match_enum(spec.values, *arg, &canonical)) {
                return SRS_ERR(kErrorConfigDirective, "%s: %s must be one of %s, not \"%s\"", where.c_str(), name,
                               spec.values, arg->c_str());
            }
            *arg = canonical;
            return Error();
        }
        case ArgKind::kEndpoint: {
            ListenEndpoint ep;
            if (!parse_endpoint(*arg, &ep)) {
                return SRS_ERR(kErrorConfigDirective, "%s: %s: bad endpoint \"%s\", expecting port, ip:port or "
                               "[ipv6]:port", where.c_str(), name, arg->c_str());
            }
            return Error();
        }
        default:
            return Error();
    }
}

}  // namespace

namespace {

// allow|deny rules: pairs of (action, target), each a rule the server can use.
Error validate_access_rules(const DirectiveSpec& spec, const std::string& where, const std::vector<std::string>& args) {
    if (args.empty() || args.size() % 2 != 0) {
        return SRS_ERR(kErrorConfigDirective, "%s: %s takes an action and a target (publish|play all|IP|CIDR), got "
                       "%d argument%s", where.c_str(), spec.path, (int)args.size(), args.size() == 1 ? "" : "s");
    }
    AccessVerb verb = strcmp(spec.path + strlen(spec.path) - 4, "deny") == 0 ? AccessVerb::kDeny : AccessVerb::kAllow;
    for (size_t i = 0; i < args.size(); i += 2) {
        AccessRule rule;
        std::string why;
        if (!parse_access_rule(verb, args[i], args[i + 1], &rule, &why)) {
            return SRS_ERR(kErrorConfigDirective, "%s: %s %s %s: %s", where.c_str(), spec.path, args[i].c_str(),
                           args[i + 1].c_str(), why.c_str());
        }
    }
    return Error();
}

}  // namespace

Error validate_directive_args(const DirectiveSpec& spec, const std::string& where, std::vector<std::string>* args) {
    if (spec.kind == ArgKind::kAccessRule) return validate_access_rules(spec, where, *args);
    int n = static_cast<int>(args->size());
    if (n < spec.min_args || n > spec.max_args) {
        if (spec.min_args == spec.max_args) {
            return SRS_ERR(kErrorConfigDirective, "%s: %s takes %d argument%s, got %d", where.c_str(), spec.path,
                           spec.min_args, spec.min_args == 1 ? "" : "s", n);
        }
        return SRS_ERR(kErrorConfigDirective, "%s: %s takes %d to %d arguments, got %d", where.c_str(), spec.path,
                       spec.min_args, spec.max_args, n);
    }
    for (std::string& arg : *args) {
        if (Error err = validate_one(spec, where, &arg); !err.ok()) return err;
    }
    return Error();
}

namespace {
bool parse_port(const std::string& s, int* port) {
    int64_t v = 0;
    if (s.empty() || s[0] == '-' || !parse_integer(s, &v) || v < 1 || v > 65535) return false;
    *port = static_cast<int>(v);
    return true;
}
}  // namespace

bool parse_endpoint(const std::string& text, ListenEndpoint* out) {
    unsigned char buf[sizeof(struct in6_addr)];
    if (!text.empty() && text[0] == '[') {
        size_t close = text.find("]:");
        if (close == std::string::npos) return false;
        std::string ip = text.substr(1, close - 1);
        if (inet_pton(AF_INET6, ip.c_str(), buf) != 1) return false;
        out->ip = ip;
        return parse_port(text.substr(close + 2), &out->port);
    }
    size_t colon = text.rfind(':');
    if (colon == std::string::npos) {
        out->ip = "0.0.0.0";
        return parse_port(text, &out->port);
    }
    std::string ip = text.substr(0, colon);
    if (inet_pton(AF_INET, ip.c_str(), buf) != 1) return false;
    out->ip = ip;
    return parse_port(text.substr(colon + 1), &out->port);
}

const std::vector<LegacyRename>& legacy_vhost_renames() {
    static const std::vector<LegacyRename> renames = {
        {"gop_cache", "play.gop_cache"},
        {"queue_length", "play.queue_length"},
        {"mw_latency", "play.mw_latency"},
        {"mw_msgs", "play.mw_msgs"},
        {"time_jitter", "play.time_jitter"},
        {"mix_correct", "play.mix_correct"},
        {"atc", "play.atc"},
        {"atc_auto", "play.atc_auto"},
        {"send_min_interval", "play.send_min_interval"},
        {"reduce_sequence_header", "play.reduce_sequence_header"},
        {"mr", "publish.mr"},
        {"mr.enabled", "publish.mr"},
        {"mr.latency", "publish.mr_latency"},
        {"mr_latency", "publish.mr_latency"},
        {"publish_1stpkt_timeout", "publish.firstpkt_timeout"},
        {"publish_normal_timeout", "publish.normal_timeout"},
        {"nack.enabled", "rtc.nack"},
        {"twcc.enabled", "rtc.twcc"},
        {"http", "http_static"},
        {"refer_play", "refer.play"},
        {"refer_publish", "refer.publish"},
        {"mode", "cluster.mode"},
        {"origin", "cluster.origin"},
        {"token_traverse", "cluster.token_traverse"},
        {"vhost", "cluster.vhost"},
        {"debug_srs_upnode", "cluster.debug_srs_upnode"},
    };
    return renames;
}

const std::vector<LegacyRename>& legacy_global_renames() {
    static const std::vector<LegacyRename> renames = {
        {"http_stream", "http_server"},
    };
    return renames;
}

}  // namespace srs

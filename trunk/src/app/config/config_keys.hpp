// The typed keys of the directive table: one per implemented value directive,
// for Config::get() and Config::is_set() (see config_key.hpp).
// Generated from src/app/config/config_directives.cpp; do not edit. After
// changing the table, regenerate it from trunk/ with
//   make conf-regen
// A unit test fails while it is stale, and test/test_config_keys.py fails for
// a key no code outside src/app/config/ reads (mark the row NotYet instead).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/config/config_key.hpp"

namespace srs {
namespace keys {

// server_id: Server id in API answers; empty: generated once and kept beside the pid file.
inline constexpr GlobalKey<std::string> server_id{"server_id"};

// pid: PID file, write-locked so only one server runs from it.
inline constexpr GlobalKey<std::string> pid{"pid"};

// work_dir: Directory to change to at start; relative paths start from it.
inline constexpr GlobalKey<std::string> work_dir{"work_dir"};

// daemon: Run in the background (fork and detach).
inline constexpr GlobalKey<bool> daemon{"daemon"};

// disable_daemon_for_docker: Stay in the foreground when running in a container.
inline constexpr GlobalKey<bool> disable_daemon_for_docker{"disable_daemon_for_docker"};

// asprocess: Quit when the parent process goes away (for supervisors).
inline constexpr GlobalKey<bool> asprocess{"asprocess"};

// tcmalloc_release_rate: How eagerly tcmalloc returns unused memory to the system, 0 never, 10 at
// once (--gperf=on builds).
inline constexpr GlobalKey<double> tcmalloc_release_rate{"tcmalloc_release_rate"};

// wakeup_coalesce_us: Under load (I/O wake-ups less than half this apart on average), wake for I/O
// at most once per this many us, so reads find batches; idle or light load never waits. 0: off. Off
// while any vhost has min_latency on.
inline constexpr GlobalKey<int64_t> wakeup_coalesce_us{"wakeup_coalesce_us"};

// srs_log_tank: Where the log goes.
inline constexpr GlobalKey<std::string> srs_log_tank{"srs_log_tank"};

// srs_log_level: Lowest level written.
inline constexpr GlobalKey<std::string> srs_log_level{"srs_log_level"};

// srs_log_level_v2: Lowest level written, in the names log lines use; wins over srs_log_level when
// set.
inline constexpr GlobalKey<std::string> srs_log_level_v2{"srs_log_level_v2"};

// srs_log_file: Log file when srs_log_tank is file; SIGUSR1 reopens it.
inline constexpr GlobalKey<std::string> srs_log_file{"srs_log_file"};

// utc_time: Log times in UTC instead of local time.
inline constexpr GlobalKey<bool> utc_time{"utc_time"};

// pithy_print_ms: Interval of the periodic status lines, in ms.
inline constexpr GlobalKey<int64_t> pithy_print_ms{"pithy_print_ms"};

// max_connections: Connections beyond this many are closed at once.
inline constexpr GlobalKey<int64_t> max_connections{"max_connections"};

// grace_start_wait: Graceful quit (SIGQUIT): ms to wait before closing the listeners.
inline constexpr GlobalKey<int64_t> grace_start_wait{"grace_start_wait"};

// grace_final_wait: Graceful quit: ms to wait after closing the listeners before exiting.
inline constexpr GlobalKey<int64_t> grace_final_wait{"grace_final_wait"};

// force_grace_quit: Quit gracefully on SIGTERM too (for Kubernetes).
inline constexpr GlobalKey<bool> force_grace_quit{"force_grace_quit"};

// reuseport_balance: Not SRS's. N > 0: N processes share the RTMP and HTTP ports, and new
// connections go to the N sockets of each port in turn (an eBPF program, SO_ATTACH_REUSEPORT_EBPF;
// needs CAP_BPF or root) instead of by the kernel's hash; 0: the hash (docs/cluster.md).
inline constexpr GlobalKey<int64_t> reuseport_balance{"reuseport_balance"};

// listen: RTMP listen endpoints: port, ip:port or [ipv6]:port, several allowed.
inline constexpr GlobalKey<std::vector<ListenEndpoint>> listen{"listen"};

// chunk_size: RTMP chunk size the server sends with; a vhost can override it.
inline constexpr GlobalKey<int64_t> chunk_size{"chunk_size"};

// http_api.enabled: Serve the HTTP API.
inline constexpr GlobalKey<bool> http_api_enabled{"http_api.enabled"};

// http_api.listen: Endpoint of the API; the same as http_server.listen shares that port.
inline constexpr GlobalKey<std::vector<ListenEndpoint>> http_api_listen{"http_api.listen"};

// http_api.crossdomain: Answer CORS requests.
inline constexpr GlobalKey<bool> http_api_crossdomain{"http_api.crossdomain"};

// http_api.raw_api.enabled: Serve /api/v1/raw.
inline constexpr GlobalKey<bool> http_api_raw_api_enabled{"http_api.raw_api.enabled"};

// http_api.raw_api.allow_reload: Let /api/v1/raw?rpc=reload reload the conf.
inline constexpr GlobalKey<bool> http_api_raw_api_allow_reload{"http_api.raw_api.allow_reload"};

// http_api.auth.enabled: Require a user name and password.
inline constexpr GlobalKey<bool> http_api_auth_enabled{"http_api.auth.enabled"};

// http_api.auth.username: User name for Basic authentication.
inline constexpr GlobalKey<std::string> http_api_auth_username{"http_api.auth.username"};

// http_api.auth.password: Password for Basic authentication.
inline constexpr GlobalKey<std::string> http_api_auth_password{"http_api.auth.password"};

// http_server.enabled: Serve HTTP.
inline constexpr GlobalKey<bool> http_server_enabled{"http_server.enabled"};

// http_server.listen: Endpoint of the HTTP server.
inline constexpr GlobalKey<std::vector<ListenEndpoint>> http_server_listen{"http_server.listen"};

// http_server.dir: Root directory of static files.
inline constexpr GlobalKey<std::string> http_server_dir{"http_server.dir"};

// http_server.crossdomain: Answer CORS requests.
inline constexpr GlobalKey<bool> http_server_crossdomain{"http_server.crossdomain"};

// rtc_server.enabled: Serve WebRTC: open the UDP port (and TCP when configured) and answer
// WHIP/WHEP and /rtc/v1/ on the API.
inline constexpr GlobalKey<bool> rtc_server_enabled{"rtc_server.enabled"};

// rtc_server.listen: UDP port for WebRTC media.
inline constexpr GlobalKey<int64_t> rtc_server_listen{"rtc_server.listen"};

// rtc_server.tcp.enabled: Accept WebRTC media over TCP.
inline constexpr GlobalKey<bool> rtc_server_tcp_enabled{"rtc_server.tcp.enabled"};

// rtc_server.tcp.listen: TCP port for WebRTC media.
inline constexpr GlobalKey<int64_t> rtc_server_tcp_listen{"rtc_server.tcp.listen"};

// rtc_server.protocol: Transports offered in candidates.
inline constexpr GlobalKey<std::string> rtc_server_protocol{"rtc_server.protocol"};

// rtc_server.candidate: Address given to peers: an IP, a name, $ENV_VAR, or * to detect one.
inline constexpr GlobalKey<std::string> rtc_server_candidate{"rtc_server.candidate"};

// rtc_server.use_auto_detect_network_ip: With candidate *, use the addresses of the interfaces.
inline constexpr GlobalKey<bool> rtc_server_use_auto_detect_network_ip{"rtc_server.use_auto_detect_network_ip"};

// rtc_server.ip_family: Address families detected for *.
inline constexpr GlobalKey<std::string> rtc_server_ip_family{"rtc_server.ip_family"};

// rtc_server.api_as_candidates: Also offer the host the client used for the API.
inline constexpr GlobalKey<bool> rtc_server_api_as_candidates{"rtc_server.api_as_candidates"};

// rtc_server.ecdsa: DTLS certificate with ECDSA (off: RSA).
inline constexpr GlobalKey<bool> rtc_server_ecdsa{"rtc_server.ecdsa"};

// rtc_server.encrypt: Encrypt media with SRTP (off only for debugging).
inline constexpr GlobalKey<bool> rtc_server_encrypt{"rtc_server.encrypt"};

// rtc_server.reuseport: UDP sockets sharing the port (SO_REUSEPORT).
inline constexpr GlobalKey<int64_t> rtc_server_reuseport{"rtc_server.reuseport"};

// rtc_server.gso: Send a player's packets of one frame as one UDP GSO message (not SRS's; off if a
// NIC misbehaves).
inline constexpr GlobalKey<bool> rtc_server_gso{"rtc_server.gso"};

// rtc_server.merge_nalus: Send the NALUs of a frame in one packet when they fit.
inline constexpr GlobalKey<bool> rtc_server_merge_nalus{"rtc_server.merge_nalus"};

// rtc_server.pending_sessions: Sessions made by an offer whose peer has not yet passed a STUN check
// (not SRS's): at most this many; more offers get 503 (code 1074). They count against neither
// max_connections nor the API's clients.
inline constexpr GlobalKey<int64_t> rtc_server_pending_sessions{"rtc_server.pending_sessions"};

// rtc_server.pending_sessions_per_ip: At most this many of them signalled from one address (IPv6:
// one /64); 0: no bound per address. Raise it behind a signalling proxy, whose address every offer
// has.
inline constexpr GlobalKey<int64_t> rtc_server_pending_sessions_per_ip{"rtc_server.pending_sessions_per_ip"};

// rtc_server.pending_timeout: Seconds a pending session waits for its first verified STUN binding
// before it is freed.
inline constexpr GlobalKey<int64_t> rtc_server_pending_timeout{"rtc_server.pending_timeout"};

// heartbeat.enabled: Send heartbeats.
inline constexpr GlobalKey<bool> heartbeat_enabled{"heartbeat.enabled"};

// heartbeat.interval: Seconds between heartbeats (above 0).
inline constexpr GlobalKey<double> heartbeat_interval{"heartbeat.interval"};

// heartbeat.url: URL the heartbeat is POSTed to: http[s]://host[:port]/path (a DNS name, an IP or
// localhost).
inline constexpr GlobalKey<std::string> heartbeat_url{"heartbeat.url"};

// heartbeat.device_id: Device id put in the heartbeat.
inline constexpr GlobalKey<std::string> heartbeat_device_id{"heartbeat.device_id"};

// heartbeat.summaries: Include the /api/v1/summaries data.
inline constexpr GlobalKey<bool> heartbeat_summaries{"heartbeat.summaries"};

// heartbeat.ports: Include the listening ports (rtmp, http, api, rtc).
inline constexpr GlobalKey<bool> heartbeat_ports{"heartbeat.ports"};

// http_client.verify_tls: https: check the server's certificate chain and name; off accepts any
// certificate (tests, self-signed servers).
inline constexpr GlobalKey<bool> http_client_verify_tls{"http_client.verify_tls"};

// http_client.ca_file: https: PEM file of the CAs to trust; empty: the system store.
inline constexpr GlobalKey<std::string> http_client_ca_file{"http_client.ca_file"};

// exporter.enabled: Serve /metrics; SIGHUP starts or stops the listener.
inline constexpr GlobalKey<bool> exporter_enabled{"exporter.enabled"};

// exporter.listen: Endpoint of the exporter; SIGHUP moves it (the old one closes once the new one
// listens).
inline constexpr GlobalKey<std::vector<ListenEndpoint>> exporter_listen{"exporter.listen"};

// exporter.label: Value of the label `label` of srs_build_info; empty: no such label.
inline constexpr GlobalKey<std::string> exporter_label{"exporter.label"};

// exporter.tag: Value of the label `tag` of srs_build_info; empty: no such label.
inline constexpr GlobalKey<std::string> exporter_tag{"exporter.tag"};

// stream_registry.enabled: Register published streams in Redis (off: in memory, one process needs
// nothing else).
inline constexpr GlobalKey<bool> stream_registry_enabled{"stream_registry.enabled"};

// stream_registry.redis: Redis as redis://IP:PORT/DB (numeric IP or localhost; DB selected after
// each connect).
inline constexpr GlobalKey<std::string> stream_registry_redis{"stream_registry.redis"};

// stream_registry.ttl: Seconds a stream's key lives in Redis unless its owner refreshes it (every 3
// s).
inline constexpr GlobalKey<int64_t> stream_registry_ttl{"stream_registry.ttl"};

// stream_registry.advertise: Host other servers pull from, in the owner URL rtmp://HOST:PORT (PORT:
// the first listen port); empty: the first non-loopback IPv4 address, else 127.0.0.1.
inline constexpr GlobalKey<std::string> stream_registry_advertise{"stream_registry.advertise"};

// vhost.enabled: Serve this vhost.
inline constexpr VhostKey<bool> vhost_enabled{"vhost.enabled"};

// vhost.min_latency: Realtime mode: send each message at once, no merged read.
inline constexpr VhostKey<bool> vhost_min_latency{"vhost.min_latency"};

// vhost.tcp_nodelay: Set TCP_NODELAY on player connections.
inline constexpr VhostKey<bool> vhost_tcp_nodelay{"vhost.tcp_nodelay"};

// vhost.chunk_size: RTMP chunk size; default: the global chunk_size.
// Unset in a vhost: the value of keys::chunk_size.
inline constexpr VhostKey<int64_t> vhost_chunk_size{"vhost.chunk_size"};

// vhost.out_ack_size: Window players are asked to acknowledge, in bytes; 0: do not ask.
inline constexpr VhostKey<int64_t> vhost_out_ack_size{"vhost.out_ack_size"};

// vhost.play.gop_cache: Keep the last GOP so new players start at once.
inline constexpr VhostKey<bool> vhost_play_gop_cache{"vhost.play.gop_cache"};

// vhost.play.gop_cache_max_frames: Most frames in the GOP cache; 0: no limit.
inline constexpr VhostKey<int64_t> vhost_play_gop_cache_max_frames{"vhost.play.gop_cache_max_frames"};

// vhost.play.queue_length: Seconds a player queue holds before dropping to the next keyframe.
inline constexpr VhostKey<int64_t> vhost_play_queue_length{"vhost.play.queue_length"};

// vhost.play.time_jitter: Timestamp correction: full (start at 0, monotonic), zero (start at 0) or
// off.
inline constexpr VhostKey<std::string> vhost_play_time_jitter{"vhost.play.time_jitter"};

// vhost.play.mw_latency: Merged write: ms of messages a player waits for before a write.
inline constexpr VhostKey<int64_t> vhost_play_mw_latency{"vhost.play.mw_latency"};

// vhost.play.mw_msgs: Merged write: messages a player waits for before a write.
inline constexpr VhostKey<int64_t> vhost_play_mw_msgs{"vhost.play.mw_msgs"};

// vhost.publish.mr: Merged read: after a read that empties the socket the publisher's next read
// waits mr_latency, so one read takes many messages (less CPU, up to mr_latency more delay). Not
// written: the same only under load, within a budget of 10,000 reads a second for all publishers
// (docs/rtmp.md); off written: never. Ignored with min_latency on.
inline constexpr VhostKey<bool> vhost_publish_mr{"vhost.publish.mr"};

// vhost.publish.mr_latency: Merged read: ms the next read waits; 0: no wait.
inline constexpr VhostKey<int64_t> vhost_publish_mr_latency{"vhost.publish.mr_latency"};

// vhost.publish.firstpkt_timeout: ms to wait for the first packet.
inline constexpr VhostKey<int64_t> vhost_publish_firstpkt_timeout{"vhost.publish.firstpkt_timeout"};

// vhost.publish.normal_timeout: ms to wait for each later packet.
inline constexpr VhostKey<int64_t> vhost_publish_normal_timeout{"vhost.publish.normal_timeout"};

// vhost.http_remux.enabled: Serve the vhost's streams over HTTP.
inline constexpr VhostKey<bool> vhost_http_remux_enabled{"vhost.http_remux.enabled"};

// vhost.http_remux.fast_cache: Seconds of audio an HTTP-MP3/AAC player starts with (from the GOP
// cache); 0: start live.
inline constexpr VhostKey<double> vhost_http_remux_fast_cache{"vhost.http_remux.fast_cache"};

// vhost.http_remux.drop_if_not_match: Drop frames of a codec the stream did not announce.
inline constexpr VhostKey<bool> vhost_http_remux_drop_if_not_match{"vhost.http_remux.drop_if_not_match"};

// vhost.http_remux.has_audio: Announce audio (FLV header, TS PMT).
inline constexpr VhostKey<bool> vhost_http_remux_has_audio{"vhost.http_remux.has_audio"};

// vhost.http_remux.has_video: Announce video (FLV header, TS PMT).
inline constexpr VhostKey<bool> vhost_http_remux_has_video{"vhost.http_remux.has_video"};

// vhost.http_remux.guess_has_av: Announce only what the stream actually carries.
inline constexpr VhostKey<bool> vhost_http_remux_guess_has_av{"vhost.http_remux.guess_has_av"};

// vhost.http_remux.mount: URL path of a stream; the extension picks the format (.flv .ts .aac
// .mp3).
inline constexpr VhostKey<std::string> vhost_http_remux_mount{"vhost.http_remux.mount"};

// vhost.rtc.enabled: Serve WebRTC.
inline constexpr VhostKey<bool> vhost_rtc_enabled{"vhost.rtc.enabled"};

// vhost.rtc.nack: Ask for and answer retransmissions (NACK).
inline constexpr VhostKey<bool> vhost_rtc_nack{"vhost.rtc.nack"};

// vhost.rtc.nack_no_copy: Retransmit from the ring buffer without copying.
inline constexpr VhostKey<bool> vhost_rtc_nack_no_copy{"vhost.rtc.nack_no_copy"};

// vhost.rtc.twcc: Transport-wide congestion control feedback.
inline constexpr VhostKey<bool> vhost_rtc_twcc{"vhost.rtc.twcc"};

// vhost.rtc.stun_timeout: Seconds without STUN before a session ends.
inline constexpr VhostKey<int64_t> vhost_rtc_stun_timeout{"vhost.rtc.stun_timeout"};

// vhost.rtc.dtls_role: DTLS role of the server.
inline constexpr VhostKey<std::string> vhost_rtc_dtls_role{"vhost.rtc.dtls_role"};

// vhost.rtc.drop_for_pt: Drop RTP of this payload type (debugging); 0: none.
inline constexpr VhostKey<int64_t> vhost_rtc_drop_for_pt{"vhost.rtc.drop_for_pt"};

// vhost.rtc.rtmp_to_rtc: Let WebRTC players play RTMP streams (AAC to Opus).
inline constexpr VhostKey<bool> vhost_rtc_rtmp_to_rtc{"vhost.rtc.rtmp_to_rtc"};

// vhost.rtc.keep_bframe: Send B-frames to every WebRTC player; off: to the players whose negotiated
// H.264 profile has them.
inline constexpr VhostKey<bool> vhost_rtc_keep_bframe{"vhost.rtc.keep_bframe"};

// vhost.rtc.opus_bitrate: Opus bitrate when transcoding from AAC.
inline constexpr VhostKey<int64_t> vhost_rtc_opus_bitrate{"vhost.rtc.opus_bitrate"};

// vhost.rtc.aac_bitrate: AAC bitrate when transcoding from Opus.
inline constexpr VhostKey<int64_t> vhost_rtc_aac_bitrate{"vhost.rtc.aac_bitrate"};

// vhost.rtc.rtc_to_rtmp: Let RTMP and HTTP-FLV players play WebRTC streams.
inline constexpr VhostKey<bool> vhost_rtc_rtc_to_rtmp{"vhost.rtc.rtc_to_rtmp"};

// vhost.rtc.pli_for_rtmp: Seconds between keyframe requests to WebRTC publishers for RTMP players;
// 0: none.
inline constexpr VhostKey<double> vhost_rtc_pli_for_rtmp{"vhost.rtc.pli_for_rtmp"};

// vhost.cluster.mode: local: this server is the origin; remote: an edge that pulls played streams
// from an origin and pushes published ones to it.
inline constexpr VhostKey<std::string> vhost_cluster_mode{"vhost.cluster.mode"};

// vhost.cluster.origin: Edge: origins as HOST[:PORT] (port 1935 by default, numeric hosts), tried
// in turn.
inline constexpr VhostKey<std::vector<std::string>> vhost_cluster_origin{"vhost.cluster.origin"};

// vhost.cluster.token_traverse: Edge: before answering a client's connect, connect to the origin
// with its tcUrl params and refuse the client when the origin refuses (the origin authenticates).
inline constexpr VhostKey<bool> vhost_cluster_token_traverse{"vhost.cluster.token_traverse"};

// vhost.cluster.vhost: Edge: the vhost put in the tcUrl sent to the origin; empty: this vhost's
// name.
inline constexpr VhostKey<std::string> vhost_cluster_vhost{"vhost.cluster.vhost"};

// vhost.cluster.protocol: Edge: pull over RTMP, or over HTTP-FLV (GET
// http://HOST:PORT/app/stream.flv: the origin entries then name HTTP ports).
inline constexpr VhostKey<std::string> vhost_cluster_protocol{"vhost.cluster.protocol"};

// vhost.cluster.follow_client: Edge: use the vhost the client asked for in the tcUrl sent to the
// origin (over cluster.vhost).
inline constexpr VhostKey<bool> vhost_cluster_follow_client{"vhost.cluster.follow_client"};

// vhost.forward.enabled: Forward the streams published from now on.
inline constexpr VhostKey<bool> vhost_forward_enabled{"vhost.forward.enabled"};

// vhost.forward.destination: HOST:PORT (port 1935 by default; an IP or a DNS name): each publish
// goes to rtmp://HOST:PORT/app/stream with its param (and ?vhost= for a named vhost); retried every
// 3 s.
inline constexpr VhostKey<std::vector<std::string>> vhost_forward_destination{"vhost.forward.destination"};

// vhost.forward.backend: on_forward: an http:// or https:// URL asked for the destinations (full
// RTMP URLs in data.urls) at each publish, instead of destination; asked again every 3 s while it
// fails.
inline constexpr VhostKey<std::string> vhost_forward_backend{"vhost.forward.backend"};

// vhost.refer.enabled: Check the pageUrl of RTMP clients.
inline constexpr VhostKey<bool> vhost_refer_enabled{"vhost.refer.enabled"};

// vhost.refer.all: Domains checked at connect, for every RTMP client: the pageUrl's host must end
// with one of them; unset: no check.
inline constexpr VhostKey<std::vector<std::string>> vhost_refer_all{"vhost.refer.all"};

// vhost.refer.publish: Domains checked when an RTMP client publishes; unset: no check.
inline constexpr VhostKey<std::vector<std::string>> vhost_refer_publish{"vhost.refer.publish"};

// vhost.refer.play: Domains checked when an RTMP client plays; unset: no check.
inline constexpr VhostKey<std::vector<std::string>> vhost_refer_play{"vhost.refer.play"};

// vhost.security.enabled: Check every publisher and player (RTMP, HTTP-FLV, WebRTC); on with no
// rule refuses everyone.
inline constexpr VhostKey<bool> vhost_security_enabled{"vhost.security.enabled"};

// vhost.security.allow: `allow ACTION TARGET;` (ACTION publish or play; TARGET all, an IPv4 or IPv6
// address or network), one per line: with any allow rule (for either action), a client must match
// one for its action.
inline constexpr VhostKey<std::vector<std::string>> vhost_security_allow{"vhost.security.allow"};

// vhost.security.deny: `deny ACTION TARGET;` as allow, one per line: a match refuses the client,
// before any allow rule.
inline constexpr VhostKey<std::vector<std::string>> vhost_security_deny{"vhost.security.deny"};

// vhost.http_hooks.enabled: Call the hooks below; the running config is read at each call.
inline constexpr VhostKey<bool> vhost_http_hooks_enabled{"vhost.http_hooks.enabled"};

// vhost.http_hooks.on_connect: URLs told of an RTMP connect; a failure refuses the client.
inline constexpr VhostKey<std::vector<std::string>> vhost_http_hooks_on_connect{"vhost.http_hooks.on_connect"};

// vhost.http_hooks.on_close: URLs told when a client whose on_connect passed leaves, with its
// bytes; failures are logged.
inline constexpr VhostKey<std::vector<std::string>> vhost_http_hooks_on_close{"vhost.http_hooks.on_close"};

// vhost.http_hooks.on_publish: URLs asked before a publish (RTMP, WHIP, /rtc/v1/publish); a failure
// refuses the publisher.
inline constexpr VhostKey<std::vector<std::string>> vhost_http_hooks_on_publish{"vhost.http_hooks.on_publish"};

// vhost.http_hooks.on_unpublish: URLs told when a publish whose on_publish passed ends; failures
// are logged.
inline constexpr VhostKey<std::vector<std::string>> vhost_http_hooks_on_unpublish{"vhost.http_hooks.on_unpublish"};

// vhost.http_hooks.on_play: URLs asked before a play (RTMP, HTTP-FLV, WHEP, /rtc/v1/play); a
// failure refuses the player.
inline constexpr VhostKey<std::vector<std::string>> vhost_http_hooks_on_play{"vhost.http_hooks.on_play"};

// vhost.http_hooks.on_stop: URLs told when a play whose on_play passed ends; failures are logged.
inline constexpr VhostKey<std::vector<std::string>> vhost_http_hooks_on_stop{"vhost.http_hooks.on_stop"};

// vhost.http_hooks.on_dvr: URLs told of each DVR file, through the asynchronous queue.
inline constexpr VhostKey<std::vector<std::string>> vhost_http_hooks_on_dvr{"vhost.http_hooks.on_dvr"};

// vhost.http_hooks.on_hls: URLs told of each HLS segment, through the asynchronous queue.
inline constexpr VhostKey<std::vector<std::string>> vhost_http_hooks_on_hls{"vhost.http_hooks.on_hls"};

// vhost.http_hooks.on_hls_notify: URL templates ([server_id] [app] [stream] [ts_url] [param]) one
// of which is fetched (GET, body ignored) for each HLS segment, through the asynchronous queue.
inline constexpr VhostKey<std::vector<std::string>> vhost_http_hooks_on_hls_notify{"vhost.http_hooks.on_hls_notify"};

// vhost.http_hooks.timeout: Ours: ms one hook call may take in all (connect, send, the whole
// answer); past it the call fails.
inline constexpr VhostKey<int64_t> vhost_http_hooks_timeout{"vhost.http_hooks.timeout"};

// vhost.hls.enabled: Make HLS of every stream published from now on.
inline constexpr VhostKey<bool> vhost_hls_enabled{"vhost.hls.enabled"};

// vhost.hls.hls_fragment: Seconds: the shortest segment.
inline constexpr VhostKey<double> vhost_hls_hls_fragment{"vhost.hls.hls_fragment"};

// vhost.hls.hls_td_ratio: A segment is cut once it is hls_fragment x this long (at the next
// keyframe with hls_wait_keyframe); also the target duration floor.
inline constexpr VhostKey<double> vhost_hls_hls_td_ratio{"vhost.hls.hls_td_ratio"};

// vhost.hls.hls_aof_ratio: Audio only: a segment is cut once it is hls_fragment x this long.
inline constexpr VhostKey<double> vhost_hls_hls_aof_ratio{"vhost.hls.hls_aof_ratio"};

// vhost.hls.hls_window: Seconds of segments the playlist lists.
inline constexpr VhostKey<double> vhost_hls_hls_window{"vhost.hls.hls_window"};

// vhost.hls.hls_on_error: When writing HLS fails: ignore (stop HLS of the stream), disconnect (the
// publisher) or continue (retry at the next segment).
inline constexpr VhostKey<std::string> vhost_hls_hls_on_error{"vhost.hls.hls_on_error"};

// vhost.hls.hls_path: Folder the playlists and segments go under.
inline constexpr VhostKey<std::string> vhost_hls_hls_path{"vhost.hls.hls_path"};

// vhost.hls.hls_m3u8_file: Playlist path under hls_path; [vhost] [app] [stream].
inline constexpr VhostKey<std::string> vhost_hls_hls_m3u8_file{"vhost.hls.hls_m3u8_file"};

// vhost.hls.hls_ts_file: Segment path under hls_path; also [seq] [duration] [timestamp] [2006] [01]
// [02] [15] [04] [05] [999].
inline constexpr VhostKey<std::string> vhost_hls_hls_ts_file{"vhost.hls.hls_ts_file"};

// vhost.hls.hls_ts_floor: [timestamp] in hls_ts_file counts hls_fragments of the wall clock, one up
// per segment; cuts are steered to follow the clock.
inline constexpr VhostKey<bool> vhost_hls_hls_ts_floor{"vhost.hls.hls_ts_floor"};

// vhost.hls.hls_entry_prefix: URL put before each segment's name in the playlist; empty: names
// relative to the playlist.
inline constexpr VhostKey<std::string> vhost_hls_hls_entry_prefix{"vhost.hls.hls_entry_prefix"};

// vhost.hls.hls_acodec: Audio codec the PMT names before the stream says; an: none.
inline constexpr VhostKey<std::string> vhost_hls_hls_acodec{"vhost.hls.hls_acodec"};

// vhost.hls.hls_vcodec: Video codec the PMT names before the stream says; vn: none.
inline constexpr VhostKey<std::string> vhost_hls_hls_vcodec{"vhost.hls.hls_vcodec"};

// vhost.hls.hls_cleanup: Delete segments that leave the window.
inline constexpr VhostKey<bool> vhost_hls_hls_cleanup{"vhost.hls.hls_cleanup"};

// vhost.hls.hls_dispose: Seconds without packets after which the playlist and segments are deleted;
// 0: never.
inline constexpr VhostKey<int64_t> vhost_hls_hls_dispose{"vhost.hls.hls_dispose"};

// vhost.hls.hls_wait_keyframe: Cut segments at video keyframes only.
inline constexpr VhostKey<bool> vhost_hls_hls_wait_keyframe{"vhost.hls.hls_wait_keyframe"};

// vhost.hls.hls_nb_notify: Bytes read of each on_hls_notify answer's body before the connection
// closes.
inline constexpr VhostKey<int64_t> vhost_hls_hls_nb_notify{"vhost.hls.hls_nb_notify"};

// vhost.hls.hls_ctx: Give each playlist player a session (hls_ctx): counted, checked and hooked
// like other players.
inline constexpr VhostKey<bool> vhost_hls_hls_ctx{"vhost.hls.hls_ctx"};

// vhost.hls.hls_ts_ctx: Count segment bytes to the session of hls_ctx.
inline constexpr VhostKey<bool> vhost_hls_hls_ts_ctx{"vhost.hls.hls_ts_ctx"};

// vhost.hls.hls_keys: Encrypt segments with AES-128.
inline constexpr VhostKey<bool> vhost_hls_hls_keys{"vhost.hls.hls_keys"};

// vhost.hls.hls_fragments_per_key: Segments per key.
inline constexpr VhostKey<int64_t> vhost_hls_hls_fragments_per_key{"vhost.hls.hls_fragments_per_key"};

// vhost.hls.hls_key_file: Key file name; [vhost] [app] [stream] [seq].
inline constexpr VhostKey<std::string> vhost_hls_hls_key_file{"vhost.hls.hls_key_file"};

// vhost.hls.hls_key_file_path: Folder of the key files; empty: hls_path.
inline constexpr VhostKey<std::string> vhost_hls_hls_key_file_path{"vhost.hls.hls_key_file_path"};

// vhost.hls.hls_key_url: URL put before the key file name in the playlist; empty: relative.
inline constexpr VhostKey<std::string> vhost_hls_hls_key_url{"vhost.hls.hls_key_url"};

// vhost.hls.hls_dts_directly: Take audio DTS from the stream's timestamps as they are.
inline constexpr VhostKey<bool> vhost_hls_hls_dts_directly{"vhost.hls.hls_dts_directly"};

// vhost.hls.hls_use_fmp4: fMP4 segments (.m4s) and an init segment instead of MPEG-TS.
inline constexpr VhostKey<bool> vhost_hls_hls_use_fmp4{"vhost.hls.hls_use_fmp4"};

// vhost.hls.hls_fmp4_file: fMP4 segment path under hls_path.
inline constexpr VhostKey<std::string> vhost_hls_hls_fmp4_file{"vhost.hls.hls_fmp4_file"};

// vhost.hls.hls_init_file: fMP4 init segment path under hls_path.
inline constexpr VhostKey<std::string> vhost_hls_hls_init_file{"vhost.hls.hls_init_file"};

// vhost.hls.hls_storage: Ours: disk writes files under hls_path; memory keeps them in the server
// and its HTTP server answers them at the same URLs.
inline constexpr VhostKey<std::string> vhost_hls_hls_storage{"vhost.hls.hls_storage"};

// vhost.hls.hls_ll: Ours: Low-Latency HLS (parts, blocking reload, delta updates); implies
// hls_use_fmp4 on, hls_storage memory and hls_keys off.
inline constexpr VhostKey<bool> vhost_hls_hls_ll{"vhost.hls.hls_ll"};

// vhost.hls.hls_part: Ours: seconds, the LL-HLS part target.
inline constexpr VhostKey<double> vhost_hls_hls_part{"vhost.hls.hls_part"};

// vhost.dvr.enabled: Record the streams dvr_apply names.
inline constexpr VhostKey<bool> vhost_dvr_enabled{"vhost.dvr.enabled"};

// vhost.dvr.dvr_apply: all, or the app/stream names recorded.
inline constexpr VhostKey<std::vector<std::string>> vhost_dvr_dvr_apply{"vhost.dvr.dvr_apply"};

// vhost.dvr.dvr_plan: session: one file per publish; segment: a new file every dvr_duration.
inline constexpr VhostKey<std::string> vhost_dvr_dvr_plan{"vhost.dvr.dvr_plan"};

// vhost.dvr.dvr_path: File of a recording; .mp4 picks MP4; a path without .flv or .mp4 is a folder.
// [vhost] [app] [stream] [2006] [01] [02] [15] [04] [05] [999] [timestamp].
inline constexpr VhostKey<std::string> vhost_dvr_dvr_path{"vhost.dvr.dvr_path"};

// vhost.dvr.dvr_duration: Segment plan: seconds per file.
inline constexpr VhostKey<int64_t> vhost_dvr_dvr_duration{"vhost.dvr.dvr_duration"};

// vhost.dvr.dvr_wait_keyframe: Segment plan: start each file at a keyframe.
inline constexpr VhostKey<bool> vhost_dvr_dvr_wait_keyframe{"vhost.dvr.dvr_wait_keyframe"};

// vhost.dvr.time_jitter: Timestamps written: full (corrected to start at 0 and rise), zero (start
// at 0) or off (as published).
inline constexpr VhostKey<std::string> vhost_dvr_time_jitter{"vhost.dvr.time_jitter"};

// vhost.ingest.enabled: Run this ingest.
inline constexpr VhostKey<bool> vhost_ingest_enabled{"vhost.ingest.enabled"};

// vhost.ingest.input.type: file: read at its own pace (-re); stream: as it comes.
inline constexpr VhostKey<std::string> vhost_ingest_input_type{"vhost.ingest.input.type"};

// vhost.ingest.input.url: The file path or stream URL.
inline constexpr VhostKey<std::string> vhost_ingest_input_url{"vhost.ingest.input.url"};

// vhost.ingest.ffmpeg: FFmpeg's path; a path that does not exist falls back to ffmpeg in PATH, with
// a warning.
inline constexpr VhostKey<std::string> vhost_ingest_ffmpeg{"vhost.ingest.ffmpeg"};

// vhost.ingest.engine.enabled: Run this engine (an ingest runs a disabled engine as a copy).
inline constexpr VhostKey<bool> vhost_ingest_engine_enabled{"vhost.ingest.engine.enabled"};

// vhost.ingest.engine.iformat: Input format (-f before -i), for rtmp:// inputs only; off: none.
inline constexpr VhostKey<std::string> vhost_ingest_engine_iformat{"vhost.ingest.engine.iformat"};

// vhost.ingest.engine.vcodec: libx264, copy, or vn (no video).
inline constexpr VhostKey<std::string> vhost_ingest_engine_vcodec{"vhost.ingest.engine.vcodec"};

// vhost.ingest.engine.vbitrate: Video kbps (-b:v); 0: the encoder's choice.
inline constexpr VhostKey<int64_t> vhost_ingest_engine_vbitrate{"vhost.ingest.engine.vbitrate"};

// vhost.ingest.engine.vfps: Frame rate (-r); 0: the input's.
inline constexpr VhostKey<double> vhost_ingest_engine_vfps{"vhost.ingest.engine.vfps"};

// vhost.ingest.engine.vwidth: Width (-s WxH with vheight, rounded down to even); 0: the input's.
inline constexpr VhostKey<int64_t> vhost_ingest_engine_vwidth{"vhost.ingest.engine.vwidth"};

// vhost.ingest.engine.vheight: Height, as vwidth.
inline constexpr VhostKey<int64_t> vhost_ingest_engine_vheight{"vhost.ingest.engine.vheight"};

// vhost.ingest.engine.vthreads: Encoder threads (-threads); 0: the encoder's choice.
inline constexpr VhostKey<int64_t> vhost_ingest_engine_vthreads{"vhost.ingest.engine.vthreads"};

// vhost.ingest.engine.vprofile: H.264 profile (-profile:v): baseline, main, high...
inline constexpr VhostKey<std::string> vhost_ingest_engine_vprofile{"vhost.ingest.engine.vprofile"};

// vhost.ingest.engine.vpreset: x264 preset (-preset): ultrafast ... placebo.
inline constexpr VhostKey<std::string> vhost_ingest_engine_vpreset{"vhost.ingest.engine.vpreset"};

// vhost.ingest.engine.acodec: aac, libfdk_aac, mp3, opus, copy, or an (no audio).
inline constexpr VhostKey<std::string> vhost_ingest_engine_acodec{"vhost.ingest.engine.acodec"};

// vhost.ingest.engine.abitrate: Audio kbps (-b:a); 0: the encoder's choice.
inline constexpr VhostKey<int64_t> vhost_ingest_engine_abitrate{"vhost.ingest.engine.abitrate"};

// vhost.ingest.engine.asample_rate: Sample rate (-ar); 0: the input's.
inline constexpr VhostKey<int64_t> vhost_ingest_engine_asample_rate{"vhost.ingest.engine.asample_rate"};

// vhost.ingest.engine.achannels: Channels (-ac), 1 or 2; 0: the input's.
inline constexpr VhostKey<int64_t> vhost_ingest_engine_achannels{"vhost.ingest.engine.achannels"};

// vhost.ingest.engine.oformat: Output format (-f before the output); off: none.
inline constexpr VhostKey<std::string> vhost_ingest_engine_oformat{"vhost.ingest.engine.oformat"};

// vhost.ingest.engine.output: Where FFmpeg publishes, with variables [vhost] [port] [app] [stream]
// [param] [engine] (docs/ffmpeg.md).
inline constexpr VhostKey<std::string> vhost_ingest_engine_output{"vhost.ingest.engine.output"};

// vhost.transcode.enabled: Transcode streams in this scope.
inline constexpr VhostKey<bool> vhost_transcode_enabled{"vhost.transcode.enabled"};

// vhost.transcode.ffmpeg: FFmpeg's path, as ingest's.
inline constexpr VhostKey<std::string> vhost_transcode_ffmpeg{"vhost.transcode.ffmpeg"};

// vhost.transcode.engine.enabled: Run this engine (an ingest runs a disabled engine as a copy).
inline constexpr VhostKey<bool> vhost_transcode_engine_enabled{"vhost.transcode.engine.enabled"};

// vhost.transcode.engine.iformat: Input format (-f before -i), for rtmp:// inputs only; off: none.
inline constexpr VhostKey<std::string> vhost_transcode_engine_iformat{"vhost.transcode.engine.iformat"};

// vhost.transcode.engine.vcodec: libx264, copy, or vn (no video).
inline constexpr VhostKey<std::string> vhost_transcode_engine_vcodec{"vhost.transcode.engine.vcodec"};

// vhost.transcode.engine.vbitrate: Video kbps (-b:v); 0: the encoder's choice.
inline constexpr VhostKey<int64_t> vhost_transcode_engine_vbitrate{"vhost.transcode.engine.vbitrate"};

// vhost.transcode.engine.vfps: Frame rate (-r); 0: the input's.
inline constexpr VhostKey<double> vhost_transcode_engine_vfps{"vhost.transcode.engine.vfps"};

// vhost.transcode.engine.vwidth: Width (-s WxH with vheight, rounded down to even); 0: the input's.
inline constexpr VhostKey<int64_t> vhost_transcode_engine_vwidth{"vhost.transcode.engine.vwidth"};

// vhost.transcode.engine.vheight: Height, as vwidth.
inline constexpr VhostKey<int64_t> vhost_transcode_engine_vheight{"vhost.transcode.engine.vheight"};

// vhost.transcode.engine.vthreads: Encoder threads (-threads); 0: the encoder's choice.
inline constexpr VhostKey<int64_t> vhost_transcode_engine_vthreads{"vhost.transcode.engine.vthreads"};

// vhost.transcode.engine.vprofile: H.264 profile (-profile:v): baseline, main, high...
inline constexpr VhostKey<std::string> vhost_transcode_engine_vprofile{"vhost.transcode.engine.vprofile"};

// vhost.transcode.engine.vpreset: x264 preset (-preset): ultrafast ... placebo.
inline constexpr VhostKey<std::string> vhost_transcode_engine_vpreset{"vhost.transcode.engine.vpreset"};

// vhost.transcode.engine.acodec: aac, libfdk_aac, mp3, opus, copy, or an (no audio).
inline constexpr VhostKey<std::string> vhost_transcode_engine_acodec{"vhost.transcode.engine.acodec"};

// vhost.transcode.engine.abitrate: Audio kbps (-b:a); 0: the encoder's choice.
inline constexpr VhostKey<int64_t> vhost_transcode_engine_abitrate{"vhost.transcode.engine.abitrate"};

// vhost.transcode.engine.asample_rate: Sample rate (-ar); 0: the input's.
inline constexpr VhostKey<int64_t> vhost_transcode_engine_asample_rate{"vhost.transcode.engine.asample_rate"};

// vhost.transcode.engine.achannels: Channels (-ac), 1 or 2; 0: the input's.
inline constexpr VhostKey<int64_t> vhost_transcode_engine_achannels{"vhost.transcode.engine.achannels"};

// vhost.transcode.engine.oformat: Output format (-f before the output); off: none.
inline constexpr VhostKey<std::string> vhost_transcode_engine_oformat{"vhost.transcode.engine.oformat"};

// vhost.transcode.engine.output: Where FFmpeg publishes, with variables [vhost] [port] [app]
// [stream] [param] [engine] (docs/ffmpeg.md).
inline constexpr VhostKey<std::string> vhost_transcode_engine_output{"vhost.transcode.engine.output"};

// vhost.exec.enabled: Run the publish commands.
inline constexpr VhostKey<bool> vhost_exec_enabled{"vhost.exec.enabled"};

// vhost.exec.publish: A command started on each publish and stopped on unpublish, with variables
// [vhost] [port] [app] [stream] [tcUrl] [param] [url]; one per line.
inline constexpr VhostKey<std::vector<std::string>> vhost_exec_publish{"vhost.exec.publish"};

}  // namespace keys
}  // namespace srs

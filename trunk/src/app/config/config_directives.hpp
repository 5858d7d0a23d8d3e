// The directive table: every directive the conf accepts is one row, and
// validation, defaults, SRS_* environment overrides, getters, reload decisions,
// trunk/conf/full.conf and the reference in docs/config.md all derive from it.
//
// A row's path is its position in the conf: "listen", "http_api.auth.username",
// "vhost.play.gop_cache" (vhost rows apply inside `vhost NAME { }`). Its
// environment variable is "SRS_" + the path upper-cased with "." -> "_".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace srs {

enum class ArgKind {
    kBool,      // on | off
    kInt,       // integer in [min, max]
    kFloat,     // decimal number in [min, max]
    kString,    // one argument
    kEnum,      // one of `values` ("a|b|c"), matched case-insensitively
    kList,      // min_args..max_args strings
    kEndpoint,  // min_args..max_args of "port", "ip:port" or "[ipv6]:port"
    kBlock,     // "name args { ... }", min_args..max_args arguments
    kAny,       // not implemented: any arguments, any block, not validated
};

struct DirectiveSpec {
    const char* path;
    ArgKind kind;
    const char* default_value;  // as written in a conf ("on", "1935", "a b"); "" = none
    int64_t min;                // kInt, kFloat
    int64_t max;
    int min_args;  // kList, kEndpoint, kBlock
    int max_args;
    const char* values;  // kEnum, "|"-separated
    bool reloadable;     // SIGHUP can apply a change
    bool implemented;    // false: accepted with a warning, ignored
    const char* inherit;  // vhost row only: global row used when the vhost does not set it
    const char* doc;
};

// Rows in conf order: a block's row comes before the rows inside it.
const std::vector<DirectiveSpec>& directive_table();
// The row for a path, or nullptr.
const DirectiveSpec* find_directive(const std::string& path);
// "vhost.play.gop_cache" -> "SRS_VHOST_PLAY_GOP_CACHE".
std::string directive_env_name(const std::string& path);
// True for rows that hold a value (not blocks, not "not implemented").
bool is_value_directive(const DirectiveSpec& spec);
// The default as arguments ("" -> none).
std::vector<std::string> directive_default_args(const DirectiveSpec& spec);

// Checks the arguments of a value row and rewrites enum values to their
// table spelling. `where` starts the message: "conf/srs.conf:12" or
// "env SRS_LISTEN".
Error validate_directive_args(const DirectiveSpec& spec, const std::string& where, std::vector<std::string>* args);

struct ListenEndpoint {
    std::string ip;  // "0.0.0.0" when the text gives only a port; "::" form for [v6]
    int port = 0;
    bool operator==(const ListenEndpoint& o) const { return ip == o.ip && port == o.port; }
};

// "1935" -> {0.0.0.0, 1935}; "127.0.0.1:1935"; "[::1]:1935" -> {::1, 1935}.
bool parse_endpoint(const std::string& text, ListenEndpoint* out);

// Old flat vhost directives SRS still accepts, and where they live now:
// "gop_cache" -> "play.gop_cache". A "from" with a dot names a directive inside
// an old block ("mr.latency" -> "publish.mr_latency").
struct LegacyRename {
    const char* from;
    const char* to;
};
const std::vector<LegacyRename>& legacy_vhost_renames();
const std::vector<LegacyRename>& legacy_global_renames();

// trunk/conf/full.conf: every implemented directive at its default, with docs.
std::string render_full_conf();
// The reference tables of docs/config.md (between its GENERATED markers).
std::string render_reference_markdown();

}  // namespace srs

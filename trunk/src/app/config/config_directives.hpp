// The directive table: every directive the conf accepts is one row, and
// validation, defaults, SRS_* environment overrides, getters, reload decisions,
// trunk/conf/full.conf, the reference in docs/config.md and the typed keys of
// config_keys.hpp all derive from it.
//
// A row is `implemented` only when code reads its value; a row nobody reads
// yet keeps its kind, default and doc but is wrapped in NotYet(), so a conf
// (or an SRS_* variable) that sets it gets a warning with file:line, and the
// row has no key, so no code can read it by mistake.
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
    kAccessRule,  // security allow|deny: "publish|play all|IP|CIDR"; every line is kept, in order
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
    bool implemented;    // false: accepted with a warning, ignored (true only when code reads it)
    const char* inherit;  // vhost row only: global row used when the vhost does not set it
    const char* doc;
    // Implemented only in part: said in a warning whenever a conf or the
    // environment turns the row away from its default (nullptr: fully).
    const char* partial;
    // A row that may appear many times, each occurrence kept whole as a
    // ConfigSection (config.hpp): `ingest NAME { }`, `engine NAME { }`, exec's
    // `publish CMD;`. A repeated block's default_value is the example name
    // full.conf shows.
    bool repeated;
    // A block whose lines are free `name value;` pairs (FFmpeg options:
    // vfilter, vparams, aparams, perfile), kept in order, not validated.
    bool free_form;
};

// Rows in conf order: a block's row comes before the rows inside it.
const std::vector<DirectiveSpec>& directive_table();
// The row for a path, or nullptr.
const DirectiveSpec* find_directive(const std::string& path);
// "vhost.play.gop_cache" -> "SRS_VHOST_PLAY_GOP_CACHE".
std::string directive_env_name(const std::string& path);
// True for rows that hold a value of a known kind (not blocks, not kAny),
// whether implemented or not.
bool is_typed_directive(const DirectiveSpec& spec);
// True for implemented rows that hold a value: the rows Config can read.
bool is_value_directive(const DirectiveSpec& spec);
// Whether a row is a repeated row or lives inside one: its values are kept in
// ConfigSections, not in the vhost's values, and no SRS_* variable sets them.
bool in_repeated_row(const std::string& path);
// Whether a block row holds an implemented value row, at any depth.
bool block_has_values(const DirectiveSpec& block);
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
// src/app/config/config_keys.hpp: one typed key per implemented value row.
std::string render_config_keys_header();
// The C++ name of a value row's key: "http_api.listen" -> "http_api_listen",
// "vhost.play.gop_cache" -> "vhost_play_gop_cache".
std::string directive_key_name(const DirectiveSpec& spec);

}  // namespace srs

// The server's configuration: a conf file (or nothing) plus SRS_* environment
// overrides, validated against the directive table (config_directives.hpp) and
// frozen. A reload (SIGHUP) loads a new Config and compares it with diff().
//
//   std::unique_ptr<Config> conf;
//   if (Error err = Config::load_file("conf/srs.conf", &conf); !err.ok()) ...
//   for (const std::string& w : conf->warnings()) srs_warn("%s", w.c_str());
//   bool gop = conf->vhost_get_bool("__defaultVhost__", "play.gop_cache");
//
// Getters take table paths ("http_api.listen"; vhost paths without the
// leading "vhost."). Asking for a path that is not in the table, or with the
// wrong type, is a programming error: it asserts in debug builds.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app/config/config_directives.hpp"
#include "core/error.hpp"

namespace srs {

struct ConfNode;

// The vhost used when a client names none; it always exists.
extern const char* const kDefaultVhost;

class Config {
  public:
    // Reads an environment variable; returns nullptr when it is not set.
    using EnvGetter = std::function<const char*(const char*)>;
    // Tests swap the environment; an empty function restores getenv.
    static void set_env_getter(EnvGetter getter);

    // Loads a conf file (with its includes) and applies the environment.
    static Error load_file(const std::string& path, std::unique_ptr<Config>* out);
    // The same from text; `name` labels messages and anchors relative includes.
    static Error load_text(const std::string& text, const std::string& name, std::unique_ptr<Config>* out);
    // No file (-e): defaults, daemon off, console log, __defaultVhost__, then the environment.
    static Error load_env_only(std::unique_ptr<Config>* out);

    Config(const Config&) = delete;
    Config& operator=(const Config&) = delete;

    // Global directives.
    std::string get_string(const std::string& path) const;  // first argument, "" when none
    int64_t get_int(const std::string& path) const;
    double get_double(const std::string& path) const;
    bool get_bool(const std::string& path) const;
    std::vector<std::string> get_args(const std::string& path) const;
    std::vector<ListenEndpoint> get_endpoints(const std::string& path) const;
    // Whether the conf or the environment gave a value (else the getters return the default).
    bool is_set(const std::string& path) const;

    // Vhost directives ("play.gop_cache"); an unknown vhost gets the defaults.
    std::string vhost_get_string(const std::string& vhost, const std::string& path) const;
    int64_t vhost_get_int(const std::string& vhost, const std::string& path) const;
    double vhost_get_double(const std::string& vhost, const std::string& path) const;
    bool vhost_get_bool(const std::string& vhost, const std::string& path) const;
    std::vector<std::string> vhost_get_args(const std::string& vhost, const std::string& path) const;
    // For defaults that depend on other settings (SRS: mw_msgs is 0 with min_latency on unless set).
    bool vhost_is_set(const std::string& vhost, const std::string& path) const;

    // Vhost names in conf order; always includes __defaultVhost__.
    std::vector<std::string> vhosts() const;
    bool has_vhost(const std::string& name) const;

    // What the server needs at start.
    std::vector<ListenEndpoint> listen_endpoints() const;
    int max_connections() const;
    bool daemon() const;  // the directive; the caller applies disable_daemon_for_docker
    std::string pid_file() const;
    std::string work_dir() const;
    bool log_tank_console() const;
    std::string log_file() const;
    // srs_log_level_v2 if set, else srs_log_level, as verbose|info|trace|warn|error.
    std::string log_level() const;
    bool utc_time() const;
    int64_t pithy_print_ms() const;
    int64_t grace_start_wait_ms() const;
    int64_t grace_final_wait_ms() const;
    bool force_grace_quit() const;
    bool asprocess() const;
    std::string server_id() const;
    int chunk_size() const;

    // "file:line: directive hls is not implemented yet, ignored" and
    // old-form rewrites, collected at load for the caller to log.
    const std::vector<std::string>& warnings() const { return warnings_; }
    // The file or name the conf came from ("" for env-only).
    const std::string& source() const { return source_; }

    // Paths whose effective values differ: global paths ("listen"), vhosts
    // added or removed ("vhost.<name>") and vhost settings
    // ("vhost.<name>.play.gop_cache").
    static std::vector<std::string> diff(const Config& a, const Config& b);
    // Whether SIGHUP can apply a change of a path given by diff().
    static bool reloadable(const std::string& path);

  private:
    friend class ConfigBuilder;
    using Values = std::map<std::string, std::vector<std::string>>;  // table path -> arguments

    Config() = default;
    static Error build_from_tree(ConfNode* root, const std::string& source, std::unique_ptr<Config>* out);
    // The effective arguments: environment, conf, inherited global, default.
    const std::vector<std::string>& global_args(const std::string& path) const;
    const std::vector<std::string>& vhost_args(const std::string& vhost, const std::string& path) const;

    Values global_;                         // set by the conf or the environment
    std::map<std::string, Values> vhosts_;  // per vhost, keys are "vhost.play.gop_cache"
    std::vector<std::string> vhost_order_;
    Values vhost_env_;  // vhost settings from the environment, for every vhost
    std::vector<std::string> warnings_;
    std::string source_;
};

}  // namespace srs

// The server's configuration: a conf file (or nothing) plus SRS_* environment
// overrides, validated against the directive table (config_directives.hpp) and
// frozen. A Config never changes once loaded: a reload (SIGHUP) loads a new one,
// compares it with diff() and swaps the server's pointer, so a
// std::shared_ptr<const Config> taken before stays valid and unchanged.
//
//   std::shared_ptr<const Config> conf;
//   if (Error err = Config::load_file("conf/srs.conf", &conf); !err.ok()) ...
//   for (const std::string& w : conf->warnings()) srs_warn("%s", w.c_str());
//   bool gop = conf->get("__defaultVhost__", keys::vhost_play_gop_cache);
//
// Getters take the typed keys of config_keys.hpp (generated from the table),
// so asking for a directive that is not in the table, that no code may read
// (not implemented), or with the wrong type is a compile error.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app/config/config_directives.hpp"
#include "app/config/config_key.hpp"
#include "app/config/config_keys.hpp"
#include "core/error.hpp"

namespace srs {

struct ConfNode;
class Config;

// One occurrence of a repeated row (DirectiveSpec::repeated): an
// `ingest NAME { ... }`, an `engine NAME { ... }`, a `publish CMD;` line of
// exec, or a free-form block of FFmpeg options. Its own rows are read with the
// typed keys of their table paths (section.get(keys::vhost_ingest_enabled));
// a row it does not set gives the table's default. A repeated value row reads
// its own line with its own key (cmd.get(keys::vhost_exec_publish)).
class ConfigSection {
  public:
    const std::string& path() const { return path_; }  // table path: "vhost.ingest"
    const std::vector<std::string>& args() const { return args_; }
    // The first argument ("" when none): an ingest's or an engine's name.
    std::string name() const { return args_.empty() ? std::string() : args_[0]; }
    const std::string& where() const { return where_; }  // "file:line"
    template <class T>
    T get(const VhostKey<T>& key) const;
    template <class T>
    bool is_set(const VhostKey<T>& key) const {
        return values_.count(key.path) > 0;
    }
    // Repeated rows inside, in conf order ("vhost.ingest.engine").
    std::vector<const ConfigSection*> children(const std::string& path) const;
    // A free-form block's lines: {name, args...} each, in conf order.
    const std::vector<std::vector<std::string>>& lines() const { return lines_; }
    // Everything it holds as one canonical text: equal texts, equal sections.
    std::string text() const;

  private:
    friend class ConfigBuilder;
    const std::vector<std::string>& args_of(const std::string& path) const;
    std::string path_;
    std::vector<std::string> args_;
    std::string where_;
    std::map<std::string, std::vector<std::string>> values_;  // table path -> arguments
    std::vector<ConfigSection> children_;
    std::vector<std::vector<std::string>> lines_;
};

// The vhost used when a client names none; it always exists.
extern const char* const kDefaultVhost;

class Config {
  public:
    // Reads an environment variable; returns nullptr when it is not set.
    using EnvGetter = std::function<const char*(const char*)>;
    // Tests swap the environment; an empty function restores getenv.
    static void set_env_getter(EnvGetter getter);

    // Loads a conf file (with its includes) and applies the environment.
    static Error load_file(const std::string& path, std::shared_ptr<const Config>* out);
    // The same from text; `name` labels messages and anchors relative includes.
    static Error load_text(const std::string& text, const std::string& name, std::shared_ptr<const Config>* out);
    // No file (-e): defaults, daemon off, console log, __defaultVhost__, then the environment.
    static Error load_env_only(std::shared_ptr<const Config>* out);

    Config(const Config&) = delete;
    Config& operator=(const Config&) = delete;

    // A global directive's effective value: the environment, the conf, else the default.
    template <class T>
    T get(const GlobalKey<T>& key) const {
        T value{};
        decode(global_args(key.path), &value);
        return value;
    }
    // A vhost directive: the environment, the vhost's block, the global row it
    // inherits, else the default. An unknown vhost gets the defaults.
    template <class T>
    T get(const std::string& vhost, const VhostKey<T>& key) const {
        T value{};
        decode(vhost_args(vhost, key.path), &value);
        return value;
    }
    // Whether the conf or the environment gave a value (else get() returns the
    // default). For defaults that depend on other settings (SRS: mw_msgs is 0
    // with min_latency on unless set).
    template <class T>
    bool is_set(const GlobalKey<T>& key) const {
        return global_is_set(key.path);
    }
    template <class T>
    bool is_set(const std::string& vhost, const VhostKey<T>& key) const {
        return vhost_is_set(vhost, key.path);
    }
    // The value as written (arguments joined by spaces, enums in the table's
    // spelling), for answers that echo the conf: "1985", "127.0.0.1:1985".
    template <class T>
    std::string text(const GlobalKey<T>& key) const {
        return join(global_args(key.path));
    }

    // The occurrences of a repeated vhost row ("vhost.ingest",
    // "vhost.transcode", "vhost.exec.publish") in a vhost, in conf order.
    std::vector<const ConfigSection*> sections(const std::string& vhost, const std::string& path) const;

    // Vhost names in conf order; always includes __defaultVhost__.
    std::vector<std::string> vhosts() const;
    bool has_vhost(const std::string& name) const;

    // srs_log_level_v2 if set, else srs_log_level, as verbose|info|trace|warn|error.
    std::string log_level() const;

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
    friend class ConfigSection;
    using Values = std::map<std::string, std::vector<std::string>>;  // table path -> arguments

    Config() = default;
    static Error build_from_tree(ConfNode* root, const std::string& source, std::shared_ptr<const Config>* out);
    // The effective arguments of a table path ("vhost.play.gop_cache" for vhost
    // rows): environment, conf, inherited global, default.
    const std::vector<std::string>& global_args(const std::string& path) const;
    const std::vector<std::string>& vhost_args(const std::string& vhost, const std::string& path) const;
    bool global_is_set(const std::string& path) const;
    bool vhost_is_set(const std::string& vhost, const std::string& path) const;
    // Arguments to the key's value type (validated at load).
    static void decode(const std::vector<std::string>& args, bool* out);
    static void decode(const std::vector<std::string>& args, int64_t* out);
    static void decode(const std::vector<std::string>& args, double* out);
    static void decode(const std::vector<std::string>& args, std::string* out);
    static void decode(const std::vector<std::string>& args, std::vector<std::string>* out);
    static void decode(const std::vector<std::string>& args, std::vector<ListenEndpoint>* out);
    static std::string join(const std::vector<std::string>& args);

    Values global_;                         // set by the conf or the environment
    std::map<std::string, Values> vhosts_;  // per vhost, keys are "vhost.play.gop_cache"
    std::vector<std::string> vhost_order_;
    Values vhost_env_;  // vhost settings from the environment, for every vhost
    std::map<std::string, std::vector<ConfigSection>> vhost_sections_;  // repeated rows, per vhost
    std::vector<std::string> warnings_;
    std::string source_;
};

template <class T>
T ConfigSection::get(const VhostKey<T>& key) const {
    T value{};
    Config::decode(args_of(key.path), &value);
    return value;
}

// The running config, read when needed: a reload swaps in a new Config and
// leaves the old one alive for whoever still holds it.
using ConfigSnapshot = std::function<std::shared_ptr<const Config>()>;

}  // namespace srs

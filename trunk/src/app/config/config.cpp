#include "app/config/config.hpp"

#include <cassert>
#include <cstdlib>
#include <unordered_map>

#include "app/config/config_builder.hpp"
#include "app/config/config_parser.hpp"

namespace srs {

const char* const kDefaultVhost = "__defaultVhost__";

namespace {

Config::EnvGetter g_env_getter;

const char* read_env(const char* name) { return g_env_getter ? g_env_getter(name) : getenv(name); }

const std::vector<std::string>& no_args() {
    static const std::vector<std::string> empty;
    return empty;
}

// Table defaults as arguments, computed once.
const std::vector<std::string>& default_args(const DirectiveSpec& spec) {
    static const std::unordered_map<std::string, std::vector<std::string>> defaults = [] {
        std::unordered_map<std::string, std::vector<std::string>> m;
        for (const DirectiveSpec& s : directive_table()) m[s.path] = directive_default_args(s);
        return m;
    }();
    return defaults.at(spec.path);
}

bool is_vhost_path(const std::string& path) { return path.compare(0, 6, "vhost.") == 0; }

// A value row of the expected scope, or nullptr (an assert in debug builds).
const DirectiveSpec* value_row(const std::string& path, bool vhost_scope) {
    const DirectiveSpec* spec = find_directive(path);
    bool ok = spec && is_value_directive(*spec) && is_vhost_path(path) == vhost_scope;
    assert(ok && "config path is not a value directive of the table");
    return ok ? spec : nullptr;
}

bool kind_is(const std::string& path, ArgKind a, ArgKind b) {
    const DirectiveSpec* spec = find_directive(path);
    bool ok = spec && (spec->kind == a || spec->kind == b);
    assert(ok && "config getter does not match the directive's kind");
    return ok;
}

std::string first(const std::vector<std::string>& args) { return args.empty() ? "" : args[0]; }
bool to_bool(const std::vector<std::string>& args) { return first(args) == "on"; }
int64_t to_int(const std::vector<std::string>& args) { return strtoll(first(args).c_str(), nullptr, 10); }
double to_double(const std::vector<std::string>& args) { return strtod(first(args).c_str(), nullptr); }

std::vector<ListenEndpoint> to_endpoints(const std::vector<std::string>& args) {
    std::vector<ListenEndpoint> out;
    for (const std::string& a : args) {
        ListenEndpoint ep;
        if (parse_endpoint(a, &ep)) out.push_back(ep);  // validated at load
    }
    return out;
}

// Shared tail of the three loaders.
Error finish_load(ConfigBuilder* builder) {
    if (Error err = builder->apply_env(read_env); !err.ok()) return err;
    builder->ensure_default_vhost();
    return Error();
}

}  // namespace

void Config::set_env_getter(EnvGetter getter) { g_env_getter = std::move(getter); }

Error Config::load_file(const std::string& path, std::unique_ptr<Config>* out) {
    ConfNode root;
    if (Error err = load_conf_file(path, &root); !err.ok()) return err;
    return build_from_tree(&root, path, out);
}

Error Config::load_text(const std::string& text, const std::string& name, std::unique_ptr<Config>* out) {
    ConfNode root;
    if (Error err = parse_conf_text(text, name, &root); !err.ok()) return err;
    if (Error err = expand_conf_includes(&root); !err.ok()) return err;
    return build_from_tree(&root, name, out);
}

Error Config::build_from_tree(ConfNode* root, const std::string& source, std::unique_ptr<Config>* out) {
    std::unique_ptr<Config> conf(new Config);
    conf->source_ = source;
    ConfigBuilder builder(conf.get());
    if (Error err = builder.absorb(root); !err.ok()) return err;
    if (Error err = finish_load(&builder); !err.ok()) return err;
    *out = std::move(conf);
    return Error();
}

Error Config::load_env_only(std::unique_ptr<Config>* out) {
    std::unique_ptr<Config> conf(new Config);
    // Without a file the server runs in the foreground and logs to the console,
    // unless the environment says otherwise.
    conf->global_["daemon"] = {"off"};
    conf->global_["srs_log_tank"] = {"console"};
    ConfigBuilder builder(conf.get());
    if (Error err = finish_load(&builder); !err.ok()) return err;
    *out = std::move(conf);
    return Error();
}

const std::vector<std::string>& Config::global_args(const std::string& path) const {
    const DirectiveSpec* spec = value_row(path, false);
    if (!spec) return no_args();
    auto it = global_.find(path);
    return it != global_.end() ? it->second : default_args(*spec);
}

const std::vector<std::string>& Config::vhost_args(const std::string& vhost, const std::string& path) const {
    std::string full = "vhost." + path;
    const DirectiveSpec* spec = value_row(full, true);
    if (!spec) return no_args();
    auto env = vhost_env_.find(full);
    if (env != vhost_env_.end()) return env->second;
    auto vh = vhosts_.find(vhost);
    if (vh != vhosts_.end()) {
        auto it = vh->second.find(full);
        if (it != vh->second.end()) return it->second;
    }
    if (spec->inherit) return global_args(spec->inherit);
    return default_args(*spec);
}

std::string Config::get_string(const std::string& path) const { return first(global_args(path)); }
std::vector<std::string> Config::get_args(const std::string& path) const { return global_args(path); }

int64_t Config::get_int(const std::string& path) const {
    return kind_is(path, ArgKind::kInt, ArgKind::kInt) ? to_int(global_args(path)) : 0;
}

double Config::get_double(const std::string& path) const {
    return kind_is(path, ArgKind::kFloat, ArgKind::kInt) ? to_double(global_args(path)) : 0;
}

bool Config::get_bool(const std::string& path) const {
    return kind_is(path, ArgKind::kBool, ArgKind::kBool) && to_bool(global_args(path));
}

std::vector<ListenEndpoint> Config::get_endpoints(const std::string& path) const {
    if (!kind_is(path, ArgKind::kEndpoint, ArgKind::kEndpoint)) return {};
    return to_endpoints(global_args(path));
}

bool Config::is_set(const std::string& path) const { return value_row(path, false) && global_.count(path) > 0; }

bool Config::vhost_is_set(const std::string& vhost, const std::string& path) const {
    std::string full = "vhost." + path;
    if (!value_row(full, true)) return false;
    if (vhost_env_.count(full)) return true;
    auto vh = vhosts_.find(vhost);
    return vh != vhosts_.end() && vh->second.count(full) > 0;
}

std::string Config::vhost_get_string(const std::string& vhost, const std::string& path) const {
    return first(vhost_args(vhost, path));
}

std::vector<std::string> Config::vhost_get_args(const std::string& vhost, const std::string& path) const {
    return vhost_args(vhost, path);
}

int64_t Config::vhost_get_int(const std::string& vhost, const std::string& path) const {
    return kind_is("vhost." + path, ArgKind::kInt, ArgKind::kInt) ? to_int(vhost_args(vhost, path)) : 0;
}

double Config::vhost_get_double(const std::string& vhost, const std::string& path) const {
    return kind_is("vhost." + path, ArgKind::kFloat, ArgKind::kInt) ? to_double(vhost_args(vhost, path)) : 0;
}

bool Config::vhost_get_bool(const std::string& vhost, const std::string& path) const {
    return kind_is("vhost." + path, ArgKind::kBool, ArgKind::kBool) && to_bool(vhost_args(vhost, path));
}

std::vector<std::string> Config::vhosts() const { return vhost_order_; }
bool Config::has_vhost(const std::string& name) const { return vhosts_.count(name) > 0; }

std::vector<ListenEndpoint> Config::listen_endpoints() const { return get_endpoints("listen"); }
int Config::max_connections() const { return static_cast<int>(get_int("max_connections")); }
bool Config::daemon() const { return get_bool("daemon"); }
std::string Config::pid_file() const { return get_string("pid"); }
std::string Config::work_dir() const { return get_string("work_dir"); }
bool Config::log_tank_console() const { return get_string("srs_log_tank") == "console"; }
std::string Config::log_file() const { return get_string("srs_log_file"); }
bool Config::utc_time() const { return get_bool("utc_time"); }
int64_t Config::pithy_print_ms() const { return get_int("pithy_print_ms"); }
int64_t Config::grace_start_wait_ms() const { return get_int("grace_start_wait"); }
int64_t Config::grace_final_wait_ms() const { return get_int("grace_final_wait"); }
bool Config::force_grace_quit() const { return get_bool("force_grace_quit"); }
bool Config::asprocess() const { return get_bool("asprocess"); }
std::string Config::server_id() const { return get_string("server_id"); }
int Config::chunk_size() const { return static_cast<int>(get_int("chunk_size")); }

std::string Config::log_level() const {
    // The v2 names are shifted by one: TRACE is the most verbose level.
    static const struct {
        const char* v2;
        const char* v1;
    } kV2ToV1[] = {
        {"TRACE", "verbose"}, {"DEBUG", "info"}, {"INFO", "trace"}, {"WARN", "warn"}, {"ERROR", "error"},
    };
    std::string v2 = get_string("srs_log_level_v2");
    for (const auto& m : kV2ToV1) {
        if (v2 == m.v2) return m.v1;
    }
    return get_string("srs_log_level");
}

std::vector<std::string> Config::diff(const Config& a, const Config& b) {
    std::vector<std::string> out;
    for (const DirectiveSpec& spec : directive_table()) {
        if (!is_value_directive(spec) || is_vhost_path(spec.path)) continue;
        if (a.global_args(spec.path) != b.global_args(spec.path)) out.push_back(spec.path);
    }
    for (const std::string& name : a.vhost_order_) {
        if (!b.has_vhost(name)) out.push_back("vhost." + name);
    }
    for (const std::string& name : b.vhost_order_) {
        if (!a.has_vhost(name)) {
            out.push_back("vhost." + name);
            continue;
        }
        for (const DirectiveSpec& spec : directive_table()) {
            if (!is_value_directive(spec) || !is_vhost_path(spec.path)) continue;
            std::string rel = spec.path + 6;
            if (a.vhost_args(name, rel) != b.vhost_args(name, rel)) out.push_back("vhost." + name + "." + rel);
        }
    }
    return out;
}

bool Config::reloadable(const std::string& path) {
    const DirectiveSpec* spec = find_directive(path);
    if (spec) return spec->implemented && spec->reloadable;
    if (!is_vhost_path(path)) return false;
    // "vhost.<name>.<setting>": the longest vhost setting the path ends with.
    std::string rest = path.substr(6);
    const DirectiveSpec* best = nullptr;
    size_t best_len = 0;
    for (const DirectiveSpec& s : directive_table()) {
        if (!is_value_directive(s) || !is_vhost_path(s.path)) continue;
        std::string rel = std::string(".") + (s.path + 6);
        if (rest.size() > rel.size() && rest.compare(rest.size() - rel.size(), rel.size(), rel) == 0 &&
            rel.size() > best_len) {
            best = &s;
            best_len = rel.size();
        }
    }
    if (best) return best->reloadable;
    // "vhost.<name>": a vhost added or removed.
    return find_directive("vhost")->reloadable;
}

}  // namespace srs

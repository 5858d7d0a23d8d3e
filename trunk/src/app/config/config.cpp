#include "app/config/config.hpp"

#include <cassert>
#include <cstdlib>
#include <unordered_map>

#include "app/config/config_builder.hpp"
#include "app/config/config_parser.hpp"
#include "core/strings.hpp"

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

const std::string& first(const std::vector<std::string>& args) {
    static const std::string none;
    return args.empty() ? none : args[0];
}

bool is_vhost_path(const std::string& path) { return path.compare(0, 6, "vhost.") == 0; }

// The row of a key's path. Keys are generated from the table and a unit test
// keeps them in step, so a miss here means a stale config_keys.hpp.
const DirectiveSpec* value_row(const std::string& path, bool vhost_scope) {
    const DirectiveSpec* spec = find_directive(path);
    bool ok = spec && is_value_directive(*spec) && is_vhost_path(path) == vhost_scope;
    assert(ok && "config_keys.hpp is stale: regenerate it");
    return ok ? spec : nullptr;
}

// "vhost.ingest" and "vhost.exec.publish" are directly in a vhost's scope
// (blocks that are not repeated, like exec, are only a path prefix).
bool parent_is_vhost(const std::string& path) {
    for (size_t dot = path.rfind('.'); dot != std::string::npos && dot > 5; dot = path.rfind('.', dot - 1)) {
        const DirectiveSpec* parent = find_directive(path.substr(0, dot));
        if (parent && parent->repeated) return false;
    }
    return is_vhost_path(path);
}

// Shared tail of the three loaders.
Error finish_load(ConfigBuilder* builder) {
    if (Error err = builder->apply_env(read_env); !err.ok()) return err;
    builder->ensure_default_vhost();
    return Error();
}

}  // namespace

void Config::set_env_getter(EnvGetter getter) { g_env_getter = std::move(getter); }

Error Config::load_file(const std::string& path, std::shared_ptr<const Config>* out) {
    ConfNode root;
    if (Error err = load_conf_file(path, &root); !err.ok()) return err;
    return build_from_tree(&root, path, out);
}

Error Config::load_text(const std::string& text, const std::string& name, std::shared_ptr<const Config>* out) {
    ConfNode root;
    if (Error err = parse_conf_text(text, name, &root); !err.ok()) return err;
    if (Error err = expand_conf_includes(&root); !err.ok()) return err;
    return build_from_tree(&root, name, out);
}

Error Config::build_from_tree(ConfNode* root, const std::string& source, std::shared_ptr<const Config>* out) {
    std::unique_ptr<Config> conf(new Config);
    conf->source_ = source;
    ConfigBuilder builder(conf.get());
    if (Error err = builder.absorb(root); !err.ok()) return err;
    if (Error err = finish_load(&builder); !err.ok()) return err;
    *out = std::move(conf);
    return Error();
}

Error Config::load_env_only(std::shared_ptr<const Config>* out) {
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
    const DirectiveSpec* spec = value_row(path, true);
    if (!spec) return no_args();
    auto env = vhost_env_.find(path);
    if (env != vhost_env_.end()) return env->second;
    auto vh = vhosts_.find(vhost);
    if (vh != vhosts_.end()) {
        auto it = vh->second.find(path);
        if (it != vh->second.end()) return it->second;
    }
    if (spec->inherit) return global_args(spec->inherit);
    return default_args(*spec);
}

bool Config::global_is_set(const std::string& path) const {
    return value_row(path, false) && global_.count(path) > 0;
}

bool Config::vhost_is_set(const std::string& vhost, const std::string& path) const {
    if (!value_row(path, true)) return false;
    if (vhost_env_.count(path)) return true;
    auto vh = vhosts_.find(vhost);
    return vh != vhosts_.end() && vh->second.count(path) > 0;
}

const std::vector<std::string>& ConfigSection::args_of(const std::string& path) const {
    if (path == path_) return args_;  // a repeated value row: its own line (exec's publish)
    auto it = values_.find(path);
    if (it != values_.end()) return it->second;
    const DirectiveSpec* spec = value_row(path, true);
    return spec ? default_args(*spec) : no_args();
}

std::vector<const ConfigSection*> ConfigSection::children(const std::string& path) const {
    std::vector<const ConfigSection*> out;
    for (const ConfigSection& c : children_) {
        if (c.path_ == path) out.push_back(&c);
    }
    return out;
}

std::string ConfigSection::text() const {
    // Quoted pieces, so no two different sections read the same.
    std::string t = path_ + "(";
    for (const std::string& a : args_) t += "'" + a + "'";
    t += "){";
    for (const auto& v : values_) {
        t += v.first + "=";
        for (const std::string& a : v.second) t += "'" + a + "'";
        t += ";";
    }
    for (const auto& line : lines_) {
        t += "[";
        for (const std::string& a : line) t += "'" + a + "'";
        t += "]";
    }
    for (const ConfigSection& c : children_) t += c.text();
    return t + "}";
}

std::vector<const ConfigSection*> Config::sections(const std::string& vhost, const std::string& path) const {
    std::vector<const ConfigSection*> out;
    auto it = vhost_sections_.find(vhost);
    if (it == vhost_sections_.end()) return out;
    for (const ConfigSection& s : it->second) {
        if (s.path() == path) out.push_back(&s);
    }
    return out;
}

void Config::decode(const std::vector<std::string>& args, bool* out) { *out = first(args) == "on"; }
void Config::decode(const std::vector<std::string>& args, int64_t* out) {
    // Validated at load: a value that does not parse cannot be here.
    if (!parse_integer(first(args), out)) *out = 0;
}
void Config::decode(const std::vector<std::string>& args, double* out) {
    if (!parse_double(first(args), out)) *out = 0;
}
void Config::decode(const std::vector<std::string>& args, std::string* out) { *out = first(args); }
void Config::decode(const std::vector<std::string>& args, std::vector<std::string>* out) { *out = args; }

void Config::decode(const std::vector<std::string>& args, std::vector<ListenEndpoint>* out) {
    out->clear();
    for (const std::string& a : args) {
        ListenEndpoint ep;
        if (parse_endpoint(a, &ep)) out->push_back(ep);  // validated at load
    }
}

std::string Config::join(const std::vector<std::string>& args) {
    std::string text;
    for (const std::string& a : args) text += (text.empty() ? "" : " ") + a;
    return text;
}

std::vector<std::string> Config::vhosts() const { return vhost_order_; }
bool Config::has_vhost(const std::string& name) const { return vhosts_.count(name) > 0; }

std::string Config::log_level() const {
    // The v2 names are shifted by one: TRACE is the most verbose level.
    static const struct {
        const char* v2;
        const char* v1;
    } kV2ToV1[] = {
        {"TRACE", "verbose"}, {"DEBUG", "info"}, {"INFO", "trace"}, {"WARN", "warn"}, {"ERROR", "error"},
    };
    std::string v2 = get(keys::srs_log_level_v2);
    for (const auto& m : kV2ToV1) {
        if (v2 == m.v2) return m.v1;
    }
    return get(keys::srs_log_level);
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
            if (spec.repeated && parent_is_vhost(spec.path)) {
                // ingest, transcode, exec.publish: any change in any occurrence.
                std::string ta, tb;
                for (const ConfigSection* s : a.sections(name, spec.path)) ta += s->text();
                for (const ConfigSection* s : b.sections(name, spec.path)) tb += s->text();
                if (ta != tb) out.push_back("vhost." + name + "." + (spec.path + 6));
                continue;
            }
            if (!is_value_directive(spec) || !is_vhost_path(spec.path) || in_repeated_row(spec.path)) continue;
            if (a.vhost_args(name, spec.path) != b.vhost_args(name, spec.path)) {
                out.push_back("vhost." + name + "." + (spec.path + 6));
            }
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
        if ((!is_typed_directive(s) && !s.repeated) || !is_vhost_path(s.path)) continue;
        std::string rel = std::string(".") + (s.path + 6);
        if (rest.size() > rel.size() && rest.compare(rest.size() - rel.size(), rel.size(), rel) == 0 &&
            rel.size() > best_len) {
            best = &s;
            best_len = rel.size();
        }
    }
    if (best) return best->implemented && best->reloadable;
    // "vhost.<name>": a vhost added or removed.
    return find_directive("vhost")->reloadable;
}

}  // namespace srs

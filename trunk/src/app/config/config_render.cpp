// Renders the directive table as trunk/conf/full.conf, as the reference
// tables of docs/config.md and as the typed keys of config_keys.hpp, so all
// three always say what the code does.
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "app/config/config_directives.hpp"

namespace srs {

namespace {

const char* kVhostExample = "__defaultVhost__";
constexpr size_t kWidth = 100;  // wrap generated comments here

std::string parent_of(const std::string& path) {
    size_t dot = path.rfind('.');
    return dot == std::string::npos ? "" : path.substr(0, dot);
}

std::string leaf_of(const std::string& path) {
    size_t dot = path.rfind('.');
    return dot == std::string::npos ? path : path.substr(dot + 1);
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
        s.replace(at, from.size(), to);
    }
    return s;
}

// "integer 128..65536", "on|off", ...: what a value row accepts.
std::string value_type(const DirectiveSpec& s) {
    switch (s.kind) {
        case ArgKind::kBool: return "on|off";
        case ArgKind::kInt: return "integer " + std::to_string(s.min) + ".." + std::to_string(s.max);
        case ArgKind::kFloat: return "number " + std::to_string(s.min) + ".." + std::to_string(s.max);
        case ArgKind::kEnum: return s.values;
        case ArgKind::kList: return "one or more names";
        case ArgKind::kEndpoint: return s.max_args > 1 ? "one or more endpoints" : "endpoint";
        case ArgKind::kAccessRule: return "publish or play, then all, an IP or a CIDR; one rule per line";
        default: return "string";
    }
}

// The placeholder written for a directive without a default.
std::string value_hint(const DirectiveSpec& s) {
    switch (s.kind) {
        case ArgKind::kEnum: return s.values;
        case ArgKind::kList: return "<name> ...";
        case ArgKind::kAccessRule: return "publish|play all|<ip>|<cidr>";
        default: return "<" + value_type(s) + ">";
    }
}

std::string default_text(const DirectiveSpec& s) {
    if (s.inherit) return std::string("the global ") + s.inherit;
    return *s.default_value ? s.default_value : "none";
}

// Rows inside repeated blocks (ingest, engine...) have no SRS_* variable.
std::string env_text(const DirectiveSpec& s) { return in_repeated_row(s.path) ? "none" : directive_env_name(s.path); }

class FullConfWriter {
  public:
    std::string render() {
        out_ += "# The reference conf: every directive the server implements, set to its default.\n"
                "# Generated from the directive table (src/app/config/config_directives.cpp); do not edit.\n"
                "# After changing the table, regenerate it from trunk/ with\n"
                "#   make conf-regen\n"
                "# (which also rewrites docs/config.md and src/app/config/config_keys.hpp).\n"
                "#\n"
                "# Grammar: `name args...;` or `name args... { ... }`, one directive per line, # comments,\n"
                "# \"...\" or '...' quotes, and `include file...;` anywhere to read other files in place.\n"
                "# Every value can be overridden by an environment variable named SRS_ + its path in\n"
                "# upper case with dots as underscores (SRS_LISTEN, SRS_VHOST_PLAY_GOP_CACHE).\n"
                "# See docs/config.md.\n";
        render_children("", 0);
        render_not_implemented();
        return out_;
    }

  private:
    void line(int depth, const std::string& text) {
        out_.append(depth * 4, ' ');
        // Inside a repeated block (an example, not a default): directives
        // are commented out, so full.conf still sets only defaults.
        if (in_example_ > 0 && text[0] != '#') out_ += '#';
        out_ += text;
        out_ += '\n';
    }

    int in_example_ = 0;

    void render_children(const std::string& parent, int depth) {
        for (const DirectiveSpec& s : directive_table()) {
            if (!s.implemented || parent_of(s.path) != parent) continue;
            if (s.kind == ArgKind::kBlock && !block_has_values(s)) continue;  // nothing in it is implemented yet
            out_ += '\n';
            line(depth, std::string("# ") + s.doc);
            if (s.partial) line(depth, std::string("# Only in part: ") + s.partial + ".");
            std::string name = leaf_of(s.path);
            if (s.kind == ArgKind::kBlock) {
                bool is_vhost = strcmp(s.path, "vhost") == 0;
                std::string example = is_vhost ? kVhostExample : s.default_value;
                if (s.repeated) in_example_++;
                line(depth, name + (example.empty() ? "" : " " + example) + " {");
                render_children(s.path, depth + 1);
                line(depth, "}");
                if (s.repeated) in_example_--;
                continue;
            }
            line(depth, "# " + value_type(s) + "; default " + default_text(s) + "; env " +
                            env_text(s) + "; reload " + (s.reloadable ? "yes" : "no"));
            if (*s.default_value && !s.repeated) {
                line(depth, name + " " + s.default_value + ";");
            } else {
                line(depth, "#" + name + " " + value_hint(s) + ";");
            }
        }
    }

    void render_not_implemented() {
        out_ += "\n# Accepted but not implemented yet (each logs one warning with its file:line and is ignored;\n"
                "# the ones with a value are still checked, see docs/config.md):\n";
        // Grouped by parent, in table order of each parent's first row.
        std::vector<std::pair<std::string, std::vector<std::string>>> groups;
        for (const DirectiveSpec& s : directive_table()) {
            if (s.implemented) continue;
            std::string parent = parent_of(s.path);
            auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == parent; });
            if (it == groups.end()) it = groups.insert(groups.end(), {parent, {}});
            it->second.push_back(leaf_of(s.path));
        }
        for (const auto& g : groups) {
            std::string text = "#   " + (g.first.empty() ? std::string("top level") : g.first) + ":";
            for (const std::string& leaf : g.second) {
                if (text.size() + 1 + leaf.size() > kWidth) {
                    out_ += text + "\n";
                    text = "#      ";
                }
                text += " " + leaf;
            }
            out_ += text + "\n";
        }
        out_ += "# Old vhost forms still read, rewritten at load (each logs a warning):\n";
        for (const LegacyRename& r : legacy_vhost_renames()) {
            out_ += std::string("#   ") + r.from + " -> " + r.to + "\n";
        }
        for (const LegacyRename& r : legacy_global_renames()) {
            out_ += std::string("#   (top level) ") + r.from + " -> " + r.to + "\n";
        }
    }

    std::string out_;
};

class ReferenceWriter {
  public:
    std::string render() {
        render_block("", "Top level", "Directives outside any block.");
        for (const DirectiveSpec& s : directive_table()) {
            if (!s.implemented || s.kind != ArgKind::kBlock || !block_has_values(s)) continue;
            bool is_vhost = strcmp(s.path, "vhost") == 0;
            std::string title = std::string("`") + s.path + (is_vhost || s.repeated ? " NAME" : "") + " { }`";
            render_block(s.path, title, s.doc);
        }
        out_ += "### Not implemented yet\n\n"
                "Accepted with one warning each (file:line, or the environment variable), then ignored. "
                "A directive with a value is still checked against its type and range, so a conf that "
                "loads today keeps loading when it is implemented; the others take any arguments and any "
                "block.\n\n";
        for (const DirectiveSpec& s : directive_table()) {
            if (s.implemented) continue;
            out_ += std::string("- `") + s.path + "`";
            if (is_typed_directive(s)) {
                std::string def = *s.default_value ? "`" + default_text(s) + "`" : "none";
                out_ += " (" + replace_all(value_type(s), "|", ", ") + "; default " + def + ")";
            }
            out_ += std::string(": ") + s.doc + "\n";
        }
        out_ += "\n### Old forms\n\nRead and rewritten at load, with a warning.\n\n";
        for (const LegacyRename& r : legacy_vhost_renames()) {
            out_ += std::string("- `vhost.") + r.from + "` -> `vhost." + r.to + "`\n";
        }
        for (const LegacyRename& r : legacy_global_renames()) {
            out_ += std::string("- `") + r.from + "` -> `" + r.to + "`\n";
        }
        return out_;
    }

  private:
    void render_block(const std::string& path, const std::string& title, const std::string& doc) {
        out_ += "### " + title + "\n\n" + doc + "\n\n";
        out_ += "| Directive | Value | Default | Env | Reload | Description |\n";
        out_ += "|---|---|---|---|---|---|\n";
        for (const DirectiveSpec& s : directive_table()) {
            if (!is_value_directive(s) || parent_of(s.path) != path) continue;
            std::string def = default_text(s);
            if (!s.inherit && *s.default_value) def = "`" + def + "`";
            out_ += "| `" + leaf_of(s.path) + "` | " + replace_all(value_type(s), "|", ", ") + " | " + def + " | " +
                    (in_repeated_row(s.path) ? std::string("none") : "`" + env_text(s) + "`") + " | " + (s.reloadable ? "yes" : "no") + " | " + s.doc +
                    (s.partial ? std::string(" Only in part: ") + s.partial + "." : std::string()) + " |\n";
        }
        out_ += "\n";
    }

    std::string out_;
};

// config_keys.hpp: one constant per implemented value row.
class KeysWriter {
  public:
    std::string render() {
        out_ += "// The typed keys of the directive table: one per implemented value directive,\n"
                "// for Config::get() and Config::is_set() (see config_key.hpp).\n"
                "// Generated from src/app/config/config_directives.cpp; do not edit. After\n"
                "// changing the table, regenerate it from trunk/ with\n"
                "//   make conf-regen\n"
                "// A unit test fails while it is stale, and test/test_config_keys.py fails for\n"
                "// a key no code outside src/app/config/ reads (mark the row NotYet instead).\n"
                "#pragma once\n\n"
                "#include <cstdint>\n#include <string>\n#include <vector>\n\n"
                "#include \"app/config/config_key.hpp\"\n\n"
                "namespace srs {\nnamespace keys {\n";
        for (const DirectiveSpec& s : directive_table()) {
            if (!is_value_directive(s)) continue;
            bool vhost = strncmp(s.path, "vhost.", 6) == 0;
            out_ += "\n";
            comment(std::string(s.path) + ": " + s.doc);
            if (s.inherit) {
                const DirectiveSpec* global = find_directive(s.inherit);
                out_ += "// Unset in a vhost: the value of keys::" + directive_key_name(*global) + ".\n";
            }
            out_ += std::string("inline constexpr ") + (vhost ? "VhostKey<" : "GlobalKey<") + cpp_type(s) + "> " +
                    directive_key_name(s) + "{\"" + s.path + "\"};\n";
        }
        out_ += "\n}  // namespace keys\n}  // namespace srs\n";
        return out_;
    }

  private:
    static const char* cpp_type(const DirectiveSpec& s) {
        switch (s.kind) {
            case ArgKind::kBool: return "bool";
            case ArgKind::kInt: return "int64_t";
            case ArgKind::kFloat: return "double";
            case ArgKind::kList: return "std::vector<std::string>";
            case ArgKind::kAccessRule: return "std::vector<std::string>";  // (action, target) pairs
            case ArgKind::kEndpoint: return "std::vector<ListenEndpoint>";
            default: return "std::string";
        }
    }

    // "// " + text, wrapped at kWidth.
    void comment(const std::string& text) {
        std::string line = "//";
        size_t at = 0;
        while (at < text.size()) {
            size_t sp = text.find(' ', at);
            std::string word = text.substr(at, sp == std::string::npos ? std::string::npos : sp - at);
            at = sp == std::string::npos ? text.size() : sp + 1;
            if (line.size() + 1 + word.size() > kWidth && line != "//") {
                out_ += line + "\n";
                line = "//";
            }
            line += " " + word;
        }
        out_ += line + "\n";
    }

    std::string out_;
};

}  // namespace

std::string directive_key_name(const DirectiveSpec& spec) {
    std::string name = spec.path;
    for (char& c : name) {
        if (c == '.') c = '_';
    }
    return name;
}

std::string render_full_conf() { return FullConfWriter().render(); }

std::string render_config_keys_header() { return KeysWriter().render(); }

std::string render_reference_markdown() { return ReferenceWriter().render(); }

}  // namespace srs

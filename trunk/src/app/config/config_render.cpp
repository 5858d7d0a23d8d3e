// Renders the directive table as trunk/conf/full.conf and as the reference
// tables of docs/config.md, so both always say what the code does.
#include <cstring>
#include <string>

#include "app/config/config_directives.hpp"

namespace srs {

namespace {

const char* kVhostExample = "__defaultVhost__";

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
        default: return "string";
    }
}

// The placeholder written for a directive without a default.
std::string value_hint(const DirectiveSpec& s) {
    switch (s.kind) {
        case ArgKind::kEnum: return s.values;
        case ArgKind::kList: return "<name> ...";
        default: return "<" + value_type(s) + ">";
    }
}

std::string default_text(const DirectiveSpec& s) {
    if (s.inherit) return std::string("the global ") + s.inherit;
    return *s.default_value ? s.default_value : "none";
}

class FullConfWriter {
  public:
    std::string render() {
        out_ += "# The reference conf: every directive the server implements, set to its default.\n"
                "# Generated from the directive table (src/app/config/config_directives.cpp); do not edit.\n"
                "# After changing the table, regenerate it from trunk/ with\n"
                "#   SRS_REGEN_FULL_CONF=1 ./objs/srs_utest --gtest_filter='ConfigFullConf.*'\n"
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
        out_ += text;
        out_ += '\n';
    }

    void render_children(const std::string& parent, int depth) {
        for (const DirectiveSpec& s : directive_table()) {
            if (!s.implemented || parent_of(s.path) != parent) continue;
            out_ += '\n';
            line(depth, std::string("# ") + s.doc);
            std::string name = leaf_of(s.path);
            if (s.kind == ArgKind::kBlock) {
                bool is_vhost = strcmp(s.path, "vhost") == 0;
                line(depth, name + (is_vhost ? std::string(" ") + kVhostExample : "") + " {");
                render_children(s.path, depth + 1);
                line(depth, "}");
                continue;
            }
            line(depth, "# " + value_type(s) + "; default " + default_text(s) + "; env " +
                            directive_env_name(s.path) + "; reload " + (s.reloadable ? "yes" : "no"));
            if (*s.default_value) {
                line(depth, name + " " + s.default_value + ";");
            } else {
                line(depth, "#" + name + " " + value_hint(s) + ";");
            }
        }
    }

    void render_not_implemented() {
        out_ += "\n# Accepted but not implemented yet (each logs one warning, and its block is ignored):\n";
        std::string group = "-";
        std::string text;
        for (const DirectiveSpec& s : directive_table()) {
            if (s.implemented) continue;
            std::string parent = parent_of(s.path);
            if (parent != group) {
                if (!text.empty()) out_ += text + "\n";
                group = parent;
                text = "#   " + (parent.empty() ? std::string("top level") : parent) + ":";
            }
            text += " " + leaf_of(s.path);
        }
        if (!text.empty()) out_ += text + "\n";
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
            if (!s.implemented || s.kind != ArgKind::kBlock) continue;
            bool is_vhost = strcmp(s.path, "vhost") == 0;
            std::string title = std::string("`") + s.path + (is_vhost ? " NAME" : "") + " { }`";
            render_block(s.path, title, s.doc);
        }
        out_ += "### Not implemented yet\n\n"
                "Accepted with one warning each; their arguments and blocks are not checked.\n\n";
        for (const DirectiveSpec& s : directive_table()) {
            if (!s.implemented) out_ += std::string("- `") + s.path + "`: " + s.doc + "\n";
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
            out_ += "| `" + leaf_of(s.path) + "` | " + replace_all(value_type(s), "|", ", ") + " | " + def + " | `" +
                    directive_env_name(s.path) + "` | " + (s.reloadable ? "yes" : "no") + " | " + s.doc + " |\n";
        }
        out_ += "\n";
    }

    std::string out_;
};

}  // namespace

std::string render_full_conf() { return FullConfWriter().render(); }

std::string render_reference_markdown() { return ReferenceWriter().render(); }

}  // namespace srs

// Turns a parsed conf tree and the environment into a Config: rewrites SRS's
// old directive forms, validates every directive against the table, and keeps
// the values (first occurrence wins, as in SRS).
#include "app/config/config_builder.hpp"

#include <cstring>

#include "app/config/config_directives.hpp"
#include "core/strings.hpp"

namespace srs {

namespace {

const char* find_rename(const std::vector<LegacyRename>& renames, const std::string& from) {
    for (const LegacyRename& r : renames) {
        if (from == r.from) return r.to;
    }
    return nullptr;
}

// Whether some rename moves directives out of an old block named `block`.
bool has_block_renames(const std::vector<LegacyRename>& renames, const std::string& block) {
    std::string prefix = block + ".";
    for (const LegacyRename& r : renames) {
        if (strncmp(r.from, prefix.c_str(), prefix.size()) == 0) return true;
    }
    return false;
}

// Puts `node` at `to` ("play.gop_cache") inside `parent`, creating the block.
void place_at(ConfNode* parent, const std::string& to, ConfNode node) {
    size_t dot = to.find('.');
    if (dot == std::string::npos) {
        node.name = to;
        parent->children.push_back(std::move(node));
        return;
    }
    std::string block = to.substr(0, dot);
    ConfNode* target = nullptr;
    for (ConfNode& c : parent->children) {
        if (c.name == block && c.has_block) {
            target = &c;
            break;
        }
    }
    if (!target) {
        ConfNode created;
        created.name = block;
        created.has_block = true;
        created.file = node.file;
        created.line = node.line;
        parent->children.push_back(std::move(created));
        target = &parent->children.back();
    }
    node.name = to.substr(dot + 1);
    target->children.push_back(std::move(node));
}

bool starts_with(const std::string& s, const char* prefix) { return s.compare(0, strlen(prefix), prefix) == 0; }

}  // namespace

Error ConfigBuilder::absorb(ConfNode* root) {
    rewrite_legacy(root, legacy_global_renames());
    for (ConfNode& node : root->children) {
        if (!node.has_block || node.name != "vhost") continue;
        bool flat_refer = rewrite_legacy_refer(&node);
        rewrite_legacy(&node, legacy_vhost_renames());
        upgrade_legacy_forward(&node);
        if (flat_refer) enable_refer(&node);
    }
    return walk(root->children, "", &conf_->global_, nullptr);
}

void ConfigBuilder::rewrite_legacy(ConfNode* parent, const std::vector<LegacyRename>& renames) {
    std::vector<ConfNode> kept;
    std::vector<std::pair<std::string, ConfNode>> moved;
    for (ConfNode& child : parent->children) {
        if (child.has_block && has_block_renames(renames, child.name)) {
            std::vector<ConfNode> left;
            for (ConfNode& inner : child.children) {
                std::string from = child.name + "." + inner.name;
                const char* to = find_rename(renames, from);
                if (!to) {
                    left.push_back(std::move(inner));
                    continue;
                }
                note_rewrite(inner, from, to);
                moved.emplace_back(to, std::move(inner));
            }
            child.children.swap(left);
            if (!child.children.empty()) kept.push_back(std::move(child));
            continue;
        }
        const char* to = find_rename(renames, child.name);
        if (!to) {
            kept.push_back(std::move(child));
            continue;
        }
        note_rewrite(child, child.name, to);
        moved.emplace_back(to, std::move(child));
    }
    parent->children.swap(kept);
    // Appended after what the conf wrote, so the new form wins when both are given.
    for (auto& m : moved) place_at(parent, m.first, std::move(m.second));
}

bool ConfigBuilder::rewrite_legacy_refer(ConfNode* vhost) {
    bool flat = false;
    for (ConfNode& child : vhost->children) {
        if (child.name == "refer_play" || child.name == "refer_publish") flat = true;
        if (child.name != "refer" || child.has_block) continue;
        // SRS 1/2: `refer a.com b.com;` is `refer { enabled on; all a.com b.com; }`.
        note_rewrite(child, "refer", "refer.all");
        ConfNode all = child;
        all.name = "all";
        child.has_block = true;
        child.args.clear();
        child.children.push_back(std::move(all));
        flat = true;
    }
    return flat;
}

void ConfigBuilder::enable_refer(ConfNode* vhost) {
    for (ConfNode& child : vhost->children) {
        if (child.name != "refer" || !child.has_block) continue;
        // After anything the conf wrote: an explicit `enabled` in the block wins.
        ConfNode enabled;
        enabled.name = "enabled";
        enabled.args = {"on"};
        enabled.file = child.file;
        enabled.line = child.line;
        child.children.push_back(std::move(enabled));
        return;
    }
}

void ConfigBuilder::upgrade_legacy_forward(ConfNode* vhost) {
    for (ConfNode& child : vhost->children) {
        if (child.name != "forward" || child.has_block || child.args.empty()) continue;
        // SRS 1/2: `forward HOST:PORT ...;` is SRS 3+'s `forward { enabled on; destination ...; }`.
        ConfNode enabled, destination;
        enabled.name = "enabled";
        enabled.args = {"on"};
        destination.name = "destination";
        destination.args.swap(child.args);
        enabled.file = destination.file = child.file;
        enabled.line = destination.line = child.line;
        child.has_block = true;
        child.children.push_back(std::move(enabled));
        child.children.push_back(std::move(destination));
        note_rewrite(child, "forward HOST:PORT", "forward { enabled on; destination HOST:PORT; }");
    }
}

void ConfigBuilder::note_rewrite(const ConfNode& node, const std::string& from, const std::string& to) {
    conf_->warnings_.push_back(node.where() + ": directive " + from + " is the old form of " + to +
                               ", read as " + to);
}

void ConfigBuilder::warn_partial(const DirectiveSpec& spec, const std::string& where,
                                 const std::vector<std::string>& args) {
    if (!spec.partial || args == directive_default_args(spec)) return;
    conf_->warnings_.push_back(where + ": directive " + spec.path + " is implemented only in part: " + spec.partial);
}

void ConfigBuilder::warn_not_implemented(const std::string& path, const std::string& where) {
    if (!warned_.insert(path).second) return;
    conf_->warnings_.push_back(where + ": directive " + path + " is not implemented yet, ignored");
}

Error ConfigBuilder::walk(std::vector<ConfNode>& nodes, const std::string& scope, Config::Values* out,
                          std::vector<ConfigSection>* sections) {
    for (ConfNode& node : nodes) {
        std::string path = scope.empty() ? node.name : scope + "." + node.name;
        const DirectiveSpec* spec = find_directive(path);
        if (!spec) {
            std::string in = scope.empty() ? "" : " in " + scope;
            return SRS_ERR(kErrorConfigDirective, "%s: unknown directive \"%s\"%s", node.where().c_str(),
                           node.name.c_str(), in.c_str());
        }
        if (!spec->implemented) {
            // A typed row is still checked, so the conf stays valid the day
            // the row is implemented; then it is dropped.
            if (is_typed_directive(*spec)) {
                if (node.has_block) {
                    return SRS_ERR(kErrorConfigDirective, "%s: %s takes no block", node.where().c_str(),
                                   path.c_str());
                }
                if (Error err = validate_directive_args(*spec, node.where(), &node.args); !err.ok()) return err;
            }
            warn_not_implemented(path, node.where());
            continue;
        }
        if (spec->repeated || spec->free_form) {
            if (Error err = absorb_section(*spec, node, sections); !err.ok()) return err;
            continue;
        }
        if (spec->kind == ArgKind::kBlock) {
            if (Error err = absorb_block(*spec, node, out, sections); !err.ok()) return err;
            continue;
        }
        if (node.has_block) {
            return SRS_ERR(kErrorConfigDirective, "%s: %s takes no block", node.where().c_str(), path.c_str());
        }
        if (Error err = validate_directive_args(*spec, node.where(), &node.args); !err.ok()) return err;
        warn_partial(*spec, node.where(), node.args);
        if (spec->kind == ArgKind::kAccessRule) {
            // Every rule line counts: appended in conf order.
            if (node.args.size() != 2) {
                return SRS_ERR(kErrorConfigDirective, "%s: %s takes 2 arguments (publish|play all|IP|CIDR), got %d",
                               node.where().c_str(), path.c_str(), (int)node.args.size());
            }
            std::vector<std::string>& rules = (*out)[path];
            rules.insert(rules.end(), node.args.begin(), node.args.end());
            continue;
        }
        out->emplace(path, std::move(node.args));
    }
    return Error();
}

Error ConfigBuilder::absorb_block(const DirectiveSpec& spec, ConfNode& node, Config::Values* out,
                                  std::vector<ConfigSection>* sections) {
    if (!node.has_block) {
        return SRS_ERR(kErrorConfigDirective, "%s: %s needs a block { ... }", node.where().c_str(), spec.path);
    }
    if (Error err = validate_directive_args(spec, node.where(), &node.args); !err.ok()) return err;
    if (strcmp(spec.path, "vhost") != 0) return walk(node.children, spec.path, out, sections);

    const std::string& name = node.args[0];
    if (conf_->vhosts_.find(name) == conf_->vhosts_.end()) conf_->vhost_order_.push_back(name);
    return walk(node.children, "vhost", &conf_->vhosts_[name], &conf_->vhost_sections_[name]);
}

Error ConfigBuilder::absorb_section(const DirectiveSpec& spec, ConfNode& node, std::vector<ConfigSection>* sections) {
    if (!sections) {
        return SRS_ERR(kErrorConfigDirective, "%s: %s must be inside a vhost", node.where().c_str(), spec.path);
    }
    bool block = spec.kind == ArgKind::kBlock;
    if (node.has_block != block) {
        return SRS_ERR(kErrorConfigDirective, block ? "%s: %s needs a block { ... }" : "%s: %s takes no block",
                       node.where().c_str(), spec.path);
    }
    if (Error err = validate_directive_args(spec, node.where(), &node.args); !err.ok()) return err;
    ConfigSection section;
    section.path_ = spec.path;
    section.args_ = std::move(node.args);
    section.where_ = node.where();
    if (spec.free_form) {
        for (ConfNode& line : node.children) {
            if (line.has_block) {
                return SRS_ERR(kErrorConfigDirective, "%s: %s.%s takes no block", line.where().c_str(), spec.path,
                               line.name.c_str());
            }
            std::vector<std::string> words{line.name};
            for (std::string& a : line.args) words.push_back(std::move(a));
            section.lines_.push_back(std::move(words));
        }
    } else if (block) {
        if (Error err = walk(node.children, spec.path, &section.values_, &section.children_); !err.ok()) return err;
    }
    sections->push_back(std::move(section));
    return Error();
}

Error ConfigBuilder::apply_env(const Config::EnvGetter& getenv_fn) {
    for (const DirectiveSpec& spec : directive_table()) {
        if (spec.kind == ArgKind::kBlock || in_repeated_row(spec.path)) continue;
        std::string env = directive_env_name(spec.path);
        const char* value = getenv_fn(env.c_str());
        if (!value) continue;
        if (!spec.implemented && !is_typed_directive(spec)) {
            warn_not_implemented(spec.path, "env " + env);
            continue;
        }
        std::vector<std::string> args;
        if (spec.kind == ArgKind::kList || spec.kind == ArgKind::kEndpoint || spec.kind == ArgKind::kAccessRule) {
            for (std::string_view word : split_whitespace(value)) args.emplace_back(word);
        } else {
            args.emplace_back(trim(value));
        }
        if (Error err = validate_directive_args(spec, "env " + env, &args); !err.ok()) {
            return SRS_WRAP(err, "environment override %s", env.c_str());
        }
        if (!spec.implemented) {
            warn_not_implemented(spec.path, "env " + env);
            continue;
        }
        warn_partial(spec, "env " + env, args);
        Config::Values& target = starts_with(spec.path, "vhost.") ? conf_->vhost_env_ : conf_->global_;
        target[spec.path] = std::move(args);
    }
    return Error();
}

void ConfigBuilder::ensure_default_vhost() {
    if (conf_->vhosts_.count(kDefaultVhost)) return;
    conf_->vhosts_[kDefaultVhost];
    conf_->vhost_order_.push_back(kDefaultVhost);
}

}  // namespace srs

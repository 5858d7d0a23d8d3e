// Builds a Config from a parsed tree and the environment (see config.hpp).
// Internal to the config module.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "app/config/config.hpp"
#include "app/config/config_parser.hpp"

namespace srs {

class ConfigBuilder {
  public:
    explicit ConfigBuilder(Config* conf) : conf_(conf) {}

    // Rewrites old forms, validates and keeps the values of a parsed conf.
    // The tree is consumed (its arguments are moved out).
    Error absorb(ConfNode* root);
    // Applies SRS_* variables to the rows they name (after absorb).
    Error apply_env(const Config::EnvGetter& getenv_fn);
    void ensure_default_vhost();

  private:
    void rewrite_legacy(ConfNode* parent, const std::vector<LegacyRename>& renames);
    // SRS's flat refer forms: `refer a.com;` becomes the block's `all`; it and
    // refer_play / refer_publish turn the check on (as SRS's transform does).
    // Returns whether a flat form was there, for enable_refer() after the renames.
    bool rewrite_legacy_refer(ConfNode* vhost);
    void enable_refer(ConfNode* vhost);
    // `forward HOST:PORT ...;` (SRS 1/2) -> forward { enabled on; destination ...; }.
    void upgrade_legacy_forward(ConfNode* vhost);
    void note_rewrite(const ConfNode& node, const std::string& from, const std::string& to);
    // One warning per path; `where` is "file:line" or "env SRS_...".
    void warn_partial(const DirectiveSpec& spec, const std::string& where, const std::vector<std::string>& args);
    void warn_not_implemented(const std::string& path, const std::string& where);
    // `sections` receives the repeated rows met (nullptr outside a vhost).
    Error walk(std::vector<ConfNode>& nodes, const std::string& scope, Config::Values* out,
               std::vector<ConfigSection>* sections);
    Error absorb_block(const DirectiveSpec& spec, ConfNode& node, Config::Values* out,
                       std::vector<ConfigSection>* sections);
    // A repeated row's occurrence: kept whole in a ConfigSection.
    Error absorb_section(const DirectiveSpec& spec, ConfNode& node, std::vector<ConfigSection>* sections);

    Config* conf_;
    std::set<std::string> warned_;  // not-implemented paths already warned about
};

}  // namespace srs

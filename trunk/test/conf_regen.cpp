// make conf-regen: rewrites what is rendered from the directive table
// (conf/full.conf, the reference in ../docs/config.md, the typed keys in
// src/app/config/config_keys.hpp). It links only the table and its
// renderers, so it builds even while code that needs a new key does not.
// ConfigFullConf's unit tests fail while any of the three is stale.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "app/config/config_directives.hpp"

namespace {

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Writes only a changed file: every file that reads a config includes the keys.
bool update(const std::string& path, const std::string& text) {
    if (read_file(path) == text) return true;
    std::ofstream out(path);
    out << text;
    if (!out) {
        fprintf(stderr, "conf-regen: cannot write %s\n", path.c_str());
        return false;
    }
    printf("conf-regen: wrote %s\n", path.c_str());
    return true;
}

}  // namespace

int main() {
    const std::string begin = "<!-- BEGIN GENERATED REFERENCE -->\n";
    const std::string end = "<!-- END GENERATED REFERENCE -->\n";
    std::string doc = read_file("../docs/config.md");
    size_t b = doc.find(begin);
    size_t e = doc.find(end);
    if (b == std::string::npos || e == std::string::npos || e < b) {
        fprintf(stderr, "conf-regen: ../docs/config.md lacks the GENERATED REFERENCE markers (run from trunk/)\n");
        return 1;
    }
    b += begin.size();
    doc.replace(b, e - b, srs::render_reference_markdown());
    bool ok = update("conf/full.conf", srs::render_full_conf()) && update("../docs/config.md", doc) &&
              update("src/app/config/config_keys.hpp", srs::render_config_keys_header());
    return ok ? 0 : 1;
}

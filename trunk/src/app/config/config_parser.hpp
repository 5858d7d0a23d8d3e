// The conf file grammar (SRS's, which is nginx's with one extra rule):
//
//   file      := directive*
//   directive := NAME ARG* ( ";" | "{" directive* "}" )
//
// Tokens are separated by spaces and tabs; "#" starts a comment to the end of
// the line when it begins a token; "..." and '...' quote an argument (no
// escapes). A directive must end on the line where it starts: a newline while
// arguments are pending is an error, so a forgotten ";" is caught at its line.
//
// Two layers:
// - parse_conf_text() is sans-IO: text in, tree out. `include` stays a plain
//   node in its tree.
// - load_conf_file() / expand_conf_includes() read files and replace every
//   `include f1 f2;` by the directives of those files, in place, at any level.
//
// Every node keeps its file and line, and every error starts with
// "file:line: ", e.g. `conf/x.conf:12: unexpected "}"`.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace srs {

// Limits against hostile or broken input.
constexpr size_t kConfMaxFileBytes = 4 * 1024 * 1024;
constexpr size_t kConfMaxTokenBytes = 64 * 1024;
constexpr size_t kConfMaxArgs = 1024;          // arguments of one directive
constexpr size_t kConfMaxDirectives = 100000;  // directives in one file
constexpr int kConfMaxNesting = 32;            // { } levels in one file
constexpr int kConfMaxIncludeDepth = 8;        // include chain length
constexpr int kConfMaxIncludedFiles = 256;     // files read for one load

struct ConfNode {
    std::string name;
    std::vector<std::string> args;
    std::vector<ConfNode> children;
    bool has_block = false;  // "name args { ... }" (even if empty)
    std::string file;
    int line = 0;

    // "file:line", the prefix of every message about this node.
    std::string where() const;
};

// Parses `text` into root->children; `file` names the text in messages.
// The root itself has no name. An empty text is a valid, empty conf.
Error parse_conf_text(const std::string& text, const std::string& file, ConfNode* root);

// Replaces each `include` node under `root` (at any depth) by the directives of
// the files it names. A relative path is looked up in the directory of the file
// that holds the include first, then in the working directory. Cycles and
// chains longer than kConfMaxIncludeDepth are errors.
Error expand_conf_includes(ConfNode* root);

// Reads, parses and expands one conf file.
Error load_conf_file(const std::string& path, ConfNode* root);

// Reads a whole conf file (regular file, at most kConfMaxFileBytes).
Error read_conf_file(const std::string& path, std::string* out);

}  // namespace srs

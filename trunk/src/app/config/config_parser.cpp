#include "app/config/config_parser.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace srs {

std::string ConfNode::where() const { return file + ":" + std::to_string(line); }

namespace {

enum class TokenType { kWord, kSemicolon, kOpen, kClose, kEof };

struct Token {
    TokenType type = TokenType::kEof;
    std::string text;  // kWord only, quotes removed
    int line = 0;
};

const char* token_spelling(TokenType type) {
    switch (type) {
        case TokenType::kSemicolon: return "\";\"";
        case TokenType::kOpen: return "\"{\"";
        case TokenType::kClose: return "\"}\"";
        default: return "end of file";
    }
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool is_punct(char c) { return c == ';' || c == '{' || c == '}'; }

// Splits conf text into words and punctuation, tracking line numbers.
class ConfTokenizer {
  public:
    ConfTokenizer(const std::string& text, const std::string& file) : text_(text), file_(file) {}

    Error next(Token* tok) {
        skip_spaces_and_comments();
        tok->line = line_;
        tok->text.clear();
        if (pos_ >= text_.size()) {
            tok->type = TokenType::kEof;
            return Error();
        }
        char c = text_[pos_];
        if (is_punct(c)) {
            ++pos_;
            tok->type = c == ';' ? TokenType::kSemicolon : (c == '{' ? TokenType::kOpen : TokenType::kClose);
            return Error();
        }
        tok->type = TokenType::kWord;
        if (c == '"' || c == '\'') return read_quoted(tok);
        return read_word(tok);
    }

  private:
    void skip_spaces_and_comments() {
        while (pos_ < text_.size()) {
            char c = text_[pos_];
            if (c == '\n') {
                ++line_;
                ++pos_;
            } else if (is_space(c)) {
                ++pos_;
            } else if (c == '#') {
                while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
            } else {
                return;
            }
        }
    }

    // A control byte other than tab/CR/LF is never part of a sane conf.
    Error check_byte(char c) const {
        unsigned char u = static_cast<unsigned char>(c);
        if (u < 0x20 && c != '\t' && c != '\r' && c != '\n') {
            return SRS_ERR(kErrorConfigInvalid, "%s:%d: unexpected control character 0x%02x", file_.c_str(), line_, u);
        }
        return Error();
    }

    Error read_word(Token* tok) {
        size_t start = pos_;
        while (pos_ < text_.size() && !is_space(text_[pos_]) && !is_punct(text_[pos_])) {
            if (Error err = check_byte(text_[pos_]); !err.ok()) return err;
            ++pos_;
        }
        if (pos_ - start > kConfMaxTokenBytes) {
            return SRS_ERR(kErrorConfigInvalid, "%s:%d: token longer than %zu bytes", file_.c_str(), line_,
                           kConfMaxTokenBytes);
        }
        tok->text.assign(text_, start, pos_ - start);
        return Error();
    }

    // A quoted argument ends on its own line and is followed by a separator.
    Error read_quoted(Token* tok) {
        char quote = text_[pos_++];
        size_t start = pos_;
        while (pos_ < text_.size() && text_[pos_] != quote && text_[pos_] != '\n') {
            if (Error err = check_byte(text_[pos_]); !err.ok()) return err;
            ++pos_;
        }
        if (pos_ >= text_.size() || text_[pos_] != quote) {
            return SRS_ERR(kErrorConfigInvalid, "%s:%d: unterminated quote %c", file_.c_str(), line_, quote);
        }
        if (pos_ - start > kConfMaxTokenBytes) {
            return SRS_ERR(kErrorConfigInvalid, "%s:%d: token longer than %zu bytes", file_.c_str(), line_,
                           kConfMaxTokenBytes);
        }
        tok->text.assign(text_, start, pos_ - start);
        ++pos_;
        if (pos_ < text_.size() && !is_space(text_[pos_]) && !is_punct(text_[pos_])) {
            return SRS_ERR(kErrorConfigInvalid, "%s:%d: unexpected \"%c\" after quoted argument", file_.c_str(),
                           line_, text_[pos_]);
        }
        return Error();
    }

    const std::string& text_;
    const std::string& file_;
    size_t pos_ = 0;
    int line_ = 1;
};

// Recursive descent over the tokens; one call per block.
class ConfParser {
  public:
    ConfParser(const std::string& text, const std::string& file) : tokens_(text, file), file_(file) {}

    Error parse_root(ConfNode* root) {
        root->file = file_;
        root->line = 0;
        return parse_block(root, 0);
    }

  private:
    // Parses directives until the "}" closing `parent` (or EOF at depth 0).
    Error parse_block(ConfNode* parent, int depth) {
        for (;;) {
            Token tok;
            if (Error err = tokens_.next(&tok); !err.ok()) return err;
            if (tok.type == TokenType::kEof) {
                if (depth == 0) return Error();
                return SRS_ERR(kErrorConfigEof,
                               "%s:%d: unexpected end of file, expecting \"}\" to close \"%s\" at line %d",
                               file_.c_str(), tok.line, parent->name.c_str(), parent->line);
            }
            if (tok.type == TokenType::kClose) {
                if (depth > 0) return Error();
                return SRS_ERR(kErrorConfigBlockEnd, "%s:%d: unexpected \"}\"", file_.c_str(), tok.line);
            }
            if (tok.type != TokenType::kWord) {
                return SRS_ERR(kErrorConfigDirective, "%s:%d: unexpected %s", file_.c_str(), tok.line,
                               token_spelling(tok.type));
            }
            if (++directives_ > kConfMaxDirectives) {
                return SRS_ERR(kErrorConfigInvalid, "%s:%d: more than %zu directives", file_.c_str(), tok.line,
                               kConfMaxDirectives);
            }
            parent->children.emplace_back();
            ConfNode& node = parent->children.back();
            node.name = std::move(tok.text);
            node.file = file_;
            node.line = tok.line;
            if (Error err = parse_directive_rest(&node, depth); !err.ok()) return err;
        }
    }

    // After the name: arguments, then ";" or a block, all starting on the name's line.
    Error parse_directive_rest(ConfNode* node, int depth) {
        for (;;) {
            Token tok;
            if (Error err = tokens_.next(&tok); !err.ok()) return err;
            if (tok.line != node->line) {
                return SRS_ERR(kErrorConfigDirective,
                               "%s:%d: unexpected end of line, expecting \";\" or \"{\" after \"%s\"", file_.c_str(),
                               node->line, node->name.c_str());
            }
            if (tok.type == TokenType::kEof) {
                return SRS_ERR(kErrorConfigEof, "%s:%d: unexpected end of file, expecting \";\" or \"{\" after \"%s\"",
                               file_.c_str(), tok.line, node->name.c_str());
            }
            switch (tok.type) {
                case TokenType::kWord:
                    if (node->args.size() >= kConfMaxArgs) {
                        return SRS_ERR(kErrorConfigInvalid, "%s:%d: more than %zu arguments", file_.c_str(),
                                       tok.line, kConfMaxArgs);
                    }
                    node->args.push_back(std::move(tok.text));
                    break;
                case TokenType::kSemicolon:
                    return Error();
                case TokenType::kOpen:
                    if (depth + 1 > kConfMaxNesting) {
                        return SRS_ERR(kErrorConfigBlockStart, "%s:%d: blocks nested deeper than %d", file_.c_str(),
                                       tok.line, kConfMaxNesting);
                    }
                    node->has_block = true;
                    return parse_block(node, depth + 1);
                default:
                    return SRS_ERR(kErrorConfigBlockEnd, "%s:%d: unexpected \"}\"", file_.c_str(), tok.line);
            }
        }
    }

    ConfTokenizer tokens_;
    const std::string& file_;
    size_t directives_ = 0;
};

std::string dir_of(const std::string& path) {
    size_t slash = path.rfind('/');
    if (slash == std::string::npos) return "";
    return path.substr(0, slash + 1);
}

bool file_exists(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0;
}

// Canonical path for cycle detection (the path itself if it cannot be resolved).
std::string canonical(const std::string& path) {
    char buf[PATH_MAX];
    if (realpath(path.c_str(), buf)) return buf;
    return path;
}

struct IncludeState {
    std::vector<std::string> chain;  // canonical paths of the files being expanded
    int depth = 0;                   // include levels below the root text
    int files_read = 0;
};

Error expand_children(std::vector<ConfNode>* nodes, IncludeState* state);

// Resolves an include argument: the including file's directory first, then cwd.
Error resolve_include(const ConfNode& inc, const std::string& arg, std::string* out) {
    if (!arg.empty() && arg[0] == '/') {
        *out = arg;
        return Error();
    }
    std::string dir = dir_of(inc.file);
    if (!dir.empty() && file_exists(dir + arg)) {
        *out = dir + arg;
        return Error();
    }
    if (file_exists(arg)) {
        *out = arg;
        return Error();
    }
    if (dir.empty()) {
        return SRS_ERR(kErrorConfigInclude, "%s: include \"%s\": no such file", inc.where().c_str(), arg.c_str());
    }
    return SRS_ERR(kErrorConfigInclude, "%s: include \"%s\": no such file (tried %s%s and ./%s)", inc.where().c_str(),
                   arg.c_str(), dir.c_str(), arg.c_str(), arg.c_str());
}

// Reads and parses one included file into `out` (its top-level directives).
Error load_included(const ConfNode& inc, const std::string& arg, IncludeState* state, std::vector<ConfNode>* out) {
    std::string path;
    if (Error err = resolve_include(inc, arg, &path); !err.ok()) return err;
    if (state->depth >= kConfMaxIncludeDepth) {
        return SRS_ERR(kErrorConfigInclude, "%s: include \"%s\": includes nested deeper than %d", inc.where().c_str(),
                       arg.c_str(), kConfMaxIncludeDepth);
    }
    std::string key = canonical(path);
    for (const std::string& open : state->chain) {
        if (open == key) {
            return SRS_ERR(kErrorConfigInclude, "%s: include \"%s\": include cycle, %s is already being read",
                           inc.where().c_str(), arg.c_str(), path.c_str());
        }
    }
    if (++state->files_read > kConfMaxIncludedFiles) {
        return SRS_ERR(kErrorConfigInclude, "%s: include \"%s\": more than %d included files", inc.where().c_str(),
                       arg.c_str(), kConfMaxIncludedFiles);
    }
    std::string text;
    if (Error err = read_conf_file(path, &text); !err.ok()) {
        return SRS_WRAP(err, "%s: include \"%s\"", inc.where().c_str(), arg.c_str());
    }
    ConfNode sub;
    if (Error err = parse_conf_text(text, path, &sub); !err.ok()) {
        return SRS_WRAP(err, "%s: include \"%s\"", inc.where().c_str(), arg.c_str());
    }
    state->chain.push_back(key);
    ++state->depth;
    Error err = expand_children(&sub.children, state);
    --state->depth;
    state->chain.pop_back();
    if (!err.ok()) return err;
    for (ConfNode& n : sub.children) out->push_back(std::move(n));
    return Error();
}

Error expand_children(std::vector<ConfNode>* nodes, IncludeState* state) {
    std::vector<ConfNode> result;
    result.reserve(nodes->size());
    for (ConfNode& node : *nodes) {
        if (node.name != "include") {
            if (node.has_block) {
                if (Error err = expand_children(&node.children, state); !err.ok()) return err;
            }
            result.push_back(std::move(node));
            continue;
        }
        if (node.has_block || node.args.empty()) {
            return SRS_ERR(kErrorConfigInclude, "%s: include takes one or more files and no block",
                           node.where().c_str());
        }
        for (const std::string& arg : node.args) {
            if (Error err = load_included(node, arg, state, &result); !err.ok()) return err;
        }
    }
    nodes->swap(result);
    return Error();
}

}  // namespace

Error parse_conf_text(const std::string& text, const std::string& file, ConfNode* root) {
    if (text.size() > kConfMaxFileBytes) {
        return SRS_ERR(kErrorConfigInvalid, "%s: larger than %zu bytes", file.c_str(), kConfMaxFileBytes);
    }
    ConfParser parser(text, file);
    return parser.parse_root(root);
}

Error expand_conf_includes(ConfNode* root) {
    IncludeState state;
    // The root file (if any) is part of the chain, so it cannot include itself.
    if (!root->file.empty() && file_exists(root->file)) state.chain.push_back(canonical(root->file));
    return expand_children(&root->children, &state);
}

Error read_conf_file(const std::string& path, std::string* out) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) {
        return SRS_ERR(kErrorFileOpen, "open %s: %s", path.c_str(), strerror(errno));
    }
    if (!S_ISREG(st.st_mode)) return SRS_ERR(kErrorFileOpen, "open %s: not a regular file", path.c_str());
    if (static_cast<size_t>(st.st_size) > kConfMaxFileBytes) {
        return SRS_ERR(kErrorConfigInvalid, "%s: larger than %zu bytes", path.c_str(), kConfMaxFileBytes);
    }
    FILE* f = fopen(path.c_str(), "rb");
    if (!f) return SRS_ERR(kErrorFileOpen, "open %s: %s", path.c_str(), strerror(errno));
    out->clear();
    char buf[16 * 1024];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
        out->append(buf, n);
        // The file may grow between stat and read.
        if (out->size() > kConfMaxFileBytes) {
            fclose(f);
            return SRS_ERR(kErrorConfigInvalid, "%s: larger than %zu bytes", path.c_str(), kConfMaxFileBytes);
        }
    }
    bool failed = ferror(f) != 0;
    fclose(f);
    if (failed) return SRS_ERR(kErrorFileRead, "read %s failed", path.c_str());
    return Error();
}

Error load_conf_file(const std::string& path, ConfNode* root) {
    std::string text;
    if (Error err = read_conf_file(path, &text); !err.ok()) return err;
    if (Error err = parse_conf_text(text, path, root); !err.ok()) return err;
    return expand_conf_includes(root);
}

}  // namespace srs

#include "app/config/config_parser.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

using namespace srs;

namespace {

// The error text of parsing `text` as "t.conf", or "" when it parses.
std::string parse_error(const std::string& text) {
    ConfNode root;
    Error err = parse_conf_text(text, "t.conf", &root);
    return err.ok() ? "" : err.summary();
}

ConfNode parse_ok(const std::string& text) {
    ConfNode root;
    Error err = parse_conf_text(text, "t.conf", &root);
    EXPECT_TRUE(err.ok()) << err.summary();
    return root;
}

// A scratch directory removed with everything in it at the end of the test.
class TempDir {
  public:
    TempDir() {
        char tmpl[] = "/tmp/srs_conf_test_XXXXXX";
        path_ = mkdtemp(tmpl);
    }
    ~TempDir() { std::filesystem::remove_all(path_); }
    const std::string& path() const { return path_; }
    std::string write(const std::string& name, const std::string& text) const {
        std::string full = path_ + "/" + name;
        std::filesystem::create_directories(std::filesystem::path(full).parent_path());
        std::ofstream(full) << text;
        return full;
    }

  private:
    std::string path_;
};

std::string load_error(const std::string& path) {
    ConfNode root;
    Error err = load_conf_file(path, &root);
    return err.ok() ? "" : err.summary();
}

}  // namespace

TEST(ConfigParser, EmptyAndCommentOnlyTextsAreValid) {
    EXPECT_TRUE(parse_ok("").children.empty());
    EXPECT_TRUE(parse_ok("\n\n   \t\n").children.empty());
    EXPECT_TRUE(parse_ok("# nothing here\n   # still nothing").children.empty());
}

TEST(ConfigParser, DirectivesKeepArgsFileAndLine) {
    ConfNode root = parse_ok("listen 1935 1936;\n\n# comment\ndaemon off; # trailing comment\n");
    ASSERT_EQ(2u, root.children.size());
    const ConfNode& listen = root.children[0];
    EXPECT_EQ("listen", listen.name);
    EXPECT_EQ((std::vector<std::string>{"1935", "1936"}), listen.args);
    EXPECT_FALSE(listen.has_block);
    EXPECT_EQ("t.conf:1", listen.where());
    EXPECT_EQ("daemon", root.children[1].name);
    EXPECT_EQ(4, root.children[1].line);
}

TEST(ConfigParser, BlocksNestAndRepeat) {
    ConfNode root = parse_ok(
        "vhost a {\n"
        "    play {\n"
        "        gop_cache off;\n"
        "    }\n"
        "}\n"
        "vhost b { enabled on; play { mw_latency 100; } }\n"
        "vhost c {}\n");
    ASSERT_EQ(3u, root.children.size());
    const ConfNode& a = root.children[0];
    EXPECT_TRUE(a.has_block);
    EXPECT_EQ(std::vector<std::string>{"a"}, a.args);
    ASSERT_EQ(1u, a.children.size());
    ASSERT_EQ(1u, a.children[0].children.size());
    EXPECT_EQ("gop_cache", a.children[0].children[0].name);
    EXPECT_EQ(3, a.children[0].children[0].line);
    EXPECT_EQ(2u, root.children[1].children.size());
    EXPECT_EQ(6, root.children[1].children[1].children[0].line);
    EXPECT_TRUE(root.children[2].has_block);
    EXPECT_TRUE(root.children[2].children.empty());
}

TEST(ConfigParser, QuotesAndSpecialCharacters) {
    ConfNode root = parse_ok(
        "a \"x y\" 'c;d{}' \"\" 'it\"s';\n"
        "url http://h/p#frag;\n"
        "b c;\r\n"
        "d\t e ;\n");
    ASSERT_EQ(4u, root.children.size());
    EXPECT_EQ((std::vector<std::string>{"x y", "c;d{}", "", "it\"s"}), root.children[0].args);
    EXPECT_EQ(std::vector<std::string>{"http://h/p#frag"}, root.children[1].args);
    EXPECT_EQ(std::vector<std::string>{"c"}, root.children[2].args);
    EXPECT_EQ(4, root.children[3].line);
    EXPECT_EQ(std::vector<std::string>{"e"}, root.children[3].args);
}

TEST(ConfigParser, BrokenInputsNameFileAndLine) {
    EXPECT_EQ("t.conf:3: unexpected end of file, expecting \"}\" to close \"vhost\" at line 1",
              parse_error("vhost a {\n  enabled on;\n"));
    EXPECT_EQ("t.conf:2: unexpected \"}\"", parse_error("listen 1935;\n}\n"));
    EXPECT_EQ("t.conf:2: unterminated quote \"", parse_error("a 1;\nb \"abc;\nc 2;\n"));
    EXPECT_EQ("t.conf:1: unterminated quote '", parse_error("b 'abc"));
    EXPECT_EQ("t.conf:1: unexpected end of line, expecting \";\" or \"{\" after \"listen\"",
              parse_error("listen 1935\ndaemon off;\n"));
    EXPECT_EQ("t.conf:2: unexpected end of line, expecting \";\" or \"{\" after \"listen\"",
              parse_error("\nlisten 1935 # no semicolon\n;\n"));
    EXPECT_EQ("t.conf:1: unexpected end of line, expecting \";\" or \"{\" after \"vhost\"",
              parse_error("vhost a\n{\n}\n"));
    EXPECT_EQ("t.conf:1: unexpected end of line, expecting \";\" or \"{\" after \"listen\"",
              parse_error("listen 1935\n"));
    EXPECT_EQ("t.conf:1: unexpected end of file, expecting \";\" or \"{\" after \"listen\"",
              parse_error("listen 1935"));
    EXPECT_EQ("t.conf:1: unexpected \";\"", parse_error("; listen 1935;"));
    EXPECT_EQ("t.conf:2: unexpected \"{\"", parse_error("a 1;\n{ }\n"));
    EXPECT_EQ("t.conf:1: unexpected \"}\"", parse_error("listen 1935 }"));
    EXPECT_EQ("t.conf:1: unexpected \"x\" after quoted argument", parse_error("a \"b\"x;"));
    EXPECT_EQ("t.conf:2: unexpected control character 0x00", parse_error("a 1;\nb c" + std::string(1, '\0') + ";"));
}

TEST(ConfigParser, LimitsAgainstHostileInput) {
    std::string deep;
    for (int i = 0; i < kConfMaxNesting; ++i) deep += "a {";
    for (int i = 0; i < kConfMaxNesting; ++i) deep += "}";
    EXPECT_EQ("", parse_error(deep));
    EXPECT_EQ("t.conf:1: blocks nested deeper than 32", parse_error("b { " + deep + " }"));

    std::string max_token(kConfMaxTokenBytes, 'x');
    EXPECT_EQ("", parse_error("a " + max_token + ";"));
    EXPECT_EQ("t.conf:1: token longer than 65536 bytes", parse_error("a " + max_token + "x;"));
    EXPECT_EQ("t.conf:1: token longer than 65536 bytes", parse_error("a \"" + max_token + "x\";"));

    std::string many_args = "a";
    for (size_t i = 0; i <= kConfMaxArgs; ++i) many_args += " x";
    EXPECT_EQ("t.conf:1: more than 1024 arguments", parse_error(many_args + ";"));

    std::string huge(kConfMaxFileBytes + 1, '#');
    EXPECT_EQ("t.conf: larger than 4194304 bytes", parse_error(huge));
}

TEST(ConfigParser, IncludeIsParsedInPlaceRelativeToTheIncludingFile) {
    TempDir dir;
    dir.write("sub/a.conf", "enabled on;\ninclude b.conf;\n");
    dir.write("sub/b.conf", "\nplay { gop_cache off; }\n");
    std::string main =
        dir.write("main.conf", "listen 1935;\nvhost x {\n    include sub/a.conf;\n    tcp_nodelay on;\n}\n");

    ConfNode root;
    Error err = load_conf_file(main, &root);
    ASSERT_TRUE(err.ok()) << err.summary();
    ASSERT_EQ(2u, root.children.size());
    const ConfNode& vhost = root.children[1];
    ASSERT_EQ(3u, vhost.children.size());
    EXPECT_EQ("enabled", vhost.children[0].name);
    EXPECT_EQ(dir.path() + "/sub/a.conf:1", vhost.children[0].where());
    EXPECT_EQ("play", vhost.children[1].name);
    EXPECT_EQ(dir.path() + "/sub/b.conf:2", vhost.children[1].where());
    EXPECT_EQ("tcp_nodelay", vhost.children[2].name);
    EXPECT_EQ(main + ":4", vhost.children[2].where());
}

TEST(ConfigParser, IncludeSeveralFilesAndFallBackToTheWorkingDirectory) {
    TempDir dir;
    dir.write("one.conf", "a 1;");
    dir.write("two.conf", "b 2;");
    dir.write("conf/main.conf", "include one.conf two.conf;\nc 3;\n");
    char cwd[4096];
    ASSERT_TRUE(getcwd(cwd, sizeof(cwd)));
    ASSERT_EQ(0, chdir(dir.path().c_str()));
    ConfNode root;
    Error err = load_conf_file("conf/main.conf", &root);
    ASSERT_EQ(0, chdir(cwd));
    ASSERT_TRUE(err.ok()) << err.summary();
    ASSERT_EQ(3u, root.children.size());
    EXPECT_EQ("one.conf:1", root.children[0].where());
    EXPECT_EQ("b", root.children[1].name);
    EXPECT_EQ("c", root.children[2].name);
}

TEST(ConfigParser, IncludeErrors) {
    TempDir dir;
    std::string p = dir.path() + "/";

    std::string missing = dir.write("missing.conf", "a 1;\ninclude nope.conf;\n");
    std::string err = load_error(missing);
    EXPECT_NE(std::string::npos, err.find(missing + ":2: include \"nope.conf\": no such file")) << err;

    dir.write("cycle_b.conf", "include cycle_a.conf;\n");
    std::string cycle = dir.write("cycle_a.conf", "\ninclude cycle_b.conf;\n");
    err = load_error(cycle);
    EXPECT_NE(std::string::npos, err.find(p + "cycle_b.conf:1: include \"cycle_a.conf\": include cycle")) << err;

    std::string self = dir.write("self.conf", "include self.conf;\n");
    EXPECT_NE(std::string::npos, load_error(self).find("include cycle"));

    // A chain of 8 includes is fine, 9 is too deep.
    for (int i = 0; i < 9; ++i) {
        dir.write("d" + std::to_string(i) + ".conf", "include d" + std::to_string(i + 1) + ".conf;\n");
    }
    dir.write("d9.conf", "a 1;\n");
    EXPECT_EQ("", load_error(p + "d1.conf"));
    err = load_error(p + "d0.conf");
    EXPECT_NE(std::string::npos, err.find(p + "d8.conf:1: include \"d9.conf\": includes nested deeper than 8")) << err;

    std::string bare = dir.write("bare.conf", "include;\n");
    EXPECT_EQ(bare + ":1: include takes one or more files and no block", load_error(bare));

    std::string broken_inc = dir.write("broken_inc.conf", "include broken.conf;\n");
    dir.write("broken.conf", "a {\n");
    err = load_error(broken_inc);
    EXPECT_NE(std::string::npos, err.find(p + "broken.conf:2: unexpected end of file")) << err;
    EXPECT_NE(std::string::npos, err.find(broken_inc + ":1: include \"broken.conf\"")) << err;

    EXPECT_NE(std::string::npos, load_error(p + "absent.conf").find("open " + p + "absent.conf"));
    EXPECT_NE(std::string::npos, load_error(dir.path()).find("not a regular file"));
}

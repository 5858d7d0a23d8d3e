#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/log.hpp"

using namespace srs;

namespace {
std::string read_file(const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}
const char* cid() { return "cid00001"; }
}  // namespace

TEST(CoreLog, ParsesBothLevelNameSets) {
    LogLevel l;
    ASSERT_TRUE(parse_log_level("trace", &l));
    EXPECT_EQ(l, LogLevel::kTrace);
    ASSERT_TRUE(parse_log_level("INFO", &l));
    EXPECT_EQ(l, LogLevel::kTrace);
    ASSERT_TRUE(parse_log_level("DEBUG", &l));
    EXPECT_EQ(l, LogLevel::kInfo);
    ASSERT_TRUE(parse_log_level("error", &l));
    EXPECT_EQ(l, LogLevel::kError);
    EXPECT_FALSE(parse_log_level("loud", &l));
}

TEST(CoreLog, FileTankFormatLevelsAndReopen) {
    char tmpl[] = "/tmp/srs_log_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    std::string path = std::string(tmpl) + "/srs.log";
    Logger& log = Logger::instance();
    set_context_id_provider(cid);
    ASSERT_TRUE(log.use_file(path).ok());
    log.set_level(LogLevel::kTrace);
    srs_info("hidden %d", 1);
    srs_trace("shown %d", 2);
    errno = 0;
    srs_warn("careful");
    std::string text = read_file(path);
    EXPECT_EQ(text.find("hidden"), std::string::npos);
    // [2026-11-21 10:00:00.123][INFO][pid][cid] shown 2
    std::string pid = std::to_string(getpid());
    EXPECT_NE(text.find("][INFO][" + pid + "][cid00001] shown 2\n"), std::string::npos) << text;
    EXPECT_NE(text.find("][WARN][" + pid + "][cid00001] careful\n"), std::string::npos) << text;
    EXPECT_EQ(text[0], '[');
    EXPECT_EQ(text[24], ']');  // "[YYYY-MM-DD HH:MM:SS.mmm]"

    // logrotate: move the file away, reopen, keep logging to the new one.
    std::string rotated = path + ".1";
    ASSERT_EQ(rename(path.c_str(), rotated.c_str()), 0);
    ASSERT_TRUE(log.reopen().ok());
    srs_trace("after rotate");
    EXPECT_NE(read_file(path).find("after rotate"), std::string::npos);
    EXPECT_EQ(read_file(rotated).find("after rotate"), std::string::npos);

    log.use_console();
    set_context_id_provider(nullptr);
    unlink(path.c_str());
    unlink(rotated.c_str());
    rmdir(tmpl);
}

TEST(CoreLog, OpenFailureIsAnError) {
    Error err = Logger::instance().use_file("/nonexistent-dir/x.log");
    EXPECT_EQ(err.code(), kErrorFileOpen);
    EXPECT_NE(err.summary().find("/nonexistent-dir/x.log"), std::string::npos);
}

// Lines longer than the short stack buffer are formatted again into the
// heap: whole up to 8 KiB, then truncated, and always one line each.
TEST(CoreLog, LongLinesAreWholeUpToTheLimit) {
    char tmpl[] = "/tmp/srs_log_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    std::string path = std::string(tmpl) + "/srs.log";
    Logger& log = Logger::instance();
    set_context_id_provider(cid);
    ASSERT_TRUE(log.use_file(path).ok());
    log.set_level(LogLevel::kTrace);
    std::string medium(3000, 'm'), huge(20000, 'h');
    srs_trace("a %s z", medium.c_str());
    srs_trace("b %s z", huge.c_str());
    srs_trace("short %d", 7);
    std::string text = read_file(path);
    std::vector<std::string> lines;
    std::stringstream ss(text);
    for (std::string l; std::getline(ss, l);) lines.push_back(l);
    ASSERT_EQ(lines.size(), 3u) << text.substr(0, 200);
    EXPECT_NE(lines[0].find("a " + medium + " z"), std::string::npos);
    EXPECT_EQ(lines[1].size(), 8192u - 2);  // the limit less the newline and the terminator
    EXPECT_NE(lines[1].find("] b hhhh"), std::string::npos);
    EXPECT_EQ(lines[1].back(), 'h');
    EXPECT_NE(lines[2].find("] short 7"), std::string::npos);
    log.use_console();
    set_context_id_provider(nullptr);
    unlink(path.c_str());
    rmdir(tmpl);
}

// /api/v1/tcmalloc and tcmalloc_release_rate. A build without --gperf=on
// answers 404 with a hint, is not listed, and ignores the release rate; a
// --gperf=on build (test/variants) answers tcmalloc's text report for
// ?page=summary and its numeric properties as JSON otherwise.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "app/api/tcmalloc_api.hpp"
#include "core/log.hpp"
#include "utest/app/api/api_test_util.hpp"

#ifdef SRS_GPERF
#include <gperftools/malloc_extension.h>
#endif

using namespace srs;
using Json = ApiEndpoint::Json;

namespace {

HttpRequest get(const std::string& query) { return utest::api_get("/api/v1/tcmalloc", query); }

Json envelope() { return utest::api_envelope(); }

std::shared_ptr<const Config> config_with(const std::string& text) {
    std::shared_ptr<const Config> c;
    EXPECT_TRUE(Config::load_text("listen 1935;\n" + text, "test", &c).ok());
    return c;
}

}  // namespace

TEST(AppTcmallocApi, PathAndDescription) {
    TcmallocEndpoint e;
    EXPECT_STREQ("/api/v1/tcmalloc", e.path());
    EXPECT_NE(std::string(e.description()).find("page=summary"), std::string::npos);
    EXPECT_EQ(tcmalloc_linked(), e.listed());
}

TEST(AppTcmallocApi, ReleaseRateDirectiveIsReloadable) {
    EXPECT_TRUE(Config::reloadable("tcmalloc_release_rate"));
    EXPECT_DOUBLE_EQ(0.8, config_with("")->get(keys::tcmalloc_release_rate));
    EXPECT_DOUBLE_EQ(2.5, config_with("tcmalloc_release_rate 2.5;\n")->get(keys::tcmalloc_release_rate));
}

#ifndef SRS_GPERF

TEST(AppTcmallocApi, WithoutGperfAnswers404WithAHint) {
    TcmallocEndpoint e;
    for (const char* query : {"", "page=summary", "page=api"}) {
        std::string type, text;
        EXPECT_EQ(0, e.handle_text(get(query), &type, &text)) << query;
        Json body = envelope();
        EXPECT_EQ(404, e.handle(get(query), &body)) << query;
        EXPECT_EQ(404, body["code"].get<int>());
        EXPECT_NE(body["error"].get<std::string>().find("--gperf=on"), std::string::npos);
        EXPECT_FALSE(body.contains("data"));
    }
    EXPECT_FALSE(e.listed());
}

TEST(AppTcmallocApi, WithoutGperfTheReleaseRateIsIgnored) {
    // Without tcmalloc a rate changes nothing: no log line (a --gperf=on build
    // logs "tcmalloc: release rate 3.00"), and the API still answers 404.
    EXPECT_FALSE(tcmalloc_linked());
    std::shared_ptr<const Config> config = config_with("tcmalloc_release_rate 3;\n");
    char dir[] = "/tmp/srs_tcmalloc_test_XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    const std::string path = std::string(dir) + "/srs.log";
    Logger& log = Logger::instance();
    const LogLevel level = log.level();
    ASSERT_TRUE(log.use_file(path).ok());
    log.set_level(LogLevel::kVerbose);
    apply_tcmalloc_release_rate(*config);
    log.set_level(level);
    log.use_console();
    std::ifstream f(path);
    std::stringstream logged;
    logged << f.rdbuf();
    EXPECT_EQ("", logged.str());
    unlink(path.c_str());
    rmdir(dir);

    TcmallocEndpoint e;
    Json body = envelope();
    EXPECT_EQ(404, e.handle(get("page=api"), &body));
    EXPECT_FALSE(body.contains("data"));
}

#else

TEST(AppTcmallocApi, SummaryIsTcmallocsTextReport) {
    TcmallocEndpoint e;
    std::string type, text;
    EXPECT_EQ(200, e.handle_text(get("page=summary"), &type, &text));
    EXPECT_EQ("text/plain; charset=utf-8", type);
    EXPECT_NE(text.find("MALLOC:"), std::string::npos) << text;
    EXPECT_NE(text.find("Bytes in use by application"), std::string::npos) << text;
}

TEST(AppTcmallocApi, OtherPagesAnswerJson) {
    TcmallocEndpoint e;
    for (const char* query : {"", "page=api", "page=detail"}) {
        std::string type, text;
        EXPECT_EQ(0, e.handle_text(get(query), &type, &text)) << query;
        Json body = envelope();
        EXPECT_EQ(200, e.handle(get(query), &body)) << query;
        EXPECT_EQ(0, body["code"].get<int>());
        const Json& data = body["data"];
        EXPECT_EQ("?page=summary|api", data["query"]["help"].get<std::string>());
        EXPECT_TRUE(data["release_rate"].is_number());
        EXPECT_GT(data["generic"]["current_allocated_bytes"].get<uint64_t>(), 0u);
        EXPECT_GE(data["generic"]["heap_size"].get<uint64_t>(),
                  data["generic"]["current_allocated_bytes"].get<uint64_t>());
        for (const char* key : {"pageheap_free_bytes", "pageheap_unmapped_bytes", "slack_bytes",
                                "max_total_thread_cache_bytes", "current_total_thread_cache_bytes"}) {
            EXPECT_TRUE(data["tcmalloc"][key].is_number_unsigned()) << key;
        }
    }
}

TEST(AppTcmallocApi, ReleaseRateGoesToTcmalloc) {
    MallocExtension* m = MallocExtension::instance();
    double before = m->GetMemoryReleaseRate();
    apply_tcmalloc_release_rate(*config_with("tcmalloc_release_rate 3;\n"));
    EXPECT_DOUBLE_EQ(3.0, m->GetMemoryReleaseRate());
    apply_tcmalloc_release_rate(*config_with(""));
    EXPECT_DOUBLE_EQ(0.8, m->GetMemoryReleaseRate());
    m->SetMemoryReleaseRate(before);
}

#endif

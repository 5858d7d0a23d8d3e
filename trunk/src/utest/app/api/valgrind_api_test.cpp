// The valgrind API's pure part: ?check= parsing (missing or unknown means
// full; "new" falls back to the added check when the headers lack
// VALGRIND_DO_NEW_LEAK_CHECK), the answer's exact shape, the 404 of a build
// without --valgrind=on; and the endpoint object in this build (its checker
// coroutine starts on the first request and stops with the endpoint).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "app/api/valgrind_api.hpp"
#include "utest/app/api/api_test_util.hpp"
#include "io/runtime.hpp"
#include "utest/app/conn/fake_live_context.hpp"

#ifdef SRS_VALGRIND
#include <valgrind/memcheck.h>
#endif

using namespace srs;
using Json = ApiEndpoint::Json;

namespace {

HttpRequest get(const std::string& query) { return utest::api_get("/api/v1/valgrind", query); }

Json envelope() { return utest::api_envelope(); }

ValgrindEnv env(bool has_new, bool running = true) {
    ValgrindEnv e;
    e.enabled = true;
    e.has_new_check = has_new;
    e.running = running;
    return e;
}

// The whole answer for a query, as text.
std::string answer(const std::string& query, const ValgrindEnv& e, int* status = nullptr) {
    Json body = envelope();
    LeakCheckPlan plan;
    int s = valgrind_answer(get(query), e, &body, &plan);
    if (status) *status = s;
    return body.dump();
}

}  // namespace

TEST(AppValgrindApi, MissingOrUnknownCheckMeansFull) {
    for (const char* value : {"", "full", "FULL", "Added", "added ", "bogus", "leak", "0"}) {
        LeakCheckPlan p = parse_leak_check(value, false);
        EXPECT_EQ(p.asked, LeakCheckKind::kFull) << value;
        EXPECT_EQ(p.runs, LeakCheckKind::kFull) << value;
        EXPECT_FALSE(p.fallback()) << value;
    }
}

TEST(AppValgrindApi, EachValueRunsItsMacro) {
    struct Case {
        const char* value;
        LeakCheckKind kind;
        const char* name;
        const char* macro;
    };
    const std::vector<Case> cases = {
        {"full", LeakCheckKind::kFull, "full", "VALGRIND_DO_LEAK_CHECK"},
        {"quick", LeakCheckKind::kQuick, "quick", "VALGRIND_DO_QUICK_LEAK_CHECK"},
        {"added", LeakCheckKind::kAdded, "added", "VALGRIND_DO_ADDED_LEAK_CHECK"},
        {"changed", LeakCheckKind::kChanged, "changed", "VALGRIND_DO_CHANGED_LEAK_CHECK"},
        {"new", LeakCheckKind::kNew, "new", "VALGRIND_DO_NEW_LEAK_CHECK"},
    };
    for (const auto& c : cases) {
        LeakCheckPlan p = parse_leak_check(c.value, true);
        EXPECT_EQ(p.asked, c.kind) << c.value;
        EXPECT_EQ(p.runs, c.kind) << c.value;
        EXPECT_FALSE(p.fallback()) << c.value;
        EXPECT_STREQ(leak_check_name(c.kind), c.name);
        EXPECT_STREQ(leak_check_macro(c.kind), c.macro);
    }
}

TEST(AppValgrindApi, NewFallsBackToAddedWithoutTheMacro) {
    LeakCheckPlan p = parse_leak_check("new", false);
    EXPECT_EQ(p.asked, LeakCheckKind::kNew);
    EXPECT_EQ(p.runs, LeakCheckKind::kAdded);
    EXPECT_TRUE(p.fallback());
    // The others never fall back.
    for (const char* value : {"full", "quick", "added", "changed"}) {
        EXPECT_FALSE(parse_leak_check(value, false).fallback()) << value;
    }
}

TEST(AppValgrindApi, BuildKnowsWhatItsHeadersHave) {
#ifdef SRS_VALGRIND
    EXPECT_TRUE(valgrind_api_enabled());
#ifdef VALGRIND_DO_NEW_LEAK_CHECK
    EXPECT_TRUE(valgrind_has_new_leak_check());
#else
    EXPECT_FALSE(valgrind_has_new_leak_check());  // valgrind < 3.21, e.g. Debian 12's 3.19
#endif
#else
    EXPECT_FALSE(valgrind_api_enabled());
    EXPECT_FALSE(valgrind_has_new_leak_check());
#endif
}

TEST(AppValgrindApi, AnswerShapeIsExact) {
    int status = 0;
    EXPECT_EQ(answer("check=added", env(false), &status),
              R"({"code":0,"server":"vid-test","service":"testsrvc","pid":"1","data":{"check":"added",)"
              R"("help":"?check=full|added|changed|new|quick","see":"https://valgrind.org/docs/manual/mc-manual.html",)"
              R"("call":"VALGRIND_DO_ADDED_LEAK_CHECK"}})");
    EXPECT_EQ(status, 200);
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"check=full", R"("check":"full")"},       {"check=quick", R"("check":"quick")"},
        {"check=changed", R"("check":"changed")"}, {"", R"("check":"full")"},
        {"check=", R"("check":"full")"},           {"check=nope", R"("check":"full")"},
        {"x=1&check=added&y", R"("check":"added")"}, {"check", R"("check":"full")"},
        {"check=%61dded", R"("check":"added")"},  // percent-decoded like any query value
    };
    for (const auto& c : cases) {
        std::string text = answer(c.first, env(true), &status);
        EXPECT_EQ(status, 200) << c.first;
        EXPECT_NE(text.find(R"("data":{)" + c.second + R"(,"help":)"), std::string::npos) << c.first << text;
        Json data = Json::parse(text)["data"];
        ASSERT_EQ(data.size(), 4u) << text;
        std::vector<std::string> keys;
        for (auto it = data.begin(); it != data.end(); ++it) keys.push_back(it.key());
        EXPECT_EQ(keys, (std::vector<std::string>{"check", "help", "see", "call"})) << text;
        EXPECT_EQ(data["call"], leak_check_macro(parse_leak_check(data["check"].get<std::string>(), true).runs));
    }
}

TEST(AppValgrindApi, NewAnswersWithTheFallback) {
    Json with = Json::parse(answer("check=new", env(true)))["data"];
    EXPECT_EQ(with["check"], "new");
    EXPECT_EQ(with["call"], "VALGRIND_DO_NEW_LEAK_CHECK");
    EXPECT_FALSE(with.contains("fallback"));

    Json without = Json::parse(answer("check=new", env(false)))["data"];
    EXPECT_EQ(without["check"], "new");
    EXPECT_EQ(without["call"], "VALGRIND_DO_ADDED_LEAK_CHECK");
    std::string fallback = without["fallback"];
    EXPECT_NE(fallback.find("VALGRIND_DO_NEW_LEAK_CHECK"), std::string::npos) << fallback;
    EXPECT_NE(fallback.find("VALGRIND_DO_ADDED_LEAK_CHECK"), std::string::npos) << fallback;
    // The four fields first, the note after them.
    std::vector<std::string> keys;
    for (auto it = without.begin(); it != without.end(); ++it) keys.push_back(it.key());
    EXPECT_EQ(keys, (std::vector<std::string>{"check", "help", "see", "call", "fallback"}));
}

TEST(AppValgrindApi, NotUnderValgrindSaysSo) {
    Json data = Json::parse(answer("check=quick", env(false, false)))["data"];
    EXPECT_EQ(data["check"], "quick");
    EXPECT_EQ(data["call"], "VALGRIND_DO_QUICK_LEAK_CHECK");
    EXPECT_EQ(data["running_on_valgrind"], false);
    EXPECT_TRUE(data.contains("warning"));
}

TEST(AppValgrindApi, DisabledBuildAnswers404WithAHint) {
    Json body = envelope();
    LeakCheckPlan plan;
    ValgrindEnv off;  // enabled = false
    EXPECT_EQ(valgrind_answer(get("check=added"), off, &body, &plan), 404);
    EXPECT_EQ(body["code"], 404);
    EXPECT_FALSE(body.contains("data"));
    std::string hint = body["error"];
    EXPECT_NE(hint.find("./configure --valgrind=on"), std::string::npos) << hint;
    // The envelope stays first.
    EXPECT_EQ(body.begin().key(), "code");
    EXPECT_EQ(body["pid"], "1");
}

TEST(AppValgrindApi, EndpointInThisBuild) {
    ASSERT_TRUE(init_runtime().ok());
    FakeLiveContext ctx;
    int status = 0;
    Json body = envelope();
    {
        ValgrindEndpoint endpoint(&ctx);
        EXPECT_STREQ(endpoint.path(), "/api/v1/valgrind");
        EXPECT_NE(std::string(endpoint.description()).find("check="), std::string::npos);
        status = endpoint.handle(get("check=changed"), &body);
        if (valgrind_api_enabled()) {
            // The checker runs a moment later, in its own coroutine: let it.
            for (int i = 0; i < 30; i++) ASSERT_TRUE(sleep_us(50 * kUsPerMs).ok());
        }
    }  // the destructor stops the checker
    if (valgrind_api_enabled()) {
        EXPECT_EQ(status, 200);
        EXPECT_EQ(body["data"]["call"], "VALGRIND_DO_CHANGED_LEAK_CHECK");
    } else {
        EXPECT_EQ(status, 404);
        EXPECT_EQ(body["code"], 404);
    }
}

#include "app/api/valgrind_api.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"
#include "io/runtime.hpp"

#ifdef SRS_VALGRIND
#include <valgrind/memcheck.h>
#endif

namespace srs {

namespace {

constexpr const char* kHelp = "?check=full|added|changed|new|quick";
constexpr const char* kSee = "https://valgrind.org/docs/manual/mc-manual.html";
// How long the checker waits for the asking connection to close, and the
// pause after it (so its coroutine is joined and freed by the disposer).
constexpr utime_t kWaitConnectionUs = 5 * kUsPerSecond;
constexpr utime_t kPollUs = 50 * kUsPerMs;
constexpr utime_t kSettleUs = 200 * kUsPerMs;

bool running_on_valgrind() {
#ifdef SRS_VALGRIND
    return RUNNING_ON_VALGRIND != 0;
#else
    return false;
#endif
}

}  // namespace

const char* leak_check_name(LeakCheckKind kind) {
    switch (kind) {
        case LeakCheckKind::kFull: return "full";
        case LeakCheckKind::kQuick: return "quick";
        case LeakCheckKind::kAdded: return "added";
        case LeakCheckKind::kChanged: return "changed";
        case LeakCheckKind::kNew: return "new";
    }
    return "full";
}

const char* leak_check_macro(LeakCheckKind kind) {
    switch (kind) {
        case LeakCheckKind::kFull: return "VALGRIND_DO_LEAK_CHECK";
        case LeakCheckKind::kQuick: return "VALGRIND_DO_QUICK_LEAK_CHECK";
        case LeakCheckKind::kAdded: return "VALGRIND_DO_ADDED_LEAK_CHECK";
        case LeakCheckKind::kChanged: return "VALGRIND_DO_CHANGED_LEAK_CHECK";
        case LeakCheckKind::kNew: return "VALGRIND_DO_NEW_LEAK_CHECK";
    }
    return "VALGRIND_DO_LEAK_CHECK";
}

bool valgrind_api_enabled() {
#ifdef SRS_VALGRIND
    return true;
#else
    return false;
#endif
}

bool valgrind_has_new_leak_check() {
#if defined(SRS_VALGRIND) && defined(VALGRIND_DO_NEW_LEAK_CHECK)
    return true;
#else
    return false;
#endif
}

LeakCheckPlan parse_leak_check(const std::string& value, bool has_new_check) {
    LeakCheckPlan plan;
    if (value == "quick") {
        plan.asked = LeakCheckKind::kQuick;
    } else if (value == "added") {
        plan.asked = LeakCheckKind::kAdded;
    } else if (value == "changed") {
        plan.asked = LeakCheckKind::kChanged;
    } else if (value == "new") {
        plan.asked = LeakCheckKind::kNew;
    } else {
        plan.asked = LeakCheckKind::kFull;  // "full", missing or anything else
    }
    plan.runs = plan.asked;
    if (plan.asked == LeakCheckKind::kNew && !has_new_check) plan.runs = LeakCheckKind::kAdded;
    return plan;
}

int valgrind_answer(const HttpRequest& req, const ValgrindEnv& env, ApiEndpoint::Json* body, LeakCheckPlan* plan) {
    if (!env.enabled) {
        (*body)["code"] = 404;
        (*body)["error"] = "valgrind API needs a build with ./configure --valgrind=on";
        return 404;
    }
    *plan = parse_leak_check(req.query_param("check"), env.has_new_check);
    ApiEndpoint::Json data;
    data["check"] = leak_check_name(plan->asked);
    data["help"] = kHelp;
    data["see"] = kSee;
    data["call"] = leak_check_macro(plan->runs);
    if (plan->fallback()) {
        data["fallback"] = std::string("this valgrind has no ") + leak_check_macro(plan->asked) +
                           " (valgrind 3.21+): running " + leak_check_macro(plan->runs) + " instead";
    }
    if (!env.running) {
        data["running_on_valgrind"] = false;
        data["warning"] = "not running under valgrind: no leak check will run";
    }
    (*body)["data"] = std::move(data);
    return 200;
}

ValgrindEndpoint::ValgrindEndpoint(ServerContext* ctx) : ctx_(ctx), checker_("valgrind", this) {}

ValgrindEndpoint::~ValgrindEndpoint() { checker_.stop(); }

int ValgrindEndpoint::handle(const HttpRequest& req, Json* body) {
    ValgrindEnv env;
    env.enabled = valgrind_api_enabled();
    env.has_new_check = valgrind_has_new_leak_check();
    env.running = running_on_valgrind();
    LeakCheckPlan plan;
    int status = valgrind_answer(req, env, body, &plan);
    if (status != 200) return status;
    // Started with the first request: a server that never asks has no checker.
    if (!checker_.running()) {
        if (Error err = checker_.start(); !err.ok()) {
            body->erase("data");
            (*body)["code"] = err.code();
            (*body)["error"] = "start the valgrind checker: " + err.summary();
            return 500;
        }
    }
    if (count_ < kMaxPendingChecks) {
        queue_[(head_ + count_) % kMaxPendingChecks] = Pending{plan, context_id()};
        count_++;
    } else {
        // Full: the newest queued check takes this one's place (one check
        // after a burst answers all of it).
        queue_[(head_ + count_ - 1) % kMaxPendingChecks] = Pending{plan, context_id()};
    }
    wake_.signal();
    return status;
}

Error ValgrindEndpoint::cycle() {
    for (;;) {
        if (Error err = checker_.pull(); !err.ok()) {
            err.ignore();  // asked to stop: a clean end
            return Error();
        }
        if (count_ == 0) {
            wake_.wait();
            continue;
        }
        Pending p = queue_[head_];
        if (Error err = wait_for_quiet(p.cid); !err.ok()) {
            err.ignore();  // interrupted while waiting: stopping
            return Error();
        }
        // Take it only now: requests that came meanwhile stay queued behind it.
        head_ = (head_ + 1) % kMaxPendingChecks;
        count_--;
        run_check(p.plan);
    }
}

Error ValgrindEndpoint::wait_for_quiet(const std::string& cid) {
    utime_t deadline = monotonic_us() + kWaitConnectionUs;
    while (ctx_->clients().find(cid) && monotonic_us() < deadline) {
        if (Error err = sleep_us(kPollUs); !err.ok()) return err;
    }
    return sleep_us(kSettleUs);
}

void ValgrindEndpoint::run_check(const LeakCheckPlan& plan) {
    checks_++;
    const char* name = leak_check_name(plan.asked);
    const char* macro = leak_check_macro(plan.runs);
    if (!running_on_valgrind()) {
        srs_warn("valgrind leak check=%s #%llu skipped: not running under valgrind", name,
                 (unsigned long long)checks_);
        return;
    }
    srs_trace("valgrind leak check=%s #%llu: %s", name, (unsigned long long)checks_, macro);
#ifdef SRS_VALGRIND
    // A marker in valgrind's own log, so its reports can be matched to requests.
    VALGRIND_PRINTF("srs: leak check=%s #%llu %s\n", name, (unsigned long long)checks_, macro);
    switch (plan.runs) {
        case LeakCheckKind::kFull: VALGRIND_DO_LEAK_CHECK; break;
        case LeakCheckKind::kQuick: VALGRIND_DO_QUICK_LEAK_CHECK; break;
        case LeakCheckKind::kAdded: VALGRIND_DO_ADDED_LEAK_CHECK; break;
        case LeakCheckKind::kChanged: VALGRIND_DO_CHANGED_LEAK_CHECK; break;
        case LeakCheckKind::kNew:
#ifdef VALGRIND_DO_NEW_LEAK_CHECK
            VALGRIND_DO_NEW_LEAK_CHECK;
#else
            VALGRIND_DO_ADDED_LEAK_CHECK;  // parse_leak_check never plans this without the macro
#endif
            break;
    }
#endif
    srs_trace("valgrind leak check=%s #%llu done", name, (unsigned long long)checks_);
}

}  // namespace srs

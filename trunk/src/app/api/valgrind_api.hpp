// GET /api/v1/valgrind?check=full|added|changed|new|quick: asks memcheck for
// a leak check while the server runs (the performance guide's incremental
// workflow). Only a --valgrind=on build runs checks; any other build answers
// 404 with a hint.
//
// The answer comes at once. The check itself runs a moment later in a
// coroutine of the endpoint's own, the checker, once the connection that
// asked is gone: the request's buffers, its connection object and the HTTP
// coroutine's frames would otherwise show up in the result. One long-lived
// checker (rather than one coroutine per request) because a coroutine made
// for each check would itself be new heap (its thread record, its context id)
// in every "added" answer. Requests queue (up to kMaxPendingChecks; more are
// merged into the last queued one) and each runs its own check, in order.
#pragma once

#include <array>
#include <memory>
#include <string>

#include "app/api/api_endpoint.hpp"
#include "io/coroutine.hpp"

namespace srs {

// The leak checks memcheck's client requests offer.
enum class LeakCheckKind { kFull, kQuick, kAdded, kChanged, kNew };

// What one ?check= value asks for and what will run for it.
struct LeakCheckPlan {
    LeakCheckKind asked = LeakCheckKind::kFull;  // missing or unknown: full
    LeakCheckKind runs = LeakCheckKind::kFull;   // kAdded for kNew when the headers lack it
    bool fallback() const { return asked != runs; }
};

// "full", "quick", "added", "changed", "new".
const char* leak_check_name(LeakCheckKind kind);
// The client-request macro that runs a check, e.g. "VALGRIND_DO_ADDED_LEAK_CHECK".
const char* leak_check_macro(LeakCheckKind kind);

// Whether this build can run checks (./configure --valgrind=on).
bool valgrind_api_enabled();
// Whether the valgrind headers this build saw have VALGRIND_DO_NEW_LEAK_CHECK
// (valgrind 3.21+; Debian 12 ships 3.19). Always false without --valgrind=on.
bool valgrind_has_new_leak_check();

// Parses the ?check= value. has_new_check: whether VALGRIND_DO_NEW_LEAK_CHECK
// exists; without it "new" runs the added check.
LeakCheckPlan parse_leak_check(const std::string& value, bool has_new_check);

// What the answer depends on besides the request.
struct ValgrindEnv {
    bool enabled = false;        // valgrind_api_enabled()
    bool has_new_check = false;  // valgrind_has_new_leak_check()
    bool running = false;        // RUNNING_ON_VALGRIND
};

// The whole answer to a request, without side effects: returns the status and
// fills *body (which holds the envelope) and *plan (what the checker runs).
// Enabled: 200 and body["data"] = {check, help, see, call}, plus "fallback"
// when "new" runs the added check, plus "running_on_valgrind": false and a
// "warning" when the process is not under valgrind (no check runs then).
// Disabled: 404, body["code"] = 404 and body["error"] says how to build it.
int valgrind_answer(const HttpRequest& req, const ValgrindEnv& env, ApiEndpoint::Json* body, LeakCheckPlan* plan);

class ValgrindEndpoint : public ApiEndpoint, public CoroutineHandler {
  public:
    static constexpr size_t kMaxPendingChecks = 8;

    explicit ValgrindEndpoint(ServerContext* ctx);
    ~ValgrindEndpoint() override;  // stops the checker
    const char* path() const override { return "/api/v1/valgrind"; }
    const char* description() const override {
        return "valgrind leak check, ?check=full|added|changed|new|quick (--valgrind=on builds)";
    }
    int handle(const HttpRequest& req, Json* body) override;

  private:
    struct Pending {
        LeakCheckPlan plan;
        std::string cid;  // the asking connection (8 chars: no heap block)
    };
    Error cycle() override;
    // Waits (bounded) until the connection cid is gone, then a moment more.
    Error wait_for_quiet(const std::string& cid);
    void run_check(const LeakCheckPlan& plan);

    ServerContext* ctx_;
    CoCond wake_;
    std::array<Pending, kMaxPendingChecks> queue_;
    size_t head_ = 0;
    size_t count_ = 0;
    uint64_t checks_ = 0;
    Coroutine checker_;  // last: stopped (in the destructor) before the rest goes
};

}  // namespace srs

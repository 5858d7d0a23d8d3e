// HostResolver with a fake lookup function on its helper threads: answers
// without a lookup, the cache, callers joining one lookup, slow lookups not
// holding up other names, the timeout when a lookup hangs, and stop().
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "core/clock.hpp"
#include "io/coroutine.hpp"
#include "io/host_resolver.hpp"
#include "io/runtime.hpp"
#include "utest/coroutine_fn.hpp"

using namespace srs;
using utest::FnHandler;

namespace {

class HostResolverTest : public ::testing::Test {
  protected:
    void SetUp() override { ASSERT_TRUE(init_runtime().ok()); }
};

// A lookup the test controls: "slow*" names wait until released, "hang*"
// names wait until released too (the test never releases them before stop),
// "bad*" fail, others resolve to 192.0.2.<length>. Shared by reference
// counting so a thread still waiting after the test is over stays valid.
struct FakeDns {
    std::mutex mu;
    std::condition_variable cv;
    bool release = false;
    std::atomic<int> calls{0};
    HostAnswer lookup(const std::string& name) {
        calls++;
        if (name.rfind("slow", 0) == 0 || name.rfind("hang", 0) == 0) {
            std::unique_lock<std::mutex> lock(mu);
            cv.wait_for(lock, std::chrono::seconds(3), [&] { return release; });
        }
        HostAnswer a;
        if (name.rfind("bad", 0) == 0) {
            a.error = "Name or service not known";
        } else {
            a.addresses = {"192.0.2." + std::to_string(name.size()), "2001:db8::1"};
        }
        return a;
    }
    void let_go() {
        std::lock_guard<std::mutex> lock(mu);
        release = true;
        cv.notify_all();
    }
};

HostResolverOptions fake_options(std::shared_ptr<FakeDns> dns, int threads = 4) {
    HostResolverOptions o;
    o.threads = threads;
    o.lookup = [dns](const std::string& name) { return dns->lookup(name); };
    return o;
}

}  // namespace

TEST_F(HostResolverTest, LiteralsWithoutLookupAndAnswersCached) {
    auto dns = std::make_shared<FakeDns>();
    HostResolver r(fake_options(dns));
    std::vector<std::string> a;
    // Literals work even before start().
    ASSERT_TRUE(r.resolve("10.1.2.3", 0, &a).ok());
    EXPECT_EQ(a, std::vector<std::string>({"10.1.2.3"}));
    Error early = r.resolve("name.example", kUsPerSecond, &a);
    EXPECT_EQ(early.code(), kErrorDnsResolve);
    early.ignore();

    ASSERT_TRUE(r.start().ok());
    ASSERT_TRUE(r.resolve("localhost", 0, &a).ok());
    EXPECT_EQ(a.size(), 2u);
    ASSERT_TRUE(r.resolve("Name.Example.", kUsPerSecond, &a).ok());
    EXPECT_EQ(a, std::vector<std::string>({"192.0.2.12", "2001:db8::1"}));
    ASSERT_TRUE(r.resolve("name.example", kUsPerSecond, &a).ok());  // the cache answers
    EXPECT_EQ(dns->calls.load(), 1);
    EXPECT_EQ(r.lookups_started(), 1u);

    Error bad = r.resolve("bad.example", kUsPerSecond, &a);
    EXPECT_EQ(bad.code(), kErrorDnsResolve);
    EXPECT_NE(bad.summary().find("Name or service not known"), std::string::npos) << bad.summary();
    bad.ignore();
    Error again = r.resolve("bad.example", kUsPerSecond, &a);  // negative cache
    EXPECT_EQ(again.code(), kErrorDnsResolve);
    EXPECT_NE(again.summary().find("cached"), std::string::npos);
    again.ignore();
    EXPECT_EQ(dns->calls.load(), 2);
    r.stop();
}

TEST_F(HostResolverTest, SlowNameDoesNotHoldUpOthersAndCallersShareALookup) {
    auto dns = std::make_shared<FakeDns>();
    HostResolver r(fake_options(dns));
    ASSERT_TRUE(r.start().ok());
    int slow_done = 0;
    std::vector<std::unique_ptr<FnHandler>> handlers;
    std::vector<std::unique_ptr<Coroutine>> cos;
    for (int i = 0; i < 2; i++) {
        handlers.emplace_back(new FnHandler([&]() -> Error {
            std::vector<std::string> a;
            if (Error err = r.resolve("slow.example", 5 * kUsPerSecond, &a); !err.ok()) return err;
            slow_done++;
            return Error();
        }));
        cos.emplace_back(new Coroutine("slow", handlers.back().get()));
        ASSERT_TRUE(cos.back()->start().ok());
    }
    ASSERT_TRUE(sleep_us(20 * kUsPerMs).ok());
    utime_t t0 = monotonic_us();
    std::vector<std::string> a;
    ASSERT_TRUE(r.resolve("fast.example", kUsPerSecond, &a).ok());
    EXPECT_LT(monotonic_us() - t0, 500 * kUsPerMs);  // not behind slow.example
    EXPECT_EQ(slow_done, 0);
    dns->let_go();
    for (int i = 0; i < 100 && slow_done < 2; i++) ASSERT_TRUE(sleep_us(10 * kUsPerMs).ok());
    EXPECT_EQ(slow_done, 2);
    EXPECT_EQ(r.lookups_started(), 2u);  // the two callers of slow.example shared one lookup
    for (auto& co : cos) co->stop();
    r.stop();
}

TEST_F(HostResolverTest, TimeoutWhileTheLookupHangsThenItsAnswerIsCached) {
    auto dns = std::make_shared<FakeDns>();
    HostResolver r(fake_options(dns, 1));
    ASSERT_TRUE(r.start().ok());
    std::vector<std::string> a;
    utime_t t0 = monotonic_us();
    Error err = r.resolve("hang.example", 200 * kUsPerMs, &a);
    utime_t took = monotonic_us() - t0;
    EXPECT_EQ(err.code(), kErrorDnsTimeout);
    err.ignore();
    EXPECT_GE(took, 190 * kUsPerMs);
    EXPECT_LT(took, 1000 * kUsPerMs);
    dns->let_go();
    for (int i = 0; i < 100 && r.cached() == 0; i++) ASSERT_TRUE(sleep_us(10 * kUsPerMs).ok());
    ASSERT_TRUE(r.resolve("hang.example", 0, &a).ok());  // from the cache: no wait at all
    EXPECT_EQ(dns->calls.load(), 1);
    r.stop();
}

TEST_F(HostResolverTest, StopWakesWaitersAndLeavesAHungThreadBehindSafely) {
    auto dns = std::make_shared<FakeDns>();
    {
        HostResolver r(fake_options(dns, 1));
        ASSERT_TRUE(r.start().ok());
        Error result;
        bool returned = false;
        FnHandler waiter([&]() -> Error {
            std::vector<std::string> a;
            result = r.resolve("hang.example", -1, &a);
            returned = true;
            return Error();
        });
        Coroutine co("waiter", &waiter);
        ASSERT_TRUE(co.start().ok());
        ASSERT_TRUE(sleep_us(20 * kUsPerMs).ok());
        r.stop();  // the thread is still inside the lookup: it is left behind
        for (int i = 0; i < 100 && !returned; i++) ASSERT_TRUE(sleep_us(10 * kUsPerMs).ok());
        EXPECT_TRUE(returned);
        EXPECT_EQ(result.code(), kErrorDnsResolve);
        EXPECT_NE(result.summary().find("stopped"), std::string::npos);
        result.ignore();
        co.stop();
    }
    dns->let_go();  // the left thread finishes now, after the resolver is gone
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

TEST_F(HostResolverTest, TheSystemResolverAnswersHostsFileNames) {
    // localhost is answered without a lookup; ask getaddrinfo directly for it
    // (it is in every /etc/hosts) and for a name under the reserved .invalid.
    HostAnswer a = getaddrinfo_lookup("localhost");
    ASSERT_FALSE(a.addresses.empty()) << a.error;
    HostAnswer b = getaddrinfo_lookup("no-such-host.invalid");
    EXPECT_TRUE(b.addresses.empty());
    EXPECT_FALSE(b.error.empty());
}

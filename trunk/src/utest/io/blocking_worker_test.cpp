// The blocking worker: jobs run on another thread while every other
// coroutine keeps running, and the caller waits even through an interrupt.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>
#include <vector>

#include "core/clock.hpp"
#include "io/blocking_worker.hpp"
#include "io/coroutine.hpp"
#include "io/runtime.hpp"
#include "utest/coroutine_fn.hpp"

using namespace srs;

namespace {

class BlockingWorkerTest : public ::testing::Test {
  protected:
    void SetUp() override { ASSERT_TRUE(init_runtime().ok()); }
};

using utest::FnHandler;

}  // namespace

TEST_F(BlockingWorkerTest, RunsTheJobOnAnotherThread) {
    BlockingWorker worker;
    Error early = worker.run([] {});
    EXPECT_EQ(early.code(), kErrorThreadStart);  // not started yet
    early.ignore();
    ASSERT_TRUE(worker.start().ok());
    std::thread::id here = std::this_thread::get_id(), there;
    int value = 0;
    ASSERT_TRUE(worker.run([&] {
                          there = std::this_thread::get_id();
                          value = 42;
                      })
                    .ok());
    EXPECT_NE(here, there);
    EXPECT_EQ(value, 42);
    EXPECT_EQ(worker.jobs_done(), 1u);
    worker.stop();
    Error late = worker.run([] {});
    EXPECT_EQ(late.code(), kErrorThreadStart);
    late.ignore();
}

TEST_F(BlockingWorkerTest, OtherCoroutinesRunWhileAJobBlocks) {
    BlockingWorker worker;
    ASSERT_TRUE(worker.start().ok());
    bool job_done = false;
    int ticks = 0;
    FnHandler ticker([&]() -> Error {
        while (!job_done) {
            ticks++;
            if (Error err = sleep_us(5 * kUsPerMs); !err.ok()) {
                err.ignore();  // stopped
                return Error();
            }
        }
        return Error();
    });
    Coroutine co("ticker", &ticker);
    ASSERT_TRUE(co.start().ok());
    utime_t start = monotonic_us();
    // 200 ms of a blocking call: the ticker keeps ticking meanwhile.
    ASSERT_TRUE(worker.run([] { usleep(200 * 1000); }).ok());
    job_done = true;
    EXPECT_GE(monotonic_us() - start, 190 * kUsPerMs);
    EXPECT_GE(ticks, 10);  // 40 possible; any real blocking would give 1
    co.stop();
}

TEST_F(BlockingWorkerTest, ManyCallersAllComplete) {
    BlockingWorker worker;
    ASSERT_TRUE(worker.start().ok());
    const int kCallers = 50, kJobsEach = 20;
    std::atomic<int> ran{0};
    int finished = 0;
    std::vector<std::unique_ptr<FnHandler>> handlers;
    std::vector<std::unique_ptr<Coroutine>> cos;
    for (int i = 0; i < kCallers; i++) {
        handlers.emplace_back(new FnHandler([&]() -> Error {
            for (int j = 0; j < kJobsEach; j++) {
                int out = 0;
                if (Error err = worker.run([&] { out = ++ran; }); !err.ok()) return err;
                if (out <= 0) return SRS_ERR(kErrorThreadTerminated, "job did not run");
            }
            finished++;
            return Error();
        }));
        cos.emplace_back(new Coroutine("caller", handlers.back().get()));
        ASSERT_TRUE(cos.back()->start().ok());
    }
    for (int i = 0; i < 500 && finished < kCallers; i++) ASSERT_TRUE(sleep_us(10 * kUsPerMs).ok());
    EXPECT_EQ(finished, kCallers);
    EXPECT_EQ(ran.load(), kCallers * kJobsEach);
    EXPECT_EQ(worker.jobs_done(), static_cast<uint64_t>(kCallers * kJobsEach));
    for (auto& c : cos) EXPECT_TRUE(c->take_error().ok());
}

TEST_F(BlockingWorkerTest, AnInterruptedCallerStillWaitsForItsJob) {
    BlockingWorker worker;
    ASSERT_TRUE(worker.start().ok());
    char buffer[16] = {0};
    bool returned = false;
    FnHandler caller([&]() -> Error {
        Error err = worker.run([&] {
            usleep(100 * 1000);
            buffer[0] = 'x';  // the caller's stack: must still be its own
        });
        returned = true;
        EXPECT_EQ(buffer[0], 'x');
        return err;
    });
    Coroutine co("caller", &caller);
    ASSERT_TRUE(co.start().ok());
    ASSERT_TRUE(sleep_us(20 * kUsPerMs).ok());
    co.interrupt();
    ASSERT_TRUE(sleep_us(20 * kUsPerMs).ok());
    EXPECT_FALSE(returned);  // interrupted, yet still waiting for the job
    co.stop();
    EXPECT_TRUE(returned);
}

TEST_F(BlockingWorkerTest, StopFinishesQueuedJobsAndWakesCallers) {
    BlockingWorker worker;
    ASSERT_TRUE(worker.start().ok());
    int done = 0;
    FnHandler caller([&]() -> Error {
        Error err = worker.run([&] { usleep(50 * 1000); });
        done++;
        return err;
    });
    Coroutine a("a", &caller), b("b", &caller);
    ASSERT_TRUE(a.start().ok());
    ASSERT_TRUE(b.start().ok());
    ASSERT_TRUE(sleep_us(5 * kUsPerMs).ok());
    worker.stop();  // joins the thread after both jobs ran
    a.stop();
    b.stop();
    EXPECT_EQ(done, 2);
}

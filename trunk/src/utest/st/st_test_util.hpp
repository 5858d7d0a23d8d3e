// Helpers shared by the tests of the coroutine runtime (src/st): a fixture base
// that initializes st once per process, a lambda run as a joinable coroutine,
// and joins that must succeed.
//
// Header-only, and it needs nothing but st and gtest: `make st-valgrind` builds
// the utest/st/*_test.cpp files on their own with only the objs/inc/utest include
// root, so include it as "utest/st_test_util.hpp".
#pragma once

#include <gtest/gtest.h>

#include <cerrno>
#include <functional>
#include <utility>
#include <vector>

#include "st/st.h"

namespace st_test {

// Base of the st test fixtures: st is initialized before the first test.
class StTest : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        static const int rc = st_init();  // once per process
        ASSERT_EQ(0, rc);
    }
};

inline constexpr st_utime_t kLong = 5 * 1000 * 1000;  // bounds every wait that should not time out

// Runs f in a new joinable coroutine.
template <class F>
st_thread_t spawn(F &&f)
{
    auto *fn = new std::function<void()>(std::forward<F>(f));
    return st_thread_create(
        [](void *p) -> void * {
            auto *fn = static_cast<std::function<void()> *>(p);
            (*fn)();
            delete fn;
            return nullptr;
        },
        fn, 1, 0);
}

inline void join(st_thread_t t)
{
    ASSERT_EQ(0, st_thread_join(t, nullptr));
}

// Runs `wait` (a call that blocks and returns -1 with errno) in a new coroutine, interrupts it
// a millisecond later and checks that it returned -1 with EINTR.
template <class F>
void expect_interrupted(F &&wait)
{
    long rv = 0;
    int err = 0;
    st_thread_t t = spawn([&] {
        rv = static_cast<long>(wait());
        err = errno;
    });
    st_usleep(1000);
    st_thread_interrupt(t);
    join(t);
    EXPECT_EQ(-1, rv);
    EXPECT_EQ(EINTR, err);
}

inline void join_all(const std::vector<st_thread_t> &ts)
{
    for (auto t : ts)
        ASSERT_EQ(0, st_thread_join(t, nullptr));
}

}  // namespace st_test

// Tests for thread-specific data (src/st).
#include <gtest/gtest.h>

#include <vector>

#include "st/st.h"

namespace {

std::vector<int> destroyed;
int test_key = -1;  // keys are process-wide and few: create once even with --gtest_repeat

void record_destroy(void *p)
{
    destroyed.push_back(*static_cast<int *>(p));
}

class StKeyTest : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        static const int rc = st_init();  // once per process
        ASSERT_EQ(0, rc);
        if (test_key < 0) {
            ASSERT_EQ(0, st_key_create(&test_key, record_destroy));
        }
    }
    void SetUp() override { destroyed.clear(); }
};

TEST_F(StKeyTest, LimitAndInvalidKeys)
{
    EXPECT_GE(st_key_getlimit(), 16);
    EXPECT_EQ(-1, st_thread_setspecific(st_key_getlimit(), nullptr));
    EXPECT_EQ(EINVAL, errno);
    EXPECT_EQ(nullptr, st_thread_getspecific(-1));
}

TEST_F(StKeyTest, ValuesArePerThread)
{
    int main_value = 1, other_value = 2;
    ASSERT_EQ(0, st_thread_setspecific(test_key, &main_value));
    void *seen_in_thread = &main_value;
    st_thread_t t = st_thread_create(
        [](void *p) -> void * {
            *static_cast<void **>(p) = st_thread_getspecific(test_key);
            return nullptr;
        },
        &seen_in_thread, 1, 0);
    ASSERT_EQ(0, st_thread_join(t, nullptr));
    EXPECT_EQ(nullptr, seen_in_thread);
    EXPECT_EQ(&main_value, st_thread_getspecific(test_key));
    // Replacing a value runs the destructor on the old one; clearing it too.
    ASSERT_EQ(0, st_thread_setspecific(test_key, &other_value));
    EXPECT_EQ(std::vector<int>{1}, destroyed);
    ASSERT_EQ(0, st_thread_setspecific(test_key, nullptr));
    EXPECT_EQ((std::vector<int>{1, 2}), destroyed);
}

TEST_F(StKeyTest, DestructorRunsAtThreadExit)
{
    static int value;
    value = 7;
    st_thread_t t = st_thread_create(
        [](void *) -> void * {
            EXPECT_EQ(0, st_thread_setspecific(test_key, &value));
            EXPECT_EQ(&value, st_thread_getspecific(test_key));
            st_usleep(100);
            return nullptr;
        },
        nullptr, 1, 0);
    EXPECT_TRUE(destroyed.empty());
    ASSERT_EQ(0, st_thread_join(t, nullptr));
    EXPECT_EQ(std::vector<int>{7}, destroyed);
}

}  // namespace

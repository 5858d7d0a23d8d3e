#include <gtest/gtest.h>

#include <vector>

#include "core/shared_buffer.hpp"

using namespace srs;

TEST(CoreSharedBuffer, CopiesShareOneBlock) {
    SharedBytes a = SharedBytes::copy_of("abc", 3);
    EXPECT_EQ(a.use_count(), 1);
    {
        SharedBytes b = a;
        std::vector<SharedBytes> many(100, a);
        EXPECT_EQ(a.use_count(), 102);
        EXPECT_EQ(b.data(), a.data());  // no copy of the bytes
    }
    EXPECT_EQ(a.use_count(), 1);
    SharedBytes moved = std::move(a);
    EXPECT_FALSE(a);  // NOLINT
    EXPECT_EQ(moved.use_count(), 1);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(moved.data()), moved.size()), "abc");
}

TEST(CoreSharedBuffer, EmptyAndZeroSized) {
    SharedBytes none;
    EXPECT_EQ(none.size(), 0u);
    EXPECT_EQ(none.data(), nullptr);
    SharedBytes zero = SharedBytes::allocate(0);
    EXPECT_TRUE(zero);
    EXPECT_TRUE(zero.empty());
    none = zero;
    EXPECT_EQ(zero.use_count(), 2);
}

#include <gtest/gtest.h>

#include "core/error.hpp"

using namespace srs;

namespace {
Error fail_inner() { return SRS_ERR(kErrorSocketTimeout, "read %d bytes", 12); }
Error fail_outer() {
    if (Error err = fail_inner(); !err.ok()) return SRS_WRAP(err, "read chunk header");
    return Error();
}
const char* fixed_cid() { return "abcd1234"; }
}  // namespace

TEST(CoreError, SuccessIsEmpty) {
    Error err;
    EXPECT_TRUE(err.ok());
    EXPECT_FALSE(err.failed());
    EXPECT_EQ(err.code(), kSuccess);
    EXPECT_EQ(err.describe(), "success");
}

TEST(CoreError, WrapKeepsInnerCodeAndChain) {
    Error err = fail_outer();
    ASSERT_TRUE(err.failed());
    EXPECT_EQ(err.code(), kErrorSocketTimeout);
    EXPECT_EQ(err.message(), "read 12 bytes");
    EXPECT_EQ(err.summary(), "read chunk header : read 12 bytes");
    std::string d = err.describe();
    EXPECT_NE(d.find("code=1008"), std::string::npos) << d;
    EXPECT_NE(d.find("error_test.cpp:"), std::string::npos) << d;
    // Outermost frame first.
    EXPECT_LT(d.find("read chunk header"), d.rfind("read 12 bytes"));
}

TEST(CoreError, FramesCarryContextId) {
    set_context_id_provider(fixed_cid);
    Error err = SRS_ERR(kErrorSocketRead, "boom");
    set_context_id_provider(nullptr);
    EXPECT_NE(err.describe().find("[abcd1234]"), std::string::npos);
}

TEST(CoreError, MoveTransfersOwnership) {
    Error a = SRS_ERR(kErrorSocketRead, "a");
    Error b = std::move(a);
    EXPECT_TRUE(a.ok());  // NOLINT: moved-from is success
    EXPECT_TRUE(b.failed());
    Error c = b.copy();
    EXPECT_EQ(c.summary(), b.summary());
    b.ignore();
    c.ignore();
}

TEST(CoreError, LongMessagesAreKept) {
    std::string big(3000, 'x');
    Error err = SRS_ERR(kErrorSocketRead, "%s", big.c_str());
    EXPECT_EQ(err.message().size(), 3000u);
    err.ignore();
}

TEST(CoreError, WrappingSuccessStillFails) {
    Error ok;
    Error err = SRS_WRAP(ok, "oops");
    EXPECT_TRUE(err.failed());
    err.ignore();
}

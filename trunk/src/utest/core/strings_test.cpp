// core/strings.hpp: trimming, splitting, comparing and strict number parsing,
// with the inputs the callers really see (/proc lines, config values, HTTP
// fields, command-line options) and the bad ones.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "core/strings.hpp"

namespace srs {
namespace {

using Words = std::vector<std::string_view>;

TEST(CoreStrings, Trim) {
    EXPECT_EQ(trim("  4194304\n"), "4194304");
    EXPECT_EQ(trim("\t\v\f\r\n x y \r\n"), "x y");
    EXPECT_EQ(trim(""), "");
    EXPECT_EQ(trim(" \t\n"), "");
    EXPECT_EQ(trim("a"), "a");
    // Not space: NUL and bytes >= 0x80 (no locale).
    EXPECT_EQ(trim(std::string_view("\0a\0", 3)), std::string_view("\0a\0", 3));
    EXPECT_EQ(trim("\xa0x\xa0"), "\xa0x\xa0");
}

TEST(CoreStrings, TrimOwsKeepsCrLf) {
    EXPECT_EQ(trim_ows(" \t chunked\t "), "chunked");
    EXPECT_EQ(trim_ows("\r\nx\r\n"), "\r\nx\r\n");
    EXPECT_EQ(trim_ows("  "), "");
}

TEST(CoreStrings, SplitWhitespace) {
    EXPECT_EQ(split_whitespace("cpu  10132153 290696 3084719 46828483 16683 0 25195 0 175628 0"),
              (Words{"cpu", "10132153", "290696", "3084719", "46828483", "16683", "0", "25195", "0", "175628", "0"}));
    EXPECT_EQ(split_whitespace("  127.0.0.1:1935\t[::]:1935 \r\n"), (Words{"127.0.0.1:1935", "[::]:1935"}));
    EXPECT_EQ(split_whitespace(""), Words{});
    EXPECT_EQ(split_whitespace(" \t\n "), Words{});
    EXPECT_EQ(split_whitespace("one"), Words{"one"});
}

TEST(CoreStrings, NextLine) {
    std::string_view text = "MemTotal: 1 kB\r\nMemFree: 2 kB\n\nlast";
    EXPECT_EQ(next_line(&text), "MemTotal: 1 kB\r");
    EXPECT_EQ(next_line(&text), "MemFree: 2 kB");
    EXPECT_EQ(next_line(&text), "");
    EXPECT_EQ(next_line(&text), "last");
    EXPECT_TRUE(text.empty());
    EXPECT_EQ(next_line(&text), "");
}

TEST(CoreStrings, CaseInsensitive) {
    EXPECT_TRUE(iequals("Transfer-Encoding", "transfer-encoding"));
    EXPECT_TRUE(iequals("CHUNKED", "chunked"));
    EXPECT_TRUE(iequals("", ""));
    EXPECT_FALSE(iequals("chunked", "chunke"));
    EXPECT_FALSE(iequals("chunked ", "chunked"));
    // ASCII only: '[' (0x5b) is not 'z' + 1 folded, and bytes >= 0x80 compare as is.
    EXPECT_FALSE(iequals("[", "{"));
    EXPECT_FALSE(iequals("\xc3\x89", "\xc3\xa9"));
    EXPECT_TRUE(istarts_with("HTTP://host/live", "http://"));
    EXPECT_FALSE(istarts_with("http:/", "http://"));
    EXPECT_EQ(ascii_lower('Q'), 'q');
    EXPECT_EQ(ascii_lower('@'), '@');
}

TEST(CoreStrings, IntegersWhole) {
    int64_t i = 7;
    EXPECT_TRUE(parse_integer("-42", &i));
    EXPECT_EQ(i, -42);
    EXPECT_TRUE(parse_integer("0", &i));
    EXPECT_EQ(i, 0);
    EXPECT_TRUE(parse_integer("9223372036854775807", &i));
    EXPECT_EQ(i, std::numeric_limits<int64_t>::max());
    EXPECT_TRUE(parse_integer("-9223372036854775808", &i));
    EXPECT_EQ(i, std::numeric_limits<int64_t>::min());

    uint64_t u = 0;
    EXPECT_TRUE(parse_integer("18446744073709551615", &u));
    EXPECT_EQ(u, UINT64_MAX);
    EXPECT_TRUE(parse_integer("007", &u));
    EXPECT_EQ(u, 7u);
}

TEST(CoreStrings, IntegersBadFailAndLeaveTheValue) {
    const char* bad[] = {"",   " 1", "1 ",  "+1", "1x",  "x1", "0x10", "1.0", "1e3", "--1", "-",
                         "١",  "1\n", "\n1", "1,000", "9223372036854775808", "-9223372036854775809",
                         "99999999999999999999999"};
    for (const char* s : bad) {
        int64_t v = 1234;
        EXPECT_FALSE(parse_integer(s, &v)) << s;
        EXPECT_EQ(v, 1234) << s;  // untouched
    }
    // Unsigned: no sign at all, and one past the top fails.
    uint64_t u = 5;
    EXPECT_FALSE(parse_integer("-1", &u));
    EXPECT_FALSE(parse_integer("-0", &u));
    EXPECT_FALSE(parse_integer("18446744073709551616", &u));
    EXPECT_EQ(u, 5u);
    // Narrow types are range-checked against their own range.
    uint8_t b = 0;
    EXPECT_TRUE(parse_integer("255", &b));
    EXPECT_EQ(b, 255);
    EXPECT_FALSE(parse_integer("256", &b));
    int i = 0;
    EXPECT_FALSE(parse_integer("2147483648", &i));
    EXPECT_TRUE(parse_integer("-2147483648", &i));
    EXPECT_EQ(i, std::numeric_limits<int>::min());
    // A NUL inside the view is not the end of the number.
    EXPECT_FALSE(parse_integer(std::string_view("12\0" "3", 4), &i));
}

TEST(CoreStrings, IntegersInRange) {
    int port = 0;
    EXPECT_TRUE(parse_integer("1935", 1, 65535, &port));
    EXPECT_EQ(port, 1935);
    EXPECT_FALSE(parse_integer("0", 1, 65535, &port));
    EXPECT_FALSE(parse_integer("65536", 1, 65535, &port));
    EXPECT_FALSE(parse_integer("-1", 1, 65535, &port));
    EXPECT_FALSE(parse_integer("", 1, 65535, &port));
    EXPECT_EQ(port, 1935);
    int64_t v = 0;
    EXPECT_TRUE(parse_integer<int64_t>("-5", -10, 10, &v));
    EXPECT_EQ(v, -5);
}

TEST(CoreStrings, Doubles) {
    double d = 0;
    EXPECT_TRUE(parse_double("6710.47", &d));
    EXPECT_DOUBLE_EQ(d, 6710.47);
    EXPECT_TRUE(parse_double("-0.5", &d));
    EXPECT_DOUBLE_EQ(d, -0.5);
    EXPECT_TRUE(parse_double("2.5e3", &d));
    EXPECT_DOUBLE_EQ(d, 2500);
    EXPECT_TRUE(parse_double("1E-2", &d));
    EXPECT_DOUBLE_EQ(d, 0.01);
    EXPECT_TRUE(parse_double("3", &d));
    EXPECT_DOUBLE_EQ(d, 3);
    EXPECT_TRUE(parse_double(".5", &d));
    EXPECT_DOUBLE_EQ(d, 0.5);

    const char* bad[] = {"", " 1", "1 ", "+1", "1.2.3", "inf", "-inf", "nan", "NaN", "infinity",
                         "0x1p3", "1e", "e3", ".", "-", "1e999", "1,5", "5s"};
    for (const char* s : bad) {
        double v = 42;
        EXPECT_FALSE(parse_double(s, &v)) << s;
        EXPECT_EQ(v, 42) << s;
    }
}

TEST(CoreStrings, DigitsSaturating) {
    uint64_t v = 0;
    EXPECT_TRUE(parse_digits_saturating("0", &v));
    EXPECT_EQ(v, 0u);
    EXPECT_TRUE(parse_digits_saturating("18446744073709551615", &v));
    EXPECT_EQ(v, UINT64_MAX);
    EXPECT_TRUE(parse_digits_saturating("18446744073709551616", &v));
    EXPECT_EQ(v, UINT64_MAX);
    EXPECT_TRUE(parse_digits_saturating("99999999999999999999999", &v));
    EXPECT_EQ(v, UINT64_MAX);
    v = 3;
    for (const char* s : {"", "-1", "+1", " 1", "1 ", "1a"}) {
        EXPECT_FALSE(parse_digits_saturating(s, &v)) << s;
    }
    EXPECT_EQ(v, 3u);
}

}  // namespace
}  // namespace srs

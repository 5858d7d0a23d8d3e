// Text helpers shared by every parser of text: the /proc readers, the config
// file and its environment overrides, HTTP fields and the tools' options.
//
// Contract, for all of them:
//   - they work on std::string_view, never read past its end and need no NUL;
//   - "space" is ASCII only (SP, HT, LF, CR, VT, FF); the locale plays no part;
//   - the number parsers take the WHOLE string or fail: no leading or trailing
//     space, no '+', no "0x", nothing after the digits; a value outside the
//     target type (or the given range) fails too. They return false instead of
//     yielding 0, and leave *out untouched when they fail;
//   - nothing allocates except split_whitespace's vector; nothing throws.
#pragma once

#include <charconv>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

namespace srs {

// ---- characters ----
constexpr bool is_ascii_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
constexpr bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }
constexpr char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + ('a' - 'A')) : c; }
// The value of a hexadecimal digit (either case), -1 for any other byte.
constexpr int hex_digit_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// ---- trimming and splitting ----

// `s` without leading and trailing ASCII space.
std::string_view trim(std::string_view s);
// `s` without leading and trailing SP and HTAB: HTTP's optional whitespace
// (RFC 9110 §5.6.3), which leaves CR, LF and the rest alone.
std::string_view trim_ows(std::string_view s);
// The words of `s` separated by runs of ASCII space; no empty words.
std::vector<std::string_view> split_whitespace(std::string_view s);
// The next line of *rest without its '\n' (a '\r' before it is kept); *rest
// moves past it. The last line needs no '\n'.
std::string_view next_line(std::string_view* rest);

// ---- comparing ----

// Equal ignoring ASCII case (HTTP field names, tokens, scheme names).
bool iequals(std::string_view a, std::string_view b);
// Whether `s` starts with `prefix`, ignoring ASCII case.
bool istarts_with(std::string_view s, std::string_view prefix);

// ---- numbers ----

// A whole decimal integer that fits T: "-" allowed for signed T only.
template <typename T>
[[nodiscard]] bool parse_integer(std::string_view s, T* out) {
    static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>, "integers only");
    if (s.empty() || s.front() == '+') return false;
    T v{};
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 10);
    if (ec != std::errc() || end != s.data() + s.size()) return false;
    *out = v;
    return true;
}

// A whole decimal integer in [min, max].
template <typename T>
[[nodiscard]] bool parse_integer(std::string_view s, T min, T max, T* out) {
    T v{};
    if (!parse_integer(s, &v) || v < min || v > max) return false;
    *out = v;
    return true;
}

// A whole finite decimal number: "1", "-0.5", "2.5e3". Rejects "inf", "nan",
// hexadecimal and anything out of double's range.
[[nodiscard]] bool parse_double(std::string_view s, double* out);

// 1*DIGIT (no sign) as HTTP writes lengths and ranges; a value past
// UINT64_MAX gives UINT64_MAX (it is over every limit anyway). False when
// empty or when any byte is not a digit.
[[nodiscard]] bool parse_digits_saturating(std::string_view s, uint64_t* out);

}  // namespace srs

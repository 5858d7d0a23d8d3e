// See strings.hpp for the contract.
#include "core/strings.hpp"

#include <cmath>

namespace srs {

std::string_view trim(std::string_view s) {
    while (!s.empty() && is_ascii_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_ascii_space(s.back())) s.remove_suffix(1);
    return s;
}

std::string_view trim_ows(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

std::vector<std::string_view> split_whitespace(std::string_view s) {
    std::vector<std::string_view> words;
    size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && is_ascii_space(s[i])) i++;
        size_t start = i;
        while (i < s.size() && !is_ascii_space(s[i])) i++;
        if (i > start) words.push_back(s.substr(start, i - start));
    }
    return words;
}

std::string_view next_line(std::string_view* rest) {
    size_t nl = rest->find('\n');
    std::string_view line = rest->substr(0, nl);
    rest->remove_prefix(nl == std::string_view::npos ? rest->size() : nl + 1);
    return line;
}

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); i++) {
        if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
    }
    return true;
}

bool istarts_with(std::string_view s, std::string_view prefix) {
    return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

bool parse_double(std::string_view s, double* out) {
    // from_chars also takes "inf", "nan" and "infinity": only digits, a sign,
    // a point and an exponent are numbers here.
    if (s.empty() || s.front() == '+') return false;
    for (char c : s) {
        if (!is_ascii_digit(c) && c != '-' && c != '.' && c != 'e' && c != 'E' && c != '+') return false;
    }
    double v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::general);
    if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return false;
    *out = v;
    return true;
}

bool parse_digits_saturating(std::string_view s, uint64_t* out) {
    if (s.empty()) return false;
    uint64_t n = 0;
    for (char c : s) {
        if (!is_ascii_digit(c)) return false;
        uint64_t digit = static_cast<uint64_t>(c - '0');
        n = (n > (UINT64_MAX - digit) / 10) ? UINT64_MAX : n * 10 + digit;
    }
    *out = n;
    return true;
}

}  // namespace srs

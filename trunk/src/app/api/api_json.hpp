// The one way an API answer's JSON becomes text.
//
// Strings in the API come from outside: stream and app names from RTMP and
// HTTP clients, the process name, argv and cwd from /proc. They are bytes, not
// necessarily UTF-8, and nlohmann's dump() throws type_error 316 on invalid
// UTF-8 with its default handler. An exception must never cross a coroutine,
// so every API answer is written with error_handler_t::replace: each invalid
// byte sequence becomes U+FFFD and the text is always valid JSON (NaN and
// infinities already come out as null). Nothing here throws but bad_alloc.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace srs {

inline std::string dump_api_json(const nlohmann::ordered_json& j) {
    return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace srs

// Typed names of the directive table's implemented value rows. Config's
// getters take only these, so a misspelt directive, a global directive asked
// of a vhost, or a wrong value type does not compile:
//
//   bool gop = conf->get(vhost, keys::vhost_play_gop_cache);
//   int64_t n = conf->get(keys::max_connections);
//
// The constants live in config_keys.hpp, generated from the table. The value
// type T follows the row's kind: bool (on|off), int64_t (integer), double
// (number), std::string (string, enum), std::vector<std::string> (list) and
// std::vector<ListenEndpoint> (endpoints).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/config/config_directives.hpp"

namespace srs {

// A directive outside any vhost ("http_api.listen").
template <class T>
struct GlobalKey {
    const char* path;
};

// A directive inside `vhost NAME { }`; the path starts with "vhost.".
template <class T>
struct VhostKey {
    const char* path;
};

}  // namespace srs

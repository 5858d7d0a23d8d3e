// The process and host figures behind SRS's system APIs, in four parts:
//   proc_parsers.hpp  the /proc parsers, pure functions of the files' text
//   proc_reader.hpp   reading the real files and system calls, one snapshot
//   proc_json.hpp     the API's JSON for them
//   proc_sampler.hpp  periodic sampling, the state kept between samples
// Include the part you need; this header includes them all.
#pragma once

#include "app/stats/proc_json.hpp"
#include "app/stats/proc_parsers.hpp"
#include "app/stats/proc_reader.hpp"
#include "app/stats/proc_sampler.hpp"

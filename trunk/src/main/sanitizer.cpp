// AddressSanitizer settings built into the binary, as SRS does: keep serving
// after a report (halt_on_error=0) and leave leak checking to the tools that
// understand coroutine stacks. ASAN_OPTIONS in the environment still wins.
#ifdef SRS_SANITIZER
#include <sanitizer/asan_interface.h>
#include <string.h>

#include "core/log.hpp"

extern "C" const char* __asan_default_options() {
    return "halt_on_error=0:detect_leaks=0:alloc_dealloc_mismatch=0";
}

namespace srs {
#ifdef SRS_SANITIZER_LOG
// --sanitizer-log=on: ASAN's reports go into the server log too.
static void write_asan_report(const char* report) {
    Logger::instance().write(LogLevel::kError, "AddressSanitizer report follows");
    Logger::instance().write_raw(report, strlen(report));
}
void install_sanitizer_log() { __asan_set_error_report_callback(write_asan_report); }
#else
void install_sanitizer_log() {}
#endif
}  // namespace srs
#else
namespace srs {
void install_sanitizer_log() {}
}  // namespace srs
#endif

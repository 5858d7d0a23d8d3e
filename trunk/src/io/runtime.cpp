#include "io/runtime.hpp"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "st/st.h"

namespace srs {

namespace {
int g_cid_key = -1;  // st thread-specific key holding a std::string*

void free_cid(void* p) { delete static_cast<std::string*>(p); }

const char* provide_cid() {
    if (g_cid_key < 0) return "";
    auto* cid = static_cast<std::string*>(st_thread_getspecific(g_cid_key));
    return cid ? cid->c_str() : "";
}
}  // namespace

Error init_runtime() {
    if (g_cid_key >= 0) {
        // Started already; make sure logs and errors ask us for the cid again.
        set_context_id_provider(provide_cid);
        return Error();
    }
    // EBUSY: the runtime was started already (tests share one process).
    if (st_set_eventsys(ST_EVENTSYS_ALT) < 0 && errno != EBUSY) {
        return SRS_ERR(kErrorThreadStart, "st_set_eventsys(epoll): %s", strerror(errno));
    }
    if (st_init() < 0) return SRS_ERR(kErrorThreadStart, "st_init: %s", strerror(errno));
    if (st_key_create(&g_cid_key, free_cid) < 0) {
        return SRS_ERR(kErrorThreadStart, "st_key_create: %s", strerror(errno));
    }
    set_context_id_provider(provide_cid);
    set_context_id(new_context_id());
    return Error();
}

void set_wakeup_coalesce(utime_t interval_us) {
    st_set_wakeup_coalesce(interval_us > 0 ? static_cast<st_utime_t>(interval_us) : 0);
}

Error sleep_us(utime_t us) {
    if (st_usleep(us < 0 ? 0 : static_cast<st_utime_t>(us)) < 0) {
        return SRS_ERR(kErrorThreadInterrupted, "sleep interrupted");
    }
    return Error();
}

void yield_now() { st_usleep(0); }

std::string new_context_id() {
    static const char kChars[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    std::string cid(8, '0');
    for (auto& c : cid) c = kChars[random() % 36];
    return cid;
}

const std::string& context_id() {
    static const std::string kEmpty;
    if (g_cid_key < 0) return kEmpty;
    auto* cid = static_cast<std::string*>(st_thread_getspecific(g_cid_key));
    return cid ? *cid : kEmpty;
}

void set_context_id(const std::string& cid) {
    if (g_cid_key < 0) return;
    auto* old = static_cast<std::string*>(st_thread_getspecific(g_cid_key));
    if (old) {
        *old = cid;
    } else {
        st_thread_setspecific(g_cid_key, new std::string(cid));
    }
}

}  // namespace srs

#include "app/api/tcmalloc_api.hpp"

#include <vector>

#include "core/log.hpp"

#ifdef SRS_GPERF
#include <gperftools/malloc_extension.h>
#endif

namespace srs {

bool tcmalloc_linked() {
#ifdef SRS_GPERF
    return true;
#else
    return false;
#endif
}

void apply_tcmalloc_release_rate(const Config& config) {
#ifdef SRS_GPERF
    double rate = config.get(keys::tcmalloc_release_rate);
    MallocExtension* m = MallocExtension::instance();
    if (m->GetMemoryReleaseRate() != rate) {
        m->SetMemoryReleaseRate(rate);
        srs_trace("tcmalloc: release rate %.2f", rate);
    }
#else
    (void)config;
#endif
}

int TcmallocEndpoint::handle_text(const HttpRequest& req, std::string* content_type, std::string* text) {
#ifdef SRS_GPERF
    if (req.query_param("page") != "summary") return 0;
    // GetStats writes a NUL-terminated report, truncated to the buffer;
    // with ~90 size classes it stays well under 64 KB.
    std::vector<char> buf(64 * 1024);
    MallocExtension::instance()->GetStats(buf.data(), static_cast<int>(buf.size()));
    buf.back() = '\0';
    *content_type = "text/plain; charset=utf-8";
    *text = buf.data();
    return 200;
#else
    (void)req, (void)content_type, (void)text;
    return 0;
#endif
}

int TcmallocEndpoint::handle(const HttpRequest& req, Json* body) {
#ifdef SRS_GPERF
    MallocExtension* m = MallocExtension::instance();
    auto property = [m](const char* name) -> Json {
        size_t v = 0;
        if (!m->GetNumericProperty(name, &v)) return nullptr;
        return static_cast<uint64_t>(v);
    };
    Json data;
    data["query"] = {{"page", req.query_param("page")}, {"help", "?page=summary|api"}};
    data["release_rate"] = m->GetMemoryReleaseRate();
    data["generic"] = {{"current_allocated_bytes", property("generic.current_allocated_bytes")},
                       {"heap_size", property("generic.heap_size")}};
    data["tcmalloc"] = {
        {"pageheap_free_bytes", property("tcmalloc.pageheap_free_bytes")},
        {"pageheap_unmapped_bytes", property("tcmalloc.pageheap_unmapped_bytes")},
        {"slack_bytes", property("tcmalloc.slack_bytes")},
        {"max_total_thread_cache_bytes", property("tcmalloc.max_total_thread_cache_bytes")},
        {"current_total_thread_cache_bytes", property("tcmalloc.current_total_thread_cache_bytes")}};
    (*body)["data"] = data;
    return 200;
#else
    (void)req;
    (*body)["code"] = 404;
    (*body)["error"] = "tcmalloc is not in this build: ./configure --gperf=on && make";
    return 404;
#endif
}

}  // namespace srs

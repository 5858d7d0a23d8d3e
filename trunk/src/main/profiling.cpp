#include "main/profiling.hpp"

#include <stdlib.h>

#include "core/log.hpp"

#ifdef SRS_GPERF_CP
#include <gperftools/profiler.h>
#endif
#ifdef SRS_GPERF_MP
#include <gperftools/heap-profiler.h>
#endif

namespace srs {

namespace {
// File names of the guide: `./objs/pprof --text objs/srs gperf.srs.gcp*`.
[[maybe_unused]] constexpr const char* kCpuProfile = "gperf.srs.gcp";
[[maybe_unused]] constexpr const char* kHeapProfilePrefix = "gperf.srs.gmp";
}  // namespace

Profiling::Profiling() {
#ifdef SRS_GPERF_CP
    // CPUPROFILE in the environment starts the profiler before main, into
    // its own file; then leave it alone.
    if (ProfilingIsEnabledForAllThreads()) {
        srs_trace("gcp: the CPU profiler already runs (CPUPROFILE=%s)", getenv("CPUPROFILE") ? getenv("CPUPROFILE") : "");
    } else if (ProfilerStart(kCpuProfile)) {
        cpu_ = true;
        srs_trace("gcp: CPU profile to %s until the server quits (SIGINT/SIGTERM)", kCpuProfile);
    } else {
        srs_error("gcp: cannot start the CPU profiler into %s", kCpuProfile);
    }
#endif
#ifdef SRS_GPERF_MP
    if (IsHeapProfilerRunning()) {
        srs_trace("gmp: the heap profiler already runs (HEAPPROFILE=%s)", getenv("HEAPPROFILE") ? getenv("HEAPPROFILE") : "");
    } else {
        HeapProfilerStart(kHeapProfilePrefix);
        heap_ = true;
        srs_trace("gmp: heap profile to %s.NNNN.heap, the last one when the server quits", kHeapProfilePrefix);
    }
#endif
#ifdef SRS_GPERF_MC
    if (!getenv("HEAPCHECK")) {
        srs_warn("gmc: this build has the heap checker, but HEAPCHECK is not set: "
                 "run with env PPROF_PATH=./objs/pprof HEAPCHECK=normal");
    } else {
        srs_trace("gmc: heap checker on (HEAPCHECK=%s), leaks are reported when the server quits", getenv("HEAPCHECK"));
    }
#endif
#ifdef SRS_GPERF_MD
    if (!getenv("TCMALLOC_PAGE_FENCE")) {
        srs_warn("gmd: this build has the debug malloc, but TCMALLOC_PAGE_FENCE is not set: "
                 "run with env TCMALLOC_PAGE_FENCE=1 to crash on overruns and use-after-free");
    } else {
        srs_trace("gmd: debug malloc with TCMALLOC_PAGE_FENCE=%s", getenv("TCMALLOC_PAGE_FENCE"));
    }
#endif
}

void Profiling::on_quit() {
#ifdef SRS_GPERF_MP
    if (heap_) HeapProfilerDump("quit");
#endif
}

Profiling::~Profiling() {
#ifdef SRS_GPERF_MP
    if (heap_) {
        HeapProfilerDump("exit");
        HeapProfilerStop();
        srs_trace("gmp: heap profile written to %s.*.heap", kHeapProfilePrefix);
    }
#endif
#ifdef SRS_GPERF_CP
    if (cpu_) {
        ProfilerStop();
        srs_trace("gcp: CPU profile written to %s", kCpuProfile);
    }
#endif
}

}  // namespace srs

// The gperftools profilers of an instrumented build (docs/performance.md):
//
//   --gcp=on  CPU profile written to gperf.srs.gcp in the working directory
//   --gmp=on  heap profile written to gperf.srs.gmp.NNNN.heap
//   --gmc=on  heap checker: nothing to start here (HEAPCHECK=normal starts it
//             before main and checks when main returns), only a reminder
//   --gmd=on  debug malloc: likewise, TCMALLOC_PAGE_FENCE=1 turns fences on
//
// A Profiling object lives in main() around the server: it starts what the
// build has and stops it, flushing the files, when main() is done (SIGINT,
// SIGTERM and SIGQUIT all return from the server's loop). In a build without
// these options it does nothing.
#pragma once

namespace srs {

class Profiling {
  public:
    // Starts the profilers. Call in the process that serves (after any
    // daemon fork) and after the log is set up, so its messages show.
    Profiling();
    // Stops them: the CPU profile is flushed, the heap profile dumped.
    ~Profiling();
    // The server got a quit signal and still holds its streams: dump the
    // heap profile now, so it shows what serving uses (the one at exit
    // shows what is left after the server freed everything).
    void on_quit();

    Profiling(const Profiling&) = delete;
    Profiling& operator=(const Profiling&) = delete;

  private:
    bool cpu_ = false;
    bool heap_ = false;
};

}  // namespace srs

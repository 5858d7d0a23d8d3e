// A deliberate memory bug inside a coroutine, to show what ASAN reports for
// our runtime (test-only: built by `make asan-demo`, never part of the
// server). Run by test/test_asan.py.
//
//   asan_demo heap-overflow LOG   a heap buffer overflow in a coroutine
//   asan_demo stack-overflow LOG  a stack buffer overflow on a coroutine stack
//   asan_demo leak LOG            memory lost in a coroutine (detect_leaks=1)
//
// LOG is a log file: the demo installs --sanitizer-log's report callback, as
// the server does, so the report lands in it as well as on stderr.
#include <stdio.h>
#include <string.h>

#include <string>

#include "core/log.hpp"
#include "io/coroutine.hpp"
#include "io/runtime.hpp"

namespace srs {
void install_sanitizer_log();  // src/main/sanitizer.cpp, built with SRS_SANITIZER_LOG
}

using namespace srs;

namespace {

// volatile: the compiler must not see that these are out of bounds.
void* volatile g_sink = nullptr;  // the allocations escape: they cannot be optimised away

__attribute__((noinline)) void overflow_heap_in_coroutine(volatile int index) {
    char* buf = new char[16];
    g_sink = buf;
    buf[index] = 'x';  // index 16: one past the end
    delete[] buf;
}

__attribute__((noinline)) void overflow_stack_in_coroutine(volatile int index) {
    char buf[16];
    memset(buf, 0, sizeof(buf));
    buf[index] = 'x';
    printf("%c\n", buf[0]);
}

__attribute__((noinline)) void leak_in_coroutine() {
    char* lost = new char[4096];
    memset(lost, 1, 4096);
    g_sink = lost;
    g_sink = nullptr;  // the only pointer is gone: a leak
}

class Victim : public CoroutineHandler {
  public:
    explicit Victim(std::string mode) : mode_(std::move(mode)) {}
    Error cycle() override {
        if (mode_ == "heap-overflow") overflow_heap_in_coroutine(16);
        if (mode_ == "stack-overflow") overflow_stack_in_coroutine(16);
        if (mode_ == "leak") leak_in_coroutine();
        return Error();
    }

  private:
    std::string mode_;
};

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s heap-overflow|stack-overflow|leak LOG\n", argv[0]);
        return 2;
    }
    if (Error err = Logger::instance().use_file(argv[2]); !err.ok()) {
        fprintf(stderr, "log: %s\n", err.summary().c_str());
        return 2;
    }
    install_sanitizer_log();
    if (Error err = init_runtime(); !err.ok()) return 2;
    Victim victim(argv[1]);
    Coroutine co("victim", &victim);
    if (Error err = co.start(); !err.ok()) return 2;
    co.stop();  // joins: the bug ran in the coroutine
    srs_trace("asan_demo %s done", argv[1]);
    return 0;
}

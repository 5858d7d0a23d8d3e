// A coroutine body from a lambda, for tests that start small servers and
// clients as coroutines (io::Coroutine takes a CoroutineHandler).
//
// Header-only; include it as "utest/coroutine_fn.hpp".
#pragma once

#include <functional>
#include <utility>

#include "core/error.hpp"
#include "io/coroutine.hpp"

namespace srs::utest {

class FnHandler : public CoroutineHandler {
  public:
    explicit FnHandler(std::function<Error()> fn) : fn_(std::move(fn)) {}
    Error cycle() override { return fn_(); }

  private:
    std::function<Error()> fn_;
};

}  // namespace srs::utest

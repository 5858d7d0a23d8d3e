// A real redis-server for the registry's tests: started on a free port with
// no persistence, stopped by its pid (SIGKILL, as a crash would), restartable
// on the same port. Skips the test when redis-server is not installed.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "io/runtime.hpp"
#include "io/socket.hpp"

namespace srs::utest {

// A port nobody listens on right now (the kernel picks it, we close it).
inline int free_tcp_port() {
    TcpListener l("127.0.0.1", 0);
    if (Error err = l.listen(); err.failed()) {
        err.ignore();
        return 0;
    }
    return l.port();
}

inline bool have_redis_server() { return access("/usr/bin/redis-server", X_OK) == 0; }

class RedisServerProcess {
  public:
    // port 0: a free one, picked by start() (the runtime must be up by then).
    explicit RedisServerProcess(int port = 0) : port_(port) {}
    ~RedisServerProcess() { kill9(); }

    int port() const { return port_; }
    pid_t pid() const { return pid_; }

    // Starts it and waits until it accepts connections (up to 5 s).
    bool start() {
        if (port_ == 0) port_ = free_tcp_port();
        if (port_ == 0) return false;
        pid_ = fork();
        if (pid_ == 0) {
            std::string port = std::to_string(port_);
            execl("/usr/bin/redis-server", "redis-server", "--port", port.c_str(), "--bind", "127.0.0.1", "--save",
                  "", "--appendonly", "no", "--loglevel", "warning", (char*)nullptr);
            _exit(127);
        }
        if (pid_ < 0) return false;
        for (int i = 0; i < 100; i++) {
            TcpConn* c = nullptr;
            Error err = TcpConn::connect("127.0.0.1", port_, 200 * kUsPerMs, &c);
            if (err.ok()) {
                delete c;
                return true;
            }
            err.ignore();
            sleep_us(50 * kUsPerMs).ignore();
        }
        return false;
    }
    void kill9() {
        if (pid_ <= 0) return;
        ::kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
        pid_ = -1;
    }

  private:
    int port_;
    pid_t pid_ = -1;
};

}  // namespace srs::utest

// A one-connection RTMP server on loopback for the edge's tests: accepts one
// client, does the handshake, then runs the test's script (serve()) against
// it; helpers wait for a named command and hold a connection until the
// client leaves.
//
// Header-only; the subclass is the script.
#pragma once

#include <memory>
#include <string>

#include "app/upstream/rtmp_transport.hpp"
#include "io/coroutine.hpp"
#include "io/socket.hpp"
#include "protocol/rtmp/rtmp_command.hpp"

namespace srs::utest {

class ScriptedRtmpServer : public CoroutineHandler {
  public:
    static constexpr utime_t kTimeout = 5 * kUsPerSecond;

    explicit ScriptedRtmpServer(const char* name) : co_(name, this) {}
    ~ScriptedRtmpServer() override { co_.stop(); }
    Error start() {
        if (Error err = listener_.listen(); !err.ok()) return err;
        return co_.start();
    }
    std::string base() const { return "rtmp://127.0.0.1:" + std::to_string(listener_.port()); }

  protected:
    // The script, after the handshake; both timeouts are kTimeout.
    virtual Error serve(TcpConn* conn, RtmpTransport& t) = 0;

    // Reads until a command called `name` (skipping media and other commands).
    static Error expect(RtmpTransport& t, const char* name, RtmpCommand* cmd) {
        RtmpMessage msg;
        while (true) {
            if (Error err = t.recv_message(&msg); !err.ok()) return err;
            if (!msg.is_command()) continue;
            if (Error err = decode_rtmp_command(msg, cmd); !err.ok()) return err;
            if (cmd->name == name) return Error();
        }
    }
    // Reads (and drops) until the client closes or a read times out.
    static Error hold_until_close(RtmpTransport& t) {
        RtmpMessage msg;
        for (int i = 0; i < 100000; i++) {
            Error err = t.recv_message(&msg);
            if (!err.ok()) {
                err.ignore();
                break;
            }
        }
        return Error();
    }

  private:
    Error cycle() override {
        TcpConn* raw = nullptr;
        if (Error err = listener_.accept(&raw, kTimeout); !err.ok()) return err;
        std::unique_ptr<TcpConn> conn(raw);
        conn->set_recv_timeout(kTimeout);
        conn->set_send_timeout(kTimeout);
        RtmpTransport t(conn.get());
        if (Error err = t.handshake_as_server(); !err.ok()) return err;
        return serve(conn.get(), t);
    }

    TcpListener listener_{"127.0.0.1", 0};
    Coroutine co_;
};

}  // namespace srs::utest

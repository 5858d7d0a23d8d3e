// Three listeners share a port; with the balance program (a round-robin
// counter), 30 connections land exactly 10 on each.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "io/reuseport_balance.hpp"
#include "io/runtime.hpp"
#include "io/socket.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using srs::utest::ok;

namespace {

// Connects `n` clients one after another; returns the accepts per listener.
std::vector<int> spread(std::vector<std::unique_ptr<TcpListener>>& ls, int n) {
    std::vector<int> counts(ls.size(), 0);
    for (int i = 0; i < n; ++i) {
        TcpConn* c = nullptr;
        if (!ok(TcpConn::connect("127.0.0.1", ls[0]->port(), kUsPerSecond, &c))) return {};
        std::unique_ptr<TcpConn> client(c);
        for (size_t k = 0; k < ls.size(); ++k) {
            TcpConn* s = nullptr;
            if (ok(ls[k]->accept(&s, 20 * kUsPerMs))) {
                delete s;
                counts[k]++;
                break;
            }
        }
    }
    return counts;
}

}  // namespace

TEST(ReuseportBalance, SpreadsSequentialConnectionsEvenly) {
    ASSERT_TRUE(ok(init_runtime()));
    std::vector<std::unique_ptr<TcpListener>> ls;
    ls.emplace_back(new TcpListener("127.0.0.1", 0));
    ASSERT_TRUE(ok(ls[0]->listen()));
    for (int i = 1; i < 3; ++i) {
        ls.emplace_back(new TcpListener("127.0.0.1", ls[0]->port()));
        ASSERT_TRUE(ok(ls[i]->listen()));
    }
    for (auto& l : ls) ASSERT_TRUE(ok(attach_reuseport_balance(l->fd(), 3)));
    std::vector<int> counts = spread(ls, 30);
    ASSERT_EQ(counts.size(), 3u);
    EXPECT_EQ(counts[0] + counts[1] + counts[2], 30);
    for (int c : counts) EXPECT_EQ(c, 10) << counts[0] << " " << counts[1] << " " << counts[2];
}

TEST(ReuseportBalance, RejectsBadGroupSizes) {
    EXPECT_FALSE(ok(attach_reuseport_balance(-1, 3)));
    EXPECT_FALSE(ok(attach_reuseport_balance(0, 0)));
    EXPECT_FALSE(ok(attach_reuseport_balance(0, 257)));
}

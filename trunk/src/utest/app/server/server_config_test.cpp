// The server's config across a reload: LiveContext::config() hands out
// snapshots, and a reload swaps the server's pointer without touching them.
#include "app/server/server.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "io/runtime.hpp"

using namespace srs;

namespace {

class ServerConfigTest : public ::testing::Test {
  protected:
    void SetUp() override {
        ASSERT_TRUE(init_runtime().ok());
        char tmpl[] = "/tmp/srs_server_config_test_XXXXXX";
        ASSERT_NE(nullptr, mkdtemp(tmpl));
        dir_ = tmpl;
        path_ = dir_ + "/srs.conf";
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    void write_conf(const std::string& text) { std::ofstream(path_) << text; }

    std::shared_ptr<const Config> load_conf() {
        std::shared_ptr<const Config> conf;
        Error err = Config::load_file(path_, &conf);
        EXPECT_TRUE(err.ok()) << err.summary();
        return conf;
    }

    std::string dir_;
    std::string path_;
};

}  // namespace

TEST_F(ServerConfigTest, SnapshotTakenBeforeAReloadStaysValidAndUnchanged) {
    // The same listen in both, so the reload opens no socket.
    write_conf("listen 127.0.0.1:19351;\nmax_connections 10;\nvhost a { play { mw_msgs 3; } }\n");
    Server server(load_conf(), path_);
    std::shared_ptr<const Config> before = server.config();
    ASSERT_TRUE(before);
    EXPECT_EQ(before, server.config());  // no reload, the same Config

    write_conf("listen 127.0.0.1:19351;\nmax_connections 20;\nvhost b { }\n");
    Error err = server.reload();
    ASSERT_TRUE(err.ok()) << err.summary();

    std::shared_ptr<const Config> after = server.config();
    ASSERT_TRUE(after);
    EXPECT_NE(before, after);
    // The snapshot still reads what it read before the reload (ASAN would
    // report a read of a freed Config here).
    EXPECT_EQ(10, before->get(keys::max_connections));
    EXPECT_TRUE(before->has_vhost("a"));
    EXPECT_FALSE(before->has_vhost("b"));
    EXPECT_EQ(3, before->get("a", keys::vhost_play_mw_msgs));
    EXPECT_EQ(path_, before->source());
    // The server runs on the new one.
    EXPECT_EQ(20, after->get(keys::max_connections));
    EXPECT_FALSE(after->has_vhost("a"));
    EXPECT_TRUE(after->has_vhost("b"));
    EXPECT_EQ(8, after->get("a", keys::vhost_play_mw_msgs));

    // The old Config lives exactly as long as its last snapshot.
    std::weak_ptr<const Config> old = before;
    before.reset();
    EXPECT_TRUE(old.expired());
}

TEST_F(ServerConfigTest, FailedReloadKeepsTheRunningConfig) {
    write_conf("listen 127.0.0.1:19352;\nmax_connections 10;\n");
    Server server(load_conf(), path_);
    std::shared_ptr<const Config> before = server.config();
    write_conf("listen 127.0.0.1:19352;\nmax_connections lots;\n");
    Error err = server.reload();
    EXPECT_FALSE(err.ok());
    err.ignore();
    EXPECT_EQ(before, server.config());
    EXPECT_EQ(10, server.config()->get(keys::max_connections));
}

// The wakeup_coalesce_us directive as the server applies it: its default,
// its value, and off whenever a vhost is realtime (min_latency on).
#include "app/server/wakeup_coalesce.hpp"

#include <gtest/gtest.h>

using namespace srs;

namespace {

std::shared_ptr<const Config> config_with(const std::string& text) {
    std::shared_ptr<const Config> c;
    Error err = Config::load_text("listen 1935;\n" + text, "test", &c);
    EXPECT_TRUE(err.ok()) << err.summary();
    return c;
}

}  // namespace

TEST(WakeupCoalesce, DefaultIsOneMillisecond) {
    EXPECT_EQ(1000, wakeup_coalesce_us(*config_with("")));
    EXPECT_EQ(1000, wakeup_coalesce_us(*config_with("vhost __defaultVhost__ { min_latency off; }\n")));
}

TEST(WakeupCoalesce, DirectiveSetsItAndZeroTurnsItOff) {
    EXPECT_EQ(250, wakeup_coalesce_us(*config_with("wakeup_coalesce_us 250;\n")));
    EXPECT_EQ(0, wakeup_coalesce_us(*config_with("wakeup_coalesce_us 0;\n")));
}

TEST(WakeupCoalesce, AnyRealtimeVhostTurnsItOff) {
    EXPECT_EQ(0, wakeup_coalesce_us(*config_with("vhost __defaultVhost__ { min_latency on; }\n")));
    EXPECT_EQ(0, wakeup_coalesce_us(*config_with("wakeup_coalesce_us 500;\n"
                                                 "vhost __defaultVhost__ { }\n"
                                                 "vhost rt.example.com { min_latency on; }\n")));
}

TEST(WakeupCoalesce, OutOfRangeIsRefused) {
    std::shared_ptr<const Config> c;
    EXPECT_FALSE(Config::load_text("listen 1935;\nwakeup_coalesce_us -1;\n", "test", &c).ok());
    EXPECT_FALSE(Config::load_text("listen 1935;\nwakeup_coalesce_us 100001;\n", "test", &c).ok());
}

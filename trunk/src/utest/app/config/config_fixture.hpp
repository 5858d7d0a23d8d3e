// A gtest fixture that loads conf text with only the environment the test
// sets (never the developer's SRS_* variables).
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "app/config/config.hpp"

namespace srs {

class ConfigFixture : public ::testing::Test {
  protected:
    void SetUp() override {
        Config::set_env_getter([this](const char* name) -> const char* {
            auto it = env_.find(name);
            return it == env_.end() ? nullptr : it->second.c_str();
        });
    }
    void TearDown() override { Config::set_env_getter(nullptr); }

    std::shared_ptr<const Config> load(const std::string& text) {
        std::shared_ptr<const Config> conf;
        Error err = Config::load_text(text, "t.conf", &conf);
        EXPECT_TRUE(err.ok()) << err.summary();
        return conf;
    }

    // The error text of loading `text`, or "" when it loads.
    std::string load_error(const std::string& text) {
        std::shared_ptr<const Config> conf;
        Error err = Config::load_text(text, "t.conf", &conf);
        return err.ok() ? "" : err.summary();
    }

    std::map<std::string, std::string> env_;
};

}  // namespace srs

// main(): the command line, the config, the process (daemon, pid file, log)
// and then the server's loop.
//
//   ./objs/srs -c conf/srs.conf     run with a config file
//   ./objs/srs -t -c conf/srs.conf  test the config file and exit
//   ./objs/srs -e                   run from SRS_* environment variables only
//   ./objs/srs -v                   print the version
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "app/config/config.hpp"
#include "main/process.hpp"
#include "app/server/server.hpp"
#include "build_options.h"
#include "core/log.hpp"
#include "core/version.hpp"
#include "io/runtime.hpp"
#include "main/libav_log.hpp"
#include "main/profiling.hpp"

namespace srs {
void install_sanitizer_log();
}

namespace {

struct Options {
    std::string conf_path;
    bool test_only = false;
    bool env_only = false;
};

void print_usage(const char* argv0) {
    printf("%s %s, an SRS-compatible realtime media server\n"
           "Usage: %s [-h?vVgGte] [-c <filename>]\n"
           "\n"
           "Options:\n"
           "   -?, -h, --help      show this help and exit\n"
           "   -v, -V, --version   show the version and exit\n"
           "   -g, -G              show the server signature and exit\n"
           "   -t                  test the config file and exit\n"
           "   -e                  run from SRS_* environment variables only (no config file)\n"
           "   -c filename         use this config file (default conf/srs.conf, or $SRS_CONFIG_FILE)\n"
           "\n"
           "For example:\n"
           "   %s -v\n"
           "   %s -t -c conf/srs.conf\n"
           "   %s -c conf/srs.conf\n",
           SRS_SERVER_NAME, SRS_VERSION_STRING, argv0, argv0, argv0, argv0);
}

bool env_on(const char* name) {
    const char* v = getenv(name);
    return v && (strcmp(v, "on") == 0 || strcmp(v, "true") == 0 || strcmp(v, "1") == 0);
}

// Returns -1 to go on, or an exit code.
int parse_args(int argc, char** argv, Options* opts) {
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "-?") == 0 || strcmp(a, "--help") == 0) {
            print_usage(argv[0]);
            return 0;
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "-V") == 0 || strcmp(a, "--version") == 0) {
            fprintf(stderr, "%s\n", SRS_VERSION_STRING);
            return 0;
        } else if (strcmp(a, "-g") == 0 || strcmp(a, "-G") == 0) {
            fprintf(stderr, "%s\n", SRS_SIGNATURE);
            return 0;
        } else if (strcmp(a, "-t") == 0) {
            opts->test_only = true;
        } else if (strcmp(a, "-e") == 0) {
            opts->env_only = true;
        } else if (strcmp(a, "-c") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "srs: -c needs a file name\n");
                return 1;
            }
            opts->conf_path = argv[++i];
        } else if (strncmp(a, "-c", 2) == 0 && a[2]) {
            opts->conf_path = a + 2;
        } else {
            fprintf(stderr, "srs: unknown option %s (see %s -h)\n", a, argv[0]);
            return 1;
        }
    }
    if (env_on("SRS_ENV_ONLY")) opts->env_only = true;
    if (opts->conf_path.empty() && getenv("SRS_CONFIG_FILE")) opts->conf_path = getenv("SRS_CONFIG_FILE");
    if (opts->conf_path.empty() && !opts->env_only) opts->conf_path = "conf/srs.conf";
    return -1;
}

srs::Error setup_log(const srs::Config& config) {
    srs::Logger& log = srs::Logger::instance();
    srs::LogLevel level = srs::LogLevel::kTrace;
    if (!srs::parse_log_level(config.log_level(), &level)) {
        return SRS_ERR(srs::kErrorConfigInvalid, "bad log level %s", config.log_level().c_str());
    }
    log.set_level(level);
    log.set_utc(config.get(srs::keys::utc_time));
    if (config.get(srs::keys::srs_log_tank) == "console") {
        log.use_console();
        return srs::Error();
    }
    return log.use_file(config.get(srs::keys::srs_log_file));
}

bool in_docker() { return access("/.dockerenv", F_OK) == 0; }

int run(const Options& opts) {
    using namespace srs;
    std::shared_ptr<const Config> config;
    Error err = opts.env_only ? Config::load_env_only(&config) : Config::load_file(opts.conf_path, &config);
    if (!err.ok()) {
        fprintf(stderr, "srs: invalid config: %s\n", err.summary().c_str());
        if (opts.test_only) fprintf(stderr, "srs: the config file %s test failed\n", opts.conf_path.c_str());
        return 1;
    }
    if (opts.test_only) {
        for (const auto& w : config->warnings()) fprintf(stderr, "srs: warning: %s\n", w.c_str());
        const char* name = opts.env_only ? "(environment)" : opts.conf_path.c_str();
        fprintf(stderr, "srs: the config file %s syntax is ok\n", name);
        fprintf(stderr, "srs: config file %s test is successful\n", name);
        return 0;
    }

    const std::string work_dir = config->get(keys::work_dir);
    if (work_dir != "./" && work_dir != "." && !work_dir.empty()) {
        if (chdir(work_dir.c_str()) < 0) {
            fprintf(stderr, "srs: chdir to work_dir %s: %s\n", work_dir.c_str(), strerror(errno));
            return 1;
        }
    }
    if (Error lerr = setup_log(*config); !lerr.ok()) {
        fprintf(stderr, "srs: %s\n", lerr.summary().c_str());
        return 1;
    }
    install_sanitizer_log();
    install_libav_log();

    bool daemon = config->get(keys::daemon) && !opts.env_only;
    if (daemon && config->get(keys::disable_daemon_for_docker) && in_docker()) {
        fprintf(stderr, "srs: in docker, run in the foreground (disable_daemon_for_docker on)\n");
        daemon = false;
    }
    if (daemon) {
        fprintf(stderr, "srs: starting as a daemon, log in %s\n",
                Logger::instance().is_file() ? Logger::instance().file_path().c_str() : "the console");
        if (Error derr = daemonize(); !derr.ok()) {
            fprintf(stderr, "srs: %s\n", derr.summary().c_str());
            return 1;
        }
    }

    srs_trace("%s/%s starting, pid=%d, config=%s, build=[%s]", SRS_SERVER_NAME, SRS_VERSION_STRING, (int)getpid(),
              opts.env_only ? "(environment)" : opts.conf_path.c_str(), SRS_CONFIGURE_OPTIONS);
    for (const auto& w : config->warnings()) srs_warn("%s", w.c_str());

    PidFile pid_file;
    if (Error perr = pid_file.acquire(config->get(keys::pid)); !perr.ok()) {
        srs_error("%s", perr.describe().c_str());
        notify_daemon_started(&perr);
        if (!daemon) fprintf(stderr, "srs: %s\n", perr.summary().c_str());
        return 1;
    }

    const int max_connections = static_cast<int>(config->get(keys::max_connections));
    long limit = ensure_fd_limit(max_connections);
    if (limit >= 0 && limit < max_connections) {
        srs_warn("ulimit -n is %ld, below max_connections %ld: raise it (ulimit -n %ld) or lower max_connections",
                 limit, (long)max_connections, (long)max_connections + 128);
    }

    if (Error rerr = init_runtime(); !rerr.ok()) {
        srs_error("%s", rerr.describe().c_str());
        notify_daemon_started(&rerr);
        return 1;
    }
    int code = 0;
    {
        // Profilers of a --gperf build (docs/performance.md); stopped after
        // the server is gone, so the files cover its whole life.
        Profiling profiling;
        Server server(std::move(config), opts.env_only ? "" : opts.conf_path);
        server.set_quit_hook([&profiling] { profiling.on_quit(); });
        Error serr = server.initialize();
        notify_daemon_started(&serr);
        if (!serr.ok()) {
            srs_error("start failed: %s", serr.describe().c_str());
            if (!daemon) fprintf(stderr, "srs: start failed: %s\n", serr.summary().c_str());
            code = 1;
        } else if (Error rerr = server.run(); !rerr.ok()) {
            srs_error("%s", rerr.describe().c_str());
            code = 1;
        }
    }
    srs_trace("exit %d", code);
    return code;
}

}  // namespace

int main(int argc, char** argv) {
    srandom(static_cast<unsigned>(time(nullptr) ^ getpid()));
    Options opts;
    int code = parse_args(argc, argv, &opts);
    if (code >= 0) return code;
    return run(opts);
}

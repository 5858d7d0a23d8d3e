// SRS's FFmpeg directives, run: ingest (per vhost, from server start),
// transcode and exec (per publish, through the sources' publish factory, as
// forward does).
//
// Every process is an FfmpegTask; one coroutine ticks them all (every
// 100 ms: a start that is due, an exit noticed with waitpid(WNOHANG) on the
// task's pid). A task that is retired (unpublish, reload, quit) hands its
// process to the manager, which sends SIGTERM, SIGKILL after a grace, and
// reaps it, so the publisher never waits for a process to die.
//
// Loops: a transcode whose output is published here would be transcoded
// again; as SRS does, a publish of a stream that a running transcode
// writes is not transcoded.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "app/config/config.hpp"
#include "app/ffmpeg/ffmpeg_task.hpp"
#include "app/live/live_bridge.hpp"
#include "io/coroutine.hpp"

namespace srs {

class LiveSource;

class FfmpegManager : public LiveBridgeFactory, public CoroutineHandler {
  public:
    static constexpr utime_t kTickUs = 100 * kUsPerMs;
    static constexpr utime_t kStopGraceUs = 3 * kUsPerSecond;

    explicit FfmpegManager(ConfigSnapshot config);
    ~FfmpegManager() override;

    // Starts the enabled ingests of the running config and the tick.
    Error start();
    // Quit: every process gets SIGTERM, SIGKILL after the grace, and is
    // reaped before this returns. Nothing starts afterwards.
    void stop();
    // SIGHUP: ingests added, removed or changed are started, stopped or
    // restarted; the others keep running. Transcode and exec changes apply
    // from the next publish.
    void on_reload();

    // The transcodes and exec commands of a publish (nullptr: none).
    std::unique_ptr<LiveSourceBridge> create_bridge(LiveSource* source) override;

    // For the publish bridges: their tasks join and leave the tick.
    void add_task(const std::shared_ptr<FfmpegTask>& task);
    void retire_task(FfmpegTask* task);
    void release_output(const OutputStreamKey& key);

  private:
    struct Ingest {
        std::string text;  // the ingest block as the conf wrote it (reload compares)
        std::vector<std::shared_ptr<FfmpegTask>> tasks;
    };

    Error cycle() override;
    void reap_dying(utime_t now_us);
    // vhost/NAME (or vhost/#index for an unnamed ingest) -> its block.
    std::map<std::string, const ConfigSection*> wanted_ingests(const Config& conf) const;
    void start_ingest(const Config& conf, const std::string& key, const ConfigSection& block);
    void stop_ingest(const std::string& key);

    ConfigSnapshot config_;
    std::map<std::string, Ingest> ingests_;
    // Every task the tick drives. Shared: a tick holds its task while a start
    // waits for the exec, even if an unpublish retires and drops it meanwhile.
    std::map<FfmpegTask*, std::shared_ptr<FfmpegTask>> tasks_;
    std::vector<std::unique_ptr<ChildProcess>> dying_;
    std::multiset<OutputStreamKey> outputs_;  // streams running transcodes write
    bool stopped_ = false;
    Coroutine co_;
};

}  // namespace srs

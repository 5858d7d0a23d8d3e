// HTTP-TS: a live stream as an MPEG-TS stream that never ends (video/MP2T),
// for players and tools that take TS over HTTP (VLC, ffmpeg, set-top boxes).
//
// Each player has its own TsMuxer: continuity counters, PAT/PMT timing and
// the PCR are per TS stream, and a player starts wherever it joined (the GOP
// cache: a keyframe first), so the bytes cannot be shared the way FLV tag
// headers are without breaking every late joiner's counters. The muxer
// writes into one reused buffer per batch, sent with one write: a copy of
// the payload per player, no allocation per message once warm.
//
// PAT and PMT go out first and then every kTsPsiIntervalMs of stream time,
// so a reader that drops in mid-stream (a proxy, a restarted demuxer)
// resynchronises. The PMT lists the tracks the stream has (by its sequence
// headers) within what has_audio/has_video/guess_has_av allow.
#pragma once

#include <string>
#include <vector>

#include "app/http/http_remux_writer.hpp"
#include "kernel/ts/ts_muxer.hpp"

namespace srs {

constexpr uint32_t kTsPsiIntervalMs = 500;

class TsPlayWriter : public HttpStreamWriter {
  public:
    TsPlayWriter(HttpResponse* res, std::string url);

    Error write(const std::vector<LiveMessagePtr>& msgs) override;

    const TsMuxerStats& stats() const { return muxer_.stats(); }

    // Muxes msgs into *out (sans-IO, for tests): frames the muxer refuses
    // are skipped and counted (the first one is logged).
    static void mux(TsMuxer* muxer, const std::vector<LiveMessagePtr>& msgs, std::string* out, const std::string& url);

  private:
    TsMuxer muxer_;
    std::string buf_;
};

}  // namespace srs

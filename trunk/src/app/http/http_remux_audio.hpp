// HTTP-MP3 and HTTP-AAC: a live stream's audio as a plain audio file that
// never ends (audio/mpeg, audio/x-aac), for radio-like players and <audio>.
//
// Video, metadata and sequence headers are not sent. MP3 frames go out as
// the publisher sent them (the FLV audio tag body after its 1-byte header:
// one iovec into the shared payload, nothing built). AAC frames get a
// 7-byte ADTS header, built once per message into the message's "adts"
// framing slot and shared by every AAC player of the stream; the payload is
// again an iovec into the shared bytes.
//
// Audio of another codec ends the response with an error, as SRS (an MP3
// mount on an AAC stream: the player gets the 200, the ID3 tag, and then
// the connection closes at the first audio frame).
#pragma once

#include <sys/uio.h>

#include <vector>

#include "app/http/http_remux_format.hpp"
#include "app/http/http_remux_writer.hpp"
#include "kernel/ts/ts_es.hpp"

namespace srs {

// The sans-IO part: messages in, iovecs out (pointing into the messages and
// their framing slots, valid while the messages live).
class AudioRemuxer {
  public:
    explicit AudioRemuxer(RemuxFormat format) : format_(format) {}

    // Appends this message's iovecs (none for video, data, sequence
    // headers, or AAC frames before the first AudioSpecificConfig).
    // Audio of another codec, or a malformed audio body, is an error.
    Error frame(LiveMessage* msg, std::vector<struct iovec>* iov);

    bool have_config() const { return have_config_; }
    const TsAdtsConfig& config() const { return config_; }

  private:
    RemuxFormat format_;
    bool have_config_ = false;
    TsAdtsConfig config_;
};

FramingSlotId adts_framing_slot();

class AudioPlayWriter : public HttpStreamWriter {
  public:
    AudioPlayWriter(HttpResponse* res, RemuxFormat format, std::string url)
        : HttpStreamWriter(res, std::string("HTTP-") + remux_format_name(format), std::move(url)), remuxer_(format) {}

    Error write(const std::vector<LiveMessagePtr>& msgs) override;

  private:
    AudioRemuxer remuxer_;
    std::vector<struct iovec> iov_;
};

}  // namespace srs

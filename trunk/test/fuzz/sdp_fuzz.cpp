// libFuzzer target for kernel/sdp: the input is the body of a WHIP/WHEP POST
// (an SDP offer). Whatever parse_sdp() accepts must write back to text that
// parses again and writes to the same text (write is a fixed point after one
// round); an offer that passes check_offer() and choose_codecs() must give an
// answer for a publisher and for a player whose text parses back to itself
// and again passes the checks. Any broken promise aborts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "kernel/sdp/sdp.hpp"
#include "kernel/sdp/sdp_answer.hpp"

using namespace srs;

namespace {

void must(Error err) {
    if (err.failed()) abort();
}

// text -> parse -> write must be stable.
void check_fixed_point(const std::string& text) {
    if (text.size() > kSdpMaxBytes) return;
    SessionDescription again;
    must(parse_sdp(text, &again));
    if (write_sdp(again) != text) abort();
}

void answer(const SessionDescription& offer, const std::vector<SdpMediaChoice>& choice, bool publisher) {
    SdpAnswerOptions o;
    o.ice_ufrag = "fuzz";
    o.ice_pwd = "0123456789abcdefghijkl";
    o.fingerprint.algorithm = "sha-256";
    o.fingerprint.value =
        "00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF";
    o.candidates = {{"192.0.2.1", 8000, "udp"}, {"192.0.2.1", 8000, "tcp"}};
    o.publisher = publisher;
    o.cname = "c";
    o.stream_id = "s";
    o.audio.ssrc = 1;
    o.video.ssrc = 2;
    o.video.rtx_ssrc = 3;
    SessionDescription a;
    must(build_answer(offer, choice, o, &a));
    std::string text = write_sdp(a);
    check_fixed_point(text);
    SessionDescription back;
    must(parse_sdp(text, &back));
    if (back.media.size() != offer.media.size()) abort();
    for (size_t i = 0; i < back.media.size(); i++) {
        if (choice[i].accepted && back.media[i].codecs.empty()) abort();
        if (!choice[i].accepted && back.media[i].port != 0) abort();
    }
    must(check_offer(back));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    SessionDescription sd;
    Error err = parse_sdp(text, &sd);
    if (err.failed()) {
        if (err.message().empty()) abort();
        err.ignore();
        return 0;
    }
    if (sd.media.size() > kSdpMaxMedia) abort();
    check_fixed_point(write_sdp(sd));

    Error checked = check_offer(sd);
    if (checked.failed()) {
        checked.ignore();
        return 0;
    }
    std::vector<SdpMediaChoice> choice;
    SdpCodecPreference prefer;
    prefer.video = {"h264", "vp8", "av1"};
    Error chosen = choose_codecs(sd, prefer, &choice);
    if (chosen.failed()) {
        chosen.ignore();
        return 0;
    }
    if (choice.size() != sd.media.size()) abort();
    answer(sd, choice, true);
    answer(sd, choice, false);
    return 0;
}

// Sessions and datagrams for the routing tests: real RtcSessions (never on a
// socket) and the RFC 5769 binding request, whose USERNAME "evtj:h6vY" and
// password make it a verified check for a session of ufrag "evtj".
#pragma once

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "app/live/source_manager.hpp"
#include "app/rtc/rtc_session.hpp"
#include "app/rtc/rtc_session_deps.hpp"
#include "app/rtc/rtc_source.hpp"
#include "utest/test_util.hpp"

namespace srs {
namespace utest {

// RFC 5769 2.1: SOFTWARE, PRIORITY, ICE-CONTROLLED, USERNAME "evtj:h6vY",
// MESSAGE-INTEGRITY keyed with kRfc5769Password, FINGERPRINT.
inline std::vector<uint8_t> rfc5769_request() {
    return unhex("000100582112a442b7e7a701bc34d686fa87dfae"
                 "80220010" "5354554e207465737420636c69656e74"
                 "00240004" "6e0001ff"
                 "80290008" "932ff9b151263b36"
                 "00060009" "6576746a3a68367659202020"
                 "00080014" "9aeaa70cbfd8cb56781ef2b5b2d3f249c1b571a2"
                 "80280004" "e57a3bcf");
}
constexpr const char* kRfc5769Password = "VOkJxbRl1RmTxUk/WvJxBt";
constexpr const char* kRfc5769LocalUfrag = "evtj";
constexpr const char* kRfc5769RemoteUfrag = "h6vY";

// RFC 5769 2.2: a binding success response (no USERNAME).
inline std::vector<uint8_t> rfc5769_response() {
    return unhex("0101003c2112a442b7e7a701bc34d686fa87dfae"
                 "8022000b" "7465737420766563746f7220"
                 "00200008" "0001a147e112a643"
                 "00080014" "2b91f599fd9e90c38c7489f92af9ba53f06be7d7"
                 "80280004" "c07d4c96");
}

// An SRTP packet's clear header (V=2, PT 111, seq 500, ts 960, SSRC 0x2000)
// and a few payload bytes: what a publisher's audio starts with.
inline std::vector<uint8_t> rtp_packet() { return unhex("806f01f4000003c000002000fc01a2b3"); }

// The start of a DTLS 1.2 record (handshake, epoch 0).
inline std::vector<uint8_t> dtls_record() { return unhex("16fefd00000000000000000010010000"); }

// Publisher sessions of the stream /live/s for the routing table, each named
// by its local ufrag; the peer's credentials are RFC 5769's.
class RtcTestSessions {
  public:
    RtcTestSessions() {
        Error err = DtlsCertificate::create(DtlsKeyType::kEcdsaP256, &cert_);
        if (err.failed()) abort();  // no session can be made: every test of the file would crash anyway
    }
    std::unique_ptr<RtcSession> make(const std::string& ufrag, const std::string& token) {
        RtcSessionParams p;
        p.publisher = true;
        p.vhost = "__defaultVhost__";
        p.app = "live";
        p.stream = "s" + ufrag;
        p.client_ip = "127.0.0.1";
        p.vhost_options.enabled = true;
        p.peer.local_ufrag = ufrag;
        p.peer.local_pwd = kRfc5769Password;
        p.peer.remote_ufrag = kRfc5769RemoteUfrag;
        p.peer.remote_pwd = "remotepassword0123456789";
        p.peer.certificate = cert_;
        p.peer.dtls_role = DtlsRole::kServer;
        p.peer.remote_fingerprint = cert_->fingerprint();
        p.token = token;
        sources_.emplace_back(new RtcSource(p.vhost, p.app, p.stream));
        return make_rtc_session("cid-" + ufrag, p, sources_.back().get(), &live_, rtc_system_session_deps());
    }

  private:
    std::shared_ptr<DtlsCertificate> cert_;
    std::vector<std::unique_ptr<RtcSource>> sources_;
    SourceManager live_;
};

}  // namespace utest
}  // namespace srs

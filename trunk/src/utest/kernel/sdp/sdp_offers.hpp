// Offers as real clients send them, written for these tests from what those
// clients put in an offer (not captured from a session; fingerprints, ICE
// credentials, ssrcs and ids are made up). Lines end in \n here; the tests
// also feed them with \r\n, as the clients do. The fuzz corpus
// (test/fuzz/corpus/sdp/) holds the same offers as files.
#pragma once

#include <string>

namespace srs::utest {

// The codec block of a Chromium 120 video section (publish and play alike):
// VP8, H.264 in four profiles with packetization-mode 0 and 1, AV1, VP9 0/2,
// each with its rtx, then red, ulpfec and red's rtx.
inline std::string chrome_video_codecs() {
    std::string s;
    auto fb = [&s](int pt) {
        for (const char* f : {"goog-remb", "transport-cc", "ccm fir", "nack", "nack pli"}) {
            s += "a=rtcp-fb:" + std::to_string(pt) + " " + f + "\n";
        }
    };
    auto codec = [&](int pt, const char* name, const char* fmtp, int rtx) {
        s += "a=rtpmap:" + std::to_string(pt) + " " + name + "/90000\n";
        fb(pt);
        if (fmtp[0]) s += "a=fmtp:" + std::to_string(pt) + " " + fmtp + "\n";
        s += "a=rtpmap:" + std::to_string(rtx) + " rtx/90000\n";
        s += "a=fmtp:" + std::to_string(rtx) + " apt=" + std::to_string(pt) + "\n";
    };
    codec(96, "VP8", "", 97);
    codec(102, "H264", "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f", 103);
    codec(104, "H264", "level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42001f", 105);
    codec(106, "H264", "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f", 107);
    codec(108, "H264", "level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42e01f", 109);
    codec(127, "H264", "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=4d001f", 125);
    codec(39, "H264", "level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=4d001f", 40);
    codec(45, "AV1", "level-idx=5;profile=0;tier=0", 46);
    codec(98, "VP9", "profile-id=0", 99);
    codec(100, "VP9", "profile-id=2", 101);
    codec(112, "H264", "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=64001f", 113);
    s += "a=rtpmap:116 red/90000\n"
         "a=rtpmap:117 rtx/90000\n"
         "a=fmtp:117 apt=116\n"
         "a=rtpmap:118 ulpfec/90000\n";
    return s;
}

inline const char* chrome_audio_codecs() {
    return "a=rtpmap:111 opus/48000/2\n"
           "a=rtcp-fb:111 transport-cc\n"
           "a=fmtp:111 minptime=10;useinbandfec=1\n"
           "a=rtpmap:63 red/48000/2\n"
           "a=fmtp:63 111/111\n"
           "a=rtpmap:9 G722/8000\n"
           "a=rtpmap:0 PCMU/8000\n"
           "a=rtpmap:8 PCMA/8000\n"
           "a=rtpmap:13 CN/8000\n"
           "a=rtpmap:110 telephone-event/48000\n"
           "a=rtpmap:126 telephone-event/8000\n";
}

inline const char* chrome_video_extmaps() {
    return "a=extmap:14 urn:ietf:params:rtp-hdrext:toffset\n"
           "a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time\n"
           "a=extmap:13 urn:3gpp:video-orientation\n"
           "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01\n"
           "a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay\n"
           "a=extmap:6 http://www.webrtc.org/experiments/rtp-hdrext/video-content-type\n"
           "a=extmap:7 http://www.webrtc.org/experiments/rtp-hdrext/video-timing\n"
           "a=extmap:8 http://www.webrtc.org/experiments/rtp-hdrext/color-space\n"
           "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\n"
           "a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id\n"
           "a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id\n";
}

inline const char* chrome_audio_extmaps() {
    return "a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level\n"
           "a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time\n"
           "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01\n"
           "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\n";
}

// Chromium 120, WHIP publish: addTransceiver(audio/video, {direction: "sendonly"}).
inline std::string chrome_publish_offer() {
    const char* ice =
        "c=IN IP4 0.0.0.0\n"
        "a=rtcp:9 IN IP4 0.0.0.0\n"
        "a=ice-ufrag:Hn7q\n"
        "a=ice-pwd:3bVt2c8K0pQx9mZr4LwYs1Ja\n"
        "a=ice-options:trickle\n"
        "a=fingerprint:sha-256 45:83:6A:AF:A0:31:E2:A4:5A:A4:A1:99:40:67:25:66:D2:5D:13:20:34:61:BF:71:2F:6D:00:5E:A5:9A:7D:50\n"
        "a=setup:actpass\n";
    std::string s =
        "v=0\n"
        "o=- 4215775240449105457 2 IN IP4 127.0.0.1\n"
        "s=-\n"
        "t=0 0\n"
        "a=group:BUNDLE 0 1\n"
        "a=extmap-allow-mixed\n"
        "a=msid-semantic: WMS 5a0f9c1e-7d2b-4c7e-9a41-3f1c2b9d8e77\n"
        "m=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126\n";
    s += ice;
    s += "a=mid:0\n";
    s += chrome_audio_extmaps();
    s += "a=sendonly\n"
         "a=msid:5a0f9c1e-7d2b-4c7e-9a41-3f1c2b9d8e77 0c6e1f7a-58a4-4a1b-8f7c-2d4b1f9e3a10\n"
         "a=rtcp-mux\n"
         "a=rtcp-rsize\n";
    s += chrome_audio_codecs();
    s += "a=ssrc:2704375326 cname:q4FmW0xKd2Lr8JbN\n"
         "a=ssrc:2704375326 msid:5a0f9c1e-7d2b-4c7e-9a41-3f1c2b9d8e77 0c6e1f7a-58a4-4a1b-8f7c-2d4b1f9e3a10\n"
         "m=video 9 UDP/TLS/RTP/SAVPF 96 97 102 103 104 105 106 107 108 109 127 125 39 40 45 46 98 99 100 101 112 113 116 117 118\n";
    s += ice;
    s += "a=mid:1\n";
    s += chrome_video_extmaps();
    s += "a=sendonly\n"
         "a=msid:5a0f9c1e-7d2b-4c7e-9a41-3f1c2b9d8e77 9d3e7b21-4f60-4c8a-b1e2-7a5c3d9f0b44\n"
         "a=rtcp-mux\n"
         "a=rtcp-rsize\n";
    s += chrome_video_codecs();
    s += "a=ssrc-group:FID 1838214506 3159320571\n"
         "a=ssrc:1838214506 cname:q4FmW0xKd2Lr8JbN\n"
         "a=ssrc:1838214506 msid:5a0f9c1e-7d2b-4c7e-9a41-3f1c2b9d8e77 9d3e7b21-4f60-4c8a-b1e2-7a5c3d9f0b44\n"
         "a=ssrc:3159320571 cname:q4FmW0xKd2Lr8JbN\n"
         "a=ssrc:3159320571 msid:5a0f9c1e-7d2b-4c7e-9a41-3f1c2b9d8e77 9d3e7b21-4f60-4c8a-b1e2-7a5c3d9f0b44\n";
    return s;
}

// Chromium 120, WHEP play: addTransceiver(audio/video, {direction: "recvonly"}); no ssrc, no msid.
inline std::string chrome_play_offer() {
    const char* ice =
        "c=IN IP4 0.0.0.0\n"
        "a=rtcp:9 IN IP4 0.0.0.0\n"
        "a=ice-ufrag:tZ1m\n"
        "a=ice-pwd:Qd3Rk8sVw1XyB7nPcL0fHj5e\n"
        "a=ice-options:trickle\n"
        "a=fingerprint:sha-256 F8:30:2B:2C:D6:15:FC:AA:E1:14:AC:81:C2:96:57:C0:87:C8:29:41:33:FF:E9:84:53:09:B6:E9:8F:B1:05:6F\n"
        "a=setup:actpass\n";
    std::string s =
        "v=0\n"
        "o=- 7351962805172638110 2 IN IP4 127.0.0.1\n"
        "s=-\n"
        "t=0 0\n"
        "a=group:BUNDLE 0 1\n"
        "a=extmap-allow-mixed\n"
        "a=msid-semantic: WMS\n"
        "m=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126\n";
    s += ice;
    s += "a=mid:0\n";
    s += chrome_audio_extmaps();
    s += "a=recvonly\n"
         "a=rtcp-mux\n"
         "a=rtcp-rsize\n";
    s += chrome_audio_codecs();
    s += "m=video 9 UDP/TLS/RTP/SAVPF 96 97 102 103 104 105 106 107 108 109 127 125 39 40 45 46 98 99 100 101 112 113 116 117 118\n";
    s += ice;
    s += "a=mid:1\n";
    s += chrome_video_extmaps();
    s += "a=recvonly\n"
         "a=rtcp-mux\n"
         "a=rtcp-rsize\n";
    s += chrome_video_codecs();
    return s;
}

// Firefox 121 publish: fingerprint at session level, ICE credentials per
// section, fmtp lines before their rtpmap, rtcp-fb per payload type.
inline std::string firefox_publish_offer() {
    return "v=0\n"
           "o=mozilla...THIS_IS_SDPARTA-99.0 7386583512496151366 0 IN IP4 0.0.0.0\n"
           "s=-\n"
           "t=0 0\n"
           "a=fingerprint:sha-256 62:40:30:F1:1C:A0:1B:0F:03:09:A7:EE:F4:66:ED:AC:F1:6F:4D:9B:DD:FF:4B:0D:61:B4:D5:6A:9A:CC:08:93\n"
           "a=group:BUNDLE 0 1\n"
           "a=ice-options:trickle\n"
           "a=msid-semantic:WMS *\n"
           "m=audio 9 UDP/TLS/RTP/SAVPF 109 9 0 8 101\n"
           "c=IN IP4 0.0.0.0\n"
           "a=sendonly\n"
           "a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level\n"
           "a=extmap:2/recvonly urn:ietf:params:rtp-hdrext:csrc-audio-level\n"
           "a=extmap:3 urn:ietf:params:rtp-hdrext:sdes:mid\n"
           "a=fmtp:109 maxplaybackrate=48000;stereo=1;useinbandfec=1\n"
           "a=fmtp:101 0-15\n"
           "a=ice-pwd:8c1a6e0d3b9f4a27c5e8d1b0f6a3c297\n"
           "a=ice-ufrag:5e2b9c41\n"
           "a=mid:0\n"
           "a=msid:{6f1e2d3c-4b5a-4978-8d6e-1f2a3b4c5d6e} {a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d}\n"
           "a=rtcp-mux\n"
           "a=rtpmap:109 opus/48000/2\n"
           "a=rtpmap:9 G722/8000/1\n"
           "a=rtpmap:0 PCMU/8000\n"
           "a=rtpmap:8 PCMA/8000\n"
           "a=rtpmap:101 telephone-event/8000\n"
           "a=setup:actpass\n"
           "a=ssrc:3829123764 cname:{0d9c8b7a-6f5e-4d3c-2b1a-0f9e8d7c6b5a}\n"
           "m=video 9 UDP/TLS/RTP/SAVPF 120 124 121 125 126 127 97 98 123 122 119\n"
           "c=IN IP4 0.0.0.0\n"
           "a=sendonly\n"
           "a=extmap:3 urn:ietf:params:rtp-hdrext:sdes:mid\n"
           "a=extmap:4 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time\n"
           "a=extmap:5 urn:ietf:params:rtp-hdrext:toffset\n"
           "a=extmap:6/recvonly http://www.webrtc.org/experiments/rtp-hdrext/playout-delay\n"
           "a=extmap:7 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01\n"
           "a=fmtp:126 profile-level-id=42e01f;level-asymmetry-allowed=1;packetization-mode=1\n"
           "a=fmtp:97 profile-level-id=42e01f;level-asymmetry-allowed=1\n"
           "a=fmtp:120 max-fs=12288;max-fr=60\n"
           "a=fmtp:124 apt=120\n"
           "a=fmtp:121 max-fs=12288;max-fr=60\n"
           "a=fmtp:125 apt=121\n"
           "a=fmtp:127 apt=126\n"
           "a=fmtp:98 apt=97\n"
           "a=fmtp:119 apt=122\n"
           "a=ice-pwd:8c1a6e0d3b9f4a27c5e8d1b0f6a3c297\n"
           "a=ice-ufrag:5e2b9c41\n"
           "a=mid:1\n"
           "a=msid:{6f1e2d3c-4b5a-4978-8d6e-1f2a3b4c5d6e} {b7c8d9e0-f1a2-4b3c-9d4e-5f6a7b8c9d0e}\n"
           "a=rtcp-fb:120 nack\n"
           "a=rtcp-fb:120 nack pli\n"
           "a=rtcp-fb:120 ccm fir\n"
           "a=rtcp-fb:120 goog-remb\n"
           "a=rtcp-fb:120 transport-cc\n"
           "a=rtcp-fb:121 nack\n"
           "a=rtcp-fb:121 nack pli\n"
           "a=rtcp-fb:121 ccm fir\n"
           "a=rtcp-fb:121 goog-remb\n"
           "a=rtcp-fb:121 transport-cc\n"
           "a=rtcp-fb:126 nack\n"
           "a=rtcp-fb:126 nack pli\n"
           "a=rtcp-fb:126 ccm fir\n"
           "a=rtcp-fb:126 goog-remb\n"
           "a=rtcp-fb:126 transport-cc\n"
           "a=rtcp-fb:97 nack\n"
           "a=rtcp-fb:97 nack pli\n"
           "a=rtcp-fb:97 ccm fir\n"
           "a=rtcp-fb:97 goog-remb\n"
           "a=rtcp-fb:97 transport-cc\n"
           "a=rtcp-fb:123 nack\n"
           "a=rtcp-fb:123 nack pli\n"
           "a=rtcp-fb:123 ccm fir\n"
           "a=rtcp-fb:123 goog-remb\n"
           "a=rtcp-fb:123 transport-cc\n"
           "a=rtcp-mux\n"
           "a=rtcp-rsize\n"
           "a=rtpmap:120 VP8/90000\n"
           "a=rtpmap:124 rtx/90000\n"
           "a=rtpmap:121 VP9/90000\n"
           "a=rtpmap:125 rtx/90000\n"
           "a=rtpmap:126 H264/90000\n"
           "a=rtpmap:127 rtx/90000\n"
           "a=rtpmap:97 H264/90000\n"
           "a=rtpmap:98 rtx/90000\n"
           "a=rtpmap:123 ulpfec/90000\n"
           "a=rtpmap:122 red/90000\n"
           "a=rtpmap:119 rtx/90000\n"
           "a=setup:actpass\n"
           "a=ssrc:1408267291 cname:{0d9c8b7a-6f5e-4d3c-2b1a-0f9e8d7c6b5a}\n"
           "a=ssrc:2690152037 cname:{0d9c8b7a-6f5e-4d3c-2b1a-0f9e8d7c6b5a}\n"
           "a=ssrc-group:FID 1408267291 2690152037\n";
}

// OBS Studio 30 WHIP output (libdatachannel): ICE, fingerprint and setup at
// session level, one codec per section, candidates gathered before the POST.
inline std::string obs_publish_offer() {
    return "v=0\n"
           "o=rtc 3171573513 0 IN IP4 127.0.0.1\n"
           "s=-\n"
           "t=0 0\n"
           "a=group:BUNDLE 0 1\n"
           "a=group:LS 0 1\n"
           "a=msid-semantic:WMS *\n"
           "a=setup:actpass\n"
           "a=ice-ufrag:Yp4A\n"
           "a=ice-pwd:X0vUQ2dnUfNpLZu3aFk9RB\n"
           "a=ice-options:ice2,trickle\n"
           "a=fingerprint:sha-256 DA:77:99:A3:A5:1E:08:92:0B:C1:82:45:2B:2D:78:26:B6:82:F8:3A:B6:C9:FA:85:4F:A8:EC:6B:4E:34:D4:2C\n"
           "m=audio 9 UDP/TLS/RTP/SAVPF 111\n"
           "c=IN IP4 0.0.0.0\n"
           "a=mid:0\n"
           "a=sendonly\n"
           "a=ssrc:3475191312 cname:yQ7bxN3lEe0dUf9h\n"
           "a=ssrc:3475191312 msid:obs-stream obs-stream-audio\n"
           "a=msid:obs-stream obs-stream-audio\n"
           "a=rtcp-mux\n"
           "a=rtpmap:111 opus/48000/2\n"
           "a=fmtp:111 minptime=10;maxaveragebitrate=96000;stereo=1;sprop-stereo=1;useinbandfec=1\n"
           "a=candidate:1 1 UDP 2122317823 192.168.1.23 52814 typ host\n"
           "a=candidate:2 1 UDP 1686109951 203.0.113.7 52814 typ srflx raddr 0.0.0.0 rport 0\n"
           "a=end-of-candidates\n"
           "m=video 9 UDP/TLS/RTP/SAVPF 96\n"
           "c=IN IP4 0.0.0.0\n"
           "a=mid:1\n"
           "a=sendonly\n"
           "a=ssrc:3475191313 cname:yQ7bxN3lEe0dUf9h\n"
           "a=ssrc:3475191313 msid:obs-stream obs-stream-video\n"
           "a=msid:obs-stream obs-stream-video\n"
           "a=rtcp-mux\n"
           "a=rtpmap:96 H264/90000\n"
           "a=rtcp-fb:96 nack\n"
           "a=rtcp-fb:96 nack pli\n"
           "a=rtcp-fb:96 goog-remb\n"
           "a=fmtp:96 profile-level-id=42e01f;packetization-mode=1;level-asymmetry-allowed=1\n";
}

}  // namespace srs::utest

// Offers captured from real stacks on this project's test machine (not
// hand-written): Chromium 156 (Debian's chromium, headless, fake camera and
// microphone) and aiortc 1.16.0 (PyPI), each publishing (sendonly
// audio+video) and playing (recvonly transceivers). The captures keep their
// \r\n line ends. Captured 2026-11-25 with the scripts in the commit message.
#pragma once

namespace srs {
namespace utest {

// Chromium 156: getUserMedia tracks added as sendonly transceivers.
inline const char* captured_chromium_publish_offer() {
    return R"sdp(v=0
o=- 4909459424526182573 2 IN IP4 127.0.0.1
s=-
t=0 0
a=group:BUNDLE 0 1
a=extmap-allow-mixed
a=msid-semantic: WMS 1212679f-c18f-4dae-ba69-e216204053b0
m=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126
c=IN IP4 0.0.0.0
a=rtcp:9 IN IP4 0.0.0.0
a=ice-ufrag:u93p
a=ice-pwd:IWSVL5iXe9XOwc3FUFYdeXkl
a=ice-options:trickle
a=fingerprint:sha-256 65:FC:73:D9:E7:40:E3:CE:6D:19:FA:36:87:43:2E:29:BC:A4:14:6D:65:68:F4:A2:E8:31:02:22:22:DD:9D:F9
a=setup:actpass
a=mid:0
a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
a=sendonly
a=msid:1212679f-c18f-4dae-ba69-e216204053b0 e4b142ff-7630-4f69-b4c1-ad51c2d8c3c1
a=rtcp-mux
a=rtcp-rsize
a=rtcp-xr:rcvr-rtt=all
a=rtpmap:111 opus/48000/2
a=rtcp-fb:111 transport-cc
a=fmtp:111 minptime=10;useinbandfec=1
a=rtpmap:63 red/48000/2
a=fmtp:63 111/111
a=rtpmap:9 G722/8000
a=rtpmap:0 PCMU/8000
a=rtpmap:8 PCMA/8000
a=rtpmap:13 CN/8000
a=rtpmap:110 telephone-event/48000
a=rtpmap:126 telephone-event/8000
a=ssrc:1076513033 cname:WYO81YOjuQ9/En9A
a=ssrc:1076513033 msid:1212679f-c18f-4dae-ba69-e216204053b0 e4b142ff-7630-4f69-b4c1-ad51c2d8c3c1
m=video 9 UDP/TLS/RTP/SAVPF 96 97 102 103 104 107 108 109 114 115 116 117 39 40 45 46 98 99 100 101 118 119 120
c=IN IP4 0.0.0.0
a=rtcp:9 IN IP4 0.0.0.0
a=ice-ufrag:u93p
a=ice-pwd:IWSVL5iXe9XOwc3FUFYdeXkl
a=ice-options:trickle
a=fingerprint:sha-256 65:FC:73:D9:E7:40:E3:CE:6D:19:FA:36:87:43:2E:29:BC:A4:14:6D:65:68:F4:A2:E8:31:02:22:22:DD:9D:F9
a=setup:actpass
a=mid:1
a=extmap:14 urn:ietf:params:rtp-hdrext:toffset
a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
a=extmap:13 urn:3gpp:video-orientation
a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay
a=extmap:6 http://www.webrtc.org/experiments/rtp-hdrext/video-content-type
a=extmap:7 http://www.webrtc.org/experiments/rtp-hdrext/video-timing
a=extmap:8 http://www.webrtc.org/experiments/rtp-hdrext/color-space
a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id
a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id
a=sendonly
a=msid:1212679f-c18f-4dae-ba69-e216204053b0 c1e81fdf-8cdd-4d40-b458-4f53d9617391
a=rtcp-mux
a=rtcp-rsize
a=rtcp-xr:rcvr-rtt=all
a=rtpmap:96 VP8/90000
a=rtcp-fb:96 goog-remb
a=rtcp-fb:96 transport-cc
a=rtcp-fb:96 ccm fir
a=rtcp-fb:96 nack
a=rtcp-fb:96 nack pli
a=rtpmap:97 rtx/90000
a=fmtp:97 apt=96
a=rtpmap:102 H264/90000
a=rtcp-fb:102 goog-remb
a=rtcp-fb:102 transport-cc
a=rtcp-fb:102 ccm fir
a=rtcp-fb:102 nack
a=rtcp-fb:102 nack pli
a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f
a=rtpmap:103 rtx/90000
a=fmtp:103 apt=102
a=rtpmap:104 H264/90000
a=rtcp-fb:104 goog-remb
a=rtcp-fb:104 transport-cc
a=rtcp-fb:104 ccm fir
a=rtcp-fb:104 nack
a=rtcp-fb:104 nack pli
a=fmtp:104 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42001f
a=rtpmap:107 rtx/90000
a=fmtp:107 apt=104
a=rtpmap:108 H264/90000
a=rtcp-fb:108 goog-remb
a=rtcp-fb:108 transport-cc
a=rtcp-fb:108 ccm fir
a=rtcp-fb:108 nack
a=rtcp-fb:108 nack pli
a=fmtp:108 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
a=rtpmap:109 rtx/90000
a=fmtp:109 apt=108
a=rtpmap:114 H264/90000
a=rtcp-fb:114 goog-remb
a=rtcp-fb:114 transport-cc
a=rtcp-fb:114 ccm fir
a=rtcp-fb:114 nack
a=rtcp-fb:114 nack pli
a=fmtp:114 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42e01f
a=rtpmap:115 rtx/90000
a=fmtp:115 apt=114
a=rtpmap:116 H264/90000
a=rtcp-fb:116 goog-remb
a=rtcp-fb:116 transport-cc
a=rtcp-fb:116 ccm fir
a=rtcp-fb:116 nack
a=rtcp-fb:116 nack pli
a=fmtp:116 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=4d001f
a=rtpmap:117 rtx/90000
a=fmtp:117 apt=116
a=rtpmap:39 H264/90000
a=rtcp-fb:39 goog-remb
a=rtcp-fb:39 transport-cc
a=rtcp-fb:39 ccm fir
a=rtcp-fb:39 nack
a=rtcp-fb:39 nack pli
a=fmtp:39 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=4d001f
a=rtpmap:40 rtx/90000
a=fmtp:40 apt=39
a=rtpmap:45 AV1/90000
a=rtcp-fb:45 goog-remb
a=rtcp-fb:45 transport-cc
a=rtcp-fb:45 ccm fir
a=rtcp-fb:45 nack
a=rtcp-fb:45 nack pli
a=fmtp:45 level-idx=5;profile=0;tier=0
a=rtpmap:46 rtx/90000
a=fmtp:46 apt=45
a=rtpmap:98 VP9/90000
a=rtcp-fb:98 goog-remb
a=rtcp-fb:98 transport-cc
a=rtcp-fb:98 ccm fir
a=rtcp-fb:98 nack
a=rtcp-fb:98 nack pli
a=fmtp:98 profile-id=0
a=rtpmap:99 rtx/90000
a=fmtp:99 apt=98
a=rtpmap:100 VP9/90000
a=rtcp-fb:100 goog-remb
a=rtcp-fb:100 transport-cc
a=rtcp-fb:100 ccm fir
a=rtcp-fb:100 nack
a=rtcp-fb:100 nack pli
a=fmtp:100 profile-id=2
a=rtpmap:101 rtx/90000
a=fmtp:101 apt=100
a=rtpmap:118 red/90000
a=rtpmap:119 rtx/90000
a=fmtp:119 apt=118
a=rtpmap:120 ulpfec/90000
a=ssrc-group:FID 1604416861 614499536
a=ssrc:1604416861 cname:WYO81YOjuQ9/En9A
a=ssrc:1604416861 msid:1212679f-c18f-4dae-ba69-e216204053b0 c1e81fdf-8cdd-4d40-b458-4f53d9617391
a=ssrc:614499536 cname:WYO81YOjuQ9/En9A
a=ssrc:614499536 msid:1212679f-c18f-4dae-ba69-e216204053b0 c1e81fdf-8cdd-4d40-b458-4f53d9617391
)sdp";
}

// Chromium 156: addTransceiver(audio/video, {direction: "recvonly"}).
inline const char* captured_chromium_play_offer() {
    return R"sdp(v=0
o=- 9081286231124938168 2 IN IP4 127.0.0.1
s=-
t=0 0
a=group:BUNDLE 0 1
a=extmap-allow-mixed
a=msid-semantic: WMS
m=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126
c=IN IP4 0.0.0.0
a=rtcp:9 IN IP4 0.0.0.0
a=ice-ufrag:8wQ5
a=ice-pwd:heCRMx2dl0bpC21T5q9Ugm4i
a=ice-options:trickle
a=fingerprint:sha-256 5C:53:10:6A:D7:EE:75:0B:5E:46:67:46:3A:1F:BF:11:44:DD:7E:A3:93:EA:90:B3:BD:41:8D:12:02:F8:16:72
a=setup:actpass
a=mid:0
a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
a=recvonly
a=rtcp-mux
a=rtcp-rsize
a=rtcp-xr:rcvr-rtt=all
a=rtpmap:111 opus/48000/2
a=rtcp-fb:111 transport-cc
a=fmtp:111 minptime=10;useinbandfec=1
a=rtpmap:63 red/48000/2
a=fmtp:63 111/111
a=rtpmap:9 G722/8000
a=rtpmap:0 PCMU/8000
a=rtpmap:8 PCMA/8000
a=rtpmap:13 CN/8000
a=rtpmap:110 telephone-event/48000
a=rtpmap:126 telephone-event/8000
m=video 9 UDP/TLS/RTP/SAVPF 96 97 98 99 100 101 35 36 37 38 102 103 104 107 108 109 114 115 116 117 39 40 41 42 43 44 45 46 47 48 118 119 120 49
c=IN IP4 0.0.0.0
a=rtcp:9 IN IP4 0.0.0.0
a=ice-ufrag:8wQ5
a=ice-pwd:heCRMx2dl0bpC21T5q9Ugm4i
a=ice-options:trickle
a=fingerprint:sha-256 5C:53:10:6A:D7:EE:75:0B:5E:46:67:46:3A:1F:BF:11:44:DD:7E:A3:93:EA:90:B3:BD:41:8D:12:02:F8:16:72
a=setup:actpass
a=mid:1
a=extmap:14 urn:ietf:params:rtp-hdrext:toffset
a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
a=extmap:13 urn:3gpp:video-orientation
a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay
a=extmap:6 http://www.webrtc.org/experiments/rtp-hdrext/video-content-type
a=extmap:7 http://www.webrtc.org/experiments/rtp-hdrext/video-timing
a=extmap:8 http://www.webrtc.org/experiments/rtp-hdrext/color-space
a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id
a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id
a=recvonly
a=rtcp-mux
a=rtcp-rsize
a=rtcp-xr:rcvr-rtt=all
a=rtpmap:96 VP8/90000
a=rtcp-fb:96 goog-remb
a=rtcp-fb:96 transport-cc
a=rtcp-fb:96 ccm fir
a=rtcp-fb:96 nack
a=rtcp-fb:96 nack pli
a=rtpmap:97 rtx/90000
a=fmtp:97 apt=96
a=rtpmap:98 VP9/90000
a=rtcp-fb:98 goog-remb
a=rtcp-fb:98 transport-cc
a=rtcp-fb:98 ccm fir
a=rtcp-fb:98 nack
a=rtcp-fb:98 nack pli
a=fmtp:98 profile-id=0
a=rtpmap:99 rtx/90000
a=fmtp:99 apt=98
a=rtpmap:100 VP9/90000
a=rtcp-fb:100 goog-remb
a=rtcp-fb:100 transport-cc
a=rtcp-fb:100 ccm fir
a=rtcp-fb:100 nack
a=rtcp-fb:100 nack pli
a=fmtp:100 profile-id=2
a=rtpmap:101 rtx/90000
a=fmtp:101 apt=100
a=rtpmap:35 VP9/90000
a=rtcp-fb:35 goog-remb
a=rtcp-fb:35 transport-cc
a=rtcp-fb:35 ccm fir
a=rtcp-fb:35 nack
a=rtcp-fb:35 nack pli
a=fmtp:35 profile-id=1
a=rtpmap:36 rtx/90000
a=fmtp:36 apt=35
a=rtpmap:37 VP9/90000
a=rtcp-fb:37 goog-remb
a=rtcp-fb:37 transport-cc
a=rtcp-fb:37 ccm fir
a=rtcp-fb:37 nack
a=rtcp-fb:37 nack pli
a=fmtp:37 profile-id=3
a=rtpmap:38 rtx/90000
a=fmtp:38 apt=37
a=rtpmap:102 H264/90000
a=rtcp-fb:102 goog-remb
a=rtcp-fb:102 transport-cc
a=rtcp-fb:102 ccm fir
a=rtcp-fb:102 nack
a=rtcp-fb:102 nack pli
a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f
a=rtpmap:103 rtx/90000
a=fmtp:103 apt=102
a=rtpmap:104 H264/90000
a=rtcp-fb:104 goog-remb
a=rtcp-fb:104 transport-cc
a=rtcp-fb:104 ccm fir
a=rtcp-fb:104 nack
a=rtcp-fb:104 nack pli
a=fmtp:104 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42001f
a=rtpmap:107 rtx/90000
a=fmtp:107 apt=104
a=rtpmap:108 H264/90000
a=rtcp-fb:108 goog-remb
a=rtcp-fb:108 transport-cc
a=rtcp-fb:108 ccm fir
a=rtcp-fb:108 nack
a=rtcp-fb:108 nack pli
a=fmtp:108 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
a=rtpmap:109 rtx/90000
a=fmtp:109 apt=108
a=rtpmap:114 H264/90000
a=rtcp-fb:114 goog-remb
a=rtcp-fb:114 transport-cc
a=rtcp-fb:114 ccm fir
a=rtcp-fb:114 nack
a=rtcp-fb:114 nack pli
a=fmtp:114 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42e01f
a=rtpmap:115 rtx/90000
a=fmtp:115 apt=114
a=rtpmap:116 H264/90000
a=rtcp-fb:116 goog-remb
a=rtcp-fb:116 transport-cc
a=rtcp-fb:116 ccm fir
a=rtcp-fb:116 nack
a=rtcp-fb:116 nack pli
a=fmtp:116 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=4d001f
a=rtpmap:117 rtx/90000
a=fmtp:117 apt=116
a=rtpmap:39 H264/90000
a=rtcp-fb:39 goog-remb
a=rtcp-fb:39 transport-cc
a=rtcp-fb:39 ccm fir
a=rtcp-fb:39 nack
a=rtcp-fb:39 nack pli
a=fmtp:39 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=4d001f
a=rtpmap:40 rtx/90000
a=fmtp:40 apt=39
a=rtpmap:41 H264/90000
a=rtcp-fb:41 goog-remb
a=rtcp-fb:41 transport-cc
a=rtcp-fb:41 ccm fir
a=rtcp-fb:41 nack
a=rtcp-fb:41 nack pli
a=fmtp:41 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=f4001f
a=rtpmap:42 rtx/90000
a=fmtp:42 apt=41
a=rtpmap:43 H264/90000
a=rtcp-fb:43 goog-remb
a=rtcp-fb:43 transport-cc
a=rtcp-fb:43 ccm fir
a=rtcp-fb:43 nack
a=rtcp-fb:43 nack pli
a=fmtp:43 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=f4001f
a=rtpmap:44 rtx/90000
a=fmtp:44 apt=43
a=rtpmap:45 AV1/90000
a=rtcp-fb:45 goog-remb
a=rtcp-fb:45 transport-cc
a=rtcp-fb:45 ccm fir
a=rtcp-fb:45 nack
a=rtcp-fb:45 nack pli
a=fmtp:45 level-idx=5;profile=0;tier=0
a=rtpmap:46 rtx/90000
a=fmtp:46 apt=45
a=rtpmap:47 AV1/90000
a=rtcp-fb:47 goog-remb
a=rtcp-fb:47 transport-cc
a=rtcp-fb:47 ccm fir
a=rtcp-fb:47 nack
a=rtcp-fb:47 nack pli
a=fmtp:47 level-idx=5;profile=1;tier=0
a=rtpmap:48 rtx/90000
a=fmtp:48 apt=47
a=rtpmap:118 red/90000
a=rtpmap:119 rtx/90000
a=fmtp:119 apt=118
a=rtpmap:120 ulpfec/90000
a=rtpmap:49 flexfec-03/90000
a=rtcp-fb:49 goog-remb
a=rtcp-fb:49 transport-cc
a=fmtp:49 repair-window=10000000
)sdp";
}

// aiortc 1.16.0: AudioStreamTrack + VideoStreamTrack, sendonly (candidates gathered).
inline const char* captured_aiortc_publish_offer() {
    return R"sdp(v=0
o=- 4004557466 4004557466 IN IP4 0.0.0.0
s=-
t=0 0
a=group:BUNDLE 0 1
a=msid-semantic:WMS *
m=audio 48238 UDP/TLS/RTP/SAVPF 96 9 0 8
c=IN IP4 192.0.2.2
a=sendonly
a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
a=extmap:2 urn:ietf:params:rtp-hdrext:ssrc-audio-level
a=mid:0
a=msid:6fe5696c-4a41-418d-8360-b735e934540d 1d647cc7-dc99-49cf-9a19-a4bf8aaad48d
a=rtcp:9 IN IP4 0.0.0.0
a=rtcp-mux
a=ssrc:3690214970 cname:c1fcbcf4-089b-48ca-a1e2-f93bd4cae468
a=rtpmap:96 opus/48000/2
a=rtpmap:9 G722/8000
a=rtpmap:0 PCMU/8000
a=rtpmap:8 PCMA/8000
a=candidate:f957a2332b1715da3b0ef8ba684454eb 1 udp 2130706431 192.0.2.2 48238 typ host
a=candidate:d0bcf3d9c29a2bc887618212a1623bfa 1 udp 2130706431 fd00::2 41283 typ host
a=end-of-candidates
a=ice-ufrag:8eSV
a=ice-pwd:Zil0Xa8v0yc4JsjGar0CGy
a=fingerprint:sha-256 0C:97:68:47:6F:10:A2:96:21:F2:A6:B3:B9:16:44:69:A0:79:EA:87:81:32:F6:E5:04:C1:56:91:DD:3C:DB:1C
a=fingerprint:sha-384 19:69:A3:89:B7:58:FC:4F:F3:20:AD:B1:1E:35:4E:BE:D8:3F:E6:33:82:A9:CB:7D:19:8A:2D:96:75:6D:65:92:A6:37:A7:9E:1A:9E:16:C2:26:DB:F9:71:B3:E0:CA:F9
a=fingerprint:sha-512 06:77:B0:8E:CD:09:43:FC:07:A3:57:81:26:15:A9:1F:B8:F4:0F:03:71:42:55:80:76:15:97:3B:28:C3:80:2A:E3:7A:28:1A:2D:89:06:4C:F9:95:A3:F7:E7:E0:BE:84:73:A0:7A:9B:A1:86:FC:09:48:A6:16:6D:CC:BC:D8:B4
a=setup:actpass
m=video 54849 UDP/TLS/RTP/SAVPF 97 98 99 100 101 102
c=IN IP4 192.0.2.2
a=sendonly
a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
a=extmap:3 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
a=mid:1
a=msid:6fe5696c-4a41-418d-8360-b735e934540d 96ed49eb-8292-4707-82ea-2f37d442f021
a=rtcp:9 IN IP4 0.0.0.0
a=rtcp-mux
a=ssrc-group:FID 65607431 1404312425
a=ssrc:65607431 cname:c1fcbcf4-089b-48ca-a1e2-f93bd4cae468
a=ssrc:1404312425 cname:c1fcbcf4-089b-48ca-a1e2-f93bd4cae468
a=rtpmap:97 VP8/90000
a=rtcp-fb:97 nack
a=rtcp-fb:97 nack pli
a=rtcp-fb:97 goog-remb
a=rtpmap:98 rtx/90000
a=fmtp:98 apt=97
a=rtpmap:99 H264/90000
a=rtcp-fb:99 nack
a=rtcp-fb:99 nack pli
a=rtcp-fb:99 goog-remb
a=fmtp:99 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f
a=rtpmap:100 rtx/90000
a=fmtp:100 apt=99
a=rtpmap:101 H264/90000
a=rtcp-fb:101 nack
a=rtcp-fb:101 nack pli
a=rtcp-fb:101 goog-remb
a=fmtp:101 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
a=rtpmap:102 rtx/90000
a=fmtp:102 apt=101
a=candidate:f957a2332b1715da3b0ef8ba684454eb 1 udp 2130706431 192.0.2.2 54849 typ host
a=candidate:d0bcf3d9c29a2bc887618212a1623bfa 1 udp 2130706431 fd00::2 60567 typ host
a=end-of-candidates
a=ice-ufrag:8eSV
a=ice-pwd:Zil0Xa8v0yc4JsjGar0CGy
a=fingerprint:sha-256 0C:97:68:47:6F:10:A2:96:21:F2:A6:B3:B9:16:44:69:A0:79:EA:87:81:32:F6:E5:04:C1:56:91:DD:3C:DB:1C
a=fingerprint:sha-384 19:69:A3:89:B7:58:FC:4F:F3:20:AD:B1:1E:35:4E:BE:D8:3F:E6:33:82:A9:CB:7D:19:8A:2D:96:75:6D:65:92:A6:37:A7:9E:1A:9E:16:C2:26:DB:F9:71:B3:E0:CA:F9
a=fingerprint:sha-512 06:77:B0:8E:CD:09:43:FC:07:A3:57:81:26:15:A9:1F:B8:F4:0F:03:71:42:55:80:76:15:97:3B:28:C3:80:2A:E3:7A:28:1A:2D:89:06:4C:F9:95:A3:F7:E7:E0:BE:84:73:A0:7A:9B:A1:86:FC:09:48:A6:16:6D:CC:BC:D8:B4
a=setup:actpass
)sdp";
}

// aiortc 1.16.0: recvonly audio and video transceivers (candidates gathered).
inline const char* captured_aiortc_play_offer() {
    return R"sdp(v=0
o=- 4004557466 4004557466 IN IP4 0.0.0.0
s=-
t=0 0
a=group:BUNDLE 0 1
a=msid-semantic:WMS *
m=audio 34943 UDP/TLS/RTP/SAVPF 96 9 0 8
c=IN IP4 192.0.2.2
a=recvonly
a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
a=extmap:2 urn:ietf:params:rtp-hdrext:ssrc-audio-level
a=mid:0
a=msid:d4da7c4f-9952-4fac-93c2-34725466ea4e 7a0a47f8-7db2-4d6f-95ae-814e002206d8
a=rtcp:9 IN IP4 0.0.0.0
a=rtcp-mux
a=ssrc:1869358856 cname:bfb8a4e4-81e8-4486-8381-508e6741c926
a=rtpmap:96 opus/48000/2
a=rtpmap:9 G722/8000
a=rtpmap:0 PCMU/8000
a=rtpmap:8 PCMA/8000
a=candidate:f957a2332b1715da3b0ef8ba684454eb 1 udp 2130706431 192.0.2.2 34943 typ host
a=candidate:d0bcf3d9c29a2bc887618212a1623bfa 1 udp 2130706431 fd00::2 48326 typ host
a=end-of-candidates
a=ice-ufrag:nq6c
a=ice-pwd:lOrLQNbfm0RDtv07nhxpDp
a=fingerprint:sha-256 AA:BE:F1:E8:18:59:91:EE:CB:F1:8E:C8:7D:04:55:DF:A2:FF:9A:58:01:B0:27:28:77:96:4C:93:18:CA:5C:CB
a=fingerprint:sha-384 BB:78:A4:7E:B7:41:6C:03:8E:0F:48:8A:88:AB:12:87:D7:D1:ED:83:A2:05:29:AA:80:F4:80:1C:A0:22:97:12:A2:82:9D:2F:46:D7:8F:A8:17:45:A6:72:09:54:54:C4
a=fingerprint:sha-512 EB:1C:51:34:AA:48:39:AB:79:6C:58:FC:8F:3B:92:22:A3:E8:19:03:A1:72:A2:E3:BA:06:45:6E:CA:70:0C:47:C8:3E:29:72:59:3C:E8:EF:89:D5:C1:BE:7A:5C:D0:B1:89:3C:3B:5F:AF:CA:0F:3D:C4:3B:BA:1F:9B:9A:3A:87
a=setup:actpass
m=video 40154 UDP/TLS/RTP/SAVPF 97 98 99 100 101 102
c=IN IP4 192.0.2.2
a=recvonly
a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
a=extmap:3 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
a=mid:1
a=msid:d4da7c4f-9952-4fac-93c2-34725466ea4e 0c30e7e8-fff1-4a70-af38-782214ec61c9
a=rtcp:9 IN IP4 0.0.0.0
a=rtcp-mux
a=ssrc-group:FID 1736751008 3878028225
a=ssrc:1736751008 cname:bfb8a4e4-81e8-4486-8381-508e6741c926
a=ssrc:3878028225 cname:bfb8a4e4-81e8-4486-8381-508e6741c926
a=rtpmap:97 VP8/90000
a=rtcp-fb:97 nack
a=rtcp-fb:97 nack pli
a=rtcp-fb:97 goog-remb
a=rtpmap:98 rtx/90000
a=fmtp:98 apt=97
a=rtpmap:99 H264/90000
a=rtcp-fb:99 nack
a=rtcp-fb:99 nack pli
a=rtcp-fb:99 goog-remb
a=fmtp:99 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f
a=rtpmap:100 rtx/90000
a=fmtp:100 apt=99
a=rtpmap:101 H264/90000
a=rtcp-fb:101 nack
a=rtcp-fb:101 nack pli
a=rtcp-fb:101 goog-remb
a=fmtp:101 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
a=rtpmap:102 rtx/90000
a=fmtp:102 apt=101
a=candidate:f957a2332b1715da3b0ef8ba684454eb 1 udp 2130706431 192.0.2.2 40154 typ host
a=candidate:d0bcf3d9c29a2bc887618212a1623bfa 1 udp 2130706431 fd00::2 57544 typ host
a=end-of-candidates
a=ice-ufrag:nq6c
a=ice-pwd:lOrLQNbfm0RDtv07nhxpDp
a=fingerprint:sha-256 AA:BE:F1:E8:18:59:91:EE:CB:F1:8E:C8:7D:04:55:DF:A2:FF:9A:58:01:B0:27:28:77:96:4C:93:18:CA:5C:CB
a=fingerprint:sha-384 BB:78:A4:7E:B7:41:6C:03:8E:0F:48:8A:88:AB:12:87:D7:D1:ED:83:A2:05:29:AA:80:F4:80:1C:A0:22:97:12:A2:82:9D:2F:46:D7:8F:A8:17:45:A6:72:09:54:54:C4
a=fingerprint:sha-512 EB:1C:51:34:AA:48:39:AB:79:6C:58:FC:8F:3B:92:22:A3:E8:19:03:A1:72:A2:E3:BA:06:45:6E:CA:70:0C:47:C8:3E:29:72:59:3C:E8:EF:89:D5:C1:BE:7A:5C:D0:B1:89:3C:3B:5F:AF:CA:0F:3D:C4:3B:BA:1F:9B:9A:3A:87
a=setup:actpass
)sdp";
}

}  // namespace utest
}  // namespace srs

"""WebRTC media over TCP (rtc_server.tcp, RFC 4571 frames): aiortc publishes
over UDP, sb_rtc_load players take the answer's TCP candidate and play over
one TCP connection each (ICE, DTLS, SRTP and RTCP in frames). They must
decrypt every packet, see no gap, start at a keyframe; the API shows their
transport as tcp."""
import json
import subprocess
import threading
import time

from conftest import TRUNK, wait_until
from rtc_env import api_get, require_aiortc, rtc_clients, start_rtc
from rtc_client import http

LOAD = TRUNK / "objs" / "sb_rtc_load"


def test_players_over_tcp(srs):
    require_aiortc()
    from rtc_client import Rtc
    start_rtc(srs, tcp=True)
    with Rtc() as rtc:
        pub = rtc.publish(srs.api, "live", "overtcp")
        whep = f"http://{srs.api}/rtc/v1/whep/?app=live&stream=overtcp"
        # The answer offers both transports (protocol all).
        player = rtc.play(srs.api, "live", "overtcp")
        assert f"127.0.0.1 {srs.rtc_tcp_port} typ host tcptype passive" in player.answer, player.answer
        player.close()
        seen = {}

        def watch():
            # While the tool plays: its sessions are listed with transport tcp.
            def bound():
                clients = rtc_clients(srs, "overtcp", "rtc-play")
                seen["clients"] = clients
                return len(clients) == 2 and all(c.get("transport") for c in clients)
            wait_until(bound, 8)

        t = threading.Thread(target=watch)
        t.start()
        r = subprocess.run([str(LOAD), "-c", "2", "-r", whep, "--tcp", "-t", "6", "-m", "2000", "--json"],
                           capture_output=True, text=True, timeout=40)
        t.join()
        summary = json.loads([l for l in r.stdout.splitlines() if l.startswith("{")][-1])
        assert r.returncode == 0, r.stdout[-3000:]
        assert summary["verify_ok"] is True, summary
        assert summary["video_frames"] > 20 and summary["keyframes"] >= 2, summary
        assert summary["decrypt_failures"] == 0 and summary["rtp_missing"] == 0, summary
        assert summary["first_video_keyframe_ok"] == 2, summary
        assert [c.get("transport") for c in seen.get("clients", [])] == ["tcp", "tcp"], seen
        assert pub.state == "connected"
    # The connections are gone with their sessions.
    assert wait_until(lambda: not rtc_clients(srs, "overtcp", "rtc-play"), 10), rtc_clients(srs)
    assert "RTC-TCP listen" in srs.log()

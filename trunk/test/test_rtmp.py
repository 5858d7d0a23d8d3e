"""RTMP origin with real clients: ffmpeg publishes, ffprobe/ffmpeg play."""
import json
import socket
import subprocess
import time

import pytest

from conftest import rss_kb, fd_count, wait_until
from media import Publisher, probe_packets, probe_streams, wait_for_publish
from rtmp_raw import RawRtmp, amf0_number, amf0_object, amf0_string, chunk


def url(srs, stream="livestream", app="live"):
    return f"rtmp://127.0.0.1:{srs.rtmp_port}/{app}/{stream}"


@pytest.fixture
def live(srs, media):
    """A server with one stream published by ffmpeg."""
    srs.start(srs.base_conf())
    pub = Publisher(media, url(srs))
    wait_for_publish(srs)
    yield srs, pub
    pub.stop()


def test_publish_and_probe_codecs(live):
    srs, pub = live
    streams = probe_streams(url(srs))
    assert streams["video"]["codec_name"] == "h264"
    assert (streams["video"]["width"], streams["video"]["height"]) == (320, 240)
    assert streams["audio"]["codec_name"] == "aac"
    assert streams["audio"]["sample_rate"] == "44100"
    assert streams["audio"]["channels"] == 2
    log = srs.log()
    assert "video H264 High" in log and "320x240" in log
    assert "audio AAC LC 44100Hz 2 channels" in log


def test_play_frames_in_order_with_ffmpeg(live):
    srs, pub = live
    packets = probe_packets(url(srs), 5)
    # ~25 fps for ~5 s, plus the GOP burst at start.
    assert len(packets) >= 80, len(packets)
    assert packets[0][1].startswith("K"), packets[:3]
    dts = [p[0] for p in packets]
    assert all(b >= a - 0.2 for a, b in zip(dts, dts[1:])), "packets out of order"
    # ffmpeg decodes it all without errors.
    r = subprocess.run(["ffmpeg", "-v", "error", "-i", url(srs), "-t", "3", "-f", "null", "-"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0 and "error" not in r.stderr.lower(), r.stderr


def test_two_streams_at_once(srs, media):
    srs.start(srs.base_conf())
    pubs = [Publisher(media, url(srs, f"s{i}")) for i in range(2)]
    try:
        for i in range(2):
            wait_for_publish(srs, f"/live/s{i}")
        for i in range(2):
            assert probe_streams(url(srs, f"s{i}"))["video"]["codec_name"] == "h264"
    finally:
        for p in pubs:
            p.stop()


def _first_video_pts_after_join(srs, media, gop_cache):
    conf = srs.base_conf().replace("vhost __defaultVhost__ {\n}",
                                   "vhost __defaultVhost__ {\n  play {\n    gop_cache %s;\n  }\n}" % gop_cache)
    srs.start(conf)
    pub = Publisher(media, url(srs))
    try:
        wait_for_publish(srs)
        t0 = time.monotonic()
        # Join in the middle of a GOP (2 s GOPs): about 1 s after a keyframe.
        time.sleep(3.0)
        elapsed = time.monotonic() - t0
        packets = probe_packets(url(srs), 3)
        return elapsed, packets
    finally:
        pub.stop()


def test_gop_cache_gives_a_keyframe_at_once(srs, media):
    elapsed, packets = _first_video_pts_after_join(srs, media, "on")
    assert packets and packets[0][1].startswith("K")
    # The first frame is the cached keyframe, from before the join.
    assert packets[0][0] < elapsed, (packets[0], elapsed)


def test_gop_cache_off_waits_for_the_next_keyframe(srs, media):
    elapsed, packets = _first_video_pts_after_join(srs, media, "off")
    assert packets and packets[0][1].startswith("K")
    # Nothing from before the join: the first frame is the next keyframe.
    assert packets[0][0] >= elapsed - 0.6, (packets[0], elapsed)


def test_second_publisher_is_refused(live, media):
    srs, pub = live
    second = Publisher(media, url(srs), loop=False)
    code = second.wait(15)
    second.stop()
    assert code != 0
    assert "denied" in srs.log()
    assert pub.alive()
    assert len(probe_packets(url(srs), 2)) > 10


def test_min_latency_player(srs, media):
    conf = srs.base_conf().replace("vhost __defaultVhost__ {\n}", "vhost __defaultVhost__ {\n  min_latency on;\n}")
    srs.start(conf)
    pub = Publisher(media, url(srs))
    try:
        wait_for_publish(srs)
        packets = probe_packets(url(srs), 3)
        assert len(packets) > 40
        assert "realtime=1" in srs.log()
    finally:
        pub.stop()


def test_source_freed_after_idle(srs, media):
    srs.start(srs.base_conf())
    pub = Publisher(media, url(srs, "short"), loop=False)
    wait_for_publish(srs, "/live/short")
    pub.stop()
    assert wait_until(lambda: "free idle source __defaultVhost__/live/short" in srs.log(), 15), srs.log()[-2000:]


# ---- hostile clients: each leaves the server serving the existing player ----

def _assert_still_serving(srs):
    assert len(probe_packets(url(srs), 2)) > 10, srs.log()[-3000:]


def test_garbage_instead_of_handshake(live):
    srs, _ = live
    c = RawRtmp(srs.rtmp_port)
    c.send(b"GET / HTTP/1.1\r\n\r\n" + b"\x00" * 2000)
    assert c.closed_by_server()
    c.close()
    assert "handshake" in srs.log()
    _assert_still_serving(srs)


def test_chunk_size_zero_and_huge(live):
    srs, _ = live
    for size in (0, 2 ** 31, 127):
        c = RawRtmp(srs.rtmp_port)
        c.handshake()
        c.connect()
        c.send(chunk(2, 1, (size & 0xFFFFFFFF).to_bytes(4, "big")))
        assert c.closed_by_server(), size
        c.close()
    _assert_still_serving(srs)


def test_oversized_message(live):
    srs, _ = live
    c = RawRtmp(srs.rtmp_port)
    c.handshake()
    # A message header claiming 16 MiB (over the 24-bit limit once counted with the
    # extended form) or the configured maximum: the server must not allocate it.
    c.send(chunk(3, 20, b"\x02\x00", length=0xFFFFFF))
    c.send(b"\xc3" + b"\x00" * 127)
    c.close()
    _assert_still_serving(srs)


def test_unknown_message_type_and_bad_amf(live):
    srs, _ = live
    c = RawRtmp(srs.rtmp_port)
    c.handshake()
    c.send(chunk(3, 99, b"\x01\x02\x03"))
    assert c.closed_by_server()
    c.close()
    assert wait_until(lambda: "unknown message type 99" in srs.log(), 5)
    c = RawRtmp(srs.rtmp_port)
    c.handshake()
    c.send(chunk(3, 20, b"\x02\xff\xff" + b"x" * 10))  # string longer than the message
    assert c.closed_by_server()
    c.close()
    _assert_still_serving(srs)


def test_stalled_handshake_does_not_block_others(live):
    srs, _ = live
    stalled = [RawRtmp(srs.rtmp_port) for _ in range(20)]
    for s in stalled:
        s.send(b"\x03" + b"\x00" * 100)  # part of C1, then silence
    _assert_still_serving(srs)
    for s in stalled:
        s.close()


def test_client_that_never_reads_is_shrunk(srs, big_media):
    media = big_media
    conf = srs.base_conf().replace("vhost __defaultVhost__ {\n}",
                                   "vhost __defaultVhost__ {\n  play {\n    queue_length 2;\n  }\n}")
    srs.start(conf)
    pub = Publisher(media, url(srs))
    try:
        wait_for_publish(srs)
        # Play, then never read: the kernel buffers fill and the queue grows.
        c = RawRtmp(srs.rtmp_port)
        c.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        c.handshake()
        c.connect()
        c.send(chunk(3, 20, amf0_string("createStream") + amf0_number(2) + b"\x05"))
        c.send(chunk(8, 20, amf0_string("play") + amf0_number(3) + b"\x05" + amf0_string("livestream"),
                     stream_id=1))
        assert wait_until(lambda: "player queue over 2000 ms" in srs.log(), 20), srs.log()[-2000:]
        # Another player still gets the stream, and the publisher never waited.
        assert len(probe_packets(url(srs), 2)) > 10
        assert pub.alive()
        c.close()
    finally:
        pub.stop()


def test_1000_connections_dropped_mid_handshake(live):
    srs, _ = live
    time.sleep(0.5)
    fds_before = fd_count(srs.pid)
    rss_before = rss_kb(srs.pid)
    for i in range(1000):
        s = socket.create_connection(("127.0.0.1", srs.rtmp_port))
        s.sendall(b"\x03" + b"\x00" * (i % 1500))
        s.close()
    assert wait_until(lambda: fd_count(srs.pid) <= fds_before + 2, 20), (fds_before, fd_count(srs.pid))
    _assert_still_serving(srs)
    # Within a small margin (ASAN builds keep freed memory quarantined).
    assert rss_kb(srs.pid) < rss_before + 64 * 1024


# ---- with the project's own RTMP client (objs/sb_rtmp_load, objs/sb_rtmp_publish) ----

def run_load(srs, clients, seconds, stream="livestream", extra=None):
    from conftest import TRUNK
    import json
    r = subprocess.run([str(TRUNK / "objs" / "sb_rtmp_load"), "-c", str(clients), "-r", url(srs, stream),
                        "-t", str(seconds), "-m", "100000", "--json"] + (extra or []),
                       capture_output=True, text=True, timeout=seconds + 60)
    print(r.stderr[-3000:])
    return r.returncode, json.loads(r.stdout.strip().splitlines()[-1])


def test_100_players_receive_every_frame_in_order(live):
    srs, _ = live
    code, s = run_load(srs, 100, 8)
    assert code == 0, s
    assert s["alive"] == 100 and s["failed"] == 0 and s["reconnects"] == 0, s
    assert s["first_video_keyframe_ok"] == 100
    assert s["ts_monotonic_violations"] == 0
    # Each player started from the GOP cache and got the same frames: ~25 fps
    # for 8 s plus the cached GOP, and no player lost any.
    assert s["per_client_video_frames_min"] >= 8 * 25 * 0.8, s
    assert s["per_client_video_frames_max"] - s["per_client_video_frames_min"] <= 30, s


def test_publisher_leaves_and_returns_while_players_stay(srs, media):
    import threading
    srs.start(srs.base_conf())
    first = Publisher(media, url(srs))
    wait_for_publish(srs)
    result = {}

    def load():
        result["r"] = run_load(srs, 3, 16)

    t = threading.Thread(target=load)
    t.start()
    try:
        time.sleep(5)
        first.stop()
        assert wait_until(lambda: "unpublished, consumers=3" in srs.log(), 10), srs.log()[-2000:]
        time.sleep(2)
        second = Publisher(media, url(srs))
        try:
            assert wait_until(lambda: "consumers=3" in srs.log().split("unpublished, consumers=3")[-1], 10)
            t.join(timeout=60)
        finally:
            second.stop()
    finally:
        t.join(timeout=60)
    code, s = result["r"]
    assert code == 0, json.dumps(s)
    # The same three sessions saw both publishes: no reconnects, frames from each.
    assert s["alive"] == 3 and s["reconnects"] == 0 and s["sessions"] == 3, s
    assert s["per_client_video_frames_min"] >= (5 + 5) * 25 * 0.7, s
    assert s["ts_monotonic_violations"] == 0, s


def test_publish_with_chunk_size_128_from_the_client(srs, tmp_path):
    # The project's publisher keeps RTMP's initial chunk size of 128 (as ffmpeg
    # 5 does): every media message arrives split into 128-byte chunks.
    from conftest import TRUNK
    from media import make_test_flv
    flv = make_test_flv(tmp_path / "short.flv", seconds=4)
    srs.start(srs.base_conf())
    pub = subprocess.Popen([str(TRUNK / "objs" / "sb_rtmp_publish"), "-c", "1", "-i", str(flv), "-r",
                            url(srs, "c128"), "-t", "12"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert wait_until(lambda: "/live/c128" in srs.log() and "video H264" in srs.log(), 10), srs.log()[-2000:]
        packets = probe_packets(url(srs, "c128"), 3)
        assert len(packets) > 40 and packets[0][1].startswith("K")
        assert "Set Chunk Size" not in srs.log()
    finally:
        pub.send_signal(2)
        pub.wait(timeout=10)


def _raw_play(srs, stream="livestream"):
    c = RawRtmp(srs.rtmp_port)
    c.handshake()
    c.connect()
    c.send(chunk(3, 20, amf0_string("createStream") + amf0_number(2) + b"\x05"))
    c.send(chunk(8, 20, amf0_string("play") + amf0_number(3) + b"\x05" + amf0_string(stream), stream_id=1))
    return c


def test_pause_and_unpause(live):
    srs, _ = live
    c = _raw_play(srs)
    c.sock.settimeout(0.2)
    time.sleep(1)
    c.send(chunk(8, 20, amf0_string("pause") + amf0_number(0) + b"\x05" + b"\x01\x01" + amf0_number(1000),
                 stream_id=1))
    assert wait_until(lambda: "RTMP pause /live/livestream" in srs.log(), 5)
    c.send(chunk(8, 20, amf0_string("pause") + amf0_number(0) + b"\x05" + b"\x01\x00" + amf0_number(1000),
                 stream_id=1))
    assert wait_until(lambda: "RTMP unpause /live/livestream" in srs.log(), 5)
    c.close()


def test_publisher_without_media_times_out(srs):
    conf = srs.base_conf().replace("vhost __defaultVhost__ {\n}",
                                   "vhost __defaultVhost__ {\n  publish {\n    firstpkt_timeout 1000;\n  }\n}")
    srs.start(conf)
    c = RawRtmp(srs.rtmp_port)
    c.handshake()
    c.connect()
    c.send(chunk(3, 20, amf0_string("createStream") + amf0_number(2) + b"\x05"))
    c.send(chunk(8, 20, amf0_string("publish") + amf0_number(3) + b"\x05" + amf0_string("silent") +
                 amf0_string("live"), stream_id=1))
    t0 = time.monotonic()
    assert c.closed_by_server(timeout=10)
    assert 0.8 < time.monotonic() - t0 < 5
    assert wait_until(lambda: "no media for 1000 ms" in srs.log(), 5), srs.log()[-2000:]
    # The stream is free again for the next publisher.
    assert wait_until(lambda: "source __defaultVhost__/live/silent unpublished" in srs.log(), 5)
    c.close()


def test_legacy_flat_vhost_directives(srs, media):
    conf = srs.base_conf().replace("vhost __defaultVhost__ {\n}",
                                   "vhost __defaultVhost__ {\n  gop_cache off;\n  queue_length 10;\n}")
    srs.start(conf)
    pub = Publisher(media, url(srs))
    try:
        wait_for_publish(srs)
        assert "gop_cache=0" in srs.log()
        probe_packets(url(srs), 1)
        assert "queue=10 s" in srs.log()
    finally:
        pub.stop()


def read_syscalls(pid):
    """The process's read-type syscalls so far (/proc/PID/io syscr)."""
    for line in open(f"/proc/{pid}/io"):
        if line.startswith("syscr:"):
            return int(line.split()[1])
    raise AssertionError("no syscr in /proc/PID/io")


def test_merged_read_batches_publisher_reads(srs_factory, media):
    """publish.mr: the publisher's socket is read a few times per mr_latency
    instead of once per message, the stream still plays, and the status line
    says mr=1/350. min_latency turns it off, and a lone publisher without mr
    in the conf is read as each message comes (the read budget stays off)."""
    rates = {}
    for mode, vhost in (("off", ""), ("on", "publish { mr on; mr_latency 350; }"),
                        ("realtime", "min_latency on; publish { mr on; mr_latency 350; }")):
        srs = srs_factory(mode)
        conf = srs.base_conf("pithy_print_ms 1000;").replace("vhost __defaultVhost__ {\n}",
                                                             f"vhost __defaultVhost__ {{\n  {vhost}\n}}")
        srs.start(conf)
        pub = Publisher(media, url(srs))
        try:
            wait_for_publish(srs)
            time.sleep(1)
            r0, t0 = read_syscalls(srs.pid), time.monotonic()
            time.sleep(3)
            rates[mode] = (read_syscalls(srs.pid) - r0) / (time.monotonic() - t0)
            packets = probe_packets(url(srs), 3)
            assert len(packets) > 40, mode
            assert wait_until(lambda: "<- CPB" in srs.log(), timeout=5)
            expect = "mr=1/350" if mode == "on" else "mr=0/0"
            assert expect in srs.log(), (mode, [l for l in srs.log().splitlines() if "<- CPB" in l][-1:])
            # The wait in force: mr's, or none for a lone publisher (the read
            # budget waits only with hundreds of streams) and realtime.
            rwait = "rwait=350ms" if mode == "on" else "rwait=0ms"
            assert rwait in srs.log(), (mode, [l for l in srs.log().splitlines() if "<- CPB" in l][-1:])
        finally:
            pub.stop()
        srs.stop()
    print("reads per second", rates)
    # ~25 video + ~43 audio messages a second: one read each without mr.
    assert rates["off"] > 30, rates
    assert rates["realtime"] > 30, rates
    assert rates["on"] < rates["off"] / 4, rates


def test_vhost_given_on_the_tcurl_app(srs, media):
    """rtmp://host/app?vhost=V/stream, SRS's way to name a vhost from a client
    that cannot set the stream name's params: the vhost in connect's tcUrl is
    kept at publish and play (it was lost when the URL was rebuilt)."""
    conf = srs.base_conf() + "vhost v.test {\n}\n"
    srs.start(conf)
    vurl = f"rtmp://127.0.0.1:{srs.rtmp_port}/live?vhost=v.test/s"
    pub = Publisher(media, vurl)
    try:
        assert wait_until(lambda: "fmle-publish v.test/live/s" in srs.log(), 10), srs.log()[-2000:]
        streams = probe_streams(vurl)
        assert "video" in streams and "audio" in streams, streams
        assert "play v.test/live/s" in srs.log(), srs.log()[-2000:]
        assert "__defaultVhost__/live/s" not in srs.log()
    finally:
        pub.stop()

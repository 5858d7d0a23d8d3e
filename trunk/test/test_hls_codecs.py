"""H.265 and MP3 through HLS and HTTP-TS (docs/hls.md, "Codecs").

H.265: Debian 12's ffmpeg (5.1) cannot publish HEVC over RTMP, so an MP4
that libx265 wrote is turned into Enhanced RTMP tags ('hvc1' FourCC,
test_muxers_ts.mp4_to_enhanced_flv) and published by rtmp_raw in real
time (and as SRS's legacy FLV codec id 12). The server writes classic HLS
(MPEG-TS) on one vhost and fMP4 HLS on another, and serves HTTP-TS;
ffprobe reads each, and the packets of our HLS are compared with ffmpeg's
own HLS muxer given the same MP4.

MP3: ffmpeg publishes H.264 + MP3 (libmp3lame) and an MP3-only stream.
Classic HLS carries MP3 (stream_type 3 in the PMT); fMP4 HLS does not carry
MP3 (the reference shows no SRS fMP4 with MP3, and neither do we): its
segments are video only, with a log line. hls_ts_floor's segment names
are checked on a live stream too."""
import struct
import subprocess
import threading
import time
from pathlib import Path

import pytest

from conftest import can_connect, free_port, wait_until
from media import Publisher
from test_hls import check_rfc8216, probe_format, vod_copy
from test_muxers_ts import mp4_to_enhanced_flv

SECONDS = 8


def ffmpeg(args, timeout=180):
    r = subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y"] + [str(a) for a in args],
                       capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, r.stderr


def lavfi(seconds=SECONDS):
    return ["-f", "lavfi", "-i", "testsrc=size=320x240:rate=25",
            "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=44100", "-t", str(seconds)]


@pytest.fixture(scope="module")
def h265_media(tmp_path_factory):
    """(the Enhanced RTMP FLV, the MP4 it was made from): H.265 with B-frames and
    closed 2 s GOPs, AAC."""
    d = tmp_path_factory.mktemp("h265")
    mp4, flv = d / "h265.mp4", d / "h265.flv"
    ffmpeg(lavfi() + ["-c:v", "libx265", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-b:v", "300k",
                      "-x265-params", "log-level=error:keyint=50:min-keyint=50:bframes=3:open-gop=0",
                      "-c:a", "aac", "-b:a", "64k", "-f", "mp4", mp4])
    mp4_to_enhanced_flv(mp4, flv)
    return flv, mp4


@pytest.fixture(scope="module")
def mp3_media(tmp_path_factory):
    """(H.264 + MP3, MP3 alone) as FLV."""
    d = tmp_path_factory.mktemp("mp3")
    av, audio = d / "h264_mp3.flv", d / "mp3.flv"
    ffmpeg(lavfi() + ["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-g", "50", "-b:v", "300k",
                      "-c:a", "libmp3lame", "-b:a", "64k", "-f", "flv", av])
    ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100", "-t", str(SECONDS),
            "-c:a", "libmp3lame", "-b:a", "64k", "-f", "flv", audio])
    return av, audio


def read_flv_tags(path: Path):
    """[(tag type, ms, body)] of an FLV file."""
    data = path.read_bytes()
    assert data[:3] == b"FLV", path
    pos, tags = struct.unpack(">I", data[5:9])[0] + 4, []
    while pos + 11 <= len(data):
        kind, size = data[pos], struct.unpack(">I", b"\0" + data[pos + 1:pos + 4])[0]
        ms = struct.unpack(">I", bytes([data[pos + 7]]) + data[pos + 4:pos + 7])[0]
        tags.append((kind, ms, data[pos + 11:pos + 11 + size]))
        pos += 11 + size + 4
    return tags


def legacy_hevc_tags(tags):
    """The same H.265 as SRS's legacy FLV codec id 12 (an AVC-style header:
    packet type 0 with the hvcC, 1 with the frame and its composition time)."""
    out = []
    for kind, ms, body in tags:
        if kind == 9 and body[1:5] == b"hvc1":
            frame_type, packet_type = (body[0] >> 4) & 0x07, body[0] & 0x0F
            if packet_type == 0:
                body = bytes([frame_type << 4 | 12, 0, 0, 0, 0]) + body[5:]
            else:
                body = bytes([frame_type << 4 | 12, 1]) + body[5:]  # the 3-byte composition time follows
        out.append((kind, ms, body))
    return out


class FlvTagPublisher:
    """Publishes an FLV's audio and video tags as they are (Enhanced RTMP ones
    included) with rtmp_raw, once, paced in real time."""

    def __init__(self, port, stream, tags):
        from rtmp_raw import RawRtmp
        self.rtmp = RawRtmp(port)
        self.rtmp.handshake()
        self.rtmp.set_chunk_size(4096)
        self.rtmp.publish(stream)
        self.tags, self.error = [t for t in tags if t[0] in (8, 9)], None
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        start = time.monotonic()
        try:
            for kind, ms, body in self.tags:
                if self.stopping.wait(max(start + ms / 1000 - time.monotonic(), 0)):
                    return
                self.rtmp.send_media(kind, body, ms)
        except OSError as e:
            self.error = e

    def wait(self, timeout):
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the publisher did not finish"
        assert self.error is None, self.error

    def stop(self):
        self.stopping.set()
        self.thread.join(5)
        self.rtmp.close()


def start(srs):
    """Classic HLS and HTTP-TS on the default vhost, fMP4 HLS on fmp4.test."""
    srs.http_port = free_port()
    conf = srs.base_conf().replace("vhost __defaultVhost__ {\n}\n", "")
    conf += f"http_server {{\n  enabled on;\n  listen {srs.http_port};\n  dir {srs.workdir};\n}}\n"
    hls = f"    enabled on;\n    hls_path {srs.workdir};\n    hls_fragment 2;\n    hls_window 60;\n    hls_dispose 0;\n"
    conf += (f"vhost __defaultVhost__ {{\n  hls {{\n{hls}  }}\n"
             f"  http_remux {{\n    enabled on;\n    mount [vhost]/[app]/[stream].ts;\n  }}\n}}\n")
    conf += f"vhost fmp4.test {{\n  hls {{\n{hls}    hls_use_fmp4 on;\n  }}\n}}\n"
    conf += f"vhost mp3.test {{\n  hls {{\n{hls}    hls_acodec mp3;\n    hls_vcodec vn;\n  }}\n}}\n"
    conf += (f"vhost floor.test {{\n  hls {{\n{hls}    hls_ts_floor on;\n"
             f"    hls_ts_file [app]/[stream]-[timestamp].ts;\n  }}\n}}\n")
    srs.write_conf(conf)
    srs.start()
    assert wait_until(lambda: can_connect(srs.http_port), 5), srs.log()[-2000:]


def wait_listed(srs, stream, segment, timeout=8):
    path = srs.workdir / "live" / f"{stream}.m3u8"
    assert wait_until(lambda: path.exists() and segment in path.read_text(), timeout), srs.log()[-3000:]
    return path


def packets(target, stream="v"):
    """[(pts, dts)] in seconds, in decoding order."""
    r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", stream, "-show_entries",
                        "packet=pts_time,dts_time", "-of", "csv=p=0", str(target)],
                       capture_output=True, text=True, timeout=60)
    out = []
    for line in r.stdout.split():
        p = line.strip(",").split(",")
        if len(p) >= 2 and "N/A" not in p[:2]:
            out.append((float(p[0]), float(p[1])))
    return out


def codecs_of(info):
    return {s["codec_type"]: s["codec_name"] for s in info.get("streams", [])}


def compare_with_ffmpeg_hls(ours, reference):
    """The video packets of our HLS and of ffmpeg's HLS muxer on the same MP4:
    the same count (within a GOP at the end: ours is live) and the same
    presentation times from the first packet, to the ms the RTMP tags carry."""
    a, b = packets(ours), packets(reference)
    assert len(b) >= 0.9 * 25 * SECONDS, len(b)
    assert len(a) >= len(b) - 50, (len(a), len(b))
    n = min(len(a), len(b))
    a0, b0 = a[0][1], b[0][1]
    pts_diff = max(abs((a[i][0] - a0) - (b[i][0] - b0)) for i in range(n))
    dts_diff = max(abs((a[i][1] - a0) - (b[i][1] - b0)) for i in range(n))
    # The FLV tags round times to 1 ms; both sides then keep 90 kHz (TS) or the track's timescale.
    assert pts_diff <= 0.0025 and dts_diff <= 0.0025, (pts_diff, dts_diff, a[:6], b[:6])
    return n, pts_diff


def pmt_tables(ts: bytes):
    """[(version, {elementary PID: stream_type})] of every PMT in an MPEG-TS, in order."""
    pmt_pid, tables = None, []
    for off in range(0, len(ts) - 187, 188):
        pkt = ts[off:off + 188]
        assert pkt[0] == 0x47, off
        pid, start = ((pkt[1] & 0x1F) << 8) | pkt[2], pkt[1] & 0x40
        if not start:
            continue
        pos = 4 + (1 + pkt[4] if pkt[3] & 0x20 else 0)
        sec = pkt[pos + 1 + pkt[pos]:]
        if pid == 0 and pmt_pid is None:
            pmt_pid = ((sec[10] & 0x1F) << 8) | sec[11]
        elif pid == pmt_pid:
            end = 3 + (((sec[1] & 0x0F) << 8) | sec[2]) - 4
            pos = 12 + (((sec[10] & 0x0F) << 8) | sec[11])
            types = {}
            while pos + 5 <= end:
                types[((sec[pos + 1] & 0x1F) << 8) | sec[pos + 2]] = sec[pos]
                pos += 5 + (((sec[pos + 3] & 0x0F) << 8) | sec[pos + 4])
            tables.append(((sec[5] >> 1) & 0x1F, types))
    assert tables, "no PMT"
    return tables


def pmt_stream_types(ts: bytes):
    """{elementary PID: stream_type} of the first PMT."""
    return pmt_tables(ts)[0][1]


def test_h265_as_ts_hls_fmp4_hls_and_http_ts(srs, h265_media, tmp_path):
    flv, mp4 = h265_media
    start(srs)
    tags = read_flv_tags(flv)
    assert tags[0][2][:5] == b"\x90hvc1", "the FLV starts with the Enhanced RTMP hvcC"
    pubs = [FlvTagPublisher(srs.rtmp_port, "h265", tags),
            FlvTagPublisher(srs.rtmp_port, "h265f?vhost=fmp4.test", tags),
            FlvTagPublisher(srs.rtmp_port, "h265legacy", legacy_hevc_tags(tags))]
    try:
        # HTTP-TS while it is live: ffprobe reads HEVC and AAC from the stream.
        assert wait_until(lambda: srs.log().count(" published by ") >= 3, 10), srs.log()[-3000:]
        time.sleep(1)
        info = probe_format(f"http://127.0.0.1:{srs.http_port}/live/h265.ts", ["-read_intervals", "%+2"])
        assert codecs_of(info) == {"video": "hevc", "audio": "aac"}, (info, srs.log()[-2000:])
        # ffprobe scores any MPEG-TS over a pipe 50, ffmpeg's own muxer's too (test_http_remux.py).
        assert int(info["format"]["probe_score"]) >= 50, info
        for p in pubs:
            p.wait(SECONDS + 10)
    finally:
        for p in pubs:
            p.stop()
    ts_m3u8 = wait_listed(srs, "h265", "h265-3.ts")
    legacy_m3u8 = wait_listed(srs, "h265legacy", "h265legacy-3.ts")
    fmp4_m3u8 = wait_listed(srs, "h265f", "h265f-3.m4s")
    assert "bad video" not in srs.log() and "error" not in srs.log().lower(), srs.log()[-3000:]

    # MPEG-TS: stream_type 0x24 for the video PID, as ffmpeg's own muxer writes it.
    first = (ts_m3u8.parent / "h265-0.ts").read_bytes()
    assert sorted(pmt_stream_types(first).values()) == [0x0F, 0x24], pmt_stream_types(first)
    # fMP4: the init segment's sample entry is hvc1 with its hvcC.
    init = (fmp4_m3u8.parent / "h265f" / "init.mp4").read_bytes()
    assert b"hvc1" in init and b"hvcC" in init and b"mp4a" in init, init[:64]

    ref = tmp_path / "ref"
    ref.mkdir()
    for kind, m3u8_path in (("mpegts", ts_m3u8), ("fmp4", fmp4_m3u8)):
        pl = check_rfc8216(m3u8_path.read_text())
        assert pl.version == (7 if kind == "fmp4" else 3)
        vod = vod_copy(m3u8_path, f"{m3u8_path.stem}-vod.m3u8")
        info = probe_format(str(vod))
        assert codecs_of(info) == {"video": "hevc", "audio": "aac"}, info
        assert float(info["format"]["duration"]) >= 0.9 * SECONDS, info
        assert int(info["format"]["probe_score"]) >= 90, info
        # ffmpeg's own HLS muxer on the same MP4 (segments at its keyframes, 2 s).
        out = ref / f"{kind}.m3u8"
        ffmpeg(["-i", mp4, "-c", "copy", "-f", "hls", "-hls_time", "2", "-hls_list_size", "0",
                "-hls_segment_type", kind, "-hls_segment_filename", ref / f"{kind}-%d.{'ts' if kind == 'mpegts' else 'm4s'}", out])
        ref_info = probe_format(str(out))
        assert codecs_of(ref_info) == {"video": "hevc", "audio": "aac"}, ref_info
        assert float(info["format"]["duration"]) >= float(ref_info["format"]["duration"]) - 2.1, (info, ref_info)
        n, diff = compare_with_ffmpeg_hls(vod, out)
        print(f"H.265 {kind}: {n} video packets, max time difference to ffmpeg's HLS {diff * 1000:.2f} ms, "
              f"duration {info['format']['duration']} (ffmpeg's {ref_info['format']['duration']})")
        # Every segment decodes without an error.
        r = subprocess.run(["ffmpeg", "-hide_banner", "-v", "error", "-i", str(vod), "-f", "null", "-"],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0 and "error" not in r.stderr.lower(), r.stderr[-2000:]
    # SRS's legacy codec id 12 gives the same segments' media as Enhanced RTMP.
    legacy_vod = vod_copy(legacy_m3u8, "h265legacy-vod.m3u8")
    info = probe_format(str(legacy_vod))
    assert codecs_of(info) == {"video": "hevc", "audio": "aac"}, info
    assert float(info["format"]["duration"]) >= 0.9 * SECONDS, info
    assert packets(legacy_vod) == packets(ts_m3u8.parent / "h265-vod.m3u8")


def test_mp3_as_ts_hls_fmp4_without_it_and_ts_floor(srs, mp3_media):
    av, audio = mp3_media
    start(srs)
    rtmp = f"rtmp://127.0.0.1:{srs.rtmp_port}/live"
    pubs = [Publisher(av, f"{rtmp}/mp3av", loop=False), Publisher(audio, f"{rtmp}?vhost=mp3.test/mp3", loop=False),
            Publisher(av, f"{rtmp}?vhost=fmp4.test/mp3f", loop=False),
            Publisher(av, f"{rtmp}?vhost=floor.test/floor", loop=False)]
    started_ms = time.time() * 1000
    try:
        for p in pubs:
            p.wait(SECONDS + 15)
    finally:
        errs = [p.stop() for p in pubs]
    av_m3u8 = wait_listed(srs, "mp3av", "mp3av-3.ts")
    # MP3 alone: audio-only segments are hls_fragment x hls_aof_ratio (4.2 s) long.
    mp3_m3u8 = wait_listed(srs, "mp3", "mp3-1.ts")
    fmp4_m3u8 = wait_listed(srs, "mp3f", "mp3f-3.m4s")

    # TS: MP3 at 44.1 kHz is MPEG-1 audio, stream_type 3 (ffmpeg gives it the same).
    # As SRS documents hls_acodec: the first segment opens (at the first
    # keyframe, before any MP3 frame: MP3 has no sequence header) with the
    # PMT of hls_acodec, aac by default, and the first MP3 frame brings a new
    # PMT version; every later segment starts with MP3. hls_acodec mp3 (with
    # hls_vcodec vn for MP3 alone) has it right from the first byte.
    live = av_m3u8.parent
    tables = pmt_tables((live / "mp3av-0.ts").read_bytes())
    assert sorted(tables[0][1].values()) == [0x0F, 0x1B], tables
    assert sorted(tables[-1][1].values()) == [0x03, 0x1B] and tables[-1][0] == tables[0][0] + 1, tables
    assert sorted(pmt_stream_types((live / "mp3av-1.ts").read_bytes()).values()) == [0x03, 0x1B]
    assert all(list(t.values()) == [0x03] for _, t in pmt_tables((live / "mp3-0.ts").read_bytes()))
    for m3u8_path, want in ((av_m3u8, {"video": "h264", "audio": "mp3"}), (mp3_m3u8, {"audio": "mp3"})):
        check_rfc8216(m3u8_path.read_text())
        info = probe_format(str(vod_copy(m3u8_path, f"{m3u8_path.stem}-vod.m3u8")))
        assert codecs_of(info) == want, (info, errs)
        assert float(info["format"]["duration"]) >= 0.9 * SECONDS, info
        assert int(info["format"]["probe_score"]) >= 90, info
    # MP3 frames keep their times: 1152 samples apart at 44.1 kHz, from 0.
    pts = [p for p, _ in packets(vod_copy(mp3_m3u8, "mp3-pts.m3u8"), "a")]
    steps = [b - a for a, b in zip(pts, pts[1:])]
    assert len(pts) >= 0.9 * SECONDS * 44100 / 1152, len(pts)
    assert all(abs(s - 1152 / 44100) <= 0.0015 for s in steps), sorted(set(round(s, 4) for s in steps))

    # hls_ts_floor: [timestamp] counts 2 s fragments of the wall clock, from
    # one below the clock's at the first segment, one up per segment.
    floor_m3u8 = srs.workdir / "live" / "floor.m3u8"
    assert wait_until(lambda: floor_m3u8.exists() and floor_m3u8.read_text().count("#EXTINF") >= 3, 5)
    pl = check_rfc8216(floor_m3u8.read_text())
    numbers = [int(seg.uri[len("floor-"):-len(".ts")]) for seg in pl.segments]
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers))), numbers
    assert abs(numbers[0] - (int(started_ms // 2000) - 1)) <= 1, (numbers, started_ms)
    assert codecs_of(probe_format(str(vod_copy(floor_m3u8, "floor-vod.m3u8")))) == {"video": "h264", "audio": "mp3"}

    # fMP4 does not carry MP3: the segments are video only, and the log says why.
    info = probe_format(str(vod_copy(fmp4_m3u8, "mp3f-vod.m3u8")))
    assert codecs_of(info) == {"video": "h264"}, info
    assert float(info["format"]["duration"]) >= 0.9 * SECONDS, info
    assert "mp3f: fmp4 does not carry audio MP3" in srs.log(), srs.log()[-3000:]
    assert srs.log().count("fmp4 does not carry") == 1, "said once per publish"

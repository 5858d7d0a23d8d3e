"""DVR (vhost.dvr, docs/dvr.md) as a user sees it: ffmpeg publishes
H.264+AAC, ffprobe reads the recordings, a test hooks server gets on_dvr.

- session plan to FLV and to MP4 (every path variable): codecs, duration,
  probe score, the FLV's patched onMetaData, on_dvr's body (file relative
  to the server's cwd, as configured);
- segment plan of 3 s in the folder form, with dvr_apply naming one of two
  streams: several files of ~3 s, each starting with a keyframe;
- SIGTERM during an MP4 recording closes it as a normal MP4 (duration in
  moov); a dvr_path that cannot be written stops that recording, not the
  stream;
- kill -9 during an MP4 and an FLV recording: the temporary MP4 plays
  >= 10 s of 12 s, and the next start renames both (the FLV's metadata
  patched) and sends on_dvr."""
import json
import os
import re
import signal
import struct
import subprocess
import time

import pytest

from conftest import TRUNK, wait_until
from hooks_server import HooksServer
from media import Publisher, make_test_flv, probe_streams

MEDIA_SECONDS = 8


@pytest.fixture(scope="module")
def short_media(tmp_path_factory):
    """8 s of H.264 (1 s GOP) + AAC: a publish that ends by itself."""
    d = tmp_path_factory.mktemp("dvrmedia")
    return make_test_flv(d / "short.flv", seconds=MEDIA_SECONDS, gop_seconds=1)


@pytest.fixture
def hooks():
    s = HooksServer().start()
    yield s
    s.stop()


def probe(path):
    r = subprocess.run(["ffprobe", "-v", "error", "-show_entries",
                        "format=duration,probe_score,format_name:stream=codec_type,codec_name",
                        "-of", "json", str(path)], capture_output=True, text=True, timeout=30)
    data = json.loads(r.stdout or "{}")
    codecs = {s.get("codec_type"): s.get("codec_name") for s in data.get("streams", [])}
    fmt = data.get("format", {})
    return codecs, float(fmt.get("duration", 0) or 0), int(fmt.get("probe_score", 0) or 0)


def first_video_packet_flags(path):
    r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "packet=flags",
                        "-read_intervals", "%+#1", "-of", "csv=p=0", str(path)],
                       capture_output=True, text=True, timeout=30)
    return r.stdout.strip().splitlines()[0] if r.stdout.strip() else ""


def flv_metadata_number(data, key):
    """An AMF0 number property of the file's onMetaData (first script tag)."""
    k = struct.pack(">H", len(key)) + key.encode() + b"\x00"
    at = data.find(k, 13, 13 + 11 + 4096)
    assert at > 0, f"no {key} in the onMetaData"
    return struct.unpack(">d", data[at + len(k):at + len(k) + 8])[0]


def conf_with(srs, vhosts, hooks=None):
    hook = (f"    http_hooks {{ enabled on; on_dvr {hooks.url('/ok')}; }}\n" if hooks else "")
    text = (f"listen {srs.rtmp_port};\nmax_connections 100;\ndaemon off;\npid {srs.pid_file};\n"
            f"srs_log_tank file;\nsrs_log_file {srs.log_file};\n")
    for name, dvr in vhosts.items():
        text += f"vhost {name} {{\n    dvr {{\n        enabled on;\n{dvr}    }}\n{hook}}}\n"
    return text


def rel_to_trunk(path):
    """The path as a relative dvr_path the server (cwd: trunk) resolves."""
    return os.path.relpath(path, TRUNK)


def test_session_flv_and_mp4_with_every_variable_and_on_dvr(srs, short_media, hooks, tmp_path):
    flv_dir = tmp_path / "flvrec"
    mp4_dir = tmp_path / "mp4rec"
    flv_path = rel_to_trunk(flv_dir) + "/[app]/[stream].[timestamp].flv"
    mp4_path = str(mp4_dir) + "/[vhost]/[app]/[stream]/[2006]-[01]-[02]_[15][04][05].[999]_[timestamp].mp4"
    srs.start(conf_with(srs, {
        "__defaultVhost__": f"        dvr_path {flv_path};\n",
        "mp4.test": f"        dvr_path {mp4_path};\n        dvr_plan session;\n",
    }, hooks))
    base = f"rtmp://127.0.0.1:{srs.rtmp_port}/live"
    started = time.time()
    pubs = [Publisher(short_media, f"{base}/s1", loop=False),
            Publisher(short_media, f"{base}/s2?vhost=mp4.test", loop=False)]
    try:
        # While recording, only temporary names exist.
        assert wait_until(lambda: list(flv_dir.glob("live/s1.*.flv.tmp")) and list(mp4_dir.rglob("*.mp4.tmp")),
                          timeout=15), srs.log()[-3000:]
        assert not list(flv_dir.glob("live/*.flv"))
        for p in pubs:
            p.wait(timeout=MEDIA_SECONDS + 20)
    finally:
        for p in pubs:
            p.stop()
    assert wait_until(lambda: len(hooks.of("on_dvr")) >= 2, timeout=10), srs.log()[-3000:]

    flvs = list(flv_dir.glob("live/s1.*.flv"))
    assert len(flvs) == 1 and not list(flv_dir.rglob("*.tmp"))
    ts = int(flvs[0].name.split(".")[1])
    assert abs(ts / 1000 - started) < 10
    codecs, duration, score = probe(flvs[0])
    assert codecs == {"video": "h264", "audio": "aac"}
    assert duration >= 0.9 * MEDIA_SECONDS and score >= 90, (duration, score)
    data = flvs[0].read_bytes()
    assert flv_metadata_number(data, "duration") >= 0.9 * MEDIA_SECONDS
    assert flv_metadata_number(data, "filesize") == len(data)

    mp4s = list(mp4_dir.rglob("*.mp4"))
    assert len(mp4s) == 1 and not list(mp4_dir.rglob("*.tmp"))
    rel = mp4s[0].relative_to(mp4_dir)
    m = re.fullmatch(r"mp4\.test/live/s2/(\d{4})-(\d\d)-(\d\d)_(\d\d)(\d\d)(\d\d)\.(\d{3})_(\d+)\.mp4", str(rel))
    assert m, rel
    wall = int(m.group(8))
    assert abs(wall / 1000 - started) < 10
    lt = time.localtime(wall // 1000)
    assert tuple(int(g) for g in m.groups()[:6]) == (lt.tm_year, lt.tm_mon, lt.tm_mday, lt.tm_hour, lt.tm_min,
                                                     lt.tm_sec)
    assert int(m.group(7)) == wall % 1000
    codecs, duration, score = probe(mp4s[0])
    assert codecs == {"video": "h264", "audio": "aac"}
    assert duration >= 0.9 * MEDIA_SECONDS and score >= 90, (duration, score)

    bodies = {r.json["stream"]: r.json for r in hooks.of("on_dvr")}
    flv_body = bodies["s1"]
    assert list(flv_body)[:7] == ["server_id", "service_id", "action", "client_id", "ip", "vhost", "app"]
    assert flv_body["cwd"] == str(TRUNK)
    assert flv_body["file"] == rel_to_trunk(flvs[0])  # as configured: relative to cwd
    assert not flv_body["file"].startswith("/")
    assert flv_body["stream_url"] == "/live/s1" and flv_body["app"] == "live"
    assert flv_body["tcUrl"].endswith("/live") and flv_body["client_id"] and flv_body["stream_id"]
    assert flv_body["param"] == "" and bodies["s2"]["param"] == "?vhost=mp4.test"
    assert bodies["s2"]["file"] == str(mp4s[0]) and bodies["s2"]["vhost"] == "mp4.test"
    assert "recording to" in srs.log()


def test_segment_plan_folder_form_and_apply(srs, short_media, tmp_path):
    folder = tmp_path / "seg"
    srs.start(conf_with(srs, {"__defaultVhost__": (
        f"        dvr_path {folder};\n        dvr_plan segment;\n        dvr_duration 3;\n"
        "        dvr_apply live/picked;\n")}))
    base = f"rtmp://127.0.0.1:{srs.rtmp_port}/live"
    pubs = [Publisher(short_media, f"{base}/picked", loop=False), Publisher(short_media, f"{base}/other", loop=False)]
    try:
        for p in pubs:
            p.wait(timeout=MEDIA_SECONDS + 20)
    finally:
        for p in pubs:
            p.stop()
    assert wait_until(lambda: not list(folder.glob("*.tmp")) and list(folder.glob("*.flv")), timeout=10)
    files = sorted(folder.glob("*.flv"), key=lambda p: int(p.name.split(".")[1]))
    assert all(f.name.startswith("picked.") for f in files), files  # the folder form; only the applied stream
    assert len(files) >= 2, files
    durations = []
    for f in files:
        codecs, duration, score = probe(f)
        assert codecs == {"video": "h264", "audio": "aac"} and score >= 90, (f, codecs, score)
        assert "K" in first_video_packet_flags(f), f
        durations.append(duration)
    for d in durations[:-1]:
        assert 2.8 <= d <= 4.2, durations
    assert sum(durations) >= 0.9 * MEDIA_SECONDS, durations


def mvhd_duration(data):
    """mvhd's duration and timescale (version 0 or 1)."""
    at = data.find(b"mvhd")
    assert at > 0
    if data[at + 4] == 1:
        timescale, duration = struct.unpack(">IQ", data[at + 24:at + 36])
    else:
        timescale, duration = struct.unpack(">II", data[at + 16:at + 24])
    return duration, timescale


def test_sigterm_closes_mp4_whole_and_a_bad_path_spares_the_stream(srs, media, hooks, tmp_path):
    rec = tmp_path / "rec"
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where dvr_path wants a folder")
    srs.start(conf_with(srs, {
        "__defaultVhost__": f"        dvr_path {rec}/[stream].mp4;\n",
        "blocked.test": f"        dvr_path {blocker}/[stream].flv;\n",
    }, hooks))
    base = f"rtmp://127.0.0.1:{srs.rtmp_port}/live"
    pubs = [Publisher(media, f"{base}/term"), Publisher(media, f"{base}/lost?vhost=blocked.test")]
    try:
        assert wait_until(lambda: (rec / "term.mp4.tmp").exists(), timeout=15), srs.log()[-3000:]
        assert wait_until(lambda: "recording of this publish stopped" in srs.log(), timeout=10)
        assert "Not a directory" in srs.log()
        # The stream whose recording failed still plays.
        assert set(probe_streams(f"{base}/lost?vhost=blocked.test")) == {"video", "audio"}
        time.sleep(4)
        srs.signal(signal.SIGTERM)
        srs.wait_exit(20)
    finally:
        for p in pubs:
            p.stop()
    final = rec / "term.mp4"
    assert final.exists() and not (rec / "term.mp4.tmp").exists(), srs.log()[-3000:]
    codecs, duration, score = probe(final)
    assert codecs == {"video": "h264", "audio": "aac"} and duration >= 4 and score >= 90, (duration, score)
    # Closed as a normal MP4: the duration is in moov, not only in the fragments.
    moov_duration, timescale = mvhd_duration(final.read_bytes())
    assert moov_duration / timescale >= 4, (moov_duration, timescale)
    assert blocker.read_text().startswith("a file")


def test_kill_during_recording_then_recovered_at_restart(srs_factory, media, hooks, tmp_path):
    rec = tmp_path / "rec"
    vhosts = {"__defaultVhost__": f"        dvr_path {rec}/[stream].mp4;\n",
              "flv.test": f"        dvr_path {rec}/[stream].flv;\n"}
    first = srs_factory("first")
    first.start(conf_with(first, vhosts, hooks))
    base = f"rtmp://127.0.0.1:{first.rtmp_port}/live"
    pubs = [Publisher(media, f"{base}/crash"), Publisher(media, f"{base}/crashflv?vhost=flv.test")]
    tmp = rec / "crash.mp4.tmp"
    flv_tmp = rec / "crashflv.flv.tmp"
    try:
        assert wait_until(lambda: tmp.exists() and flv_tmp.exists(), timeout=15), first.log()[-3000:]
        time.sleep(12.5)
        first.signal(signal.SIGKILL)
        first.proc.wait(timeout=10)
    finally:
        for p in pubs:
            p.stop()
    # What the kill left plays as it is.
    codecs, duration, _ = probe(tmp)
    assert codecs == {"video": "h264", "audio": "aac"}
    assert duration >= 10, duration
    assert not (rec / "crash.mp4").exists()
    tmp_bytes_before = tmp.read_bytes()[:4096]

    second = srs_factory("second")
    second.start(conf_with(second, vhosts, hooks))
    final = rec / "crash.mp4"
    flv_final = rec / "crashflv.flv"
    assert final.exists() and not tmp.exists(), second.log()[-3000:]
    assert flv_final.exists() and not flv_tmp.exists(), second.log()[-3000:]
    assert "recovered" in second.log()
    codecs, duration, score = probe(final)
    assert codecs == {"video": "h264", "audio": "aac"} and duration >= 10 and score >= 90, (codecs, duration)
    # The moov said 0 (its durations are written at a clean close); the
    # recovery wrote the kept fragments' time into it, and ffprobe's
    # duration is that one.
    assert mvhd_duration(tmp_bytes_before) == (0, 1000)
    moov_duration, timescale = mvhd_duration(final.read_bytes())
    assert moov_duration / timescale >= 10, (moov_duration, timescale)
    assert abs(moov_duration / timescale - duration) <= 0.1, (moov_duration, duration)
    assert f"fragments, {moov_duration / timescale:.3f} s" in second.log(), second.log()[-2000:]
    codecs, duration, score = probe(flv_final)
    assert codecs == {"video": "h264", "audio": "aac"} and duration >= 10 and score >= 90, (codecs, duration)
    data = flv_final.read_bytes()
    assert flv_metadata_number(data, "duration") >= 10
    assert flv_metadata_number(data, "filesize") == len(data)
    assert wait_until(lambda: len([r for r in hooks.of("on_dvr") if r.json["file"] in (str(final), str(flv_final))])
                      == 2, timeout=10)
    bodies = {r.json["stream"]: r.json for r in hooks.of("on_dvr")}
    assert bodies["crash"]["vhost"] == "__defaultVhost__" and bodies["crash"]["file"] == str(final)
    assert bodies["crashflv"]["vhost"] == "flv.test" and bodies["crashflv"]["file"] == str(flv_final)

"""kernel/mp4's fragmented MP4 muxer, black-box through objs/srs_mux_mp4, against ffmpeg's own muxer.

Inputs (10 s, testsrc + sine, 2 s GOP): H.264 + AAC as ffmpeg writes FLV, and H.265 + AAC as an
Enhanced RTMP FLV built here from an MP4 that ffmpeg wrote (Debian 12's ffmpeg 5.1 cannot put HEVC
in FLV). The reference is ffmpeg's `-c copy -f mp4 -movflags frag_keyframe+empty_moov` of the same
packets. Checked with ffprobe: the codecs, every frame counted (-count_frames) equal to the
reference's, durations within 2 %, nothing printed at -v error; fMP4 segments that each start with
a keyframe and play alone after init.mp4; a closed DVR file whose duration a non-seeking reader
(ffprobe on a pipe) sees, which is what the close-time patches are for; and a recording cut in the
middle of a fragment (what kill -9 leaves): ffmpeg opens one cut inside an mdat but not one cut inside a
moof, and `srs_mux_mp4 recover` (kernel/mp4's recovery scan, as the DVR runs it at start) truncates both
to their last complete fragment, which then plays every frame.
No server is started."""
import json
import re
import struct
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "objs" / "srs_mux_mp4"
SECONDS = 10


def run(cmd, **kw):
    return subprocess.run(["nice", "-n", "19"] + [str(c) for c in cmd], capture_output=True, text=True,
                          timeout=120, **kw)


def ffmpeg(*args):
    r = run(["ffmpeg", "-v", "error", "-y", *args])
    assert r.returncode == 0, r.stderr


def probe(path=None, data=None):
    """(streams, format, stderr) from ffprobe with every frame counted; data= probes bytes on a pipe."""
    cmd = ["ffprobe", "-v", "error", "-count_frames", "-show_entries",
           "stream=codec_name,codec_tag_string,nb_read_frames,duration:format=duration", "-of", "json"]
    if data is not None:
        r = subprocess.run(["nice", "-n", "19", *cmd, "-i", "-"], input=data, capture_output=True, timeout=120)
        out, err = r.stdout.decode(), r.stderr.decode()
    else:
        r = run(cmd + [str(path)])
        out, err = r.stdout, r.stderr
    assert r.returncode == 0, err
    j = json.loads(out)
    return j["streams"], j.get("format", {}), err.strip()


def mux(*args):
    r = run([TOOL, *args])
    assert r.returncode == 0, r.stderr
    frags = [dict(kv.split("=") for kv in line.split()[2:]) | {"seq": int(line.split()[1])}
             for line in r.stdout.splitlines() if line.startswith("fragment ")]
    return frags, r.stdout


# ---- an H.265 + AAC Enhanced RTMP FLV from an MP4 (ffprobe dumps the packets) ----

def _packets(path, stream):
    r = run(["ffprobe", "-v", "error", "-select_streams", stream, "-show_packets", "-show_data",
             "-show_entries", "packet=pts_time,dts_time,flags,data", "-of", "json", path])
    assert r.returncode == 0, r.stderr
    return [(float(p["dts_time"]), float(p["pts_time"]), "K" in p["flags"], _unhexdump(p["data"]))
            for p in json.loads(r.stdout)["packets"]]


def _unhexdump(text):
    out = bytearray()
    for line in text.splitlines():
        m = re.match(r"^[0-9a-f]{8}: ((?:[0-9a-f]{2,4} )+)", line + " ")
        if m:
            out += bytes.fromhex(m.group(1).replace(" ", ""))
    return bytes(out)


def _extradata(path, stream):
    r = run(["ffprobe", "-v", "error", "-select_streams", stream, "-show_streams", "-show_data", path])
    assert r.returncode == 0, r.stderr
    return _unhexdump(r.stdout.split("extradata=", 1)[1])


def _tag(kind, ms, body):
    head = struct.pack(">B", kind) + struct.pack(">I", len(body))[1:] + struct.pack(">I", ms)[1:] + \
        bytes([(ms >> 24) & 0xFF]) + b"\0\0\0"
    return head + body + struct.pack(">I", 11 + len(body))


def hevc_flv(src, out):
    video, audio = _packets(src, "v:0"), _packets(src, "a:0")
    base = min(p[0] for p in video + audio)
    tags = [(0, 9, bytes([0x80 | 1 << 4 | 0]) + b"hvc1" + _extradata(src, "v:0")),
            (0, 8, b"\xaf\x00" + _extradata(src, "a:0"))]
    for dts, pts, key, data in video:
        ms, cts = round((dts - base) * 1000), round((pts - dts) * 1000)
        tags.append((ms, 9, bytes([0x80 | (1 if key else 2) << 4 | 1]) + b"hvc1" +
                     struct.pack(">i", cts)[1:] + data))
    for dts, _, _, data in audio:
        tags.append((round((dts - base) * 1000), 8, b"\xaf\x01" + data))
    tags.sort(key=lambda t: t[0])
    body = b"FLV\x01\x05\0\0\0\x09\0\0\0\0" + b"".join(_tag(kind, ms, b) for ms, kind, b in tags)
    Path(out).write_bytes(body)


# ---- fixtures ----

@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("mp4mux")
    src = ["-f", "lavfi", "-i", "testsrc=size=320x240:rate=25", "-f", "lavfi", "-i",
           "sine=frequency=440:sample_rate=44100", "-t", str(SECONDS), "-pix_fmt", "yuv420p"]
    aac = ["-c:a", "aac", "-b:a", "64k"]
    ffmpeg(*src, "-c:v", "libx264", "-g", "50", "-b:v", "300k", *aac, "-f", "flv", d / "h264.flv")
    # Closed GOPs (IDR keyframes), as HLS encoders are set up: x265's default open GOP starts with CRA
    # pictures whose leading (RASL) frames a decoder drops when a segment is played alone.
    ffmpeg(*src, "-c:v", "libx265", "-x265-params", "log-level=error:keyint=50:min-keyint=50:open-gop=0", "-b:v", "300k",
           *aac, "-f", "mp4", d / "h265_src.mp4")
    hevc_flv(d / "h265_src.mp4", d / "h265.flv")
    return {"h264": (d / "h264.flv", d / "h264.flv", ["h264", "aac"]),
            "h265": (d / "h265.flv", d / "h265_src.mp4", ["hevc", "aac"]),
            "dir": d}


def reference(inputs, case):
    _, source, _ = inputs[case]
    out = inputs["dir"] / f"{case}_ref.mp4"
    if not out.exists():
        ffmpeg("-i", source, "-c", "copy", "-f", "mp4", "-movflags", "frag_keyframe+empty_moov", out)
    return probe(out)


def assert_like_reference(streams, fmt, ref_streams, ref_fmt, codecs):
    assert [s["codec_name"] for s in streams] == codecs
    assert [s["codec_name"] for s in ref_streams] == codecs
    for s, r in zip(streams, ref_streams):
        assert int(s["nb_read_frames"]) == int(r["nb_read_frames"]), (s, r)
        assert abs(float(s["duration"]) - float(r["duration"])) <= 0.02 * float(r["duration"]), (s, r)
    assert abs(float(fmt["duration"]) - float(ref_fmt["duration"])) <= 0.02 * float(ref_fmt["duration"])
    assert abs(float(fmt["duration"]) - SECONDS) <= 0.02 * SECONDS


# ---- tests ----

@pytest.mark.parametrize("case", ["h264", "h265"])
def test_fmp4_segments_match_ffmpeg(inputs, case, tmp_path):
    flv, _, codecs = inputs[case]
    # Cut at the first keyframe 1.5 s into a segment: every 2 s GOP (x265's keyframes come
    # a frame or two early in decode order, so 2000 would skip to the next one).
    frags, _ = mux("--fragment", "1500", "fmp4", flv, tmp_path)
    assert len(frags) in (SECONDS // 2, SECONDS // 2 + 1), frags
    assert all(f["independent"] == "1" for f in frags)
    for f in frags[:-1]:
        assert 1800 <= int(f["duration_ms"]) <= 2200, frags
    init = (tmp_path / "init.mp4").read_bytes()
    segs = [(tmp_path / f"seg-{f['seq']}.m4s").read_bytes() for f in frags]
    assert all(s[4:8] == b"styp" for s in segs)
    whole = tmp_path / "whole.mp4"
    whole.write_bytes(init + b"".join(segs))

    streams, fmt, err = probe(whole)
    assert err == ""
    ref_streams, ref_fmt, _ = reference(inputs, case)
    assert_like_reference(streams, fmt, ref_streams, ref_fmt, codecs)
    assert streams[0]["codec_tag_string"] == ("avc1" if case == "h264" else "hvc1")

    # A segment after the init segment plays alone (what an HLS player fetches).
    one = tmp_path / "one.mp4"
    one.write_bytes(init + segs[2])
    streams, _, err = probe(one)
    assert err == ""
    assert int(streams[0]["nb_read_frames"]) == int(frags[2]["video"]) >= 45
    assert int(streams[1]["nb_read_frames"]) == int(frags[2]["audio"])


@pytest.mark.parametrize("case", ["h264", "h265"])
def test_dvr_file_matches_ffmpeg_and_reports_its_duration(inputs, case, tmp_path):
    flv, _, codecs = inputs[case]
    out = tmp_path / "dvr.mp4"
    frags, stdout = mux("mp4", flv, out)
    assert "duration_ms=" in stdout
    streams, fmt, err = probe(out)
    assert err == ""
    ref_streams, ref_fmt, _ = reference(inputs, case)
    assert_like_reference(streams, fmt, ref_streams, ref_fmt, codecs)

    # A reader that cannot seek (a pipe) learns the duration only from moov:
    # the close-time patches put it there; an unclosed file shows the first fragment only.
    _, piped, err = probe(data=out.read_bytes())
    assert err == ""
    assert abs(float(piped["duration"]) - SECONDS) <= 0.02 * SECONDS, piped
    crashed = tmp_path / "crashed.mp4"
    mux("--no-close", "mp4", flv, crashed)
    _, piped_unclosed, _ = probe(data=crashed.read_bytes())
    assert float(piped_unclosed["duration"]) < 0.6 * SECONDS, piped_unclosed


def _top_boxes(data):
    pos, boxes = 0, []
    while pos + 8 <= len(data):
        size, kind = struct.unpack_from(">I4s", data, pos)
        boxes.append((kind.decode(), pos, size))
        pos += size
    return boxes


@pytest.mark.parametrize("where", ["mdat", "moof"])
def test_recording_cut_mid_fragment_plays_its_complete_fragments(inputs, tmp_path, where):
    flv, _, codecs = inputs["h264"]
    full = tmp_path / "recording.mp4"
    frags, _ = mux("--no-close", "--fragment", "1000", "mp4", flv, full)
    data = full.read_bytes()
    moofs = [b for b in _top_boxes(data) if b[0] == "moof"]
    mdats = [b for b in _top_boxes(data) if b[0] == "mdat"]
    assert len(moofs) == len(frags) >= 4
    # Cut inside the third fragment from the end: the moof's middle or the mdat's middle.
    k = len(moofs) - 3
    box = moofs[k] if where == "moof" else mdats[k]
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(data[:box[1] + box[2] // 2])
    complete_video = sum(int(f["video"]) for f in frags[:k])
    complete_audio = sum(int(f["audio"]) for f in frags[:k])

    if where == "moof":
        # ffmpeg reads every top-level box at open: a cut moof fails the whole file.
        r = run(["ffprobe", "-v", "error", cut])
        assert r.returncode != 0 and "error reading header" in r.stderr
    # What the DVR does at its next start: keep the complete fragments.
    r = run([TOOL, "recover", cut])
    assert r.returncode == 0, r.stderr
    assert f"fragments={k}" in r.stdout, r.stdout
    assert cut.stat().st_size == mdats[k - 1][1] + mdats[k - 1][2]

    streams, fmt, err = probe(cut)
    assert err == ""
    assert [s["codec_name"] for s in streams] == codecs
    assert int(streams[0]["nb_read_frames"]) >= complete_video
    assert int(streams[1]["nb_read_frames"]) >= complete_audio
    assert float(fmt["duration"]) >= complete_video / 25 * 0.98


def test_broken_input_is_refused_cleanly(tmp_path):
    bad = tmp_path / "bad.flv"
    bad.write_bytes(b"FLV\x01\x05\0\0\0\x09\0\0\0\0" + b"\x09\x00\x00\x05\0\0\0\0\0\0\0" + b"\x17\x00\0\0\0" +
                    struct.pack(">I", 16))
    r = run([TOOL, "fmp4", bad, tmp_path])
    assert r.returncode == 1
    assert "no H.264/H.265/AAC/Opus" in r.stderr
    assert "ERROR: AddressSanitizer" not in r.stderr
    r = run([TOOL, "mp4", tmp_path / "missing.flv", tmp_path / "x.mp4"])
    assert r.returncode == 1 and "open" in r.stderr
    r = run([TOOL, "webm", bad, tmp_path])
    assert r.returncode == 2

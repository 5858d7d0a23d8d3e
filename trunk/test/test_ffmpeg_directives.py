"""SRS's FFmpeg directives with real processes: ingest, transcode, exec.

- An ingest of a file (SRS's conf: ffmpeg ./objs/ffmpeg/bin/ffmpeg, which is
  not there, so the system's ffmpeg runs with a warning) plays over RTMP and
  HTTP-FLV (ffprobe) and WHEP (aiortc); its stderr lines are in our log.
  kill -9 of that ffmpeg: a new pid comes back and a player that stayed
  connected keeps receiving.
- SIGTERM to the server leaves none of its children (checked by their pids,
  read from our log: other tests run ffmpeg too); SIGKILL of the server
  leaves none either (the children's parent-death signal).
- A transcode engine makes a second stream at its size; its output is not
  transcoded again (SRS's loop check); unpublish stops it.
- exec runs a script with the stream's variables; unpublish stops it.
- An ffmpeg path that is not executable, and one missing with no ffmpeg in
  PATH: a clear error, retried, and the server keeps serving.
- Reload (SIGHUP) after one ingest's url changed restarts that one only."""
import os
import re
import signal
import subprocess
import time

import pytest

from conftest import wait_until
from media import FFMPEG, Publisher, probe_streams, wait_for_publish

HTTP_FLV = "  http_remux {\n    enabled on;\n    mount [vhost]/[app]/[stream].flv;\n  }\n"


def ingest_block(name, url, ffmpeg="./objs/ffmpeg/bin/ffmpeg", stream=None):
    stream = stream or name
    return (f"  ingest {name} {{\n    enabled on;\n    input {{\n      type file;\n      url {url};\n    }}\n"
            f"    ffmpeg {ffmpeg};\n    engine {{\n      enabled off;\n"
            f"      output rtmp://127.0.0.1:[port]/live?vhost=[vhost]/{stream};\n    }}\n  }}\n")


def plain_conf(srs, vhost_body, extra=""):
    return srs.base_conf(extra).replace("vhost __defaultVhost__ {\n}\n", f"vhost __defaultVhost__ {{\n{vhost_body}}}\n")


def started_pids(srs, label):
    """Pids our log says `label` (e.g. "ingest a") was started with, in order."""
    return [int(p) for p in re.findall(re.escape(label) + r" \S+: started pid (\d+)", srs.log())]


def alive(pid):
    """Whether pid runs (a zombie does not count)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):  # gone, or reaped between open and read
        return False


def rtmp(srs, stream):
    return f"rtmp://127.0.0.1:{srs.rtmp_port}/live/{stream}"


def size_of(srs, url):
    v = probe_streams(url, timeout=15).get("video", {})
    return v.get("width"), v.get("height")


def test_ingest_plays_everywhere_and_survives_kill9(srs, media):
    from rtc_env import require_aiortc, start_rtc
    require_aiortc()
    from rtc_client import Rtc
    start_rtc(srs, http=True, vhost_extra="    rtmp_to_rtc on;\n",
              vhost_body=HTTP_FLV + ingest_block("livestream", media))
    assert wait_until(lambda: started_pids(srs, "ingest livestream"), 10), srs.log()[-3000:]
    log = srs.log()
    assert "./objs/ffmpeg/bin/ffmpeg does not exist, using" in log, log[-3000:]
    wait_for_publish(srs, "/live/livestream")
    # FFmpeg's own stderr, line by line, in our log.
    assert wait_until(lambda: re.search(r"ingest livestream: .*(ffmpeg version|Input #0)", srs.log()), 10)

    assert size_of(srs, rtmp(srs, "livestream")) == (320, 240)
    assert size_of(srs, f"http://127.0.0.1:{srs.http_port}/live/livestream.flv") == (320, 240)
    rtc = Rtc()
    try:
        player = rtc.play(srs.api, "live", "livestream")
        assert wait_until(lambda: player.frames_decoded >= 25, 15), player.stats()
        assert (player.width, player.height) == (320, 240)
    finally:
        rtc.close()

    # A player that stays connected across the ingest's death.
    out = srs.workdir / "played.flv"
    player = subprocess.Popen([FFMPEG, "-hide_banner", "-loglevel", "error", "-i", rtmp(srs, "livestream"),
                               "-c", "copy", "-f", "flv", "-y", str(out)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert wait_until(lambda: out.exists() and out.stat().st_size > 50000, 15)
        first = started_pids(srs, "ingest livestream")[-1]
        os.kill(first, signal.SIGKILL)
        killed_at = time.monotonic()
        assert wait_until(lambda: len(started_pids(srs, "ingest livestream")) >= 2, 5), srs.log()[-3000:]
        second = started_pids(srs, "ingest livestream")[-1]
        assert second != first and alive(second)
        print(f"ingest back {time.monotonic() - killed_at:.1f}s after kill -9")
        assert "killed by signal 9" in srs.log()
        # ffmpeg's RTMP client ends at the unpublish notice; one that stays
        # must get media again, and one that left reconnects and gets media.
        size = out.stat().st_size
        assert wait_until(lambda: out.stat().st_size > size + 50000 or player.poll() is not None, 15)
        if player.poll() is None:
            print("the player stayed and kept receiving")
        else:
            print(f"the player left at the unpublish (exit {player.returncode}); reconnecting")
            assert size_of(srs, rtmp(srs, "livestream")) == (320, 240)
    finally:
        player.kill()
        player.wait(5)

    # Quit: every child we started is gone with the server.
    pids = started_pids(srs, "ingest livestream")
    srs.stop()
    assert srs.proc.returncode == 0
    assert [p for p in pids if alive(p)] == []
    assert "ffmpeg: stopping 1 process(es)" in srs.log()


def test_sigkill_of_the_server_takes_its_children(srs, media):
    srs.start(plain_conf(srs, ingest_block("a", media) + ingest_block("b", media)))
    assert wait_until(lambda: started_pids(srs, "ingest a") and started_pids(srs, "ingest b"), 10)
    pids = started_pids(srs, "ingest a") + started_pids(srs, "ingest b")
    assert all(alive(p) for p in pids)
    srs.signal(signal.SIGKILL)
    srs.wait_exit(5)
    assert wait_until(lambda: not any(alive(p) for p in pids), 5), [p for p in pids if alive(p)]


def test_transcode_makes_a_second_stream_at_its_size(srs, media):
    body = ("  transcode live {\n    enabled on;\n    ffmpeg ./objs/ffmpeg/bin/ffmpeg;\n"
            "    engine ff {\n      enabled on;\n      vcodec libx264;\n      vbitrate 200;\n"
            "      vwidth 160;\n      vheight 120;\n      vthreads 1;\n      vprofile baseline;\n"
            "      vpreset ultrafast;\n      acodec copy;\n"
            "      output rtmp://127.0.0.1:[port]/[app]?vhost=[vhost]/[stream]_[engine];\n    }\n"
            "    engine off {\n      enabled off;\n      vcodec copy;\n      acodec copy;\n"
            "      output rtmp://127.0.0.1:[port]/[app]/[stream]_off;\n    }\n  }\n")
    srs.start(plain_conf(srs, body))
    pub = Publisher(media, rtmp(srs, "cam"))
    try:
        wait_for_publish(srs, "/live/cam")
        assert wait_until(lambda: started_pids(srs, "transcode engine ff"), 5), srs.log()[-3000:]
        wait_for_publish(srs, "/live/cam_ff", timeout=20)
        assert size_of(srs, rtmp(srs, "cam_ff")) == (160, 120)
        assert size_of(srs, rtmp(srs, "cam")) == (320, 240)
        # The output is published here too, and is not transcoded again.
        assert "transcode __defaultVhost__/live/cam_ff: it is a transcode's output" in srs.log()
        assert len(started_pids(srs, "transcode engine ff")) == 1
        assert not started_pids(srs, "transcode engine off")
        pid = started_pids(srs, "transcode engine ff")[0]
    finally:
        pub.stop()
    assert wait_until(lambda: not alive(pid), 8), "unpublish did not stop the transcode"


def test_exec_runs_a_script_with_the_stream_variables(srs, media, tmp_path):
    argv_file = tmp_path / "argv.txt"
    script = tmp_path / "on_publish.sh"
    script.write_text(f"#!/bin/sh\necho \"$@\" > {argv_file}\nexec sleep 60\n")
    script.chmod(0o755)
    body = (f"  exec {{\n    enabled on;\n    publish {script} [vhost] [app] [stream] [port] [url] [tcUrl];\n  }}\n")
    srs.start(plain_conf(srs, body))
    pub = Publisher(media, rtmp(srs, "cam") + "?token=7")
    try:
        wait_for_publish(srs, "/live/cam")
        assert wait_until(lambda: argv_file.exists() and argv_file.read_text().strip(), 5), srs.log()[-3000:]
        words = argv_file.read_text().split()
        port = srs.rtmp_port
        assert words[:4] == ["__defaultVhost__", "live", "cam", str(port)], words
        assert words[4] == f"rtmp://127.0.0.1:{port}/live/cam?token=7", words
        assert words[5].startswith(f"rtmp://127.0.0.1:{port}/live"), words
        pid = started_pids(srs, f"exec {script}")[0]
        assert alive(pid)
    finally:
        pub.stop()
    assert wait_until(lambda: not alive(pid), 8), "unpublish did not stop the exec"


def test_bad_ffmpeg_paths_are_reported_and_retried(srs, media, tmp_path):
    noexec = tmp_path / "ffmpeg-noexec"
    noexec.write_text("#!/bin/sh\nexit 0\n")
    noexec.chmod(0o644)
    body = (ingest_block("noexec", media, ffmpeg=str(noexec)) +
            ingest_block("missing", media, ffmpeg="./objs/nothing/ffmpeg"))
    # No ffmpeg in PATH: the missing path has nothing to fall back to.
    srs.start(plain_conf(srs, body), env={"PATH": str(tmp_path / "empty")})
    assert wait_until(lambda: srs.log().count("exists but is not executable; retry in") >= 2, 8), srs.log()[-3000:]
    assert "ingest missing __defaultVhost__/missing: ffmpeg ./objs/nothing/ffmpeg does not exist and no ffmpeg " \
           "in PATH; retry in" in srs.log()
    # The server still serves: a publisher and a player work.
    pub = Publisher(media, rtmp(srs, "other"))
    try:
        wait_for_publish(srs, "/live/other")
        assert size_of(srs, rtmp(srs, "other")) == (320, 240)
    finally:
        pub.stop()
    assert srs.alive()


def test_reload_restarts_only_the_changed_ingest(srs, media, tmp_path):
    other = tmp_path / "copy.flv"
    other.write_bytes(media.read_bytes())
    conf = plain_conf(srs, ingest_block("a", media) + ingest_block("b", media))
    srs.start(conf)
    assert wait_until(lambda: started_pids(srs, "ingest a") and started_pids(srs, "ingest b"), 10)
    a1, b1 = started_pids(srs, "ingest a")[0], started_pids(srs, "ingest b")[0]
    srs.write_conf(plain_conf(srs, ingest_block("a", other) + ingest_block("b", media)))
    srs.signal(signal.SIGHUP)
    assert wait_until(lambda: len(started_pids(srs, "ingest a")) >= 2, 5), srs.log()[-3000:]
    assert "reload: ingest __defaultVhost__/a changed, stopped" in srs.log()
    a2 = started_pids(srs, "ingest a")[-1]
    assert a2 != a1 and alive(a2) and str(other) in srs.log().split(f"started pid {a2}")[1].splitlines()[0]
    assert wait_until(lambda: not alive(a1), 5)
    assert started_pids(srs, "ingest b") == [b1] and alive(b1)
    # Removing b stops it; a stays.
    srs.write_conf(plain_conf(srs, ingest_block("a", other)))
    srs.signal(signal.SIGHUP)
    assert wait_until(lambda: not alive(b1), 5)
    assert alive(a2) and started_pids(srs, "ingest a")[-1] == a2


@pytest.mark.parametrize("signo", [signal.SIGINT, signal.SIGQUIT])
def test_sigint_and_sigquit_stop_every_child(srs, media, signo):
    srs.start(plain_conf(srs, ingest_block("a", media), extra="grace_start_wait 100;\ngrace_final_wait 100;"))
    assert wait_until(lambda: started_pids(srs, "ingest a"), 10)
    pid = started_pids(srs, "ingest a")[0]
    wait_for_publish(srs, "/live/a")
    srs.signal(signo)
    assert srs.wait_exit(15) == 0
    assert not alive(pid)
    assert "ffmpeg: stopping 1 process(es)" in srs.log() and f"pid {pid} stopped" in srs.log()

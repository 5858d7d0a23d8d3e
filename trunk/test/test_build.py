"""The build's user interface: configure's options and refusals, make help,
make install's layout, the layering of includes, compile_commands.json."""
import json
import subprocess

from conftest import TRUNK


def configure(*args):
    return subprocess.run(["sh", "./configure", *args], cwd=TRUNK, capture_output=True, text=True, timeout=60)


def test_configure_help_lists_every_option_with_default():
    r = configure("-h")
    assert r.returncode == 0
    for opt in ["--prefix", "--jobs", "--sanitizer=on|off", "--sanitizer-static", "--sanitizer-log", "--debug",
                "--utest", "--extra-flags", "--cc=", "--cxx=", "--gperf", "--gcp", "--gmc", "--gmd", "--gmp",
                "--gprof", "--valgrind", "--rtc"]:
        assert opt in r.stdout, opt
    assert "[on]" in r.stdout  # defaults shown


def test_configure_rejects_unknown_and_conflicting_options():
    r = configure("--no-such-thing")
    assert r.returncode != 0 and "unknown option" in r.stderr
    r = configure("--sanitizer=maybe")
    assert r.returncode != 0 and "on or off" in r.stderr
    r = configure("--gcp=on")
    assert r.returncode != 0 and "--gperf" in r.stderr
    r = configure("--gperf=on", "--sanitizer=on")
    assert r.returncode != 0 and "ASAN" in r.stderr
    r = configure("--gperf=on", "--sanitizer=off", "--gmc=on", "--gmd=on")
    assert r.returncode != 0 and "together" in r.stderr
    r = configure("--valgrind=on", "--sanitizer=on")
    assert r.returncode != 0 and "valgrind" in r.stderr


def test_compile_commands_cover_every_source():
    data = json.loads((TRUNK / "objs" / "compile_commands.json").read_text())
    files = {e["file"] for e in data}
    assert "src/core/error.cpp" in files
    assert any(f.startswith("src/st/") for f in files)
    # kernel-layer files see only core and kernel.
    for e in data:
        if e["file"].startswith("src/core/"):
            assert "objs/inc/core" in e["command"]


def test_layering_forbids_upward_includes(tmp_path):
    # A core file that includes an app header must not compile with core's include root.
    src = tmp_path / "bad.cpp"
    src.write_text('#include "app/server.hpp"\n')
    r = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-Iobjs/inc/core", str(src)], cwd=TRUNK,
                       capture_output=True, text=True)
    assert r.returncode != 0 and "app/server.hpp" in r.stderr
    ok = tmp_path / "good.cpp"
    ok.write_text('#include "core/error.hpp"\n')
    r = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-Iobjs/inc/core", str(ok)], cwd=TRUNK,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_make_help():
    r = subprocess.run(["make", "-s", "help"], cwd=TRUNK, capture_output=True, text=True)
    assert r.returncode == 0
    for target in ["make test", "make utest", "make install", "make clean"]:
        assert target in r.stdout


def test_make_install_layout(tmp_path):
    r = subprocess.run(["make", "-s", "install", f"DESTDIR={tmp_path}", "PREFIX=/opt/srs"], cwd=TRUNK,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    root = tmp_path / "opt" / "srs"
    assert (root / "objs" / "srs").stat().st_mode & 0o111
    assert (root / "conf" / "srs.conf").exists()
    assert (root / "conf" / "full.conf").exists()
    assert (root / "objs" / "nginx" / "html").is_dir()
    unit = (root / "usr" / "lib" / "systemd" / "system" / "srs.service").read_text()
    assert "ExecStart=/opt/srs/objs/srs -c /opt/srs/conf/srs.conf" in unit

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
    src.write_text('#include "app/server/server.hpp"\n')
    r = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-Iobjs/inc/core", str(src)], cwd=TRUNK,
                       capture_output=True, text=True)
    assert r.returncode != 0 and "app/server/server.hpp" in r.stderr
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


def _shimmed_configure(tmp_path, installed):
    """Runs configure in a copy of the build files with dpkg-query and apt-get
    replaced by shims: `installed` lists the packages dpkg-query reports."""
    import shutil

    work = tmp_path / "trunk"
    work.mkdir()
    for name in ["configure", "Makefile"]:
        shutil.copy(TRUNK / name, work / name)
    shutil.copytree(TRUNK / "3rdparty", work / "3rdparty")
    (work / "src").symlink_to(TRUNK / "src")
    shims = tmp_path / "bin"
    shims.mkdir()
    log = tmp_path / "apt.log"
    (shims / "dpkg-query").write_text(
        "#!/bin/sh\nfor p; do :; done\n"
        f"case \" {' '.join(installed)} \" in *\" $p \"*) printf 'install ok installed';; *) exit 1;; esac\n")
    (shims / "apt-get").write_text(f"#!/bin/sh\necho \"$@\" >> {log}\n")
    for shim in shims.iterdir():
        shim.chmod(0o755)
    env = dict(__import__("os").environ, PATH=f"{shims}:{__import__('os').environ['PATH']}")
    r = subprocess.run(["sh", "./configure"], cwd=work, capture_output=True, text=True, timeout=120, env=env)
    return r, (log.read_text() if log.exists() else "")


def _group(name):
    rows = (TRUNK / "3rdparty" / "packages.txt").read_text().splitlines()
    return [r.split()[1] for r in rows if r.split() and r.split()[0] == name]


def test_configure_installs_every_missing_build_package(tmp_path):
    # A fresh machine: nlohmann-json3-dev (a header the old check never looked
    # for) and libsrtp2-dev missing. configure must ask apt-get for exactly those.
    build = _group("build")
    present = [p for p in build if p not in ("nlohmann-json3-dev", "libsrtp2-dev")]
    r, apt = _shimmed_configure(tmp_path, present)
    assert "nlohmann-json3-dev" in r.stderr + r.stdout
    install_lines = [line for line in apt.splitlines() if line.startswith("install")]
    assert install_lines, (r.stdout, r.stderr, apt)
    asked = install_lines[-1].split()
    assert "nlohmann-json3-dev" in asked and "libsrtp2-dev" in asked
    assert not set(asked) & set(present)


def test_configure_installs_nothing_when_complete(tmp_path):
    r, apt = _shimmed_configure(tmp_path, _group("build") + ["npm"])
    assert r.returncode == 0, r.stderr
    assert apt == ""
    assert "configure: ok" in r.stdout


def test_reconfigure_rebuilds_only_when_the_flags_change(tmp_path):
    # An ASAN build reconfigured with --sanitizer=off must not link its stale
    # ASAN objects; rerunning ./configure with the same options rebuilds nothing.
    r, _ = _shimmed_configure(tmp_path, _group("build") + ["npm"])
    assert r.returncode == 0, r.stderr
    work = tmp_path / "trunk"
    obj = "objs/obj/core/strings.cpp.o"

    def make(*args):
        return subprocess.run(["make", *args, obj], cwd=work, capture_output=True, text=True, timeout=300)

    assert make().returncode == 0
    assert make("-q").returncode == 0  # up to date
    stamp = work / "objs" / "flags.stamp"
    before = stamp.stat().st_mtime_ns
    r = subprocess.run(["sh", "./configure"], cwd=work, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert stamp.stat().st_mtime_ns == before
    assert make("-q").returncode == 0, "same flags: nothing to rebuild"
    r = subprocess.run(["sh", "./configure", "--sanitizer=off"], cwd=work, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert "-fsanitize=address" not in stamp.read_text()
    assert make("-q").returncode != 0, "other flags: the object is stale"
    assert make().returncode == 0 and make("-q").returncode == 0


def test_build_group_lists_only_what_the_build_uses():
    # libhttp-parser-dev was listed but never used (the HTTP parser is our own).
    assert "libhttp-parser-dev" not in _group("build")


def test_ci_runs_the_readme_test_command_alone():
    readme = (TRUNK.parent / "README.md").read_text()
    assert "cd trunk && ./configure && make -j2 test" in readme
    ci = [line.strip() for line in (TRUNK.parent / ".ci" / "run").read_text().splitlines()
          if line.strip() and not line.lstrip().startswith("#")]
    assert ci[-1] == "./configure && make -j2 test"
    assert not any("install.sh" in line for line in ci)


def test_sibling_folders_keep_apart(tmp_path):
    # The tree as it is passes; a live-hub file that includes RTMP code, or a
    # protocol folder that includes another, fails with file:line and why.
    r = subprocess.run(["python3", "test/check_includes.py", "src"], cwd=TRUNK, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout
    r = subprocess.run(["make", "-s", "check-includes"], cwd=TRUNK, capture_output=True, text=True)
    assert r.returncode == 0 and "check_includes: ok" in r.stdout
    bad = tmp_path / "src"
    (bad / "app" / "live").mkdir(parents=True)
    (bad / "app" / "live" / "hub.cpp").write_text('#include "app/live/a.hpp"\n#include "app/rtmp/rtmp_conn.hpp"\n')
    (bad / "protocol" / "rtc").mkdir(parents=True)
    (bad / "protocol" / "rtc" / "x.hpp").write_text('#include "protocol/rtmp/rtmp_chunk.hpp"\n#include "core/bytes.hpp"\n')
    r = subprocess.run(["python3", str(TRUNK / "test" / "check_includes.py"), str(bad)], capture_output=True, text=True)
    assert r.returncode == 1
    assert "src/app/live/hub.cpp:2: includes app/rtmp/rtmp_conn.hpp" in r.stdout
    assert "src/protocol/rtc/x.hpp:1: includes protocol/rtmp/rtmp_chunk.hpp" in r.stdout
    assert "2 violation(s)" in r.stdout


def test_app_folders_are_a_ranked_stack(tmp_path):
    # Each kind of back-edge the rank table refuses is reported with file:line
    # and why; an include down the stack passes.
    bad = tmp_path / "src"
    files = {
        "app/registry/r.cpp": '#include "app/live/live_source.hpp"\n#include "app/edge/edge_manager.hpp"\n',
        "app/rtmp/c.cpp": '#include "app/conn/client.hpp"\n#include "app/http/http_flv.hpp"\n'
                          '#include "app/edge/edge_forwarder.hpp"\n',
        "app/http/h.cpp": '#include "app/conn/server_context.hpp"\n',
        "app/srt/m.cpp": '#include "app/live/live_source.hpp"\n',
        "app/live/s.cpp": '#include "app/server/server.hpp"\n',
        "tools/t.cpp": '#include "app/server/server.hpp"\n',
        "main/main.cpp": '#include "app/server/server.hpp"\n',
    }
    for rel, text in files.items():
        (bad / rel).parent.mkdir(parents=True, exist_ok=True)
        (bad / rel).write_text(text)
    r = subprocess.run(["python3", str(TRUNK / "test" / "check_includes.py"), str(bad)], capture_output=True, text=True)
    assert r.returncode == 1
    out = r.stdout
    assert "src/app/registry/r.cpp:2: includes app/edge/edge_manager.hpp: app/edge ranks above app/registry" in out
    assert "src/app/rtmp/c.cpp:2: includes app/http/http_flv.hpp: app/rtmp and app/http are siblings" in out
    assert "src/app/rtmp/c.cpp:3: includes app/edge/edge_forwarder.hpp: protocol handlers reach the edge" in out
    assert "src/app/http/h.cpp:1: includes app/conn/server_context.hpp: only the API" in out
    assert "src/app/srt/m.cpp:1: includes app/live/live_source.hpp: app/srt has no rank" in out
    assert "src/app/live/s.cpp:1: includes app/server/server.hpp: app/server ranks above app/live" in out
    assert "src/tools/t.cpp:1: includes app/server/server.hpp: server/ is the composition root" in out
    assert "main/main.cpp" not in out and "r.cpp:1" not in out and "c.cpp:1" not in out
    assert "7 violation(s)" in out

"""ASAN as SRS's performance guide uses it: what it reports for a bug inside
one of our coroutines (test-only demo program), that --sanitizer-log's
callback copies the report into the log, and that every server this suite
starts runs with ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 (conftest's
fixtures fail a test whose server printed any sanitizer report)."""
import os
import subprocess

import pytest

from conftest import ASAN_STRICT, TRUNK

DEMO = TRUNK / "objs" / "asan_demo"


def sanitizer_on():
    try:
        return "SANITIZER := on" in (TRUNK / "objs" / "config.mk").read_text()
    except FileNotFoundError:
        return False


@pytest.fixture(scope="module")
def demo():
    if not sanitizer_on():
        pytest.skip("this build has --sanitizer=off")
    subprocess.run(["make", "-s", "asan-demo"], cwd=TRUNK, check=True, timeout=600)
    return DEMO


def run_demo(demo, mode, tmp_path, asan_options=None):
    log = tmp_path / f"{mode}.log"
    env = dict(os.environ)
    env.pop("ASAN_OPTIONS", None)
    if asan_options:
        env["ASAN_OPTIONS"] = asan_options
    r = subprocess.run([str(demo), mode, str(log)], env=env, capture_output=True, text=True, timeout=60)
    return r, log.read_text(errors="replace")


# The frames every report must show: the faulty function with its line,
# then our coroutine entry and the runtime's context switch entry, i.e. the
# unwinder walked the coroutine's own stack.
COROUTINE_FRAMES = ["srs::Coroutine::entry(void*) src/io/coroutine.cpp:", "st__ctx_entry src/st/switch.S:"]


def test_heap_overflow_in_a_coroutine(demo, tmp_path):
    r, log = run_demo(demo, "heap-overflow", tmp_path)
    assert r.returncode != 0
    err = r.stderr
    assert "ERROR: AddressSanitizer: heap-buffer-overflow" in err
    assert "in overflow_heap_in_coroutine test/asan/asan_demo.cpp:" in err
    for frame in COROUTINE_FRAMES:
        assert frame in err, err
    assert "allocated by thread T0 here" in err
    # --sanitizer-log: the same report, in the log after our own line.
    assert "[ERROR]" in log and "AddressSanitizer report follows" in log
    assert "heap-buffer-overflow" in log and "overflow_heap_in_coroutine" in log


def test_stack_overflow_on_a_coroutine_stack(demo, tmp_path):
    r, _ = run_demo(demo, "stack-overflow", tmp_path)
    assert r.returncode != 0
    err = r.stderr
    assert "ERROR: AddressSanitizer: stack-buffer-overflow" in err
    # ASAN knows the coroutine's stack (the runtime announces each switch):
    # it names the frame and the variable that overflowed.
    assert "is located in stack of thread T0" in err
    assert "in frame" in err and "overflow_stack_in_coroutine" in err
    assert "'buf'" in err and "overflows this variable" in err
    for frame in COROUTINE_FRAMES:
        assert frame in err, err


def test_leak_in_a_coroutine(demo, tmp_path):
    r, _ = run_demo(demo, "leak", tmp_path, asan_options="detect_leaks=1")
    err = r.stderr
    assert "ERROR: LeakSanitizer: detected memory leaks" in err
    assert "Direct leak of 4096 byte(s) in 1 object(s)" in err
    assert "in leak_in_coroutine test/asan/asan_demo.cpp:" in err
    for frame in COROUTINE_FRAMES:
        assert frame in err, err
    # Without the option (the built-in default, as SRS's), no leak report.
    r, _ = run_demo(demo, "leak", tmp_path)
    assert "LeakSanitizer" not in r.stderr and r.returncode == 0


def test_suite_servers_run_with_the_strict_options(srs):
    if not sanitizer_on():
        pytest.skip("this build has --sanitizer=off")
    srs.start(srs.base_conf())
    environ = open(f"/proc/{srs.pid}/environ", "rb").read().split(b"\0")
    assert f"ASAN_OPTIONS={ASAN_STRICT}".encode() in environ
    assert ASAN_STRICT == "halt_on_error=1:detect_leaks=1"

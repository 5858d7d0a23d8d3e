"""Process life: config test mode, env-only start, daemon and pid file,
signals, max_connections and fd hygiene (issue: foundation)."""
import os
import signal
import socket
import subprocess
import time

from conftest import SRS, TRUNK, can_connect, fd_count, free_port, wait_until


def run_srs(args, env=None, timeout=10):
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([str(SRS)] + args, cwd=TRUNK, env=full_env, capture_output=True, text=True,
                          timeout=timeout)


def test_version_and_help():
    r = run_srs(["-v"])
    assert r.returncode == 0
    assert r.stderr.strip().startswith("7.")
    r = run_srs(["-h"])
    assert r.returncode == 0 and "-c filename" in r.stdout
    r = run_srs(["--no-such-option"])
    assert r.returncode != 0 and "unknown option" in r.stderr


def test_config_test_mode_good(srs):
    srs.write_conf(srs.base_conf())
    r = run_srs(["-t", "-c", str(srs.conf_file)])
    assert r.returncode == 0, r.stderr
    assert "syntax is ok" in r.stderr
    assert "test is successful" in r.stderr


def test_shipped_confs_pass_test_mode():
    for name in sorted(p.name for p in (TRUNK / "conf").glob("*.conf")):
        r = run_srs(["-t", "-c", f"conf/{name}"])
        assert r.returncode == 0, f"{name}: {r.stderr}"


def test_config_test_mode_reports_line(srs):
    srs.write_conf("listen 1935;\nmax_connections 10;\nvhost __defaultVhost__ {\n  play {\n    gop_cache maybe;\n  }\n}\n")
    r = run_srs(["-t", "-c", str(srs.conf_file)])
    assert r.returncode != 0
    assert "srs.conf:5" in r.stderr, r.stderr

    srs.write_conf("listen 1935;\nno_such_directive on;\n")
    r = run_srs(["-t", "-c", str(srs.conf_file)])
    assert r.returncode != 0
    assert "srs.conf:2" in r.stderr and "no_such_directive" in r.stderr, r.stderr

    srs.write_conf("listen 1935;\nvhost a {\n  enabled on;\n")
    r = run_srs(["-t", "-c", str(srs.conf_file)])
    assert r.returncode != 0 and "srs.conf" in r.stderr


def test_missing_config_file_fails():
    r = run_srs(["-t", "-c", "/nonexistent/srs.conf"])
    assert r.returncode != 0
    assert "/nonexistent/srs.conf" in r.stderr


def test_not_implemented_directive_warns_and_starts(srs):
    srs.start(srs.base_conf(extra="srt_server {\n  enabled on;\n  listen 10080;\n}\n"))
    assert wait_until(lambda: "srt_server" in srs.log())
    assert "not implemented" in srs.log()
    assert can_connect(srs.rtmp_port)


def test_not_implemented_settings_warn_with_file_and_line_at_test_and_start(srs):
    """Settings the table marks NotYet (known type, nothing reads them) and whole
    features warn alike, with the file:line or the SRS_* variable that set them."""
    extra = "rtc_server {\n  resolve_api_domain on;\n}\nstats {\n  network 1;\n}\n"
    env = {"SRS_VHOST_PLAY_ATC": "on", "SRS_STATS_ENABLED": "off"}
    conf = srs.base_conf(extra=extra)
    srs.write_conf(conf)
    lines = conf.splitlines()
    merge_line = lines.index("  resolve_api_domain on;") + 1
    network_line = lines.index("  network 1;") + 1
    expected = [f"srs.conf:{merge_line}: directive rtc_server.resolve_api_domain is not implemented yet, ignored",
                f"srs.conf:{network_line}: directive stats.network is not implemented yet, ignored",
                "env SRS_STATS_ENABLED: directive stats.enabled is not implemented yet, ignored",
                "env SRS_VHOST_PLAY_ATC: directive vhost.play.atc is not implemented yet, ignored"]
    r = run_srs(["-t", "-c", str(srs.conf_file)], env=env)
    assert r.returncode == 0, r.stderr
    for w in expected:
        assert w in r.stderr, r.stderr
    # Still checked: a bad value of a NotYet row fails the test.
    srs.write_conf(srs.base_conf(extra="stats {\n  network 99;\n}\n"))
    r = run_srs(["-t", "-c", str(srs.conf_file)])
    assert r.returncode != 0 and "stats.network 99 is out of range" in r.stderr, r.stderr

    srs.start(conf, env=env)
    assert wait_until(lambda: all(w in srs.log() for w in expected)), srs.log()
    assert can_connect(srs.rtmp_port)


def test_env_only_start(srs):
    env = {"SRS_LISTEN": str(srs.rtmp_port), "SRS_PID": str(srs.pid_file), "SRS_ENV_ONLY": "on"}
    srs.start(args=["-e"], env=env)
    assert can_connect(srs.rtmp_port)
    assert srs.pid_file.read_text().strip() == str(srs.pid)
    srs.signal(signal.SIGTERM)
    assert srs.wait_exit(10) == 0
    # Console tank: the log went to stdout.
    out = srs.proc.stdout.read()
    assert "starting" in out and "[INFO]" in out


def test_env_overrides_conf_file(srs):
    other = free_port()
    srs.rtmp_port_conf = srs.rtmp_port
    srs.write_conf(srs.base_conf())
    srs.rtmp_port = other
    srs.start(env={"SRS_LISTEN": str(other)})
    assert can_connect(other)
    assert not can_connect(srs.rtmp_port_conf)


def test_daemon_pid_file_and_second_instance_refused(srs):
    # Containers (CI) would keep it in the foreground otherwise, as SRS does.
    srs.write_conf(srs.base_conf(daemon="on", extra="disable_daemon_for_docker off;"))
    r = run_srs(["-c", str(srs.conf_file)])
    assert r.returncode == 0, r.stderr
    assert "starting as a daemon" in r.stderr
    assert wait_until(lambda: srs.pid_file.exists() and srs.pid_file.read_text().strip())
    srs.pid = int(srs.pid_file.read_text())
    assert srs.alive()
    assert srs.pid != os.getpid()
    # Detached: its own session.
    assert os.getsid(srs.pid) == srs.pid or os.getsid(srs.pid) != os.getsid(0)
    assert can_connect(srs.rtmp_port)

    # A second server with the same pid file refuses to start, and says why.
    r2 = run_srs(["-c", str(srs.conf_file)])
    assert r2.returncode != 0
    assert "already running" in r2.stderr
    assert srs.alive() and can_connect(srs.rtmp_port)

    srs.signal(signal.SIGTERM)
    assert wait_until(lambda: not srs.alive(), 10)
    assert not srs.pid_file.exists()


def test_sighup_with_broken_conf_keeps_running(srs):
    srs.start(srs.base_conf())
    srs.write_conf("listen 1935;\nvhost {{{\n")
    srs.signal(signal.SIGHUP)
    assert wait_until(lambda: "reload failed" in srs.log()), srs.log()
    assert srs.alive()
    assert can_connect(srs.rtmp_port)


def test_sighup_reload_applies_listen(srs):
    srs.start(srs.base_conf())
    old = srs.rtmp_port
    new = free_port()
    srs.write_conf(srs.base_conf().replace(f"listen {old};", f"listen {new};"))
    srs.signal(signal.SIGHUP)
    assert wait_until(lambda: can_connect(new)), srs.log()
    assert wait_until(lambda: not can_connect(old)), srs.log()
    assert "reload done" in srs.log()


def test_sigusr1_reopens_log(srs):
    srs.start(srs.base_conf())
    rotated = srs.log_file.with_name("srs.log.1")
    os.rename(srs.log_file, rotated)
    srs.signal(signal.SIGUSR1)
    assert wait_until(lambda: srs.log_file.exists())
    srs.signal(signal.SIGHUP)  # something to log into the new file
    assert wait_until(lambda: "SIGHUP" in srs.log())
    assert "SIGUSR1" in rotated.read_text()


def test_sigquit_graceful_exit_within_grace_time(srs):
    srs.start(srs.base_conf(extra="grace_start_wait 200;\ngrace_final_wait 500;"))
    held = socket.create_connection(("127.0.0.1", srs.rtmp_port))
    time.sleep(0.1)
    t0 = time.monotonic()
    srs.signal(signal.SIGQUIT)
    code = srs.wait_exit(10)
    elapsed = time.monotonic() - t0
    held.close()
    assert code == 0, srs.log()
    assert 0.2 <= elapsed < 3.0, elapsed
    assert "graceful quit" in srs.log()


def test_sigterm_and_sigint_fast_exit(srs_factory):
    for signo in (signal.SIGTERM, signal.SIGINT):
        s = srs_factory(f"s{int(signo)}")
        s.start(s.base_conf(extra="grace_start_wait 5000;"))
        t0 = time.monotonic()
        s.signal(signo)
        assert s.wait_exit(10) == 0
        assert time.monotonic() - t0 < 2.0


def test_max_connections_closes_extra(srs):
    srs.start(srs.base_conf().replace("max_connections 1000;", "max_connections 5;"))
    # The start-up probe connection must be gone before we count.
    assert wait_until(lambda: srs.log().count(" closed") >= 1)
    held = [socket.create_connection(("127.0.0.1", srs.rtmp_port)) for _ in range(5)]
    assert wait_until(lambda: srs.log().count("accepted") >= 6)
    extra = socket.create_connection(("127.0.0.1", srs.rtmp_port))
    extra.settimeout(5)
    assert extra.recv(1) == b""  # closed by the server at once
    assert "max_connections" in srs.log()
    # The held ones are still served.
    for s in held:
        s.close()
    extra.close()
    # Slots free again after they left.
    assert wait_until(lambda: srs.log().count(" closed") >= 6)
    again = socket.create_connection(("127.0.0.1", srs.rtmp_port))
    again.settimeout(0.5)
    try:
        again.recv(1)
        closed = True
    except socket.timeout:
        closed = False
    again.close()
    assert not closed


def test_1000_idle_connections_no_fd_leak(srs):
    srs.start(srs.base_conf().replace("max_connections 1000;", "max_connections 2000;"))
    time.sleep(0.2)
    before = fd_count(srs.pid)
    conns = []
    for _ in range(1000):
        conns.append(socket.create_connection(("127.0.0.1", srs.rtmp_port)))
    assert wait_until(lambda: fd_count(srs.pid) >= before + 1000, 20), fd_count(srs.pid)
    for c in conns:
        c.close()
    assert wait_until(lambda: fd_count(srs.pid) <= before, 20), (before, fd_count(srs.pid))
    assert can_connect(srs.rtmp_port)

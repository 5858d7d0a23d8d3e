"""The performance guide's by-hand checks, done by the server: the
diagnostics API, the UDP buffer warning at start and the kernel UDP drop
line (loss=(r:N,s:M)) while a UDP port is configured."""
import json
import os
import socket
import time
import urllib.request

import api_schema
from conftest import free_port, wait_until

SIXTEEN_MIB = 16 * 1024 * 1024


def sysctl(name):
    with open("/proc/sys/net/core/" + name) as f:
        return int(f.read())


def rtc_conf(srs, api):
    return srs.base_conf() + f"http_api {{\n  enabled on;\n  listen {api};\n}}\n" \
        f"rtc_server {{\n  enabled on;\n  listen {free_port(socket.SOCK_DGRAM)};\n}}\n"


def diagnostics(api):
    with urllib.request.urlopen(f"http://127.0.0.1:{api}/api/v1/diagnostics", timeout=5) as r:
        return json.loads(r.read())


def test_diagnostics_answers_every_check(srs):
    api = free_port()
    srs.start(srs.base_conf() + f"http_api {{\n  enabled on;\n  listen {api};\n}}\n")
    assert wait_until(lambda: "API listen" in srs.log())
    body = diagnostics(api)
    assert not api_schema.errors(body, api_schema.SCHEMAS["/api/v1/diagnostics"]), body
    checks = {c["name"]: c for c in body["data"]["checks"]}
    soft = os.sysconf("SC_OPEN_MAX")
    assert checks["fd_limit"]["value"]["soft_limit"] == soft
    assert checks["nice"]["value"] == os.getpriority(os.PRIO_PROCESS, 0)
    affinity = sorted(os.sched_getaffinity(0))
    assert checks["cpu_affinity"]["value"]["cpus_online"] == os.cpu_count()
    assert len(checks["cpu_affinity"]["value"]["cpus"]) >= 1 and affinity
    # No UDP port configured: the UDP checks do not apply.
    assert checks["udp_buffers"]["applies"] is False and checks["udp_drops"]["applies"] is False
    # This suite runs the default (ASAN) build: instrumented, said so.
    instr = checks["instrumentation"]["value"]
    assert instr["sanitizer"] is (("--sanitizer=on") in body["data"]["build"])
    assert instr["running_on_valgrind"] is False
    assert len(checks["softirq"]["value"]["per_cpu"]) == os.cpu_count()


def test_udp_buffer_warning_and_kernel_drop_line(srs):
    api = free_port()
    srs.start(rtc_conf(srs, api))
    # The UDP check runs when the WebRTC server listens, after the API.
    assert wait_until(lambda: "RTC: server listen" in srs.log()), srs.log()[-2000:]
    small = sysctl("rmem_max") < SIXTEEN_MIB or sysctl("wmem_max") < SIXTEEN_MIB
    assert ("sysctl net.core.rmem_max=16777216" in srs.log()) is small
    checks = {c["name"]: c for c in diagnostics(api)["data"]["checks"]}
    assert checks["udp_buffers"]["applies"] is True and checks["udp_buffers"]["ok"] is (not small)

    # Make the kernel drop datagrams: a receiver with the smallest buffer
    # that never reads, and a burst at it. RcvbufErrors is system-wide.
    rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1)
        rx.bind(("127.0.0.1", 0))
        for _ in range(2000):
            tx.sendto(b"x" * 1200, rx.getsockname())
        # The server samples every 5 s and logs the growth once.
        assert wait_until(lambda: "loss=(r:" in srs.log(), 15), srs.log()[-2000:]
        line = [l for l in srs.log().splitlines() if "loss=(r:" in l][0]
        lost = int(line.split("loss=(r:")[1].split(",")[0])
        assert lost > 0 and "netstat -suna" in line
        checks = {c["name"]: c for c in diagnostics(api)["data"]["checks"]}
        assert checks["udp_drops"]["value"]["rcvbuf_errors_since_start"] >= lost
        assert checks["udp_drops"]["ok"] is False and "rmem_max" in checks["udp_drops"]["advice"]
    finally:
        rx.close()
        tx.close()

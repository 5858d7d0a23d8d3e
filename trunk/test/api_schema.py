"""The HTTP API's JSON schemas, one per endpoint, and a small validator.

The schemas use a subset of JSON Schema (type, required, properties, items,
enum, minimum, pattern, additionalProperties) so they read like the real
thing and could be fed to any validator; the checker below implements just
that subset, so the suite needs no extra package. Field names and shapes are
SRS's: its console and scripts read them.
"""
import re

INT = {"type": "integer"}
NUM = {"type": "number"}
STR = {"type": "string"}
BOOL = {"type": "boolean"}
COUNT = {"type": "integer", "minimum": 0}
KBPS = {"type": "object", "required": ["recv_30s", "send_30s"],
        "properties": {"recv_30s": COUNT, "send_30s": COUNT}, "additionalProperties": False}


def obj(props, extra=True):
    """An object with every listed property required."""
    return {"type": "object", "required": list(props), "properties": props, "additionalProperties": extra}


def envelope(body):
    """SRS's envelope: code, server, service, pid first, then the body's fields."""
    props = {"code": {"type": "integer", "enum": [0]},
             "server": {"type": "string", "pattern": r"^vid-[0-9a-z]+$"},
             "service": {"type": "string", "pattern": r"^[0-9a-z]+$"},
             "pid": {"type": "string", "pattern": r"^[0-9]+$"}}
    props.update(body)
    return obj(props, extra=False)


def error_envelope(code):
    return {"type": "object", "required": ["code", "server", "service", "pid"],
            "properties": {"code": {"type": "integer", "enum": [code]}, "server": STR, "service": STR,
                           "pid": STR, "error": STR}, "additionalProperties": False}


VHOST = obj({"id": {"type": "string", "pattern": r"^vid-"}, "name": STR, "enabled": BOOL, "clients": COUNT,
             "streams": COUNT, "send_bytes": COUNT, "recv_bytes": COUNT, "kbps": KBPS,
             "hls": obj({"enabled": BOOL})}, extra=False)

VIDEO = obj({"codec": {"type": "string", "enum": ["H264", "H265", "AV1"]}, "profile": STR, "level": STR,
             "width": COUNT, "height": COUNT}, extra=False)
AUDIO = obj({"codec": {"type": "string", "enum": ["AAC", "MP3", "Opus"]}, "sample_rate": COUNT, "channel": COUNT,
             "profile": STR}, extra=False)

STREAM = obj({"id": {"type": "string", "pattern": r"^vid-"}, "name": STR, "vhost": {"type": "string"},
              "app": STR, "tcUrl": STR, "url": {"type": "string", "pattern": r"^/"}, "live_ms": COUNT,
              "clients": COUNT, "frames": COUNT, "send_bytes": COUNT, "recv_bytes": COUNT, "kbps": KBPS,
              "publish": obj({"active": BOOL, "cid": STR}, extra=False),
              "video": {"type": ["object", "null"], **{k: v for k, v in VIDEO.items() if k != "type"}},
              "audio": {"type": ["object", "null"], **{k: v for k, v in AUDIO.items() if k != "type"}}},
             extra=False)
# Ours, only on an edge's pulled streams (docs/cluster.md): not required.
STREAM["properties"].update({"edge": {"type": "boolean", "enum": [True]}, "origin": STR})
# Ours (docs/api.md): whether a WebRTC player gets the stream's media, and why (not).
STREAM["properties"]["webrtc"] = obj({"play": BOOL, "reason": STR}, extra=False)
STREAM["required"].append("webrtc")

CLIENT = obj({"id": STR, "vhost": STR, "stream": STR, "ip": STR, "pageUrl": STR, "swfUrl": STR, "tcUrl": STR,
              "url": STR, "name": STR,
              "type": {"type": "string", "enum": ["rtmp-play", "flv-play", "fmle-publish", "flash-publish",
                                                  "haivision-publish", "RTMP", "rtc-publish", "rtc-play",
                                                  "edge-ingest"]},
              "publish": BOOL, "alive": NUM, "send_bytes": COUNT, "recv_bytes": COUNT, "kbps": KBPS},
             extra=False)
# WebRTC sessions add their media transport (not in SRS's shape; optional).
CLIENT["properties"]["transport"] = {"type": "string", "enum": ["udp", "tcp"]}

URLS = {"type": "object", "additionalProperties": STR}

SELF_PROC_STAT_FIELDS = ["pid", "ppid", "pgrp", "session", "tty_nr", "tpgid", "flags", "minflt", "cminflt",
                         "majflt", "cmajflt", "utime", "stime", "cutime", "cstime", "priority", "nice",
                         "num_threads", "itrealvalue", "starttime", "vsize", "rss", "rsslim", "startcode", "endcode",
                         "startstack", "kstkesp", "kstkeip", "signal", "blocked", "sigignore", "sigcatch", "wchan",
                         "nswap", "cnswap", "exit_signal", "processor", "rt_priority", "policy",
                         "delayacct_blkio_ticks", "guest_time", "cguest_time"]
RUSAGE_FIELDS = ["ru_utime", "ru_stime", "ru_maxrss", "ru_ixrss", "ru_idrss", "ru_isrss", "ru_minflt",
                 "ru_majflt", "ru_nswap", "ru_inblock", "ru_oublock", "ru_msgsnd", "ru_msgrcv", "ru_nsignals",
                 "ru_nvcsw", "ru_nivcsw"]

SUMMARY_SELF = obj({"version": STR, "pid": COUNT, "ppid": COUNT, "argv": {"type": "string", "pattern": r"srs"},
                    "cwd": {"type": "string", "pattern": r"^/"}, "mem_kbyte": COUNT, "mem_percent": NUM,
                    "cpu_percent": NUM, "srs_uptime": NUM})
SUMMARY_SYSTEM = obj({"cpu_percent": NUM, "disk_read_KBps": COUNT, "disk_write_KBps": COUNT,
                      "disk_busy_percent": NUM, "mem_ram_kbyte": COUNT, "mem_ram_percent": NUM,
                      "mem_swap_kbyte": COUNT, "mem_swap_percent": NUM, "cpus": COUNT, "cpus_online": COUNT,
                      "uptime": NUM, "ilde_time": NUM, "load_1m": NUM, "load_5m": NUM, "load_15m": NUM,
                      "net_sample_time": COUNT, "net_recv_bytes": COUNT, "net_send_bytes": COUNT,
                      "net_recvi_bytes": COUNT, "net_sendi_bytes": COUNT, "srs_sample_time": COUNT,
                      "srs_recv_bytes": COUNT, "srs_send_bytes": COUNT, "conn_sys": COUNT, "conn_sys_et": COUNT,
                      "conn_sys_tw": COUNT, "conn_sys_udp": COUNT, "conn_srs": COUNT})

FEATURES = ["ssl", "hls", "hds", "callback", "api", "httpd", "dvr", "transcode", "ingest", "stat", "caster",
            "complex_send", "tcp_nodelay", "so_sendbuf", "mr"]

CHECK = obj({"name": {"type": "string", "enum": ["fd_limit", "udp_buffers", "udp_drops", "softirq", "nice",
                                                 "cpu_affinity", "instrumentation"]},
              "applies": BOOL, "ok": BOOL, "value": {"type": ["object", "integer"]}, "expect": STR, "advice": STR},
             extra=False)

# Endpoint -> schema of a successful GET. "{vhost}", "{stream}", "{client}"
# are filled in by the test with ids taken from the list endpoints.
SCHEMAS = {
    "/api/": envelope({"urls": obj({"v1": STR})}),
    "/api/v1/": envelope({"urls": obj({k: STR for k in ["versions", "summaries", "rusages", "self_proc_stats",
                                                         "system_proc_stats", "meminfos", "features", "vhosts",
                                                         "streams", "clients", "raw"]})}),
    "/api/v1/versions": envelope({"data": obj({"major": {"type": "integer", "enum": [7]}, "minor": COUNT,
                                               "revision": COUNT, "version": {"type": "string",
                                                                              "pattern": r"^7\.\d+\.\d+$"}},
                                              extra=False)}),
    "/api/v1/summaries": envelope({"data": obj({"ok": {"type": "boolean", "enum": [True]}, "now_ms": COUNT,
                                                "self": SUMMARY_SELF, "system": SUMMARY_SYSTEM})}),
    "/api/v1/rusages": envelope({"data": obj({"ok": BOOL, "sample_time": COUNT,
                                              **{k: COUNT for k in RUSAGE_FIELDS}})}),
    "/api/v1/self_proc_stats": envelope({"data": obj({"ok": BOOL, "sample_time": COUNT, "percent": NUM,
                                                      "comm": {"type": "string", "pattern": r"^\(.*\)$"},
                                                      "state": {"type": "string", "pattern": r"^[A-Za-z]$"},
                                                      **{k: INT for k in SELF_PROC_STAT_FIELDS}})}),
    "/api/v1/system_proc_stats": envelope({"data": obj({"ok": BOOL, "sample_time": COUNT, "percent": NUM,
                                                        **{k: COUNT for k in ["user", "nice", "sys", "idle",
                                                                              "iowait", "irq", "softirq", "steal",
                                                                              "guest"]}})}),
    "/api/v1/meminfos": envelope({"data": obj({"ok": BOOL, "sample_time": COUNT, "percent_ram": NUM,
                                               "percent_swap": NUM,
                                               **{k: COUNT for k in ["MemActive", "RealInUse", "NotInUse",
                                                                     "MemTotal", "MemFree", "Buffers", "Cached",
                                                                     "SwapTotal", "SwapFree"]}})}),
    "/api/v1/features": envelope({"data": obj({"options": STR, "options2": {"type": "string",
                                                                            "pattern": "--sanitizer="},
                                               "build": STR, "build2": STR,
                                               "features": obj({k: BOOL for k in FEATURES})})}),
    "/api/v1/vhosts": envelope({"vhosts": {"type": "array", "items": VHOST}}),
    "/api/v1/vhosts/{vhost}": envelope({"vhost": VHOST}),
    "/api/v1/streams": envelope({"streams": {"type": "array", "items": STREAM}}),
    "/api/v1/streams/{stream}": envelope({"stream": STREAM}),
    "/api/v1/clients": envelope({"clients": {"type": "array", "items": CLIENT}}),
    "/api/v1/clients/{client}": envelope({"client": CLIENT}),
    "/api/v1/diagnostics": envelope({"data": obj({"ok": BOOL, "checks": {"type": "array", "items": CHECK},
                                                   "build": {"type": "string", "pattern": "--sanitizer="}},
                                                  extra=False)}),
    "/api/v1/raw?rpc=raw": envelope({"http_api": obj({"enabled": BOOL, "listen": STR, "crossdomain": BOOL,
                                                      "raw_api": obj({"enabled": BOOL, "allow_reload": BOOL})})}),
}

# Errors keep the envelope with the HTTP status as code.
ERROR_SCHEMAS = {404: error_envelope(404), 405: error_envelope(405)}

_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def _is(value, name):
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, _TYPES[name])


def errors(value, schema, path="$"):
    """Every way `value` breaks `schema`, as 'path: reason' strings."""
    out = []
    types = schema.get("type")
    if types is not None:
        names = types if isinstance(types, list) else [types]
        if not any(_is(value, t) for t in names):
            return [f"{path}: {type(value).__name__} is not {'|'.join(names)}"]
    if value is None:
        return out
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{path}: {value!r} not in {schema['enum']}")
    if "minimum" in schema and _is(value, "number") and value < schema["minimum"]:
        out.append(f"{path}: {value} < {schema['minimum']}")
    if "pattern" in schema and isinstance(value, str) and not re.search(schema["pattern"], value):
        out.append(f"{path}: {value!r} does not match {schema['pattern']!r}")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                out.append(f"{path}: missing {name!r}")
        extra = schema.get("additionalProperties", True)
        for name, v in value.items():
            if name in props:
                out += errors(v, props[name], f"{path}.{name}")
            elif extra is False:
                out.append(f"{path}: unexpected {name!r}")
            elif isinstance(extra, dict):
                out += errors(v, extra, f"{path}.{name}")
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            out += errors(v, schema["items"], f"{path}[{i}]")
    return out

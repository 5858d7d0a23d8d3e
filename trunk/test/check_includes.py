#!/usr/bin/env python3
"""Which folder may include which: the rules the layer include roots cannot
express (those stop upward includes between layers, see the Makefile; these
keep sibling folders inside a layer apart).

  python3 test/check_includes.py [SRC_DIR]      exit 1 and a line per violation

The live hub is protocol-neutral: RTMP, HTTP-FLV and WebRTC depend on it,
never the other way round, and protocols do not reach into each other, so a
third protocol slots in beside the others instead of into them."""
import re
import sys
from pathlib import Path

# (folder, folders it must not include, why)
RULES = [
    ("app/live", ["app/rtmp", "app/http", "app/rtc", "app/api", "app/server", "app/exporter"],
     "the live hub is protocol-neutral: protocols use it, it uses none of them"),
    ("app/config", ["app/"], "the config depends on nothing else in app"),
    ("app/stats", ["app/rtmp", "app/http", "app/rtc", "app/api", "app/server", "app/live", "app/exporter"],
     "statistics are read by the API and the exporter, not the other way round"),
    ("app/rtmp", ["app/http", "app/rtc", "app/api", "app/exporter"], "RTMP does not know the other protocols"),
    ("app/http", ["app/rtmp", "app/rtc"], "HTTP-FLV does not know the other protocols"),
    ("app/rtc", ["app/rtmp", "app/http"], "WebRTC does not know the other protocols (bridges go through app/live)"),
]
# Every folder of protocol/ (and kernel/) stands alone: protocol/rtc must not
# include protocol/rtmp, and so on; kernel/rtp may use kernel/codec.
INDEPENDENT_SIBLINGS = {"protocol": [], "kernel": [("rtp", "codec"), ("rtp", "flv"), ("flv", "codec")]}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def folder_of(rel):
    parts = rel.split("/")
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def violations(src):
    out = []
    for path in sorted(src.rglob("*")):
        if path.suffix not in (".cpp", ".hpp", ".h", ".c"):
            continue
        rel = path.relative_to(src).as_posix()
        here = folder_of(rel)
        for lineno, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            inc = m.group(1)
            there = folder_of(inc)
            if there == here:
                continue
            for folder, banned, why in RULES:
                if here == folder and any(inc.startswith(b if b.endswith("/") else b + "/") for b in banned):
                    out.append(f"src/{rel}:{lineno}: includes {inc}: {why}")
            layer = here.split("/")[0]
            if layer in INDEPENDENT_SIBLINGS and there.split("/")[0] == layer and "/" in here and "/" in there:
                pair = (here.split("/")[1], there.split("/")[1])
                if pair not in INDEPENDENT_SIBLINGS[layer]:
                    out.append(f"src/{rel}:{lineno}: includes {inc}: {layer}/ folders are independent of each other")
    return out


def main():
    src = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "src"
    found = violations(src)
    for v in found:
        print(v)
    print(f"check_includes: {len(found)} violation(s)" if found else "check_includes: ok")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

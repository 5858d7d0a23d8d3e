#!/usr/bin/env python3
"""Which folder may include which: the rules the layer include roots cannot
express (those stop upward includes between layers, see the Makefile; these
order the folders inside a layer).

  python3 test/check_includes.py [SRC_DIR]      exit 1 and a line per violation

app/ is a ranked stack (RANKS, bottom to top): a folder includes only its own
files and folders of a lower rank, never a sibling of its own rank, so each
subsystem has one room and no circle can form. The live hub is
protocol-neutral; protocols do not reach into each other, nor into the edge
(they ask the live hub's StreamPuller); server/ builds everything and only
main/ includes it. A new app/ folder must be given a rank here.

kernel/ and protocol/ folders stand alone (INDEPENDENT_SIBLINGS)."""
import re
import sys
from pathlib import Path

# app/ folders by rank, bottom to top. Folders of one rank are siblings.
RANKS = [
    ["config", "stats"],
    ["live", "security"],  # sources, consumers, the stream puller interface; allow/deny and refer checks
    ["registry"],      # who owns a stream (memory, Redis)
    ["upstream"],      # outbound RTMP and HTTP clients
    ["hooks"],         # http_hooks: bodies, the answer rule, the caller and the async queue (upstream's HttpClient)
    ["conn"],          # clients, connections, acceptors, what handlers are given
    ["edge"],          # pulls and publish relays (implements live's StreamPuller)
    ["rtmp", "http", "rtc", "forward", "ffmpeg", "hls", "dvr"],  # protocol handlers; forward:
                       # republishes sources through upstream's clients, built only by server; ffmpeg:
                       # ingest, transcode, exec processes, built only by server; dvr: recordings
                       # of published streams, built only by server
    ["api", "exporter"],
    ["server"],        # the composition root
]
RANK = {folder: i for i, row in enumerate(RANKS) for folder in row}

# Includes that rank alone would allow, refused with a reason: (from folders,
# included path prefix, why).
EXTRA_RULES = [
    (["rtmp", "http", "rtc"], "app/edge/",
     "protocol handlers reach the edge through the live hub's StreamPuller, never directly"),
    (["config", "stats", "live", "security", "registry", "upstream", "conn", "edge", "rtmp", "http", "rtc"],
     "app/conn/server_context.hpp", "only the API, the exporter and the server may reload the server"),
]

# Every folder of protocol/ (and kernel/) stands alone: protocol/rtc must not
# include protocol/rtmp, and so on; kernel/rtp may use kernel/codec.
INDEPENDENT_SIBLINGS = {"protocol": [], "kernel": [("rtp", "codec"), ("rtp", "flv"), ("flv", "codec"),
                                                ("ts", "codec"), ("ts", "flv"), ("mp4", "codec")]}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def folder_of(rel):
    parts = rel.split("/")
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def app_rule(here, inc):
    """Why `here` (an app/ folder name) may not include `inc`, or None."""
    there = folder_of(inc)
    if not there.startswith("app/") or there == "app/" + here:
        return None
    there = there[len("app/"):]
    if here not in RANK:
        return f"app/{here} has no rank in test/check_includes.py: give it one"
    if there not in RANK:
        return f"app/{there} has no rank in test/check_includes.py: give it one"
    for folders, prefix, why in EXTRA_RULES:
        if here in folders and inc.startswith(prefix):
            return why
    if RANK[there] == RANK[here]:
        return f"app/{here} and app/{there} are siblings of one rank: neither includes the other"
    if RANK[there] > RANK[here]:
        return f"app/{there} ranks above app/{here} (the stack in test/check_includes.py)"
    return None


def violations(src):
    out = []
    for path in sorted(src.rglob("*")):
        if path.suffix not in (".cpp", ".hpp", ".h", ".c"):
            continue
        rel = path.relative_to(src).as_posix()
        here = folder_of(rel)
        layer = here.split("/")[0]
        for lineno, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            inc = m.group(1)
            there = folder_of(inc)
            if there == here:
                continue
            why = None
            if layer == "app" and "/" in here:
                why = app_rule(here.split("/")[1], inc)
            elif there == "app/server" and layer not in ("main", "utest"):
                why = "server/ is the composition root: only main/ includes it"
            elif layer in INDEPENDENT_SIBLINGS and there.split("/")[0] == layer and "/" in here and "/" in there:
                if (here.split("/")[1], there.split("/")[1]) not in INDEPENDENT_SIBLINGS[layer]:
                    why = f"{layer}/ folders are independent of each other"
            if why:
                out.append(f"src/{rel}:{lineno}: includes {inc}: {why}")
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

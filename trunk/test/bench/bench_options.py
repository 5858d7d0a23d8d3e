"""The options every standalone benchmark script shares (the binaries, the
stream, the windows, where results go) and how they resolve: one place, so
hls_bench.py and forward_bench.py say them the same way."""
import importlib.machinery
import importlib.util
from pathlib import Path

HERE = Path(__file__).resolve().parent
TRUNK = HERE.parents[1]


def bench_kit():
    """test/bench/run as a module (its build and media helpers)."""
    loader = importlib.machinery.SourceFileLoader("bench_run", str(HERE / "run"))
    spec = importlib.util.spec_from_loader("bench_run", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def add_common_options(p, out_name, tool, spread, settle, window, settle_help):
    """--srs, --tools-dir, --nginx, --media, --spread, --settle, --window, --json, --out."""
    p.add_argument("--srs", help="server binary (default: build objs/variants/release as test/bench/run does)")
    p.add_argument("--tools-dir", help=f"directory of {tool} (default: next to --srs)")
    p.add_argument("--nginx", default="/usr/sbin/nginx")
    p.add_argument("--media", help="FLV to publish (default: objs/bench/bench.flv, made once)")
    p.add_argument("--spread", type=int, default=spread, help="ms to start the clients over")
    p.add_argument("--settle", type=int, default=settle, help=settle_help)
    p.add_argument("--window", type=int, default=window, help="s of CPU sampling")
    p.add_argument("--json", help="also write the results to this file")
    p.add_argument("--out", default=str(TRUNK / "objs" / "bench" / out_name))


def resolve_common(args):
    """Builds the release variant unless --srs; returns (kit, tools dir, media path, its kbps) and makes
    args.srs a Path."""
    kit = bench_kit()
    objs = Path(args.srs).parent if args.srs else kit.build_release()
    args.srs = Path(args.srs) if args.srs else objs / "srs"
    tools = Path(args.tools_dir) if args.tools_dir else objs
    media = Path(args.media) if args.media else kit.make_media(TRUNK / "objs" / "bench" / "bench.flv")
    return kit, tools, media, kit.media_kbps(media)

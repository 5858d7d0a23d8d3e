"""The directive table is honest: a row marked implemented has a key in
src/app/config/config_keys.hpp, and the server reads that key. A key that no
code outside the config module and the unit tests uses names a directive the
server accepts and ignores: mark its row NotYet(...) in config_directives.cpp
instead (the conf then warns about it with file:line).

A key counts as read when src/ outside src/app/config/ and src/utest/ names it
as keys::NAME, when a Config member function in src/app/config/config.cpp
reads it and that function is called from there (log_level() reads
srs_log_level and srs_log_level_v2 for main), or when it is the global default
of a vhost key that is read (the header says "Unset in a vhost: the value of
keys::chunk_size")."""
import re

from conftest import TRUNK

SRC = TRUNK / "src"
KEYS = SRC / "app" / "config" / "config_keys.hpp"
KEY_RE = re.compile(r'inline constexpr (?:Global|Vhost)Key<.*> (\w+)\{"([^"]+)"\};')
INHERIT_RE = re.compile(r"// Unset in a vhost: the value of keys::(\w+)\.\n"
                        r"(?:.*\n)*?inline constexpr VhostKey<.*> (\w+)\{")


def generated_keys():
    return {m.group(1): m.group(2) for m in KEY_RE.finditer(KEYS.read_text())}


def reader_sources(src):
    """Text of every source that counts as a reader: src/ minus the config module and the unit tests."""
    out = []
    for path in sorted(src.rglob("*")):
        if path.suffix not in (".cpp", ".hpp", ".h", ".cc", ".c"):
            continue
        rel = path.relative_to(src).as_posix()
        if rel.startswith("app/config/") or rel.startswith("utest/"):
            continue
        out.append(path.read_text(errors="replace"))
    return "\n".join(out)


def config_member_reads(config_cpp):
    """{member function of Config: keys its body names}, from config.cpp."""
    reads = {}
    current = None
    for line in config_cpp.splitlines():
        m = re.match(r"^\S.*\bConfig::(\w+)\(", line)
        if m:
            current = m.group(1)
        if current:
            for key in re.findall(r"\bkeys::(\w+)", line):
                reads.setdefault(current, set()).add(key)
        if line.startswith("}"):
            current = None
    return reads


def unread_keys(src):
    keys = generated_keys()
    readers = reader_sources(src)
    used = set(re.findall(r"\bkeys::(\w+)", readers))
    for member, names in config_member_reads((src / "app" / "config" / "config.cpp").read_text()).items():
        if re.search(r"(?:\.|->)" + member + r"\(", readers):
            used |= names
    for global_key, vhost_key in INHERIT_RE.findall(KEYS.read_text()):
        if vhost_key in used:
            used.add(global_key)
    return sorted(f"{name} ({path})" for name, path in keys.items() if name not in used)


def test_keys_header_is_there_and_parses():
    keys = generated_keys()
    # Every value row the server reads; fewer means the regex or the header broke.
    assert len(keys) > 40, f"{KEYS} holds {len(keys)} keys"
    assert keys["vhost_play_gop_cache"] == "vhost.play.gop_cache"
    assert keys["listen"] == "listen"


def test_every_implemented_row_is_read_by_the_server():
    unread = unread_keys(SRC)
    assert not unread, (
        "rows marked implemented that no code outside src/app/config/ and src/utest/ reads; "
        "wrap them in NotYet(...) in src/app/config/config_directives.cpp and regenerate: " + ", ".join(unread))


def test_the_check_names_a_row_nobody_reads(tmp_path):
    """The checker itself: a source tree where one key lost its reader is caught, by name."""
    src = tmp_path / "src"
    (src / "app" / "config").mkdir(parents=True)
    (src / "app" / "config" / "config.cpp").write_text((SRC / "app" / "config" / "config.cpp").read_text())
    (src / "app" / "x.cpp").write_text(re.sub(r"\bkeys::vhost_play_gop_cache\b", "keys::gone", reader_sources(SRC)))
    assert sorted(set(unread_keys(src)) - set(unread_keys(SRC))) == ["vhost_play_gop_cache (vhost.play.gop_cache)"]

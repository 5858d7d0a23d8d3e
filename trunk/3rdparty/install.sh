#!/bin/sh
# Install (or check) the Debian packages listed in packages.txt.
#   ./install.sh [--check] [GROUP...]     GROUP: build test tools bench all (default: build)
# --check only reports what is missing and exits 1 when something is; without it,
# missing packages are installed with apt-get (root needed). The test group also
# needs Python packages Debian does not package (aiortc, pytest-xdist, m3u8): pip, wheels only;
# and the Go modules of the Pion peer (test/pion), with the machine's own go.
set -e
here=$(cd "$(dirname "$0")" && pwd)
check_only=no
groups=""
for arg in "$@"; do
    case "$arg" in
        --check) check_only=yes ;;
        build|test|tools|bench) groups="$groups $arg" ;;
        all) groups="build test tools bench" ;;
        -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
        *) echo "install.sh: unknown argument '$arg'" >&2; exit 2 ;;
    esac
done
[ -n "$groups" ] || groups="build"

# The test group's Python packages that Debian does not package for the
# python3 the tests run with (or not at all), from PyPI wheels only
# (--only-binary: no compiler or -dev package is involved), pinned so every
# machine tests with the same versions:
#   aiortc        the WebRTC peer of test/test_rtc_*.py: an independent stack
#                 that decodes what it receives;
#   pytest-xdist  make test runs the black-box files that only wait on their
#                 servers two at a time (test/conftest.py, SERIAL_FILES);
#   m3u8          a spec parser the HLS tests read our playlists with.
# Idempotent: nothing happens when python3 already imports each of them.
PIP_PACKAGES="aiortc==1.16.0:aiortc pytest-xdist==3.8.0:xdist m3u8==6.0.0:m3u8"
pip_step() {
    need=""
    for entry in $PIP_PACKAGES; do
        python3 -c "import ${entry#*:}" >/dev/null 2>&1 || need="$need ${entry%%:*}"
    done
    [ -n "$need" ] || return 0
    if [ "$check_only" = yes ]; then
        echo "missing Python packages:$need (the test suite)" >&2
        echo "install them with: python3 -m pip install --only-binary :all:$need" >&2
        return 1
    fi
    if ! python3 -m pip --version >/dev/null 2>&1; then
        echo "install.sh: the tests need$need, and python3 has no pip to install them:" >&2
        echo "  apt-get install -y python3-pip, then run this again" >&2
        return 1
    fi
    # Debian's own python3 refuses pip installs outside a venv (PEP 668,
    # EXTERNALLY-MANAGED); the test machine is ours, so say so explicitly.
    extra=""
    if python3 -c 'import sys, sysconfig, os; sys.exit(0 if os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")) else 1)' 2>/dev/null; then
        extra="--break-system-packages"
    fi
    echo "installing:$need (pip, wheels only)"
    # shellcheck disable=SC2086
    if ! python3 -m pip install -q --disable-pip-version-check --only-binary :all: $extra $need; then
        echo "install.sh: pip could not install$need from wheels (no network to PyPI, or no" >&2
        echo "  wheel for this python $(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])') / $(uname -m))" >&2
        return 1
    fi
    for entry in $PIP_PACKAGES; do
        if ! python3 -c "import ${entry#*:}" >/dev/null 2>&1; then
            echo "install.sh: ${entry%%:*} installed but python3 cannot import it:" >&2
            python3 -c "import ${entry#*:}" >&2 || true
            return 1
        fi
    done
}
case " $groups " in *" test "*) want_pip=yes ;; *) want_pip=no ;; esac

# Pion is the third WebRTC peer (test/test_rtc_dtls_loss.py): the Go module
# test/pion, which the tests build into objs/srs-pion-client. Its modules come
# from the Go module proxy, pinned by test/pion/go.sum (nothing vendored);
# this fetches them into Go's module cache. Go itself is the machine's own
# (GOTOOLCHAIN=local: no other toolchain is fetched): Debian 12's golang-go
# (1.19) is older than test/pion/go.mod's go line, so it is not listed in
# packages.txt; without a go command the Pion tests skip (fail in CI).
go_step() {
    pion="$here/../test/pion"
    gocmd=$(command -v go || true)
    if [ -z "$gocmd" ] && [ -x /usr/local/go/bin/go ]; then gocmd=/usr/local/go/bin/go; fi
    need=$(sed -n 's/^go \([0-9.]*\).*/\1/p' "$pion/go.mod")
    if [ -z "$gocmd" ]; then
        echo "install.sh: no go command (Go >= $need): the Pion tests (test/test_rtc_dtls_loss.py) will not run" >&2
        return 0
    fi
    if [ "$check_only" = yes ]; then
        if ! (cd "$pion" && GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-mod=readonly "$gocmd" mod download) >/dev/null 2>&1; then
            echo "missing Go modules of test/pion (the Pion peer): sh 3rdparty/install.sh test fetches them" >&2
            return 1
        fi
        return 0
    fi
    if ! (cd "$pion" && GOTOOLCHAIN=local GOFLAGS=-mod=readonly "$gocmd" mod download); then
        echo "install.sh: go mod download in test/pion failed (no network to the Go module proxy, or" >&2
        echo "  $("$gocmd" version 2>&1) is older than Go $need); the Pion tests need it" >&2
        return 1
    fi
}

wanted=""
for g in $groups; do
    wanted="$wanted $(awk -v g="$g" '$1 == g { print $2 }' "$here/packages.txt")"
done

missing=""
for p in $wanted; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

# npm is inside the nodejs package of nodesource builds and a separate Debian
# package (conflicting with those builds) otherwise: want it only when absent.
for p in $wanted; do
    if [ "$p" = nodejs ] && ! command -v npm >/dev/null 2>&1; then missing="$missing npm"; fi
done

if [ -n "$missing" ]; then
    if [ "$check_only" = yes ]; then
        echo "missing Debian packages:$missing" >&2
        echo "install them with: sudo apt-get install -y$missing" >&2
        [ "$want_pip" = yes ] && { pip_step || true; go_step || true; }
        exit 1
    fi
    if [ "$(id -u)" != 0 ]; then
        echo "missing Debian packages:$missing" >&2
        echo "run as root, or: sudo apt-get install -y$missing" >&2
        exit 1
    fi
    echo "installing:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing
fi
# After apt: python3 (and python3-pip, when listed) come from the test group.
if [ "$want_pip" = yes ]; then
    pip_step || exit 1
    go_step || exit 1
fi
exit 0

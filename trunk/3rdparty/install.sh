#!/bin/sh
# Install (or check) the Debian packages listed in packages.txt.
#   ./install.sh [--check] [GROUP...]     GROUP: build test tools bench all (default: build)
# --check only reports what is missing and exits 1 when something is; without it,
# missing packages are installed with apt-get (root needed).
set -e
here=$(cd "$(dirname "$0")" && pwd)
check_only=no
groups=""
for arg in "$@"; do
    case "$arg" in
        --check) check_only=yes ;;
        build|test|tools|bench) groups="$groups $arg" ;;
        all) groups="build test tools bench" ;;
        -h|--help) sed -n '2,5p' "$0"; exit 0 ;;
        *) echo "install.sh: unknown argument '$arg'" >&2; exit 2 ;;
    esac
done
[ -n "$groups" ] || groups="build"

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

if [ -z "$missing" ]; then
    exit 0
fi
if [ "$check_only" = yes ]; then
    echo "missing Debian packages:$missing" >&2
    echo "install them with: sudo apt-get install -y$missing" >&2
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

#!/bin/sh
# Builds one instrumented variant of the server into objs/variants/NAME/: a
# copy of the sources with its own objs, so variants never share objects
# with each other or with the main build. Rerunning only rebuilds what
# changed (the copy keeps the sources' modification times).
#
#   test/variants/build.sh NAME      NAME: gcp gmp gmc gmd gprof valgrind
#   -> objs/variants/NAME/objs/srs   (and objs/pprof for the gperf ones,
#                                     objs/gmd_demo for gmd)
#
# The configure options are the performance guide's (docs/performance.md),
# so the variants also check that its commands work as written.
set -e
# A variant is built on its own terms, not with the flags of a make that
# runs this script (make variants, make test).
unset MAKEFLAGS MFLAGS MAKEOVERRIDES
trunk=$(cd "$(dirname "$0")/../.." && pwd)
name=$1
case "$name" in
    gcp) opts="--gperf=on --gcp=on" ;;
    gmp) opts="--gperf=on --gmp=on" ;;
    gmc) opts="--gperf=on --gmc=on" ;;
    gmd) opts="--gperf=on --gmd=on" ;;
    gprof) opts="--gprof=on" ;;
    valgrind) opts="--sanitizer=off --valgrind=on" ;;
    *) echo "usage: $0 gcp|gmp|gmc|gmd|gprof|valgrind" >&2; exit 2 ;;
esac
targets=objs/srs
case "$name" in gcp|gmp|gmc|gmd) targets="$targets objs/pprof" ;; esac
dest="$trunk/objs/variants/$name"
mkdir -p "$dest"
# The sources, configure and Makefile; never objs (ours, or another variant's).
(cd "$trunk" && tar --exclude=./objs --exclude=./test -cf - .) | (cd "$dest" && tar -xf -)
cd "$dest"
# Reconfigure only when the options or configure itself changed (new
# libraries, flags): configure rewrites config.mk, which rebuilds everything.
if [ ! -f objs/config.mk ] || ! grep -qx "CONFIGURE_OPTIONS := $opts" objs/config.mk || [ configure -nt objs/config.mk ]; then
    ./configure $opts >configure.log 2>&1 || { cat configure.log >&2; exit 1; }
fi
# The gperf variants compile the same sources with the same flags; only a
# few files see their -DSRS_GPERF_* defines. ccache (when installed) hashes
# the preprocessed sources, so the second to fourth of them mostly hit the
# cache of the first. Its cache lives in objs/variants/.ccache,
# and not hashing the directory lets the variants' copies share it.
if command -v ccache >/dev/null 2>&1; then
    export CCACHE_DIR="$trunk/objs/variants/.ccache" CCACHE_NOHASHDIR=true CCACHE_BASEDIR="$dest"
    cc=$(sed -n 's/^CC := //p' objs/config.mk)
    cxx=$(sed -n 's/^CXX := //p' objs/config.mk)
    set -- CC="ccache $cc" CXX="ccache $cxx"
else
    set --
fi
make -j"${JOBS:-2}" "$@" $targets >make.log 2>&1 || { tail -30 make.log >&2; exit 1; }
if [ "$name" = gmd ]; then
    # The page-fence demo: two deliberate heap bugs on known lines, linked
    # with the same debug allocator (test-only, never in the server).
    demo="$trunk/test/variants/gmd_demo.cpp"
    if [ ! objs/gmd_demo -nt "$demo" ]; then
        g++ -g -O0 -fno-omit-frame-pointer -fno-builtin-malloc -fno-builtin-free \
            -o objs/gmd_demo "$demo" -ltcmalloc_debug
    fi
fi
echo "$dest/objs/srs"

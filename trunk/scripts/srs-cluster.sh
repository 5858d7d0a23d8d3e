#!/bin/sh
# Starts, stops and reports a one-machine cluster: one origin process and N
# edge processes sharing the edge conf's RTMP and HTTP ports (SO_REUSEPORT).
# Every process has its own pid file, log, API port and WebRTC UDP port, set
# through SRS_* environment overrides (docs/cluster.md). Processes are
# stopped by the PID in their pid file, never by name.
#
#   scripts/srs-cluster.sh start [N]   origin + N edges (N defaults to the cores)
#   scripts/srs-cluster.sh stop        every process with a pid file here
#   scripts/srs-cluster.sh status      pid, API port and liveness of each
#
# Settings (environment):
#   SRS_BIN=./objs/srs  ORIGIN_CONF=./conf/origin.conf  EDGE_CONF=./conf/edge.conf
#   RUN_DIR=./objs      where edge-K.pid / edge-K.log go (origin: its conf's pid and log)
#   NO_ORIGIN=1         start only the edges (an origin runs elsewhere)
#   API_BASE=19860      edge K's API listens on API_BASE+K
#   RTC_BASE=18000      edge K's WebRTC UDP port is RTC_BASE+K
#   BALANCE=on          SRS_REUSEPORT_BALANCE=N for the edges (off: the kernel's hash)
set -u
cd "$(dirname "$0")/.." || exit 1

SRS_BIN=${SRS_BIN:-./objs/srs}
ORIGIN_CONF=${ORIGIN_CONF:-./conf/origin.conf}
EDGE_CONF=${EDGE_CONF:-./conf/edge.conf}
RUN_DIR=${RUN_DIR:-./objs}
API_BASE=${API_BASE:-19860}
RTC_BASE=${RTC_BASE:-18000}
BALANCE=${BALANCE:-on}
NO_ORIGIN=${NO_ORIGIN:-}
ORIGIN_PID="$RUN_DIR/origin.pid"
ORIGIN_LOG="$RUN_DIR/origin.log"

# running PID: the process exists and is not a zombie waiting to be reaped.
running() {
    kill -0 "$1" 2>/dev/null || return 1
    [ -r "/proc/$1/stat" ] || return 0
    [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -c1)" != Z ]
}

# pid_alive FILE: the pid in FILE runs.
pid_alive() {
    [ -s "$1" ] || return 1
    running "$(cat "$1")"
}

# wait_pid_file FILE SECONDS: until the server wrote its pid file.
wait_pid_file() {
    i=0
    while [ "$i" -lt "$(($2 * 10))" ]; do
        pid_alive "$1" && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

start_one() {  # name pidfile logfile conf [VAR=value...]
    name=$1 pidfile=$2 logfile=$3 conf=$4
    shift 4
    if pid_alive "$pidfile"; then
        echo "$name already runs, pid $(cat "$pidfile")"
        return 0
    fi
    rm -f "$pidfile"
    env SRS_PID="$pidfile" SRS_SRS_LOG_FILE="$logfile" SRS_DAEMON=off "$@" \
        nohup "$SRS_BIN" -c "$conf" >"$logfile.stdout" 2>&1 </dev/null &
    if ! wait_pid_file "$pidfile" 10; then
        echo "$name did not start; see $logfile and $logfile.stdout" >&2
        return 1
    fi
    echo "$name started, pid $(cat "$pidfile")"
}

stop_one() {  # pidfile
    pid_alive "$1" || { rm -f "$1"; return 0; }
    pid=$(cat "$1")
    kill -TERM "$pid"
    i=0
    while running "$pid" && [ "$i" -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    if running "$pid"; then
        echo "pid $pid did not quit on SIGTERM in 10 s: SIGKILL" >&2
        kill -KILL "$pid"
    fi
    rm -f "$1"
    echo "stopped pid $pid ($1)"
}

cmd=${1:-status}
n=${2:-$(nproc)}
mkdir -p "$RUN_DIR"
case "$cmd" in
start)
    if [ -z "$NO_ORIGIN" ]; then
        start_one origin "$ORIGIN_PID" "$ORIGIN_LOG" "$ORIGIN_CONF" || exit 1
    fi
    balance=0
    [ "$BALANCE" = on ] && balance=$n
    k=1
    while [ "$k" -le "$n" ]; do
        start_one "edge-$k" "$RUN_DIR/edge-$k.pid" "$RUN_DIR/edge-$k.log" "$EDGE_CONF" \
            SRS_HTTP_API_LISTEN=$((API_BASE + k)) SRS_RTC_SERVER_LISTEN=$((RTC_BASE + k)) \
            SRS_REUSEPORT_BALANCE=$balance || exit 1
        k=$((k + 1))
    done
    ;;
stop)
    for f in "$RUN_DIR"/edge-*.pid; do
        [ -e "$f" ] && stop_one "$f"
    done
    stop_one "$ORIGIN_PID"
    ;;
status)
    rc=0
    for f in "$ORIGIN_PID" "$RUN_DIR"/edge-*.pid; do
        [ -e "$f" ] || continue
        name=$(basename "$f" .pid)
        if pid_alive "$f"; then
            k=${name#edge-}
            api=""
            [ "$k" != "$name" ] && api=" api $((API_BASE + k))"
            echo "$name running, pid $(cat "$f")$api"
        else
            echo "$name not running (stale $f)"
            rc=1
        fi
    done
    exit $rc
    ;;
*)
    echo "usage: $0 start [N] | stop | status" >&2
    exit 2
    ;;
esac

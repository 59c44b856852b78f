#!/bin/bash
# signal-latency.sh: how long openclaw-doctor takes to end after SIGTERM
# (or SIGINT) on hostile inputs: a named pipe no process writes to, a pipe
# fed from /dev/zero or /dev/urandom, standard input from those devices,
# and the devices named directly (refused before any read).
#
# Each case starts the command, lets it run for WAIT seconds (default 0.5),
# sends the signal, and prints the exit status and the milliseconds from
# the signal to the exit. Exit 130 is "interrupted"; a case that ended
# before the signal prints "ended before the signal" with its status.
#
# usage: bench/signal-latency.sh [TERM|INT]   (BIN=path to a built binary;
#        default: built from this checkout into a temp folder; WAIT=seconds)
set -eu
cd "$(dirname "$0")/.."
sig="${1:-TERM}"
wait_s="${WAIT:-0.5}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
bin="${BIN:-}"
if [ -z "$bin" ]; then
	bin="$work/openclaw-doctor"
	go build -o "$bin" .
fi
export TMPDIR="$work" HOME="$work" OPENCLAW_STATE_DIR=

# measure NAME FEEDER ARGS...: FEEDER is "none", "pipe:<cmd>" (its output
# into a named pipe passed as the last argument) or "stdin:<file>".
measure() {
	local name="$1" feeder="$2"
	shift 2
	local fifo="$work/pipe.jsonl" feed_pid=""
	rm -f "$fifo"
	mkfifo "$fifo"
	local args=("$@")
	for i in "${!args[@]}"; do [ "${args[$i]}" = FIFO ] && args[$i]="$fifo"; done
	case "$feeder" in
	pipe:*) sh -c "${feeder#pipe:} > '$fifo'" 2>/dev/null & feed_pid=$! ;;
	esac
	if [[ "$feeder" == stdin:* ]]; then
		"$bin" "${args[@]}" <"${feeder#stdin:}" >/dev/null 2>"$work/err" &
	else
		"$bin" "${args[@]}" </dev/null >/dev/null 2>"$work/err" &
	fi
	local pid=$!
	sleep "$wait_s"
	if ! kill -0 "$pid" 2>/dev/null; then
		local rc=0
		wait "$pid" || rc=$?
		printf '%-44s ended before the signal, exit %d: %s\n' "$name" "$rc" "$(head -c 100 "$work/err" | tr '\n' ' ')"
	else
		local start end rc=0
		start=$(date +%s%N)
		kill -s "$sig" "$pid"
		wait "$pid" || rc=$?
		end=$(date +%s%N)
		printf '%-44s exit %3d after %6.1f ms\n' "$name" "$rc" "$(echo "($end - $start) / 1000000" | bc -l)"
	fi
	if [ -n "$feed_pid" ]; then kill "$feed_pid" 2>/dev/null || true; wait "$feed_pid" 2>/dev/null || true; fi
}

echo "SIG$sig after ${wait_s}s; binary $bin"
measure "check FIFO (no writer)"              none  check FIFO
measure "check --provider all FIFO (no writer)" none check --provider all FIFO
measure "fix --stdout FIFO (no writer)"       none  fix --stdout FIFO
measure "replay FIFO (no writer)"             none  replay --provider anthropic FIFO
measure "check FIFO (idle writer)"            "pipe:sleep 60" check FIFO
measure "check FIFO < /dev/zero"              "pipe:cat /dev/zero" check FIFO
measure "check FIFO < /dev/urandom"           "pipe:cat /dev/urandom" check FIFO
measure "replay FIFO < /dev/urandom"          "pipe:cat /dev/urandom" replay --provider anthropic FIFO
measure "check - < /dev/zero"                 stdin:/dev/zero check -
measure "check - < /dev/urandom"              stdin:/dev/urandom check -
measure "replay - < /dev/urandom"             stdin:/dev/urandom replay --provider anthropic -
measure "fix - < /dev/urandom"                stdin:/dev/urandom fix -
measure "check /dev/zero"                     none  check /dev/zero
measure "replay /dev/urandom"                 none  replay --provider anthropic /dev/urandom

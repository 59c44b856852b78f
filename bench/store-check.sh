#!/bin/sh
# store-check.sh: openclaw-doctor on one large session of OpenClaw 2026.9's
# SQLite store, against OpenClaw's own read of it and against check on the
# same session as a JSONL file (the store's speed goals).
#
# Builds (once; kept in the work folder, it takes minutes) a state folder
# whose agent database holds one session of about SIZE MiB: a session made
# by the OpenClaw differential oracle's generator (gen-small.py), less the
# truncated lines it plants (OpenClaw's import stops at the first line it
# cannot read), imported by OpenClaw's own code (`oracle store-make
# --deterministic`). Then, with a warm page cache, it times:
#
#   - our `export --session agent:main:main` and `check --session …` on the
#     store (also check with the two index checks skipped);
#   - our `check` on the exported JSONL file (goal: check on the store
#     <= 1.5x this);
#   - OpenClaw's own read-and-serialize inside `oracle store-export
#     --no-materialize`: from OpenClaw's first open of the database copy to
#     the oracle's first read of that copy after OpenClaw closed it (open
#     calls traced with strace), that is session lookup, reading and
#     decoding every row, JSON.parse of each event, JSON.stringify and the
#     join (goal: export and check >= 20x faster); the sandbox copy before
#     it and the oracle's own checks after it are left out;
#
# and prints the medians, the ratios and the peak RSS of export and check
# (goal: <= 64 MiB + the largest event). CPU time is printed beside wall
# time: on a shared machine wall time also measures the other tenants.
# With INSTRUCTIONS=1 it also counts the instructions of check on the
# store (with and without the index checks) and on the file, for BIN and
# BIN_OLD (valgrind --tool=cachegrind, GOMAXPROCS=1: a figure the load
# does not change; about a minute a run).
#
# usage: bench/store-check.sh [SIZE_MIB] [RUNS]
#   SIZE_MIB defaults to 200, RUNS (of our commands) to 3; OpenClaw runs once.
#   OPENCLAW_ORACLE_DIR is the installed oracle (default /tmp/oracle).
#   OPENCLAW_BENCH_DIR keeps the generated store (default
#   ${TMPDIR:-/tmp}/store-check-bench-SIZE_MIB). BIN is the binary to time
#   (default: built from this tree). BIN_OLD, when set, is a second binary
#   whose export and check runs are interleaved with BIN's (alternating
#   which goes first) and compared with them at the end.
set -eu
cd "$(dirname "$0")/.."
size="${1:-200}"
runs="${2:-3}"
oracle="${OPENCLAW_ORACLE_DIR:-/tmp/oracle}"
dir="${OPENCLAW_BENCH_DIR:-${TMPDIR:-/tmp}/store-check-bench-$size}"
. bench/compare.sh
mkdir -p "$dir"
work="$(mktemp -d "${TMPDIR:-/tmp}/store-check.XXXXXX")"
trap 'rm -rf "$work"' EXIT INT TERM
bin=$(bench_binary "$work/openclaw-doctor" .)
old="${BIN_OLD:-}"
state="$dir/state"
db="$state/agents/main/agent/openclaw-agent.sqlite"
key=agent:main:main

if [ ! -f "$dir/made" ]; then
	echo "making a ${size} MiB session and importing it with OpenClaw (minutes)..." >&2
	python3 "$oracle/gen-small.py" "$dir/raw.jsonl" "$size"
	python3 -c '
import json, sys
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as out:
    for line in f:
        try:
            json.loads(line)
        except ValueError:
            continue
        out.write(line)
' "$dir/raw.jsonl" "$dir/session.jsonl"
	rm -f "$dir/raw.jsonl"
	rm -rf "$state"
	"$oracle/oracle" store-make "$state" --deterministic --agent main "$dir/session.jsonl" >"$dir/store-make.json"
	rm -f "$dir/session.jsonl"
	touch "$dir/made"
fi

"$bin" export --session "$key" "$state" >"$work/export.jsonl"
bytes=$(wc -c <"$work/export.jsonl")
events=$(wc -l <"$work/export.jsonl")
largest=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 1 }' "$work/export.jsonl")
cat "$db"* "$work/export.jsonl" >/dev/null # warm the page cache

: >"$work/export"
: >"$work/check"
: >"$work/check-noindex"
: >"$work/check-file"
: >"$work/old-export"
: >"$work/old-check"
# old_runs: BIN_OLD's export and check, when it is set.
old_runs() {
	if [ -n "$old" ]; then
		bench_time "$work/old-export" "$old" export --session "$key" "$state"
		bench_time "$work/old-check" "$old" check --session "$key" "$state" || true
	fi
}
i=0
while [ "$i" -lt "$runs" ]; do
	if [ $((i % 2)) -eq 1 ]; then old_runs; fi
	bench_time "$work/export" "$bin" export --session "$key" "$state"
	bench_time "$work/check" "$bin" check --session "$key" "$state" || true
	if [ $((i % 2)) -eq 0 ]; then old_runs; fi
	bench_time "$work/check-noindex" "$bin" check --skip store/identity-mismatch,store/active-event-missing --session "$key" "$state" || true
	bench_time "$work/check-file" "$bin" check "$work/export.jsonl" || true
	i=$((i + 1))
done

# OpenClaw: the window between its first open of the copied database and
# the oracle's first plain read of the copy once OpenClaw is done.
strace -f -ttt --seccomp-bpf -e trace=openat -o "$work/strace" \
	"$oracle/oracle" store-export "$state" --session-key "$key" --no-materialize --out "$work/openclaw.jsonl" >"$work/openclaw.json"
openclaw_s=$(awk '
	/oc-oracle-store-[^\/]*\/state\/agents\/main\/agent\/openclaw-agent\.sqlite"/ && !/ENOENT/ {
		if (!t0 && /O_NOFOLLOW/) t0 = $2
		else if (t0 && !/O_NOFOLLOW/ && !/O_CREAT/) { print $2 - t0; exit }
	}' "$work/strace")
if ! cmp -s "$work/openclaw.jsonl" "$work/export.jsonl"; then
	echo "store-check: our export differs from OpenClaw's" >&2
	exit 1
fi

med() { bench_median "$1" "$2"; }
awk -v size="$size" -v bytes="$bytes" -v events="$events" -v largest="$largest" -v oc="$openclaw_s" -v runs="$runs" \
	-v ew="$(med "$work/export" 1)" -v ec="$(med "$work/export" 2)" -v er="$(med "$work/export" 3)" \
	-v cw="$(med "$work/check" 1)" -v cc="$(med "$work/check" 2)" -v cr="$(med "$work/check" 3)" \
	-v nw="$(med "$work/check-noindex" 1)" -v nc="$(med "$work/check-noindex" 2)" -v nr="$(med "$work/check-noindex" 3)" \
	-v fw="$(med "$work/check-file" 1)" -v fc="$(med "$work/check-file" 2)" -v fr="$(med "$work/check-file" 3)" 'BEGIN {
	printf "store session: %d events, export %.1f MiB, largest event %d bytes (%s MiB asked)\n", events, bytes / 1048576, largest, size
	printf "medians of %d runs       %10s %10s %14s\n", runs, "wall s", "CPU s", "peak RSS MiB"
	printf "  export (store)          %10.2f %10.2f %14.1f\n", ew, ec, er / 1024
	printf "  check (store)           %10.2f %10.2f %14.1f\n", cw, cc, cr / 1024
	printf "  check, no index checks  %10.2f %10.2f %14.1f\n", nw, nc, nr / 1024
	printf "  check (JSONL file)      %10.2f %10.2f %14.1f\n", fw, fc, fr / 1024
	printf "  OpenClaw read+serialize %10.2f (one run)\n", oc
	printf "OpenClaw / export: %.1fx, OpenClaw / check: %.1fx, OpenClaw / check without index checks: %.1fx (goal >= 20x)\n", oc / ew, oc / cw, oc / nw
	printf "check store / check file: %.2fx wall, %.2fx CPU; without index checks %.2fx wall, %.2fx CPU (goal <= 1.5x)\n", cw / fw, cc / fc, nw / fw, nc / fc
	limit = 64 + largest / 1048576
	printf "peak RSS: export %.1f MiB, check %.1f MiB, goal <= %.1f MiB (64 MiB + the largest event)\n", er / 1024, cr / 1024, limit
}'
if [ -n "$old" ]; then
	bench_compare "export (store)" "$work/old-export" "$work/export"
	bench_compare "check (store)" "$work/old-check" "$work/check"
fi

# instructions BIN ARGS...: the instructions cachegrind counts in a run.
# cpu.rdtscp=off: valgrind cannot run RDTSCP, which the Go runtime uses
# to time a lock it sleeps on; the run then dies at random.
instructions() {
	_b=$1
	shift
	GODEBUG=cpu.rdtscp=off GOMAXPROCS=1 valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$_b" "$@" 2>&1 >/dev/null |
		awk '/I *refs:/ { gsub(",", "", $NF); print $NF }'
}
if [ "${INSTRUCTIONS:-}" = 1 ]; then
	for b in "$bin" $old; do
		s=$(instructions "$b" check --session "$key" "$state")
		n=$(instructions "$b" check --skip store/identity-mismatch,store/active-event-missing --session "$key" "$state")
		f=$(instructions "$b" check "$work/export.jsonl")
		awk -v b="$b" -v s="$s" -v n="$n" -v f="$f" 'BEGIN {
			printf "instructions of %s (billions): check (store) %.2f, no index checks %.2f, check (JSONL file) %.2f: %.2fx, %.2fx\n", b, s / 1e9, n / 1e9, f / 1e9, s / f, n / f
		}'
	done
fi

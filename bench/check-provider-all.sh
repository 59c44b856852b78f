#!/usr/bin/env bash
# check-provider-all.sh: how much longer `openclaw-doctor check --provider
# all` (the 17 targets of the compatibility matrix) takes than the replay of
# one target (`check --provider anthropic`) on the same file, and its peak
# RSS against the file's size, on two 100 MiB sessions: one of the session
# generator (gensession -size 100M -seed 7 -corrupt 0.001) and one of the
# reference runner's gen-small.py, whose branch is nearly the whole file.
#
# Usage: bench/check-provider-all.sh [MiB]    (default 100)
# Env:   OPENCLAW_GENSESSION_DIR  the gensession generator folder (a Go program)
#        OPENCLAW_ORACLE_DIR      the reference runner's folder, for gen-small.py (default /tmp/oracle)
#        BENCH_DIR                scratch folder (default /tmp/openclaw-doctor-bench)
#        RUNS                     runs of each command per file, interleaved (default 3)
#        BIN                      an openclaw-doctor binary to time (default: built from this tree)
#        BIN_OLD                  a second binary, whose `--provider all` runs are interleaved
#                                 with BIN's and printed beside them (median wall and CPU)
#
# Target: `--provider all` <= 3x the time of one target, peak RSS <= the
# file's size. Each figure is the median of RUNS runs, the two commands'
# runs interleaved so that a change in the machine's load touches both
# alike. The CPU-time ratio (user + system) is printed beside the wall-time
# ratio: on a shared machine wall time also measures the other tenants.
# Both commands exit 1 on a file with findings; any other status fails.
set -euo pipefail

mib=${1:-100}
oracle=${OPENCLAW_ORACLE_DIR:-/tmp/oracle}
dir=${BENCH_DIR:-/tmp/openclaw-doctor-bench}
runs=${RUNS:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dir"
. "$root/bench/compare.sh"
bin=$(bench_binary "$dir/openclaw-doctor" "$root")
old=${BIN_OLD:-}

gensession_file() {
	local file="$dir/gensession${mib}-seed7.jsonl"
	if [[ ! -s $file ]]; then
		local gen="${OPENCLAW_GENSESSION_DIR:?set OPENCLAW_GENSESSION_DIR to the gensession generator folder}"
		echo "generating $file with gensession" >&2
		(cd "$gen" && go run . -size "${mib}M" -seed 7 -corrupt 0.001 -o "$file") >&2
	fi
	echo "$file"
}
small_file() {
	local file="$dir/small$mib.jsonl"
	if [[ ! -s $file ]]; then
		echo "generating $file with $oracle/gen-small.py" >&2
		python3 "$oracle/gen-small.py" "$file" "$mib"
	fi
	echo "$file"
}

# timed OUT BIN ARGS...: one timed check; exit status 1 (findings) is fine.
timed() {
	local out=$1 rc=0
	shift
	bench_time "$out" "$@" || rc=$?
	if ((rc > 1)); then
		echo "$* failed (exit $rc):" >&2
		cat "$out.stderr" >&2
		exit 1
	fi
}

met=0
measure() { # FILE
	local file=$1 name all one prev
	name=$(basename "$file" .jsonl)
	all="$dir/all-$name.times" one="$dir/one-$name.times" prev="$dir/all-old-$name.times"
	: >"$all"
	: >"$one"
	: >"$prev"
	cat "$file" >/dev/null # warm the page cache
	for ((i = 1; i <= runs; i++)); do
		if ((i % 2)); then
			timed "$one" "$bin" check --provider anthropic "$file"
			timed "$all" "$bin" check --provider all "$file"
		else
			timed "$all" "$bin" check --provider all "$file"
			timed "$one" "$bin" check --provider anthropic "$file"
		fi
		if [[ -n $old ]]; then timed "$prev" "$old" check --provider all "$file"; fi
		echo "  $name run $i: all $(tail -n 1 "$all"), one $(tail -n 1 "$one") (wall s, CPU s, RSS KiB)" >&2
	done
	if [[ -n $old ]]; then bench_compare "check --provider all $name" "$prev" "$all"; fi
	awk -v name="$name" -v size="$(stat -L -c %s "$file")" -v n="$runs" \
		-v aw="$(bench_median "$all" 1)" -v ac="$(bench_median "$all" 2)" -v ar="$(sort -n -k3 "$all" | tail -n 1 | cut -d' ' -f3)" \
		-v ow="$(bench_median "$one" 1)" -v oc="$(bench_median "$one" 2)" 'BEGIN {
		wall = aw / ow; cpu = ac / oc; rss = ar * 1024 / size
		printf "%s (%.0f MiB), median of %d interleaved runs:\n", name, size / 1048576, n
		printf "  check --provider anthropic: %.3f s wall, %.2f s CPU\n", ow, oc
		printf "  check --provider all:       %.3f s wall, %.2f s CPU, peak RSS %.0f MiB = %.2fx the file\n", aw, ac, ar / 1024, rss
		printf "  all / one: %.2fx wall, %.2fx CPU (target <= 3x); RSS target <= 1.00x the file\n", wall, cpu
		ok = wall <= 3 && rss <= 1
		printf "  %s\n", ok ? "target met" : "target not met"
		exit !ok
	}' || met=1
}

measure "$(gensession_file)"
measure "$(small_file)"
exit $met

#!/usr/bin/env bash
# replay-vs-openclaw.sh: time `openclaw-doctor replay --format json` against
# OpenClaw's own replay (the oracle's `replay --no-messages`) on the ~200 MiB
# session file of the oracle's gen-small.py, whose active branch is nearly the
# whole file; time our replay on a file half that size for the linearity
# ratio; report our peak RSS against the file's size.
#
# Usage: bench/replay-vs-openclaw.sh [MiB]    (default 200; the linearity file is half)
# Env:   OPENCLAW_ORACLE_DIR  oracle folder (default /tmp/oracle)
#        BENCH_DIR            scratch folder (default /tmp/openclaw-doctor-bench)
#        RUNS                 runs of our replay per file, best kept (default 3)
#        SKIP_ORACLE=1        skip OpenClaw's run (ours and the linearity only)
#        BIN                  an openclaw-doctor binary to time (default: built from this tree)
#        BIN_OLD              a second binary, timed on the big file in runs interleaved with
#                             BIN's; the two are printed side by side (median wall and CPU)
#
# Targets: ≥ 20× faster than OpenClaw, 2× the file → ≤ 2.2× the
# time, peak RSS no more than the file's size.
#
# OpenClaw's figure is the sum of the oracle's `timings`: the time inside
# OpenClaw's loading, policy and replay functions, without Node's start-up
# or imports. Ours is the whole process, wall clock, start-up and writing
# the JSON document (to /dev/null) included. The machine's load matters:
# the script prints the user+system CPU time too.
set -euo pipefail

mib=${1:-200}
half=$((mib / 2))
oracle=${OPENCLAW_ORACLE_DIR:-/tmp/oracle}
dir=${BENCH_DIR:-/tmp/openclaw-doctor-bench}
runs=${RUNS:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
target=(--provider anthropic --model-api anthropic-messages --model-id claude-sonnet-4-5)

mkdir -p "$dir"
generate() { # MiB → path
	local file="$dir/small$1.jsonl"
	if [[ ! -s $file ]]; then
		echo "generating $file ($1 MiB) with $oracle/gen-small.py" >&2
		python3 "$oracle/gen-small.py" "$file" "$1"
	fi
	echo "$file"
}
big=$(generate "$mib")
small=$(generate "$half")
. "$root/bench/compare.sh"
bin=$(bench_binary "$dir/openclaw-doctor" "$root")
old=${BIN_OLD:-}

replay() { # OUT BIN FILE: one timed replay; a failure ends the script
	bench_time "$1" "$2" replay --format json "${target[@]}" "$3" || {
		echo "replay failed:" >&2
		cat "$1.stderr" >&2
		exit 1
	}
}

# best FILE OLD-TIMES: runs our replay RUNS times, and BIN_OLD's interleaved
# with it when OLD-TIMES is given; prints "wall cpu rss" of our fastest.
best() {
	local file=$1 oldtimes=${2:-} times="$dir/new-$(basename "$1").times" best_wall="" best_cpu="" best_rss=""
	: >"$times"
	for ((i = 1; i <= runs; i++)); do
		if [[ -n $oldtimes && $((i % 2)) -eq 1 ]]; then replay "$oldtimes" "$old" "$file"; fi
		replay "$times" "$bin" "$file"
		if [[ -n $oldtimes && $((i % 2)) -eq 0 ]]; then replay "$oldtimes" "$old" "$file"; fi
		local wall cpu rss
		read -r wall cpu rss < <(tail -n 1 "$times")
		echo "  $(basename "$file") run $i: wall ${wall}s (CPU ${cpu}s), peak RSS ${rss} KiB" >&2
		if [[ -z $best_wall ]] || awk "BEGIN {exit !($wall < $best_wall)}"; then
			best_wall=$wall best_cpu=$cpu best_rss=$rss
		fi
	done
	echo "$best_wall $best_cpu $best_rss"
}

echo "openclaw-doctor replay --format json ${target[*]}:" >&2
oldtimes=""
if [[ -n $old ]]; then
	oldtimes="$dir/old.times"
	: >"$oldtimes"
fi
read -r big_wall big_cpu big_rss < <(best "$big" "$oldtimes")
read -r small_wall small_cpu _ < <(best "$small")
if [[ -n $old ]]; then
	bench_compare "replay $(basename "$big")" "$oldtimes" "$dir/new-$(basename "$big").times"
fi

oc_ms=""
if [[ -z ${SKIP_ORACLE:-} ]]; then
	echo "running OpenClaw's replay through the oracle (this takes a while)" >&2
	(cd "$oracle" && ./oracle replay "$big" "${target[@]}" --no-messages) >"$dir/oracle-replay.json"
	oc_ms=$(python3 -c 'import json,sys; print(sum(json.load(open(sys.argv[1]))["timings"].values()))' "$dir/oracle-replay.json")
fi

python3 - "$(stat -c %s "$big")" "$(stat -c %s "$small")" "$big_wall" "$big_cpu" "$big_rss" "$small_wall" "$small_cpu" "$oc_ms" <<'PY'
import sys
big, small = int(sys.argv[1]), int(sys.argv[2])
wall, cpu, rss = float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]) * 1024
small_wall, small_cpu = float(sys.argv[6]), float(sys.argv[7])
oc = float(sys.argv[8]) / 1000 if sys.argv[8] else None
mib = lambda n: n / 2**20
print(f"file: {mib(big):.0f} MiB (linearity file: {mib(small):.0f} MiB)")
print(f"openclaw-doctor replay --format json: {wall:.3f} s wall, {cpu:.2f} s CPU ({big / 1e6 / wall:.0f} MB/s), "
      f"peak RSS {mib(rss):.0f} MiB = {rss / big:.2f}x the file (target <= 1.00x)")
print(f"linearity: {mib(small):.0f} MiB in {small_wall:.3f} s wall, {small_cpu:.2f} s CPU; "
      f"{big / small:.2f}x the file -> {wall / small_wall:.2f}x the wall time, {cpu / small_cpu:.2f}x the CPU time (target <= 2.2x)")
if oc is not None:
    print(f"OpenClaw replay (sum of timings): {oc:.3f} s")
    print(f"ratio: {oc / wall:.1f}x faster (target >= 20x)")
PY

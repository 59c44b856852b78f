#!/usr/bin/env bash
# fix-vs-openclaw.sh: time `openclaw-doctor fix --stdout` against OpenClaw's
# own repair (repairSessionFileIfNeeded, run by the oracle) on the ~200 MiB
# session file of the oracle's gen-small.py, and report our peak RSS.
#
# Usage: bench/fix-vs-openclaw.sh [MiB]    (default 200)
# Env:   OPENCLAW_ORACLE_DIR  oracle folder (default /tmp/oracle)
#        BENCH_DIR            scratch folder (default /tmp/openclaw-doctor-bench)
#        RUNS                 runs of fix --stdout, best kept (default 3)
#        SKIP_ORACLE=1        skip OpenClaw's run
#        BIN                  an openclaw-doctor binary to time (default: built from this tree)
#        BIN_OLD              a second binary, timed in runs interleaved with BIN's; the two
#                             are printed side by side (median wall and CPU, new / old)
#
# OpenClaw's figure is the oracle's elapsedMs: the time spent inside
# repairSessionFileIfNeeded, without Node's start-up or imports. Ours is the
# whole process, wall clock, start-up included. The machine's load matters:
# the script prints the user+system CPU time too.
set -euo pipefail

mib=${1:-200}
oracle=${OPENCLAW_ORACLE_DIR:-/tmp/oracle}
dir=${BENCH_DIR:-/tmp/openclaw-doctor-bench}
runs=${RUNS:-3}
root=$(cd "$(dirname "$0")/.." && pwd)

mkdir -p "$dir"
file="$dir/small$mib.jsonl"
if [[ ! -s $file ]]; then
	echo "generating $file ($mib MiB) with $oracle/gen-small.py" >&2
	python3 "$oracle/gen-small.py" "$file" "$mib"
fi
. "$root/bench/compare.sh"
bin=$(bench_binary "$dir/openclaw-doctor" "$root")
old=${BIN_OLD:-}

bytes=$(stat -c %s "$file")
fix() { bench_time "$1" "$2" fix --stdout "$file" || true; } # OUT BIN
: >"$dir/new.times"
: >"$dir/old.times"
best_wall=""
for ((i = 1; i <= runs; i++)); do
	if [[ -n $old && $((i % 2)) -eq 1 ]]; then fix "$dir/old.times" "$old"; fi
	fix "$dir/new.times" "$bin"
	if [[ -n $old && $((i % 2)) -eq 0 ]]; then fix "$dir/old.times" "$old"; fi
	read -r wall cpu rss < <(tail -n 1 "$dir/new.times")
	echo "run $i: fix --stdout wall ${wall}s (CPU ${cpu}s), peak RSS ${rss} KiB"
	if [[ -z $best_wall ]] || awk "BEGIN {exit !($wall < $best_wall)}"; then
		best_wall=$wall best_rss=$rss
	fi
done
if [[ -n $old ]]; then
	bench_compare "fix --stdout $(basename "$file")" "$dir/old.times" "$dir/new.times"
fi

oc_ms=""
if [[ -z ${SKIP_ORACLE:-} ]]; then
	echo "running OpenClaw's repair through the oracle (this takes a while)" >&2
	(cd "$oracle" && ./oracle repair "$file" --no-lines --no-content) >"$dir/oracle.json"
	oc_ms=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["elapsedMs"])' "$dir/oracle.json")
fi

python3 - "$bytes" "$best_wall" "$best_rss" "$oc_ms" <<'PY'
import sys
size, wall, rss = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
print(f"file: {size / 2**20:.0f} MiB")
print(f"openclaw-doctor fix --stdout: {wall:.3f} s ({size / 1e6 / wall:.0f} MB/s), peak RSS {rss / 1024:.1f} MiB")
if sys.argv[4]:
    oc_ms = float(sys.argv[4])
    print(f"OpenClaw repairSessionFileIfNeeded: {oc_ms / 1000:.3f} s")
    print(f"ratio: {oc_ms / 1000 / wall:.1f}x faster")
PY

#!/usr/bin/env bash
# fix-vs-openclaw.sh: time `openclaw-doctor fix --stdout` against OpenClaw's
# own repair (repairSessionFileIfNeeded, run by the oracle) on the ~200 MiB
# session file of the oracle's gen-small.py, and report our peak RSS.
#
# Usage: bench/fix-vs-openclaw.sh [MiB]    (default 200)
# Env:   OPENCLAW_ORACLE_DIR  oracle folder (default /tmp/oracle)
#        BENCH_DIR            scratch folder (default /tmp/openclaw-doctor-bench)
#        RUNS                 runs of fix --stdout, best kept (default 3)
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
bin="$dir/openclaw-doctor"
(cd "$root" && go build -o "$bin" .)

bytes=$(stat -c %s "$file")
best_wall=""
for ((i = 1; i <= runs; i++)); do
	/usr/bin/time -v "$bin" fix --stdout "$file" >"$dir/out.jsonl" 2>"$dir/time.txt" || true
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$dir/time.txt" | awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
	user=$(awk -F': ' '/User time/ {print $2}' "$dir/time.txt")
	sys=$(awk -F': ' '/System time/ {print $2}' "$dir/time.txt")
	rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$dir/time.txt")
	echo "run $i: fix --stdout wall ${wall}s (user ${user}s, sys ${sys}s), peak RSS ${rss} KiB"
	if [[ -z $best_wall ]] || awk "BEGIN {exit !($wall < $best_wall)}"; then
		best_wall=$wall best_rss=$rss
	fi
done

echo "running OpenClaw's repair through the oracle (this takes a while)" >&2
(cd "$oracle" && ./oracle repair "$file" --no-lines --no-content) >"$dir/oracle.json"
oc_ms=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["elapsedMs"])' "$dir/oracle.json")

python3 - "$bytes" "$best_wall" "$best_rss" "$oc_ms" <<'PY'
import sys
size, wall, rss, oc_ms = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
print(f"file: {size / 2**20:.0f} MiB")
print(f"openclaw-doctor fix --stdout: {wall:.3f} s ({size / 1e6 / wall:.0f} MB/s), peak RSS {rss / 1024:.1f} MiB")
print(f"OpenClaw repairSessionFileIfNeeded: {oc_ms / 1000:.3f} s")
print(f"ratio: {oc_ms / 1000 / wall:.1f}x faster")
PY

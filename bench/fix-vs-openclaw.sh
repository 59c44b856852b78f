#!/usr/bin/env bash
# fix-vs-openclaw.sh: time `openclaw-doctor fix --stdout` against OpenClaw's
# own repair (repairSessionFileIfNeeded, run by the oracle) on the ~200 MiB
# session file of the oracle's gen-small.py, and report our peak RSS.
#
# Usage: bench/fix-vs-openclaw.sh [MiB]    (default 200)
# Env:   OPENCLAW_ORACLE_DIR  oracle folder (default /tmp/oracle)
#        BENCH_DIR            scratch folder (default /tmp/openclaw-doctor-bench)
#        RUNS                 runs of each command, interleaved; medians are reported (default 3)
#        SKIP_ORACLE=1        skip OpenClaw's runs (no ratio, no verdict)
#        BIN                  an openclaw-doctor binary to time (default: built from this tree)
#        BIN_OLD              a second binary, timed in runs interleaved with BIN's; the two
#                             are printed side by side (median wall and CPU, new / old)
#
# OpenClaw's figure is the oracle's elapsedMs: the time spent inside
# repairSessionFileIfNeeded, without Node's start-up or imports. Ours is the
# whole process, start-up included. The target is OpenClaw's time >= 50x
# ours. Two ratios are printed, each with its verdict: elapsedMs against
# our wall time, and OpenClaw's repair CPU time (the oracle process's user
# + system time less that of the same run on a one-line file: Node's
# start-up and imports) against ours (both cores counted). The verdict
# ("target met" / "target not met") is the CPU ratio's: neither side of
# it depends on how busy the machine is, while on a shared machine wall
# times also measure the other tenants.
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

bytes=$(stat -L -c %s "$file")
head -n 1 "$file" >"$dir/one-line.jsonl"
fix() { bench_time "$1" "$2" fix --stdout "$file" || true; } # OUT BIN
run_oracle() { # FILE OUT: one run of OpenClaw's repair on FILE; appends "wall-s cpu-s rss-KiB elapsedMs" to OUT
	(cd "$oracle" && /usr/bin/time -f '%e %U %S %M' -o "$2.time" ./oracle repair "$1" --no-lines --no-content) >"$dir/oracle.json"
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["elapsedMs"])' "$dir/oracle.json" >"$2.ms"
	tail -n 1 "$2.time" | awk -v ms="$(cat "$2.ms")" '{ print $1, $2 + $3, $4, ms }' >>"$2"
}
: >"$dir/new.times"
: >"$dir/old.times"
: >"$dir/oracle.times"
: >"$dir/oracle-base.times"
if [[ -z ${SKIP_ORACLE:-} ]]; then
	echo "running OpenClaw's repair through the oracle $runs times, interleaved with ours (this takes a while)" >&2
fi
for ((i = 1; i <= runs; i++)); do
	if [[ -z ${SKIP_ORACLE:-} ]]; then
		run_oracle "$file" "$dir/oracle.times"
		run_oracle "$dir/one-line.jsonl" "$dir/oracle-base.times"
	fi
	if [[ -n $old && $((i % 2)) -eq 1 ]]; then fix "$dir/old.times" "$old"; fi
	fix "$dir/new.times" "$bin"
	if [[ -n $old && $((i % 2)) -eq 0 ]]; then fix "$dir/old.times" "$old"; fi
	read -r wall cpu rss < <(tail -n 1 "$dir/new.times")
	oc=$(tail -n 1 "$dir/oracle.times")
	echo "run $i: fix --stdout wall ${wall}s (CPU ${cpu}s), peak RSS ${rss} KiB${oc:+; OpenClaw process wall, CPU, RSS, elapsedMs: $oc}"
done
if [[ -n $old ]]; then
	bench_compare "fix --stdout $(basename "$file")" "$dir/old.times" "$dir/new.times"
fi

oc_ms="" oc_cpu="" base_cpu=""
if [[ -s $dir/oracle.times ]]; then
	oc_ms=$(bench_median "$dir/oracle.times" 4)
	oc_cpu=$(bench_median "$dir/oracle.times" 2)
	base_cpu=$(bench_median "$dir/oracle-base.times" 2)
fi
python3 - "$bytes" "$(bench_median "$dir/new.times" 1)" "$(bench_median "$dir/new.times" 2)" \
	"$(cut -d' ' -f3 "$dir/new.times" | sort -n | tail -1)" "$runs" "$oc_ms" "$oc_cpu" "$base_cpu" <<'PY'
import sys
size, wall, cpu, rss, runs = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
target = 50
print(f"file: {size / 2**20:.0f} MiB; medians of {runs} interleaved runs each")
print(f"openclaw-doctor fix --stdout: wall {wall:.3f} s ({size / 1e6 / wall:.0f} MB/s), CPU {cpu:.3f} s (user + system), peak RSS {rss / 1024:.1f} MiB")
if sys.argv[6]:
    oc, oc_cpu = float(sys.argv[6]) / 1000, float(sys.argv[7]) - float(sys.argv[8])
    print(f"OpenClaw repairSessionFileIfNeeded: {oc:.3f} s (elapsedMs); "
          f"CPU {oc_cpu:.2f} s (the process's user + system time less that of the same run on a one-line file)")
    by_wall = oc / wall if wall > 0 else 0
    by_cpu = oc_cpu / cpu if cpu > 0 else 0
    print(f"OpenClaw / ours, wall time: {by_wall:.1f}x (target >= {target}x: {'met' if by_wall >= target else 'not met'})")
    print(f"OpenClaw / ours, CPU time:  {by_cpu:.1f}x (target >= {target}x: {'met' if by_cpu >= target else 'not met'})")
    print(f"target {'met' if by_cpu >= target else 'not met'} (OpenClaw's repair CPU >= {target}x ours)")
PY

#!/usr/bin/env bash
# signal-latency-long.sh [BIN]: signals each long command one second into
# its work on a large generated file and prints how long it took to exit
# after the signal, and its exit status (130 expected). Goal: under 1 s.
source "$(dirname "$0")/hostile-setup.sh"
"$work/gen" dropped 5300000 "$work/garbage.jsonl"
"$work/gen" turn 100000 "$work/turn.jsonl"
trial() { # signal file args...
	local sig=$1 file=$2; shift 2
	cp "$file" "$work/in.jsonl"
	"$bin" "$@" "$work/in.jsonl" >/dev/null 2>&1 &
	local pid=$!
	sleep 1
	local t0 t1
	t0=$(date +%s.%N)
	kill -"$sig" "$pid" 2>/dev/null
	wait "$pid"
	local rc=$?
	t1=$(date +%s.%N)
	local same=changed
	cmp -s "$file" "$work/in.jsonl" && same=unchanged
	printf '%-40s %-4s %6.3f s  exit %d  file %s\n' "$*" "$sig" "$(echo "$t1 - $t0" | bc)" "$rc" "$same"
}
for sig in INT TERM; do
	trial $sig "$work/garbage.jsonl" check
	trial $sig "$work/garbage.jsonl" check --format json
	trial $sig "$work/turn.jsonl" check --provider all
	trial $sig "$work/garbage.jsonl" fix
	trial $sig "$work/garbage.jsonl" fix --stdout
	trial $sig "$work/turn.jsonl" replay --provider anthropic
done

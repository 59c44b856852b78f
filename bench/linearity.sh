#!/usr/bin/env bash
# linearity.sh [BIN]: doubles the size of hostile sessions three times and
# prints, per command, the CPU seconds (user+sys) and peak RSS of each run
# and the time ratio of each doubling. A linear command stays near 2× (the
# goal is ≤ 2.2×); a quadratic one approaches 4×.
#
# Shapes (written by bench/hostilegen):
#   turn       one assistant turn with N tool calls, each answered
#   turn-bare  the same turn without results
#   dropped    N malformed lines after a valid header
# Commands: check, check --provider all, fix --stdout, replay --provider anthropic.
#
# TURN_N (default 12500) and DROPPED_N (default 625000) set the first size.
source "$(dirname "$0")/hostile-setup.sh"
export OPENCLAW_DOCTOR_NOW=2026-01-01T00:00:00Z NO_COLOR=1

commands=("check" "check --provider all" "fix --stdout" "replay --provider anthropic")
measure() { # file args... → "cpu_seconds rss_kb"
	local file=$1; shift
	/usr/bin/time -f "%U %S %M" -o "$work/time" "$bin" "$@" "$file" >/dev/null 2>&1
	tail -n 1 "$work/time" | awk '{printf "%.2f %d\n", $1 + $2, $3}'
}
run_shape() { # shape first_n
	local shape=$1 n0=$2
	for cmd in "${commands[@]}"; do
		local prev="" line="$shape, $cmd:"
		for k in 0 1 2 3; do
			local n=$((n0 << k)) f="$work/$shape.jsonl"
			"$work/gen" "$shape" "$n" "$f"
			read -r cpu rss < <(measure "$f" $cmd)
			line+=$(printf '  N=%d %.2fs %dMB' "$n" "$cpu" $((rss / 1024)))
			if [ -n "$prev" ]; then
				line+=$(awk -v a="$cpu" -v b="$prev" 'BEGIN { if (b < 0.01) b = 0.01; printf " (×%.2f)", a / b }')
			fi
			prev=$cpu
		done
		echo "$line"
	done
}
run_shape turn "${TURN_N:-12500}"
run_shape turn-bare "${TURN_N:-12500}"
run_shape dropped "${DROPPED_N:-625000}"

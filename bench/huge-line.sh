#!/usr/bin/env bash
# huge-line.sh [BIN]: peak RSS of every command on sessions with one huge
# line, against the memory goal: at most 64 MiB + 2× the longest line for
# check and fix, at most the file's size + 2× the longest line for replay
# and check --provider all. For each run it prints the peak RSS, the RSS
# less 2× the line ("over") and the allowance ("goal", 64 MiB or the
# file's size); a run is within the goal when over ≤ goal.
#
# Shapes (written by bench/hostilegen):
#   huge       a user message whose text is N bytes long (valid JSON)
#   huge-bad   the same line cut short (N bytes of malformed JSON)
#
# SIZES (default "100000000 300000000") sets the line lengths in bytes;
# BIN_OLD=/path/to/old-binary adds the old binary's figure next to each
# line, run just before it.
source "$(dirname "$0")/hostile-setup.sh"
export OPENCLAW_DOCTOR_NOW=2026-01-01T00:00:00Z NO_COLOR=1 LC_ALL=C

commands=("check" "check --format json" "check --provider all" "fix --stdout" "fix" "replay --provider anthropic")
rss_kb() { # bin file args... → peak RSS in KiB
	local b=$1 file=$2; shift 2
	/usr/bin/time -f "%M" -o "$work/time" "$b" "$@" "$file" >/dev/null 2>&1
	tail -n 1 "$work/time"
}
measure() { # bin shape cmd... → peak RSS in KiB (fix runs on a fresh copy)
	local b=$1 shape=$2; shift 2
	local f="$work/$shape.jsonl"
	if [ "$1" = fix ] && [ $# -eq 1 ]; then
		cp "$work/$shape.orig" "$f"
	fi
	rss_kb "$b" "$f" "$@"
}
mib() { echo $(($1 / 1048576)); }
for n in ${SIZES:-100000000 300000000}; do
	for shape in huge huge-bad; do
		"$work/gen" "$shape" "$n" "$work/$shape.orig"
		cp "$work/$shape.orig" "$work/$shape.jsonl"
		size=$(stat -c %s "$work/$shape.orig")
		line=$(wc -L <"$work/$shape.orig")
		for cmd in "${commands[@]}"; do
			goal=64
			case $cmd in replay* | *provider*) goal=$(mib "$size") ;; esac
			out=""
			if [ -n "${BIN_OLD:-}" ]; then
				old=$(measure "$BIN_OLD" "$shape" $cmd)
				out+=$(printf '  old %5d MiB over %5d' $((old / 1024)) $(((old * 1024 - 2 * line) / 1048576)))
			fi
			new=$(measure "$bin" "$shape" $cmd)
			out+=$(printf '  new %5d MiB over %5d' $((new / 1024)) $(((new * 1024 - 2 * line) / 1048576)))
			printf '%-9s line %4d MiB  %-28s%s  goal %d\n' "$shape" "$(mib "$line")" "$cmd:" "$out" "$goal"
		done
	done
done

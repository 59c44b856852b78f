#!/bin/sh
# check-vs-cat.sh: how much slower `openclaw-doctor check` is than `cat` on
# the same warm file, and check's peak memory.
#
# Generates a session with the shared generator (gensession -size SIZE
# -seed 1 -images=off -corrupt 0.0001), warms the page cache, then times
# `cat FILE >/dev/null` and `openclaw-doctor check FILE >/dev/null` RUNS
# times each, interleaved, and prints the medians of their wall and CPU
# (user + system) times, the two ratios, whether each meets the target
# (check <= 5x cat) and check's largest peak RSS (budget: 64 MiB + the
# longest line + ~64 bytes per entry). The generated file is deleted on
# exit.
#
# The verdict ("target met" / "target not met") is the CPU ratio's: cat
# from the page cache is one thread whose wall time is its CPU time, and
# check's wall time on a quiet machine is at most its CPU time (its
# workers share it out over the cores), so check CPU <= 5x cat CPU
# guarantees the wall-time target wherever the machine is not shared.
# Wall times on a busy machine also measure the other tenants (cat's more
# than check's): the wall ratio is printed beside it, with its own verdict.
#
# usage: OPENCLAW_GENSESSION_DIR=/path/to/gensession bench/check-vs-cat.sh [SIZE] [RUNS]
#        OPENCLAW_BENCH_FILE=/path/to/session.jsonl bench/check-vs-cat.sh - [RUNS]
#   SIZE defaults to 1G; RUNS to 3. TMPDIR chooses where the file goes.
#   With OPENCLAW_BENCH_FILE an existing file is measured (and kept).
#   BIN is the openclaw-doctor binary to time (default: built from this
#   tree). With BIN_OLD, a second binary is timed too, its runs interleaved
#   with BIN's, and the two are printed side by side (median wall and CPU).
set -eu
cd "$(dirname "$0")/.."
size="${1:-1G}"
runs="${2:-3}"
. bench/compare.sh
work="$(mktemp -d "${TMPDIR:-/tmp}/check-vs-cat.XXXXXX")"
trap 'rm -rf "$work"' EXIT INT TERM
bin=$(bench_binary "$work/openclaw-doctor" .)
old="${BIN_OLD:-}"
if [ -n "${OPENCLAW_BENCH_FILE:-}" ]; then
	file="$OPENCLAW_BENCH_FILE"
else
	gen="${OPENCLAW_GENSESSION_DIR:?set OPENCLAW_GENSESSION_DIR to the gensession generator folder (a Go program), or OPENCLAW_BENCH_FILE to a session file}"
	(cd "$gen" && go run . -size "$size" -seed 1 -images=off -corrupt 0.0001 -o "$work/session.jsonl") >&2
	file="$work/session.jsonl"
fi
bytes=$(wc -c <"$file")
lines=$(wc -l <"$file")
longest=$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$file")
cat "$file" >/dev/null # warm the page cache

check() { # OUT BIN: one timed check run (its findings make it exit 1)
	bench_time "$1" "$2" check --severity-min error "$file" || true
}
: >"$work/cat"
: >"$work/check"
: >"$work/old"
i=0
while [ "$i" -lt "$runs" ]; do
	bench_time "$work/cat" cat "$file" || true
	if [ -n "$old" ] && [ $((i % 2)) -eq 0 ]; then
		check "$work/old" "$old"
		check "$work/check" "$bin"
	elif [ -n "$old" ]; then
		check "$work/check" "$bin"
		check "$work/old" "$old"
	else
		check "$work/check" "$bin"
	fi
	i=$((i + 1))
done

cat_s=$(bench_median "$work/cat" 1)
cat_cpu=$(bench_median "$work/cat" 2)
check_s=$(bench_median "$work/check" 1)
rss_kib=$(cut -d' ' -f3 "$work/check" | sort -n | tail -1)
cpu_s=$(bench_median "$work/check" 2)

awk -v b="$bytes" -v l="$lines" -v ll="$longest" -v c="$cat_s" -v cc="$cat_cpu" -v k="$check_s" -v r="$rss_kib" -v n="$runs" -v u="$cpu_s" 'BEGIN {
	target = 5
	printf "file: %.0f MiB, %d lines, longest line %.1f KiB\n", b / 1048576, l, ll / 1024
	printf "medians of %d interleaved runs each:\n", n
	printf "  cat:   wall %.2f s, CPU %.2f s (user + system)\n", c, cc
	printf "  check: wall %.2f s, CPU %.2f s (user + system), %.0f MB per CPU second\n", k, u, (u > 0 ? b / u / 1e6 : 0)
	wall = (c > 0 ? k / c : 0)
	cpu = (cc > 0 ? u / cc : 0)
	printf "check / cat, wall time: %.1fx (target <= %dx: %s)\n", wall, target, (wall > 0 && wall <= target ? "met" : "not met")
	printf "check / cat, CPU time:  %.1fx (target <= %dx: %s)\n", cpu, target, (cpu > 0 && cpu <= target ? "met" : "not met")
	budget = 64 * 1048576 + ll + 64 * l
	printf "check peak RSS: %.1f MiB (budget %.1f MiB = 64 MiB + longest line + 64 B x %d lines)\n", r / 1024, budget / 1048576, l
	printf "target %s (check CPU <= %dx cat CPU)\n", (cpu > 0 && cpu <= target ? "met" : "not met"), target
}'
if [ -n "$old" ]; then
	bench_compare "check $(basename "$file")" "$work/old" "$work/check"
fi

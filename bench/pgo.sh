#!/usr/bin/env bash
# pgo.sh: refresh default.pgo, the CPU profile `go build` reads from the
# main package's folder to optimize the binary (Go's profile-guided
# optimization: the hot calls of the line scan are inlined, which plain
# builds leave as calls). The profile is taken from the benchmarks of fix's
# first pass and of check on a session of small entries, the per-line work
# both commands spend their time in. The build reads the profile only to
# decide what to inline and where: the binary's behaviour does not depend
# on it, only its speed. Refresh it when the line scan changes much.
#
# Usage: bench/pgo.sh [FILE]   (default: the first 150,000 lines of
#                               $BENCH_DIR/small200.jsonl, see fix-vs-openclaw.sh)
# Env:   BENCH_DIR   scratch folder (default /tmp/openclaw-doctor-bench)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${BENCH_DIR:-/tmp/openclaw-doctor-bench}
file=${1:-}
if [[ -z $file ]]; then
	src="$dir/small200.jsonl"
	if [[ ! -s $src ]]; then
		echo "no $src: run bench/fix-vs-openclaw.sh first, or name a session file" >&2
		exit 2
	fi
	file="$dir/pgo-input.jsonl"
	head -n 150000 "$src" >"$file"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
OPENCLAW_BENCH_FILE=$file go test -run '^$' -bench '^BenchmarkAnalyze$' -benchtime 10x \
	-cpuprofile "$tmp/fix.prof" -o "$tmp/repair.test" ./internal/repair >/dev/null
OPENCLAW_BENCH_FILE=$file go test -run '^$' -bench '^BenchmarkCheck$' -benchtime 5x \
	-cpuprofile "$tmp/check.prof" -o "$tmp/check.test" ./internal/check >/dev/null
go tool pprof -proto "$tmp/fix.prof" "$tmp/check.prof" >"$root/default.pgo"
echo "wrote $root/default.pgo ($(stat -c %s "$root/default.pgo") bytes)"

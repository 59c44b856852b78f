#!/bin/sh
# fix-sigkill.sh: the long run of fix's SIGKILL fault test (docs/safety.md).
#
# Kills `openclaw-doctor fix FILE` at many random points (default 500) and
# checks after each kill that the file is byte-identical to the original or
# to the full repaired output, and that a second fix finishes the job. Also
# runs the concurrent-writer and full-disk fault tests. The summary lines
# (trial counts and outcomes) are printed by the tests themselves.
#
# usage: bench/fix-sigkill.sh [TRIALS]
set -eu
cd "$(dirname "$0")/.."
trials="${1:-500}"
OCD_SIGKILL_TRIALS="$trials" go test -count=1 -timeout 60m -v \
	-run 'TestFix(Survives|Makes|Detects|OnAFull)' .

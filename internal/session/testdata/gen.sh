#!/bin/sh
# gen.sh records, for every conformance case and every case under cases/,
# the context messages OpenClaw 2026.9.6 builds from the file (the oracle's
# `replay --stages` output, stages.context) into context/<case>.json. The
# files are generated, never edited by hand; context_golden_test.go checks
# the Go loader against them.
#
# Usage (from anywhere): ORACLE=/tmp/oracle sh internal/session/testdata/gen.sh [NAME_SUBSTRING]
# ORACLE is the folder of the OpenClaw oracle (tools/oracle, installed).
# A file on which OpenClaw's loader throws is recorded as {"case", "error"}.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
oracle=${ORACLE:?set ORACLE to the installed oracle folder}
filter=${1:-}
mkdir -p "$here/context"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "$here"/../../../testdata/conformance/cases/*.jsonl "$here"/cases/*.jsonl; do
	name=$(basename "$f" .jsonl)
	case "$name" in *"$filter"*) ;; *) continue ;; esac
	f=$(cd "$(dirname "$f")" && pwd)/$(basename "$f")
	status=0
	(cd "$oracle" && ./oracle replay "$f" --provider acme-llm --model-api acme-api --model-id acme-1 \
		--deterministic --stages --no-messages) >"$tmp/out.json" 2>"$tmp/err.txt" || status=$?
	python3 - "$name" "$status" "$tmp/out.json" "$tmp/err.txt" >"$here/context/$name.json" <<'PY'
import json, sys
name, status, out, err = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
if status in (0, 3):  # 3: the replay steps failed after the context was built
    doc = {"case": name, "context": json.load(open(out))["stages"]["context"]}
else:
    lines = [l for l in open(err).read().splitlines() if l.startswith("oracle: ")]
    if not lines:
        sys.exit("oracle failed on %s without a message" % name)
    doc = {"case": name, "error": lines[0][len("oracle: "):]}
json.dump(doc, sys.stdout, indent=2, ensure_ascii=True)
sys.stdout.write("\n")
PY
	echo "$name" >&2
done

#!/usr/bin/env bash
# Rebuilds the committed OpenClaw 2026.9.6 stores and their goldens with
# OpenClaw's own code (see README.md in this folder). Usage:
#   testdata/stores/make.sh ORACLE_DIR
# ORACLE_DIR holds an installed OpenClaw differential oracle (its `oracle`
# wrapper runs OpenClaw 2026.9.6's store import, listing and export). The Go
# tests never run this script; they read only what it commits.
set -euo pipefail
oracle_dir=$(cd "${1:?usage: make.sh ORACLE_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
td=$(cd "$here/.." && pwd)
cases=$td/conformance/cases
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
oracle() { (cd "$oracle_dir" && ./oracle "$@"); }

# multi: two agents. main holds the real corpus session (many zstd rows), a
# branched session, a compacted one and the JSON edge cases (escapes, numbers,
# lone surrogates, duplicate keys); work holds the two examples. Every session
# then gets append-message.json through OpenClaw's runtime append path, which
# stores it as a zstd row.
name=multi
oracle store-make "$work/$name" --deterministic \
  --agent main "$td/corpus/badlogic_pi-mono__packages_coding-agent_test_fixtures_large-session.jsonl" \
    "$cases/62-replay-branches-leaf-row.jsonl" "$cases/63-replay-compaction-and-custom-message.jsonl" \
    "$cases/38-fix-reserialize-escapes-dupkeys.jsonl" "$cases/88-edge-huge-number-and-precision.jsonl" \
    "$cases/86-edge-lone-surrogate-escape.jsonl" "$cases/87-edge-duplicate-keys.jsonl" \
  --agent work "$td/examples/replay-damaged.jsonl" "$td/examples/clean.jsonl" \
  --append "$here/append-message.json" >"$work/$name.make.json"

# Keep only what a reader of the store needs: the agent databases with their
# -wal/-shm side files. The import archives (copies of the input files), the
# migration run log (absolute temp paths) and the global state database are
# left out to keep the fixtures small.
rm -rf "${here:?}/$name"
mkdir -p "$here/$name/golden"
for db in "$work/$name"/agents/*/agent/openclaw-agent.sqlite*; do
  rel=${db#"$work/$name/"}
  mkdir -p "$here/$name/state/$(dirname "$rel")"
  cp "$db" "$here/$name/state/$rel"
done
chmod 0644 "$here/$name"/state/agents/*/agent/*

# Goldens: OpenClaw's listing, and its export of every session window.
oracle store-list "$here/$name/state" --pretty |
  sed "s#\"$here/#\"testdata/stores/#" >"$here/$name/golden/list.json"
python3 - "$here/$name/golden/list.json" >"$work/windows.txt" <<'PY'
import json, sys
for agent in json.load(open(sys.argv[1]))["agents"]:
    for t in agent["transcripts"]:
        print(agent["agentId"], t["sessionId"])
PY
while read -r agent id; do
  mkdir -p "$here/$name/golden/$agent"
  oracle store-export "$here/$name/state" --agent "$agent" --session-id "$id" \
    --no-materialize --out "$here/$name/golden/$agent/$id.jsonl" >"$work/export.json"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["storage"]["linesEqualStoredText"], d' "$work/export.json"
done <"$work/windows.txt"

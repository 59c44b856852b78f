#!/usr/bin/env bash
# Rebuilds the committed OpenClaw 2026.9.6 stores and their goldens with
# OpenClaw's own code (see README.md in this folder). Usage:
#   testdata/stores/make.sh RUNNER_DIR [NAME | NAME/replays]...
# With names, only those stores are rebuilt (NAME: the store and all its
# goldens; NAME/replays: only its replay goldens, from the committed store).
# RUNNER_DIR holds an install of OpenClaw 2026.9.6 with a command-line runner
# around its own code (the `oracle` command there runs OpenClaw's store
# import, listing, export and replay). The Go
# tests never run this script; they read only what it commits.
set -euo pipefail
oracle_dir=$(cd "${1:?usage: make.sh RUNNER_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
td=$(cd "$here/.." && pwd)
cases=$td/conformance/cases
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
oracle() { (cd "$oracle_dir" && ./oracle "$@"); }
only=("${@:2}")
# wanted NAME [replays]: whether this run rebuilds NAME (or its replays).
wanted() {
  [ ${#only[@]} -eq 0 ] && return 0
  local o
  for o in "${only[@]}"; do
    [ "$o" = "$1" ] && return 0
    [ -n "${2:-}" ] && [ "$o" = "$1/replays" ] && return 0
  done
  return 1
}

# store NAME STORE-MAKE-ARGS...: builds testdata/stores/NAME from JSONL files
# with OpenClaw's import, then writes OpenClaw's listing and its export of
# every session window as goldens.
store() {
  local name=$1
  shift
  wanted "$name" || return 0
  oracle store-make "$work/$name" --deterministic "$@" >"$work/$name.make.json"

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
}

# replays NAME KEY VIEW...: OpenClaw's replay of the store session KEY (the
# view the runtime loads before a model call) for every conformance target,
# one golden per VIEW: a context window in tokens (the bounded view of that
# budget), "default" (the model's default window) or "full" (the whole
# branch). Each golden holds every target's final messages or error, and is
# compressed with zstd when large.
replays() {
  local name=$1 key=$2
  shift 2
  wanted "$name" replays || return 0
  for view in "$@"; do
    local out
    out=$here/$name/golden/replay/$(echo "$key" | tr ':' '_').$view.json
    mkdir -p "$(dirname "$out")"
    python3 - "$td/conformance/targets.txt" "$oracle_dir" "$here/$name/state" "$key" "$view" >"$work/golden.json" <<'PY'
import json, subprocess, sys, concurrent.futures as cf
targets, oracle_dir, state, key, view = sys.argv[1:]
jobs = []
for line in open(targets):
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    f = line.split(None, 4)
    args = ["--provider", f[1], "--model-api", f[2], "--model-id", f[3]]
    if len(f) == 5:
        args += ["--policy-json", f[4]]
    if view == "full":
        args += ["--view", "full"]
    elif view != "default":
        args += ["--context-token-budget", view]
    jobs.append((f[0].rstrip(":"), args))
def run(job):
    # A session OpenClaw refuses exits non-zero with its error in the JSON.
    out = subprocess.run(["./oracle", "replay", "--store", state, "--session-key", key, *job[1], "--deterministic"],
                         cwd=oracle_dir, capture_output=True).stdout
    return job[0], json.loads(out)
with cf.ThreadPoolExecutor(2) as pool:  # two OpenClaw processes at a time
    results = list(pool.map(run, jobs))
first = results[0][1]["store"]
fields = ("view", "contextTokenBudget", "limits", "truncated")
golden = {k: first[k] for k in ("agentId", "sessionKey", "sessionId", *fields, "exportLines")}
golden["targets"] = {}
for target, d in results:
    assert all(d["store"][k] == first[k] for k in fields), target
    t = {k: d[k] for k in ("provider", "modelApi", "modelId")}
    if d.get("error") is not None:
        t["error"] = d["error"]
    else:
        t["messages"] = d["messages"]
    golden["targets"][target] = t
print(json.dumps(golden, indent=1, ensure_ascii=False))
PY
    rm -f "$out" "$out.zst"
    if [ "$(stat -c %s "$work/golden.json")" -gt 65536 ]; then
      zstd -q -19 --long=27 "$work/golden.json" -o "$out.zst"
    else
      cp "$work/golden.json" "$out"
    fi
  done
}

# multi: two agents. main holds the real corpus session (many zstd rows), a
# branched session, a compacted one and the JSON edge cases (escapes, numbers,
# lone surrogates, duplicate keys); work holds the two examples. Every session
# then gets append-message.json through OpenClaw's runtime append path, which
# stores it as a zstd row.
store multi \
  --agent main "$td/corpus/badlogic_pi-mono__packages_coding-agent_test_fixtures_large-session.jsonl" \
    "$cases/62-replay-branches-leaf-row.jsonl" "$cases/63-replay-compaction-and-custom-message.jsonl" \
    "$cases/38-fix-reserialize-escapes-dupkeys.jsonl" "$cases/88-edge-huge-number-and-precision.jsonl" \
    "$cases/86-edge-lone-surrogate-escape.jsonl" "$cases/87-edge-duplicate-keys.jsonl" \
  --agent work "$td/examples/replay-damaged.jsonl" "$td/examples/clean.jsonl" \
  --append "$here/append-message.json"

# views: sessions whose bounded view shows how OpenClaw cuts the active
# branch: a compaction (50) cut off and added back, or kept with its first
# kept message cut off; a message excluded from context (67); a tool call
# whose frame the cut splits (45); a header-less legacy transcript (91),
# which the runtime refuses; a v1 transcript without ids (68).
store views \
  --agent main "$cases/50-replay-compaction-stale-signatures.jsonl" "$cases/67-replay-bash-and-custom-roles.jsonl" \
    "$cases/91-edge-headerless.jsonl" "$cases/68-replay-legacy-v1-no-ids.jsonl" \
    "$cases/45-replay-missing-results-synthetic.jsonl" \
  --append "$here/append-message.json"

# reset: a session key that was reset once. Its older window (case 48) is a
# transcript beside the current one (case 61) that sessions.json does not
# reference, named instead as the key's previousSessionId; OpenClaw's import
# keeps it as a window of that key that is no longer current. (--previous
# makes the next FILE such an older window of the file after it.)
store reset \
  --agent main --previous "$cases/48-replay-consecutive-user-merge.jsonl" "$cases/61-replay-trailing-assistant-prefill.jsonl" \
  --append "$here/append-message.json"

# Replay goldens: the zstd-heavy real session (bounded with a small window,
# which truncates it, and with the default one), the branched and the
# compacted sessions, and every session of views.
replays multi agent:main:main 2000 default
replays multi agent:main:62-replay-branches-leaf-row default
replays multi agent:main:63-replay-compaction-and-custom-message default
replays views agent:main:main 1100 1320 full
replays views agent:main:67-replay-bash-and-custom-roles default
replays views agent:main:91-edge-headerless default
replays views agent:main:68-replay-legacy-v1-no-ids default
replays views agent:main:45-replay-missing-results-synthetic 1200

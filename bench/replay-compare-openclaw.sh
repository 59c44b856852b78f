#!/usr/bin/env bash
# replay-compare-openclaw.sh: compare the messages `openclaw-doctor replay`
# prints with the ones OpenClaw's own replay produces (the oracle), message by
# message, on any session file: a large one exercises the segmented replay.
#
# Usage: bench/replay-compare-openclaw.sh FILE [TARGET ...]
#   TARGET is provider/model-api/model-id (default: anthropic, openai
#   responses, google and mistral). mistral gets the policy of OpenClaw's
#   published Mistral plugin, which 2026.9.6 does not bundle (as in the
#   conformance corpus's targets.txt).
# Env:   OPENCLAW_ORACLE_DIR  oracle folder (default /tmp/oracle)
#        BIN                  an openclaw-doctor binary (default: built from this tree)
#
# Both sides run with the clock frozen at 2026-01-01T00:00:00Z (the oracle's
# --deterministic). Exit status 1 when a target differs.
set -euo pipefail

file=${1:?usage: $0 FILE [provider/model-api/model-id ...]}
shift
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
	targets=(anthropic/anthropic-messages/claude-sonnet-4-5 openai/openai-responses/gpt-5
		google/google-generative-ai/gemini-2.5-pro mistral/openai-completions/mistral-large-latest)
fi
oracle=${OPENCLAW_ORACLE_DIR:-/tmp/oracle}
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
bin=${BIN:-}
if [[ -z $bin ]]; then
	bin="$dir/openclaw-doctor"
	(cd "$root" && go build -o "$bin" .)
fi
file=$(cd "$(dirname "$file")" && pwd)/$(basename "$file")

status=0
for t in "${targets[@]}"; do
	IFS=/ read -r provider api model <<<"$t"
	policy=()
	if [[ $provider == mistral ]]; then
		policy=(--policy-json '{"sanitizeToolCallIds":true,"toolCallIdMode":"strict9"}')
	fi
	(cd "$oracle" && ./oracle replay "$file" --provider "$provider" --model-api "$api" --model-id "$model" \
		"${policy[@]}" --deterministic) >"$dir/openclaw.json" 2>/dev/null
	OPENCLAW_DOCTOR_NOW=2026-01-01T00:00:00Z "$bin" replay --format json \
		--provider "$provider" --model-api "$api" --model-id "$model" "$file" >"$dir/ours.json" || true
	python3 - "$t" "$dir/openclaw.json" "$dir/ours.json" <<'PY' || status=1
import json, sys
name, theirs, ours = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
a, b = theirs.get("messages"), ours.get("messages")
if a is None or b is None:
    same = theirs.get("error", {}).get("message") == ours.get("error", {}).get("message")
    print(f"{name}: error {'equal' if same else 'differs'}: {ours.get('error')}")
    sys.exit(0 if same else 1)
diffs = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
ok = not diffs and len(a) == len(b) and theirs["policy"] == ours["policy"]
print(f"{name}: {len(b)} messages (OpenClaw {len(a)}), {len(diffs)} differ, policy {'equal' if theirs['policy'] == ours['policy'] else 'differs'}"
      + (f"; first difference at message {diffs[0]}" if diffs else ""))
sys.exit(0 if ok else 1)
PY
done
exit $status

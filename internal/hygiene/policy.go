package hygiene

// PLACEHOLDER owned by the replay-pipeline (R1) helper: this file is replaced wholesale by the real rule.

import "github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"

var _ = jsonl.Null

// ResolvePolicy returns the default policy until the real resolution lands.
func ResolvePolicy(t Target) Policy {
	return Policy{SanitizeMode: "images-only", RepairToolUseResultPairing: true}
}

package hygiene

// PLACEHOLDER owned by the replay-pipeline (R1) helper: this file is replaced wholesale by the real rule.

// Replay runs every rule in OpenClaw order (not yet: returns msgs unchanged).
func Replay(r *Run, msgs []Message) ([]Message, error) { return msgs, nil }

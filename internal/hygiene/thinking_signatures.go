package hygiene

// PLACEHOLDER owned by the thinking (R3) helper: this file is replaced wholesale by the real rule.

func cleanupThinkingSignatures(r *Run, msgs []Message) []Message { return msgs }

package hygiene

// PLACEHOLDER owned by the thinking (R3) helper: this file is replaced wholesale by the real rule.

func validateGeminiTurns(r *Run, msgs []Message) []Message { return msgs }

func validateAnthropicTurns(r *Run, msgs []Message) []Message { return msgs }

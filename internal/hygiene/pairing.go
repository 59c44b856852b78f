package hygiene

// PLACEHOLDER owned by the tool-calls (R2) helper: this file is replaced wholesale by the real rule.

// pairingOptions selects the synthetic text (default or "aborted").
type pairingOptions struct{ SyntheticText string }

func repairToolResultPairing(r *Run, msgs []Message, opts pairingOptions) []Message { return msgs }

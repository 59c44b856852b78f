package hygiene

// The OpenAI Responses replay (responses/*): what OpenClaw does before it
// sends a history to the Responses family (OpenAI Responses, Codex, xAI), in
// four rules, each in a file of its own: responses/stale-reasoning
// (responses_stale_reasoning.go), responses/call-id (responses_call_id.go),
// responses/downgrade (responses_downgrade.go) and the final check,
// responses/invariant (responses_invariant.go). This file runs the first
// three in OpenClaw's order.

// responsesReplay is step 9 for the Responses family (msgs is returned
// unchanged for other apis): pairing with "aborted" synthetic results (when
// the policy repairs pairing), then, after a recorded model switch, removal
// of the older turns' OpenAI reasoning, then id normalisation, then the
// downgrade of call|fc ids that lost their reasoning item.
func responsesReplay(r *Run, msgs []Message) []Message {
	if !isResponsesAPI(r.Target.ModelAPI) {
		return msgs
	}
	msgs = repairToolResultPairing(r, msgs, pairingOptions{SyntheticText: responsesMissingToolResultText}) // passes 1–3
	r.phase = 4
	if r.ModelSwitched {
		msgs = dropStaleResponsesReasoning(r, msgs, float64(r.ModelSwitchAt))
	}
	r.phase = 5
	msgs = normalizeResponsesToolCallIDs(r, msgs)
	r.phase = 6
	return downgradeUnpairedFunctionCalls(r, msgs)
}

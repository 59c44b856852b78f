package hygiene

// The turns/merge-assistant rule of step 17 (turns.go runs it).

// mergeAssistantTurns appends cur's content to prev's (non-array content
// counts as empty) and takes cur's usage, stopReason and errorMessage when
// they are truthy; every other field is prev's, and the merged message keeps
// prev's line.
func mergeAssistantTurns(r *Run, prev, cur Message, owned bool) Message {
	v := shallowObject(&prev.V)
	v.Set("content", arrayOf(concatContent(prev.V.Get("content"), cur.V.Get("content"), arrayItemsOnly, owned)))
	for _, k := range []string{"usage", "stopReason", "errorMessage"} {
		if f := cur.V.Get(k); f.Truthy() {
			v.Set(k, *f)
		}
	}
	r.Record("turns/merge-assistant", &cur, "merged into the assistant turn before it (line %d)", prev.Line)
	prev.V = v
	return prev
}

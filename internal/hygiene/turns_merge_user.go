package hygiene

import "github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"

// The turns/merge-user rule of step 17 (turns.go runs it).

// mergeUserTurns appends cur's content to prev's (a string becomes one text
// block, other non-arrays count as empty). The result is cur's fields with
// the merged content and timestamp = cur's ?? prev's; it keeps cur's line,
// since its fields are cur's.
func mergeUserTurns(r *Run, prev, cur Message, owned bool) Message {
	v := shallowObject(&cur.V)
	v.Set("content", arrayOf(concatContent(prev.V.Get("content"), cur.V.Get("content"), userContentItems, owned)))
	ts := cur.V.Get("timestamp")
	if ts.IsNull() {
		ts = prev.V.Get("timestamp")
	}
	if ts == nil {
		// {timestamp: undefined} is dropped by JSON.stringify.
		v.Delete("timestamp")
	} else {
		v.Set("timestamp", *ts)
	}
	r.Record("turns/merge-user", &prev, "merged into the user turn after it (line %d)", cur.Line)
	cur.V = v
	return cur
}

// userContentItems returns the blocks of user content for merging: an array
// as it is, a string as one text block, nothing otherwise.
func userContentItems(v *jsonl.Value) []jsonl.Member {
	if s, ok := v.Str(); ok {
		return []jsonl.Member{{Value: textBlock(s)}}
	}
	return arrayItemsOnly(v)
}

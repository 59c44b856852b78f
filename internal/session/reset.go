package session

import "github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"

// resetKept is selectResetKeptEntries over the path entries between the
// reset's firstKeptEntryId and the reset: user and assistant messages, and
// the tool results OpenClaw's pairing classifier gives to a tool call. It
// returns the kept path indices.
func (b *contextBuilder) resetKept() map[int]bool {
	var idx []int
	var msgs []jsonl.Value
	for i := b.firstKept; i < b.boundary; i++ {
		if b.rec(i).typ == TypeMessage {
			idx = append(idx, i)
			msgs = append(msgs, b.loadedMessage(i))
		}
	}
	paired := pairedToolResults(msgs)
	kept := map[int]bool{}
	for k, i := range idx {
		switch Role(&msgs[k]) {
		case RoleUser, RoleAssistant:
			kept[i] = true
		case RoleToolResult:
			kept[i] = paired[k]
		}
	}
	return kept
}

// syntheticMissingResultText is OpenClaw's DEFAULT_MISSING_TOOL_RESULT_TEXT.
const syntheticMissingResultText = "[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair."

// occurrence is one tool call of a frame and the result it got.
type occurrence struct {
	id, name  string
	hasName   bool
	hasResult bool
	synthetic bool // the result is a synthetic missing-result
	source    int  // message index of the result, -1 none
}

// unclaimed is a tool result no call of its frame took.
type unclaimed struct {
	id        string
	synthetic bool
	index     int
}

// frame is an assistant with tool calls and the messages up to the next one.
type frame struct {
	occ       []*occurrence
	unclaimed []unclaimed
}

// pairedToolResults reports, per message, whether it is the source result
// of some tool call in classifyToolUseResultPairing (2026.9.6).
func pairedToolResults(msgs []jsonl.Value) []bool {
	var starts []int
	for i := range msgs {
		if Role(&msgs[i]) == RoleAssistant && HasToolCalls(&msgs[i]) {
			starts = append(starts, i)
		}
	}
	frames := make([]frame, len(starts))
	for f, start := range starts {
		end := len(msgs)
		if f+1 < len(starts) {
			end = starts[f+1]
		}
		frames[f] = classifyFrame(msgs, start, end)
	}
	resolveUnclaimed(frames)
	paired := make([]bool, len(msgs))
	for _, fr := range frames {
		for _, o := range fr.occ {
			if o.source >= 0 {
				paired[o.source] = true
			}
		}
	}
	return paired
}

// classifyFrame claims the results that follow a frame's assistant.
func classifyFrame(msgs []jsonl.Value, start, end int) frame {
	var fr frame
	pending := map[string][]*occurrence{}
	synthetic := map[string][]*occurrence{}
	calls := ToolCalls(&msgs[start])
	for _, c := range calls {
		o := &occurrence{id: c.ID, name: c.Name, hasName: c.HasName, source: -1}
		fr.occ = append(fr.occ, o)
		pending[c.ID] = append(pending[c.ID], o)
	}
	for i := start + 1; i < end; i++ {
		m := &msgs[i]
		if Role(m) != RoleToolResult {
			continue
		}
		id, forcedError := legacyResultID(m, calls)
		syn := isSyntheticResult(m, forcedError)
		if q := pending[id]; id != "" && len(q) > 0 {
			o := q[0]
			pending[id] = q[1:]
			o.hasResult, o.synthetic, o.source = true, syn, i
			if syn {
				synthetic[id] = append(synthetic[id], o)
			}
			continue
		}
		if id == "" || !hasOccurrence(fr.occ, id) {
			fr.unclaimed = append(fr.unclaimed, unclaimed{id: id, synthetic: syn, index: i})
			continue
		}
		if q := synthetic[id]; !syn && len(q) > 0 { // a real result replaces a synthetic one
			o := q[0]
			synthetic[id] = q[1:]
			o.synthetic, o.source = false, i
		}
	}
	return fr
}

func hasOccurrence(occ []*occurrence, id string) bool {
	for _, o := range occ {
		if o.id == id {
			return true
		}
	}
	return false
}

// resolveUnclaimed gives an unclaimed result to the one unresolved call
// (of its frame or an earlier one) with its id, if exactly one fits.
func resolveUnclaimed(frames []frame) {
	unresolved := map[string][]*occurrence{}
	for _, fr := range frames {
		for _, o := range fr.occ {
			if !o.hasResult || o.synthetic {
				unresolved[o.id] = append(unresolved[o.id], o)
			}
		}
		for _, u := range fr.unclaimed {
			if u.id == "" {
				continue
			}
			var cands []*occurrence
			for _, o := range unresolved[u.id] {
				if !o.hasResult || o.synthetic && !u.synthetic {
					cands = append(cands, o)
				}
			}
			if len(cands) == 1 {
				cands[0].hasResult, cands[0].synthetic, cands[0].source = true, u.synthetic, u.index
			}
		}
	}
}

// legacyResultID is extractToolResultId after normalizeLegacyToolResultId:
// a result without any id, in a frame of exactly one call whose name does
// not contradict it, takes that call's id (and isError: true).
func legacyResultID(m *jsonl.Value, calls []ToolCall) (id string, forcedError bool) {
	if id := ToolResultID(m); id != "" || len(calls) != 1 {
		return id, false
	}
	resultName := jsonl.TrimJS(m.Get("toolName").StrOr(""))
	callName := jsonl.TrimJS(calls[0].Name)
	if resultName != "" && callName != "" && resultName != callName {
		return "", false
	}
	return jsonl.TrimJS(calls[0].ID), true
}

// isSyntheticResult is isSyntheticMissingToolResult.
func isSyntheticResult(m *jsonl.Value, forcedError bool) bool {
	if !forcedError && !m.Get("isError").Truthy() {
		return false
	}
	if d := m.Get("details"); (d.IsObject() || d.IsArray()) && d.Get(syntheticDetailKey).IsTrue() {
		return true
	}
	content := m.Get("content")
	if !content.IsArray() {
		return false
	}
	for _, it := range content.Items() {
		b := &it.Value
		if b.IsObject() && b.Get("type").StrOr("") == "text" && b.Get("text").StrOr("\x00") == syntheticMissingResultText {
			return true
		}
	}
	return false
}

const syntheticDetailKey = "openclawSyntheticMissingToolResult"

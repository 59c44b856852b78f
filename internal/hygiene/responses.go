package hygiene

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// OpenAI Responses replay (replay-rules §3.9, OpenClaw
// src/agents/embedded-agent-helpers/openai.ts and sanitizeSessionHistory).

const (
	responsesIDMaxLen   = 64
	responsesIDHashLen  = 10
	responsesCallPrefix = "call_"
	responsesItemPrefix = "fc_"
)

var (
	responsesCallIDRE = regexp.MustCompile(`^call_[A-Za-z0-9_-]{1,59}$`)
	responsesItemIDRE = regexp.MustCompile(`^fc_[A-Za-z0-9_-]{1,61}$`)
)

// responsesReplay is §4 step 9 for the Responses family (msgs is returned
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

// dropStaleResponsesReasoning removes, from assistants older than the model
// switch (timestamp ≤ dropBefore, or no readable timestamp), the thinking
// blocks that carry an OpenAI reasoning item, and falsy blocks. Text blocks
// of such a turn lose their textSignature except its phase. A turn left
// empty is removed.
func dropStaleResponsesReasoning(r *Run, msgs []Message, dropBefore float64) []Message {
	out := make([]Message, 0, len(msgs))
	for _, m := range msgs {
		content := m.V.Get("content")
		if session.Role(&m.V) != session.RoleAssistant || !content.IsArray() {
			out = append(out, m)
			continue
		}
		if ts, ok := timestampMillis(m.V.Get("timestamp")); ok && ts > dropBefore {
			out = append(out, m)
			continue
		}
		items, kept, dropped, changed := withoutReasoningItems(content)
		if !changed {
			out = append(out, m)
			continue
		}
		if len(items) == 0 {
			r.Record("responses/stale-reasoning", &m, "turn from before the model switch held only reasoning: removed")
			continue
		}
		if dropped > 0 {
			r.Record("responses/stale-reasoning", &m, "%d reasoning item(s) from before the model switch removed", dropped)
			stripTextSignatures(items, kept)
		}
		out = append(out, replaceAssistantContent(m, items, kept))
	}
	return out
}

// withoutReasoningItems filters content: falsy blocks and thinking blocks
// with an OpenAI reasoning signature go. kept maps each remaining block to
// its old index.
func withoutReasoningItems(content *jsonl.Value) (items []jsonl.Member, kept []int, dropped int, changed bool) {
	for i, it := range content.Items() {
		b := &it.Value
		switch {
		case !b.Truthy():
			changed = true
		case session.BlockType(b) == "thinking" && isOpenAIReasoningSignature(b.Get("thinkingSignature")):
			changed = true
			dropped++
		default:
			items, kept = append(items, it), append(kept, i)
		}
	}
	return items, kept, dropped, changed
}

// stripTextSignatures removes textSignature from text blocks, re-adding
// (as the last key) only a {"v":1,"phase":…} form of a v1 phase signature.
func stripTextSignatures(items []jsonl.Member, kept []int) {
	for k := range items {
		b := &items[k].Value
		if session.BlockType(b) != "text" || !b.Has("textSignature") {
			continue
		}
		phase := textSignaturePhase(b.Get("textSignature"))
		nb := shallowObject(b)
		nb.Delete("textSignature")
		if phase != "" {
			nb.Set("textSignature", jsonl.StringValue(`{"v":1,"phase":"`+phase+`"}`))
		}
		items[k].Value, kept[k] = nb, -1
	}
}

// textSignaturePhase returns the phase of a v1 text signature
// ({"v":1,"phase":"commentary"|"final_answer"}), or "". OpenClaw throws a
// TypeError on a non-string signature; it is treated here as one without
// a phase.
func textSignaturePhase(sig *jsonl.Value) string {
	s, ok := sig.Str()
	if !ok || !strings.HasPrefix(s, "{") {
		return ""
	}
	v, err := jsonl.Parse([]byte(s))
	if err != nil {
		return ""
	}
	if f, ok := v.Get("v").Float(); !ok || f != 1 {
		return ""
	}
	switch p := v.Get("phase").StrOr(""); p {
	case "commentary", "final_answer":
		return p
	}
	return ""
}

// isOpenAIReasoningSignature reports a thinkingSignature naming an OpenAI
// reasoning item: an object, or a string holding a JSON object, with an id
// starting rs_ and type reasoning or reasoning.*.
func isOpenAIReasoningSignature(sig *jsonl.Value) bool {
	if !sig.Truthy() {
		return false
	}
	candidate := sig
	if s, ok := sig.Str(); ok {
		t := jsonl.TrimJS(s)
		if !strings.HasPrefix(t, "{") || !strings.HasSuffix(t, "}") {
			return false
		}
		v, err := jsonl.Parse([]byte(t))
		if err != nil {
			return false
		}
		candidate = &v
	} else if !sig.IsObject() && !sig.IsArray() {
		return false
	}
	id := candidate.Get("id").StrOr("")
	typ := candidate.Get("type").StrOr("")
	return strings.HasPrefix(id, "rs_") && (typ == "reasoning" || strings.HasPrefix(typ, "reasoning."))
}

// normalizeResponsesToolCallIDs rewrites call ids (and call|item pairs)
// that OpenAI Responses would reject into valid ones, and the ids of the
// results that answer them. The same raw id always maps to the same id.
func normalizeResponsesToolCallIDs(r *Run, msgs []Message) []Message {
	cache := map[string]string{}
	resolve := func(id string) string {
		if next, ok := cache[id]; ok {
			return next
		}
		if !responsesIDNeedsNormalizing(id) {
			return id
		}
		next := normalizeResponsesFunctionCallID(id)
		cache[id] = next
		return next
	}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = m
		switch session.Role(&m.V) {
		case session.RoleAssistant:
			out[i] = mapAssistantCallIDs(r, "responses/call-id", m, func(id string, _ bool) string { return resolve(id) })
		case session.RoleToolResult:
			out[i], _ = rewriteResultIDs(r, "responses/call-id", m, resolve)
		}
	}
	return out
}

// mapAssistantCallIDs maps the string id of every toolCall/toolUse/
// functionCall block through next (given the id and whether a thinking block
// with an OpenAI reasoning signature came earlier in the turn), keeping any
// compaction checkpoint consistent.
func mapAssistantCallIDs(r *Run, rule string, m Message, next func(id string, afterReasoning bool) string) Message {
	content := m.V.Get("content")
	if !content.IsArray() {
		return m
	}
	var items []jsonl.Member
	var kept []int
	afterReasoning := false
	for i, it := range content.Items() {
		b := &it.Value
		t := session.BlockType(b)
		if t == "thinking" && isOpenAIReasoningSignature(b.Get("thinkingSignature")) {
			afterReasoning = true
		}
		id, ok := b.GetStr("id")
		if !session.IsToolCallType(t) || !ok {
			continue
		}
		nid := next(id, afterReasoning)
		if nid == id {
			continue
		}
		if items == nil {
			items = append([]jsonl.Member(nil), content.Items()...)
			kept = make([]int, len(items))
			for k := range kept {
				kept[k] = k
			}
		}
		nb := shallowObject(b)
		nb.Set("id", jsonl.StringValue(nid))
		items[i].Value, kept[i] = nb, -1
		r.Record(rule, &m, "%s → %s", id, nid)
	}
	if items == nil {
		return m
	}
	return replaceAssistantContent(m, items, kept)
}

// splitResponsesCallID splits "call|item" at the first "|" when both sides
// are non-empty; otherwise the whole id is the call id.
func splitResponsesCallID(id string) (callID, itemID string, paired bool) {
	sep := strings.IndexByte(id, '|')
	if sep <= 0 || sep >= len(id)-1 {
		return id, "", false
	}
	return id[:sep], id[sep+1:], true
}

func responsesIDNeedsNormalizing(id string) bool {
	callID, itemID, paired := splitResponsesCallID(id)
	if !responsesCallIDRE.MatchString(callID) {
		return true
	}
	return paired && !responsesItemIDRE.MatchString(itemID)
}

// normalizeResponsesFunctionCallID rebuilds an invalid id. The call part is
// rebuilt from the whole id (so a valid call part paired with an invalid
// item part changes too); the item part from itself.
func normalizeResponsesFunctionCallID(id string) string {
	_, itemID, paired := splitResponsesCallID(id)
	callID := normalizeResponsesIDPart(id, responsesCallPrefix, responsesCallIDRE)
	if !paired {
		return callID
	}
	return callID + "|" + normalizeResponsesIDPart(itemID, responsesItemPrefix, responsesItemIDRE)
}

// normalizeResponsesIDPart returns the trimmed value when valid, else
// prefix + sanitized tail + "_" + 10 hex of SHA-256(trimmed value), at most
// 64 characters.
func normalizeResponsesIDPart(value, prefix string, valid *regexp.Regexp) string {
	trimmed := jsonl.TrimJS(value)
	if valid.MatchString(trimmed) {
		return trimmed
	}
	rawTail := strings.TrimPrefix(trimmed, prefix)
	hashed := trimmed
	if hashed == "" {
		hashed = prefix
	}
	suffix := "_" + sha256Hex(hashed)[:responsesIDHashLen]
	maxTail := responsesIDMaxLen - len(prefix)
	tail := truncate(sanitizeResponsesIDTail(rawTail), max(1, maxTail-len(suffix)))
	if tail == "" {
		tail = "id"
	}
	return prefix + truncate(tail+suffix, maxTail)
}

// sanitizeResponsesIDTail replaces every UTF-16 code unit outside
// [A-Za-z0-9_-] by "_" (so a character outside the BMP gives "__") and
// trims leading and trailing "_".
func sanitizeResponsesIDTail(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-':
			b.WriteByte(c)
			i++
		case c < 0x80:
			b.WriteByte('_')
			i++
		default:
			n := utf8SeqLen(c)
			if n == 4 {
				b.WriteString("__")
			} else {
				b.WriteByte('_')
			}
			i += n
		}
	}
	return strings.Trim(b.String(), "_")
}

// utf8SeqLen is the length of the (WTF-8) sequence led by c, 1 for a stray
// continuation byte.
func utf8SeqLen(c byte) int {
	switch {
	case c >= 0xF0:
		return 4
	case c >= 0xE0:
		return 3
	case c >= 0xC0:
		return 2
	}
	return 1
}

// downgradeUnpairedFunctionCalls reduces a "call|fc_…" id to its call part
// when no thinking block with an OpenAI reasoning signature precedes the
// call in its turn (OpenAI rejects an fc item without its reasoning item),
// and rewrites toolCallId/toolUseId of the results directly following the
// turn the same way.
func downgradeUnpairedFunctionCalls(r *Run, msgs []Message) []Message {
	var rewritten map[string]string
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = m
		role := session.Role(&m.V)
		switch {
		case role == session.RoleAssistant && m.V.Get("content").IsArray():
			local := map[string]string{}
			out[i] = mapAssistantCallIDs(r, "responses/downgrade", m, func(id string, afterReasoning bool) string {
				callID, itemID, paired := splitResponsesCallID(id)
				if afterReasoning || !paired || !strings.HasPrefix(itemID, responsesItemPrefix) {
					return id
				}
				local[id] = callID
				return callID
			})
			rewritten = nil
			if len(local) > 0 {
				rewritten = local
			}
		case role == session.RoleToolResult && rewritten != nil:
			out[i] = downgradeResultIDs(r, m, rewritten)
		default:
			rewritten = nil
		}
	}
	return out
}

// downgradeResultIDs applies the turn's id reductions to a result's
// toolCallId and toolUseId (the only fields OpenClaw rewrites here).
func downgradeResultIDs(r *Run, m Message, rewritten map[string]string) Message {
	var v jsonl.Value
	changed := false
	for _, k := range []string{"toolCallId", "toolUseId"} {
		id, ok := m.V.GetStr(k)
		next := rewritten[id]
		if !ok || next == "" || next == id {
			continue
		}
		if !changed {
			v, changed = shallowObject(&m.V), true
		}
		v.Set(k, jsonl.StringValue(next))
		r.Record("responses/downgrade", &m, "%s → %s", id, next)
	}
	if changed {
		m.V = v
	}
	return m
}

// responsesInvariant is OpenClaw's final check for Responses replays (§3.9d):
// every tool call must be answered by results directly after its turn, and
// every result must answer a pending call. It returns OpenClaw's error for
// the first violation, nil when the list is valid.
func responsesInvariant(msgs []Message) error {
	type pendingCall struct{ order, index int }
	pending := map[string]*pendingCall{}
	order := 0
	dangling := func() error {
		id, first := "", (*pendingCall)(nil)
		for k, p := range pending {
			if first == nil || p.order < first.order {
				id, first = k, p
			}
		}
		return replayInvariantError("dangling_tool_call", id, first.index)
	}
	for i := range msgs {
		v := &msgs[i].V
		role := session.Role(v)
		if len(pending) > 0 && role != session.RoleToolResult {
			return dangling()
		}
		switch role {
		case session.RoleToolResult:
			id := session.ToolResultID(v)
			if id == "" || pending[id] == nil {
				return replayInvariantError("orphan_tool_result", id, i)
			}
			delete(pending, id)
		case session.RoleAssistant:
			for _, c := range session.ToolCalls(v) {
				if p := pending[c.ID]; p != nil {
					p.index = i
					continue
				}
				pending[c.ID] = &pendingCall{order: order, index: i}
				order++
			}
		}
	}
	if len(pending) > 0 {
		return dangling()
	}
	return nil
}

// replayInvariantError formats OpenClaw's invalid_replay_transcript error.
func replayInvariantError(kind, toolCallID string, index int) error {
	id := ""
	if toolCallID != "" {
		id = " toolCallId=" + toolCallID
	}
	return fmt.Errorf("invalid_replay_transcript: OpenAI Responses replay contains %s%s at message index %d", kind, id, index)
}

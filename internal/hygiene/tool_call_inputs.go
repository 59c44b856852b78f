package hygiene

import (
	"strings"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// Tool-call input validation (docs/replay.md; OpenClaw's
// repairToolCallInputs). It runs for
// every target (step 8); only the signed-thinking preservation depends on
// the policy. OpenClaw's optional tool allow-list is not modelled: replay
// has none, so every syntactically valid name is allowed.

const toolCallNameMaxChars = 64

// toolCallNameByte marks the bytes a tool-call name may hold:
// [A-Za-z0-9_:.-] (a test per byte instead of a regular expression: every
// tool call of a session is checked).
var toolCallNameByte = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == ':' || c == '.' || c == '-'
	}
	return t
}()

// toolCallBlockIDKeys are the fields any of which gives a tool-call block an
// id for input validation.
var toolCallBlockIDKeys = []string{"call_id", "tool_call_id", "toolCallId", "tool_use_id", "toolUseId", "id"}

// sanitizeToolCallInputs drops tool-call blocks that cannot be replayed (no
// input, no id, an invalid name, an unfinished partialJson), trims names,
// removes assistant turns left empty, and removes non-object messages.
// Assistant turns with thinking and tool calls are kept whole or removed
// whole when the target replays signed thinking (see
// allowsProviderOwnedThinkingReplay). Messages it keeps unchanged are
// returned as they were; changed ones are copies.
func sanitizeToolCallInputs(r *Run, msgs []Message) []Message {
	allowThinking := allowsProviderOwnedThinkingReplay(r)
	r.seg.checkHead(msgs, "tool-call input validation")
	// The ids of the signed-thinking turns and of every tool call kept so
	// far: of this list only, in a segmented replay too (a tool id on both
	// sides of a cut is a hazard).
	preserved, prior := map[string]bool{}, map[string]bool{}
	// out stays nil while the output is msgs[:i]; the first message removed
	// or changed starts it as a copy of that prefix.
	var out []Message
	diverge := func(i int) {
		if out == nil {
			out = append(make([]Message, 0, len(msgs)), msgs[:i]...)
		}
	}
	keepAsIs := func(m Message) {
		if out != nil {
			out = append(out, m)
		}
	}
	for i := range msgs {
		m := msgs[i]
		if !m.V.IsObject() {
			r.Record("tool-call-inputs/non-object", &m, "message is %s, not an object: removed", m.V.Kind())
			diverge(i)
			continue
		}
		content := m.V.Get("content")
		if session.Role(&m.V) != session.RoleAssistant || !content.IsArray() {
			keepAsIs(m)
			continue
		}
		if allowThinking && hasThinkingBlock(content) && countContractToolCalls(content) > 0 {
			if keepSignedThinkingTurn(msgs, i, preserved, prior) {
				keepAsIs(m)
			} else {
				r.Record("tool-call-inputs/signed-thinking-turn", &m,
					"signed-thinking turn with %d tool call(s) cannot be replayed verbatim: removed", countContractToolCalls(content))
				diverge(i)
			}
			continue
		}
		next, keep, changed := sanitizeAssistantToolCalls(r, m)
		if !keep {
			diverge(i)
			continue
		}
		if allowThinking { // prior is read only for signed-thinking turns
			for _, c := range session.ToolCalls(&next.V) {
				prior[c.ID] = true
			}
		}
		if changed {
			diverge(i)
			out = append(out, next)
			continue
		}
		keepAsIs(m)
	}
	if out == nil {
		return msgs
	}
	return out
}

// sanitizeAssistantToolCalls validates the tool-call blocks of one assistant
// message. It reports false when the message lost every block, and whether
// the message it returns is a changed copy.
func sanitizeAssistantToolCalls(r *Run, m Message) (next Message, keep, changed bool) {
	content := m.V.Get("content")
	all := content.Items()
	// The new content, built once a block changes: until then every block
	// was kept as it is, so the list starts as all[:i].
	var items []jsonl.Member
	var kept []int // original index of each unchanged block, -1 when changed
	change := func(i int) {
		if changed {
			return
		}
		changed = true
		items, kept = make([]jsonl.Member, 0, len(all)), make([]int, 0, len(all))
		for j := 0; j < i; j++ {
			items, kept = append(items, all[j]), append(kept, j)
		}
	}
	for i, it := range all {
		b := &it.Value
		if !isContractToolCallBlock(b) {
			if changed {
				items, kept = append(items, it), append(kept, i)
			}
			continue
		}
		if why := toolCallDropReason(&m.V, b); why != "" {
			r.Record("tool-call-inputs/"+why, &m, "tool call %s dropped: %s", describeToolCall(b), dropReasonText[why])
			change(i)
			continue
		}
		nb, modified := *b, false
		if nb.Get("partialJson").IsString() {
			nb, modified = shallowObject(b), true
			nb.Delete("partialJson")
			r.Record("tool-call-inputs/partial-json-stripped", &m, "finalised Responses call %s: partialJson removed", describeToolCall(b))
		}
		if name, ok := nb.GetStr("name"); ok && toolNameNeedsTrim(&nb) && jsonl.TrimJS(name) != "" {
			if !modified {
				nb, modified = shallowObject(b), true
			}
			nb.Set("name", jsonl.StringValue(jsonl.TrimJS(name)))
			r.Record("tool-call-inputs/name-trimmed", &m, "tool name %q trimmed", name)
		}
		if modified {
			change(i)
			items, kept = append(items, jsonl.Member{Value: nb}), append(kept, -1)
			continue
		}
		if changed {
			items, kept = append(items, it), append(kept, i)
		}
	}
	if !changed {
		return m, true, false
	}
	if len(items) == 0 {
		r.Record("tool-call-inputs/empty-turn", &m, "assistant turn left without content: removed")
		return m, false, true
	}
	return replaceAssistantContent(m, items, kept), true, true
}

// dropReasonText explains each tool-call-inputs drop rule.
var dropReasonText = map[string]string{
	"missing-input": "neither input nor arguments",
	"missing-id":    "no id",
	"invalid-name":  "name missing, too long or not [A-Za-z0-9_:.-]",
	"partial-json":  "unfinished streamed call (partialJson)",
}

// toolCallDropReason returns the rule a tool-call block breaks ("" = keep).
func toolCallDropReason(msg, b *jsonl.Value) string {
	switch {
	case !hasToolCallInput(b):
		return "missing-input"
	case !hasToolCallBlockID(b):
		return "missing-id"
	case !isAllowedToolCallName(b.Get("name")):
		return "invalid-name"
	case b.Get("partialJson").IsString() && !isFinalizedResponsesCall(msg, b):
		return "partial-json"
	}
	return ""
}

// describeToolCall names a block for change details: its id, or its name.
func describeToolCall(b *jsonl.Value) string {
	if id, ok := b.GetStr("id"); ok && id != "" {
		return id
	}
	if name, ok := b.GetStr("name"); ok {
		return "(" + name + ")"
	}
	return "(unnamed)"
}

// isContractToolCallBlock reports an object block of one of the six
// tool-call types OpenClaw's block contract knows.
func isContractToolCallBlock(b *jsonl.Value) bool {
	return session.IsExtendedToolCallType(session.BlockType(b))
}

func countContractToolCalls(content *jsonl.Value) int {
	n := 0
	for _, it := range content.Items() {
		if isContractToolCallBlock(&it.Value) {
			n++
		}
	}
	return n
}

func hasThinkingBlock(content *jsonl.Value) bool {
	for _, it := range content.Items() {
		if session.IsThinkingType(session.BlockType(&it.Value)) {
			return true
		}
	}
	return false
}

// hasToolCallInput reports a non-null input or arguments ({} counts).
func hasToolCallInput(b *jsonl.Value) bool {
	return !b.Get("input").IsNull() || !b.Get("arguments").IsNull()
}

// hasToolCallBlockID reports a non-blank string among toolCallBlockIDKeys.
func hasToolCallBlockID(b *jsonl.Value) bool {
	for _, k := range toolCallBlockIDKeys {
		if s, ok := b.GetStr(k); ok && !jsonl.IsBlankJS(s) {
			return true
		}
	}
	return false
}

// isAllowedToolCallName reports a string name that, trimmed, is 1–64
// characters of [A-Za-z0-9_:.-].
func isAllowedToolCallName(name *jsonl.Value) bool {
	s, ok := name.Str()
	if !ok {
		return false
	}
	s = jsonl.TrimJS(s)
	if s == "" || len(s) > toolCallNameMaxChars {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !toolCallNameByte[s[i]] {
			return false
		}
	}
	return true
}

// isFinalizedResponsesCall reports a streamed OpenAI Responses call that
// completed: the turn stopped for tool use, the id is "call|item" with both
// sides non-empty, there is no input key, arguments is a non-empty-or-{}
// object, and partialJson holds a JSON object (or is blank with arguments {}).
// Such a call keeps its arguments and only loses partialJson.
func isFinalizedResponsesCall(msg, b *jsonl.Value) bool {
	if msg.Get("stopReason").StrOr("") != "toolUse" || b.Has("input") {
		return false
	}
	partial, ok := b.GetStr("partialJson")
	id, idOK := b.GetStr("id")
	args := b.Get("arguments")
	if !ok || !idOK || !args.IsObject() {
		return false
	}
	if !isJSONObjectText(partial) && (!jsonl.IsBlankJS(partial) || args.Len() > 0) {
		return false
	}
	sep := strings.IndexByte(id, '|')
	return sep > 0 && sep < len(id)-1
}

// isJSONObjectText is OpenClaw's safeParseJsonRecord check: optional JSON
// whitespace, "{", and the whole text parses as an object.
func isJSONObjectText(s string) bool {
	t := strings.TrimLeft(s, "\t\n\r ")
	if !strings.HasPrefix(t, "{") {
		return false
	}
	v, err := jsonl.Parse([]byte(s))
	return err == nil && v.IsObject()
}

// keepSignedThinkingTurn decides, for an assistant turn with thinking and
// tool calls at msgs[i], whether it is replayed verbatim (true) or removed
// whole: every call must pass validation without changes, its id must be
// new among kept signed turns, a sessions_spawn turn with attachments must
// have every result before the next tool-calling turn, and a turn whose
// results are displaced must not reuse an earlier call's id.
func keepSignedThinkingTurn(msgs []Message, i int, preserved, prior map[string]bool) bool {
	m := &msgs[i].V
	content := m.Get("content")
	if !isReplaySafeThinkingTurn(content) {
		return false
	}
	calls := session.ToolCalls(m)
	ids, displaced := followingToolResults(msgs, i, calls)
	spawn := hasSessionsSpawnAttachments(content)
	for _, c := range calls {
		if preserved[c.ID] || spawn && !ids[c.ID] || displaced && prior[c.ID] {
			return false
		}
	}
	for _, c := range calls {
		preserved[c.ID] = true
		prior[c.ID] = true
	}
	return true
}

// isReplaySafeThinkingTurn checks the turn's tool-call blocks (all six
// types): input present, no partialJson, a trimmed id unique in the turn, a
// valid name that needs no trimming.
func isReplaySafeThinkingTurn(content *jsonl.Value) bool {
	sawCall := false
	seen := map[string]bool{}
	for _, it := range content.Items() {
		b := &it.Value
		if !isContractToolCallBlock(b) {
			continue
		}
		sawCall = true
		id := jsonl.TrimJS(b.Get("id").StrOr(""))
		if !hasToolCallInput(b) || b.Get("partialJson").IsString() || id == "" || seen[id] ||
			!isAllowedToolCallName(b.Get("name")) || toolNameNeedsTrim(b) {
			return false
		}
		seen[id] = true
	}
	return sawCall
}

// hasSessionsSpawnAttachments reports a sessions_spawn call whose input has
// a non-empty attachments array.
func hasSessionsSpawnAttachments(content *jsonl.Value) bool {
	for _, it := range content.Items() {
		b := &it.Value
		if !isContractToolCallBlock(b) || b.Get("name").StrOr("") != "sessions_spawn" {
			continue
		}
		if att := b.Get("input").Get("attachments"); att.IsArray() && att.Len() > 0 {
			return true
		}
	}
	return false
}

// followingToolResults collects the result ids after msgs[i] up to the next
// tool-calling assistant, and whether any result comes after a message that
// is not a result (OpenClaw's collectFollowingToolResults).
func followingToolResults(msgs []Message, i int, calls []session.ToolCall) (map[string]bool, bool) {
	ids := map[string]bool{}
	sawOther, displaced := false, false
	for _, next := range msgs[i+1:] {
		v := &next.V
		if !v.IsObject() {
			sawOther = true
			continue
		}
		switch session.Role(v) {
		case session.RoleAssistant:
			if session.HasToolCalls(v) {
				return ids, displaced
			}
		case session.RoleToolResult:
			resultIDs := toolResultIDs(v)
			if len(resultIDs) == 0 && legacyResultCall(v, calls) != nil {
				// A result without an id answers the turn's only call.
				if id := jsonl.TrimJS(calls[0].ID); id != "" {
					resultIDs = []string{id}
				}
			}
			for _, id := range resultIDs {
				ids[id] = true
			}
			displaced = displaced || len(resultIDs) > 0 && sawOther
			continue
		}
		sawOther = true
	}
	return ids, displaced
}

// toolResultIDs returns the distinct trimmed non-empty ids of a toolResult
// among session.ToolResultIDKeys, in that order.
func toolResultIDs(v *jsonl.Value) []string {
	var ids []string
	for _, k := range session.ToolResultIDKeys {
		s, ok := v.GetStr(k)
		if !ok {
			continue
		}
		if id := jsonl.TrimJS(s); id != "" && !containsString(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// allowsProviderOwnedThinkingReplay is OpenClaw's
// shouldAllowProviderOwnedThinkingReplay: an Anthropic-like api with
// Anthropic turn validation, signatures owned by the provider (the policy
// preserves them, or the provider always signs thinking) and thinking not
// dropped. Such targets replay signed thinking turns verbatim.
func allowsProviderOwnedThinkingReplay(r *Run) bool {
	p := r.Policy
	return isAnthropicAPI(r.Target.ModelAPI) && p.ValidateAnthropicTurns && !p.DropThinkingBlocks &&
		(p.PreserveSignatures || providerRequiresSignedThinking(r.Target.Provider))
}

// replaceAssistantContent gives an assistant message new content, keeping
// a prefix-bound compaction checkpoint in providerReplay consistent the way
// OpenClaw's replaceCompactionReplayOwnerContent does. kept[i] is the index
// in the old content of items[i] when that block is unchanged, -1 when it
// is new or modified.
func replaceAssistantContent(m Message, items []jsonl.Member, kept []int) Message {
	old := m.V.Get("content")
	oldLen := old.Len()
	next := withContent(m, items)
	replay := m.V.Get("providerReplay")
	kind := replay.Get("type").StrOr("")
	if !replay.IsObject() || !compactionCheckpointTypes[kind] || kind == "openai-responses-retained-compaction" {
		return next
	}
	replayIndex, ok := checkpointReplayIndex(replay)
	if !ok || len(items) == 0 && oldLen > 0 || replayIndex > float64(oldLen) {
		next.V.Delete("providerReplay")
		return next
	}
	var within float64
	for _, k := range kept {
		if k < 0 {
			next.V.Delete("providerReplay")
			return next
		}
		if float64(k) < replayIndex {
			within++
		}
	}
	if within != replayIndex {
		nr := shallowObject(replay)
		nr.Set("replayIndex", jsonl.IntValue(int64(within)))
		next.V.Set("providerReplay", nr)
	}
	return next
}

// compactionCheckpointTypes are the providerReplay types that bind the
// message's content prefix.
var compactionCheckpointTypes = map[string]bool{
	"anthropic-compaction":                 true,
	"openai-responses-compaction":          true,
	"openai-responses-retained-compaction": true,
}

// checkpointReplayIndex reads providerReplay.replayIndex (absent or null =
// 0). A non-number index is reported as not ok, which drops the checkpoint
// (OpenClaw would compare it with JavaScript coercion; none is ever written).
func checkpointReplayIndex(replay *jsonl.Value) (float64, bool) {
	v := replay.Get("replayIndex")
	if v.IsNull() {
		return 0, true
	}
	return v.Float()
}

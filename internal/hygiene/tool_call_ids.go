package hygiene

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// Tool-call id rewriting (docs/replay.md; OpenClaw's
// sanitizeToolCallIdsForCloudCodeAssist). It runs after pairing (step 10),
// so every call has exactly the results pairing gave it; the resolver still
// matches results to calls by raw id and occurrence, as OpenClaw does.

// Tool-call id modes of Policy.ToolCallIDMode.
const (
	toolCallIDModeStrict  = "strict"
	toolCallIDModeStrict9 = "strict9"
)

const (
	strict9Len      = 9
	strictMaxLen    = 40
	uniqueAttempts  = 1000
	openAIHashChars = 24
)

var nativeKimiToolCallIDRE = regexp.MustCompile(`^functions\.[A-Za-z0-9_-]+:\d+$`)

// isNativeAnthropicToolUseID matches /^toolu_[A-Za-z0-9_]+$/ (checked for
// every tool call: by hand, not by the regexp engine).
func isNativeAnthropicToolUseID(id string) bool {
	rest, ok := strings.CutPrefix(id, "toolu_")
	return ok && rest != "" && allIDChars(rest, false)
}

// isOpenAIToolCallID matches /^call_[A-Za-z0-9_-]+$/.
func isOpenAIToolCallID(id string) bool {
	rest, ok := strings.CutPrefix(id, "call_")
	return ok && rest != "" && allIDChars(rest, true)
}

// allIDChars reports that s holds only ASCII letters, digits and "_" (and
// "-" with dash).
func allIDChars(s string, dash bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || dash && c == '-') {
			return false
		}
	}
	return true
}

// toolResultAliasFields are the id fields of a toolResult message that the id
// rewrites keep aligned, in the order OpenClaw visits them.
var toolResultAliasFields = []string{"toolCallId", "toolUseId", "tool_call_id", "tool_use_id", "callId", "call_id"}

// toolResultPrimaryFields is the order in which the id rewrites pick the raw id
// a toolResult answers (note: not the pairing's order).
var toolResultPrimaryFields = []string{"call_id", "callId", "tool_call_id", "tool_use_id", "toolCallId", "toolUseId"}

// rewriteToolCallIDs rewrites tool-call ids to the policy's strict or strict9
// form and keeps every toolResult's id fields on the id of the call it
// answers. It applies only when the policy sets sanitizeToolCallIds with a
// mode and the api is not of the Responses family (those use responses/call-id instead);
// otherwise msgs is returned unchanged. Assistant turns that replay signed
// thinking verbatim (see signedThinkingTurnsKeepIDs) keep their ids.
func rewriteToolCallIDs(r *Run, msgs []Message) []Message {
	p := r.Policy
	if !p.SanitizeToolCallIDs || p.ToolCallIDMode == "" || isResponsesAPI(r.Target.ModelAPI) {
		return msgs
	}
	var preserved map[int]bool
	var reserved []string
	if allowsProviderOwnedThinkingReplay(r) {
		preserved, reserved = signedThinkingTurnsKeepingIDs(msgs)
	}
	res := r.seg.idResolver()
	if res == nil {
		res = newToolIDResolver(p.ToolCallIDMode, p.PreserveNativeAnthropicToolUseIDs, p.DuplicateToolCallIDStyle, r.seg.idTable(), reserved)
		r.seg.keepResolver(res)
	} else {
		res.startList()
		r.seg.reserveIDs(res, reserved)
	}
	rule := "tool-call-ids/" + p.ToolCallIDMode
	var out []Message // a copy of msgs once a message changes
	for i, m := range msgs {
		var changed bool
		switch session.Role(&m.V) {
		case session.RoleAssistant:
			if preserved[i] {
				for _, c := range session.ToolCalls(&m.V) {
					res.preserveAssistantID(c.ID)
				}
				continue
			}
			m, changed = rewriteAssistantCallIDs(r, rule, m, res.resolveAssistantID)
		case session.RoleToolResult:
			m, changed = rewriteResultIDs(r, rule, m, res.resolveToolResultID)
		}
		if changed {
			if out == nil {
				out = slices.Clone(msgs)
			}
			out[i] = m
		}
	}
	if out == nil {
		return msgs
	}
	return out
}

// rewriteAssistantCallIDs maps the id of every toolCall/toolUse/functionCall
// block with a non-empty string id through resolve, in content order, and
// reports whether an id changed (m is never modified).
func rewriteAssistantCallIDs(r *Run, rule string, m Message, resolve func(string) string) (Message, bool) {
	content := m.V.Get("content")
	if !content.IsArray() {
		return m, false
	}
	var items []jsonl.Member
	for i, it := range content.Items() {
		b := &it.Value
		if !session.IsToolCallType(session.BlockType(b)) {
			continue
		}
		id, ok := b.GetStr("id")
		if !ok || id == "" {
			continue
		}
		next := resolve(id)
		if next == id {
			continue
		}
		if items == nil {
			items = append([]jsonl.Member(nil), content.Items()...)
		}
		nb := shallowObject(b)
		nb.Set("id", jsonl.StringValue(next))
		items[i].Value = nb
		r.recordDetail(rule, &m, id+" → "+next)
	}
	if items == nil {
		return m, false
	}
	return withContent(m, items), true
}

// rewriteResultIDs resolves the raw id a toolResult answers (the first of
// toolResultPrimaryFields) and writes the resolved id into every id field
// that differs, adding toolCallId when it is not a string; it reports
// whether a field changed (m is never modified).
func rewriteResultIDs(r *Run, rule string, m Message, resolve func(string) string) (Message, bool) {
	raw := ""
	for _, k := range toolResultPrimaryFields {
		if s, ok := m.V.GetStr(k); ok && s != "" {
			raw = s
			break
		}
	}
	if raw == "" {
		return m, false
	}
	resolved := resolve(raw)
	var v jsonl.Value
	changed := false
	for _, k := range toolResultAliasFields {
		if s, ok := m.V.GetStr(k); ok && s != "" && s != resolved {
			if !changed {
				v, changed = shallowObject(&m.V), true
			}
			v.Set(k, jsonl.StringValue(resolved))
		}
	}
	if !m.V.Get("toolCallId").IsString() && resolved != "" {
		if !changed {
			v, changed = shallowObject(&m.V), true
		}
		v.Set("toolCallId", jsonl.StringValue(resolved))
	}
	if !changed {
		return m, false
	}
	r.recordDetail(rule, &m, raw+" → "+resolved)
	m.V = v
	return m, true
}

// toolIDResolver allocates rewritten ids in message order: the k-th
// assistant occurrence of a raw id gets its own id, and results consume the
// ids queued under their raw id first in, first out (OpenClaw's
// createOccurrenceAwareResolver).
//
// What it keeps from one message list to the next (the segments of a
// segmented replay) is only the ids it has handed out or reserved: what it
// knows of raw ids (their occurrences, the ids queued for their results)
// lasts one call of rewriteToolCallIDs (startList), because a raw id of one
// segment never reaches a later one: a tool id on both sides of a cut is a
// hazard (segmentInput), which voids the later segment's replay for every
// run.
type toolIDResolver struct {
	mode           string
	preserveNative bool
	openAIStyle    bool
	used           idSet // handed out or reserved: no other call may get them
	// raw holds what the resolver knows of the raw ids of the list: one
	// map, read and written once per tool call.
	raw     map[string]rawIDState
	pending map[string][]string
}

// rawIDState is what a toolIDResolver knows of one raw id of a list.
type rawIDState struct {
	calls   int32 // its assistant occurrences so far
	orphans int32 // its results that found no queued id so far
}

func newToolIDResolver(mode string, preserveNative bool, duplicateStyle string, table *idTable, reserved []string) *toolIDResolver {
	res := &toolIDResolver{
		mode:           mode,
		preserveNative: preserveNative,
		openAIStyle:    duplicateStyle == "openai",
		used:           idSet{table: table},
		raw:            map[string]rawIDState{},
		pending:        map[string][]string{},
	}
	for _, id := range reserved {
		res.used.add(id)
	}
	return res
}

// startList forgets the raw ids of the lists before: the messages the
// resolver is given next share none with them.
func (res *toolIDResolver) startList() {
	clear(res.raw)
	clear(res.pending)
}

func (res *toolIDResolver) allocate(seed string) string {
	next := makeUniqueToolID(seed, res.used.has, res.mode)
	res.used.add(next)
	return next
}

// claim marks id as used when it is free, reporting whether it was.
func (res *toolIDResolver) claim(id string) bool {
	if res.used.has(id) {
		return false
	}
	res.used.add(id)
	return true
}

func (res *toolIDResolver) resolveAssistantID(id string) string {
	st := res.raw[id]
	st.calls++
	res.raw[id] = st
	k := int(st.calls)
	// The first occurrence of a native id keeps it when it is free.
	keep := k == 1 && (res.openAIStyle && isOpenAIToolCallID(id) ||
		res.preserveNative && isNativeAnthropicToolUseID(id)) && res.claim(id)
	var next string
	switch {
	case keep:
		next = id
	case res.openAIStyle && k > 1:
		next = res.allocateOpenAIStyle(id, k)
	case k == 1:
		next = res.allocate(id)
	default:
		next = res.allocate(id + ":" + strconv.Itoa(k))
	}
	res.pending[id] = append(res.pending[id], next)
	return next
}

// allocateOpenAIStyle gives a repeated id a fresh call_<24 hex> id.
func (res *toolIDResolver) allocateOpenAIStyle(id string, k int) string {
	for attempt := 0; ; attempt++ {
		c := "call_" + sha256Hex(id + ":" + strconv.Itoa(k) + ":" + strconv.Itoa(attempt))[:openAIHashChars]
		if res.claim(c) {
			return c
		}
	}
}

func (res *toolIDResolver) resolveToolResultID(id string) string {
	if q := res.pending[id]; len(q) > 0 {
		next := q[0]
		if len(q) == 1 {
			delete(res.pending, id)
		} else {
			res.pending[id] = q[1:]
		}
		return next
	}
	st := res.raw[id]
	st.orphans++
	res.raw[id] = st
	n := int(st.orphans)
	if n == 1 && res.preserveNative && isNativeAnthropicToolUseID(id) && res.claim(id) {
		return id
	}
	return res.allocate(id + ":tool_result:" + strconv.Itoa(n))
}

// preserveAssistantID keeps the id of a preserved signed-thinking turn and
// queues it for that turn's results.
func (res *toolIDResolver) preserveAssistantID(id string) {
	res.used.add(id)
	res.pending[id] = append(res.pending[id], id)
}

// sanitizeToolCallID is OpenClaw's sanitizeToolCallId for a non-empty id.
func sanitizeToolCallID(id, mode string) string {
	if id == "" {
		if mode == toolCallIDModeStrict9 {
			return "defaultid"
		}
		return "defaulttoolid"
	}
	alnum := keepASCIIAlnum(id)
	if mode == toolCallIDModeStrict9 {
		switch {
		case len(alnum) >= strict9Len:
			return alnum[:strict9Len]
		case alnum != "":
			return sha256Hex(alnum)[:strict9Len]
		}
		return sha256Hex("sanitized")[:strict9Len]
	}
	if strings.HasPrefix(id, "functions.") && nativeKimiToolCallIDRE.MatchString(id) {
		return id
	}
	if alnum == "" {
		return "sanitizedtoolid"
	}
	return alnum
}

// makeUniqueToolID is OpenClaw's makeUniqueToolId: the sanitized id when it
// is free, else a hash-derived variant that is.
func makeUniqueToolID(id string, used func(string) bool, mode string) string {
	if mode == toolCallIDModeStrict9 {
		if base := sanitizeToolCallID(id, mode); len(base) >= strict9Len && !used(base[:strict9Len]) {
			return base[:strict9Len]
		}
		for i := 0; i < uniqueAttempts; i++ {
			if h := sha256Hex(id + ":" + strconv.Itoa(i))[:strict9Len]; !used(h) {
				return h
			}
		}
		return sha256Hex(id + ":" + strconv.FormatInt(time.Now().UnixMilli(), 10))[:strict9Len]
	}
	base := truncate(sanitizeToolCallID(id, mode), strictMaxLen)
	if !used(base) {
		return base
	}
	// Only "strict" is a known mode; OpenClaw separates with "_" for others.
	sep := "_"
	if mode == toolCallIDModeStrict {
		sep = ""
	}
	hash := sha256Hex(id)[:8]
	candidate := truncate(base, strictMaxLen-len(sep)-len(hash)) + sep + hash
	if !used(candidate) {
		return candidate
	}
	for i := 2; i < uniqueAttempts; i++ {
		suffix := sep + strconv.Itoa(i)
		if mode == toolCallIDModeStrict {
			suffix = "x" + strconv.Itoa(i)
		}
		if next := truncate(candidate, strictMaxLen-len(suffix)) + suffix; !used(next) {
			return next
		}
	}
	ts := "_" + strconv.FormatInt(time.Now().UnixMilli(), 10)
	if mode == toolCallIDModeStrict {
		ts = "t" + ts[1:]
	}
	return truncate(candidate, strictMaxLen-len(ts)) + ts
}

// signedThinkingTurnsKeepingIDs returns the indexes of assistant turns whose
// signed thinking is replayed verbatim (so their ids must not change) and
// the ids they reserve, in OpenClaw's collectReplaySafeThinkingToolIds way:
// a turn with thinking and tool calls, every call with input, a non-blank
// id unique in the turn, a valid name needing no trim, and no id reserved by
// an earlier such turn. (In a segmented replay the turns of earlier
// segments reserve none of msgs' ids: a tool id on both sides of a cut is a
// hazard.)
func signedThinkingTurnsKeepingIDs(msgs []Message) (map[int]bool, []string) {
	preserved := map[int]bool{}
	reserved := map[string]bool{}
	var order []string
	for i := range msgs {
		m := &msgs[i].V
		if session.Role(m) != session.RoleAssistant || !isReplaySafeThinkingMessage(m) {
			continue
		}
		calls := session.ToolCalls(m)
		clash := false
		for _, c := range calls {
			clash = clash || reserved[c.ID]
		}
		if clash {
			continue
		}
		preserved[i] = true
		for _, c := range calls {
			if !reserved[c.ID] {
				reserved[c.ID] = true
				order = append(order, c.ID)
			}
		}
	}
	return preserved, order
}

// isReplaySafeThinkingMessage is OpenClaw's isReplaySafeThinkingAssistantMessage
// (without an allow-list): thinking plus ≥ 1 toolCall/toolUse/functionCall
// block, each with input, a unique trimmed id and a valid untrimmed name.
func isReplaySafeThinkingMessage(m *jsonl.Value) bool {
	content := m.Get("content")
	if !content.IsArray() {
		return false
	}
	sawThinking, sawCall := false, false
	seen := map[string]bool{}
	for _, it := range content.Items() {
		b := &it.Value
		t := session.BlockType(b)
		if session.IsThinkingType(t) {
			sawThinking = true
			continue
		}
		if !session.IsToolCallType(t) {
			continue
		}
		sawCall = true
		id := jsonl.TrimJS(b.Get("id").StrOr(""))
		if !hasToolCallInput(b) || id == "" || seen[id] || !isAllowedToolCallName(b.Get("name")) || toolNameNeedsTrim(b) {
			return false
		}
		seen[id] = true
	}
	return sawThinking && sawCall
}

// toolNameNeedsTrim reports a non-empty string name with surrounding
// JavaScript whitespace.
func toolNameNeedsTrim(b *jsonl.Value) bool {
	name, ok := b.GetStr("name")
	return ok && name != "" && name != jsonl.TrimJS(name)
}

// sha256Hex is the lowercase hex SHA-256 of s as Node hashes a JavaScript
// string: UTF-8, with lone surrogates encoded as U+FFFD.
func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(jsUTF8(s)))
	return hex.EncodeToString(sum[:])
}

// jsUTF8 replaces the WTF-8 form of lone surrogates (ED A0–BF xx) by U+FFFD,
// which is what Node's UTF-8 encoder writes for them.
func jsUTF8(s string) string {
	if !hasWTF8Surrogate(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if isWTF8SurrogateAt(s, i) {
			b.WriteString("\uFFFD")
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func hasWTF8Surrogate(s string) bool {
	for i := strings.IndexByte(s, 0xED); i >= 0; {
		if isWTF8SurrogateAt(s, i) {
			return true
		}
		j := strings.IndexByte(s[i+1:], 0xED)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

func isWTF8SurrogateAt(s string, i int) bool {
	return i+2 < len(s) && s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF
}

// keepASCIIAlnum is id.replace(/[^a-zA-Z0-9]/g, "").
func keepASCIIAlnum(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// truncate is s.slice(0, n) for an ASCII s.
func truncate(s string, n int) string {
	if n < 0 {
		n = 0
	}
	if len(s) > n {
		return s[:n]
	}
	return s
}

// shallowObject copies an object's member list so members can be set or
// deleted without touching v (member values stay shared), as a JavaScript
// object spread does.
func shallowObject(v *jsonl.Value) jsonl.Value {
	o := jsonl.ObjectValue()
	o.SetItems(append([]jsonl.Member(nil), v.Items()...))
	return o
}

// withMember is a copy of the object v with member key set to val (v is
// untouched: the runs of a segmented replay share the values the rules
// after the prefix steps are given).
func withMember(v *jsonl.Value, key string, val jsonl.Value) jsonl.Value {
	o := shallowObject(v)
	o.Set(key, val)
	return o
}

// arrayOf returns an array value holding items.
func arrayOf(items []jsonl.Member) jsonl.Value {
	a := jsonl.ArrayValue()
	a.SetItems(items)
	return a
}

// withContent returns m with its content replaced by items (a copy of the
// message object; m itself is untouched).
func withContent(m Message, items []jsonl.Member) Message {
	v := shallowObject(&m.V)
	v.Set("content", arrayOf(items))
	m.V = v
	return m
}

package hygiene

import (
	"regexp"
	"strings"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// The responses/call-id rule of the Responses replay (responses.go runs it),
// and the mapping of an assistant turn's call ids that responses/downgrade
// shares.

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

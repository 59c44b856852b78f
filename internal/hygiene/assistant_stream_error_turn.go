package hygiene

import "github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"

// ruleStreamError is the rule id recorded by this file (step 3).
const ruleStreamError = "assistant/stream-error-turn"

func stopReasonLabel(msg *jsonl.Value) string {
	if s := msg.Get("stopReason").StrOr(""); s != "" {
		return s
	}
	return "stop"
}

// streamErrorFallbackText is the sentinel the repair writes into empty
// failed turns.
const streamErrorFallbackText = "[assistant turn failed before producing content]"

// isStreamErrorFallbackContent reports content with nothing but blank or
// sentinel text: absent/null, such a string, or an array (possibly empty) of
// text-like blocks holding such strings.
func isStreamErrorFallbackContent(c *jsonl.Value) bool {
	if c.IsNull() {
		return true
	}
	if s, ok := c.Str(); ok {
		t := jsonl.TrimJS(s)
		return t == "" || t == streamErrorFallbackText
	}
	if !c.IsArray() {
		return false
	}
	for _, it := range c.Items() {
		b := &it.Value
		if !b.IsObject() {
			return false
		}
		switch b.Get("type").StrOr("") {
		case "text", "input_text", "output_text":
		default:
			return false
		}
		if _, ok := b.GetStr("text"); !ok || !isStreamErrorFallbackContent(b.Get("text")) {
			return false
		}
	}
	return true
}

// isZeroUsageEmptyStop reports a stop turn whose usage is a zero snapshot
// (content is not looked at: callers pass turns already known empty).
func isZeroUsageEmptyStop(msg *jsonl.Value) bool {
	return msg.Get("stopReason").StrOr("") == "stop" && hasZeroTokenUsage(msg.Get("usage"))
}

// hasZeroTokenUsage: with a total, the total and every present counter are
// 0; without one, at least one counter is present and all present are 0.
func hasZeroTokenUsage(u *jsonl.Value) bool {
	if !u.IsObject() {
		return false
	}
	var counters []float64
	for _, k := range []string{"input", "output", "cacheRead", "cacheWrite"} {
		if f, ok := finiteNumber(u.Get(k)); ok {
			counters = append(counters, f)
		}
	}
	allZero := func() bool {
		for _, f := range counters {
			if f != 0 {
				return false
			}
		}
		return true
	}
	if total, ok := finiteNumber(coalesce(u.Get("total"), u.Get("totalTokens"), u.Get("total_tokens"))); ok {
		return total == 0 && allZero()
	}
	return len(counters) > 0 && allZero()
}

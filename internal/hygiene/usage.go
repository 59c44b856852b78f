package hygiene

import (
	"math"
	"slices"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// This file is step 12 of the replay (docs/replay.md): OpenClaw's
// stripStaleAssistantUsageBeforeLatestCompaction
// and ensureAssistantUsageSnapshots, with the usage
// normalisation they share.

const ruleUsage = "usage/snapshot"

// normalizeUsageSnapshots zeroes the usage of assistants from before the
// latest compaction summary, then gives every assistant a normalised usage
// snapshot (missing counters filled, the total computed, unreadable usage
// replaced by zeros).
func normalizeUsageSnapshots(r *Run, msgs []Message) []Message {
	given := msgs
	msgs = zeroStaleUsage(r, given)
	out := msgs // copied before a message changes (listToWrite), unless it is a copy
	r.phase = 1
	var space usageSpace
	for i := range msgs {
		m := &msgs[i]
		if session.Role(&m.V) != session.RoleAssistant {
			continue
		}
		usage := m.V.Get("usage")
		if isCanonicalUsage(usage) {
			continue // already the snapshot: no need to build it to see so
		}
		snapshot := assistantUsageSnapshot(usage, &space)
		if usageMatches(usage, &snapshot) {
			continue
		}
		snapshot = snapshot.Clone() // off the reused space
		out = listToWrite(out, given)
		out[i].V = withMember(&m.V, "usage", snapshot)
		r.Record(ruleUsage, &out[i], "usage normalised to %s", jsonl.MarshalString(snapshot))
	}
	return out
}

// zeroStaleUsage gives assistants at or before the latest compaction summary
// (by timestamp when both parse, else by position) the zero snapshot.
func zeroStaleUsage(r *Run, msgs []Message) []Message {
	latest := -1
	for i := range msgs {
		if session.Role(&msgs[i].V) == session.RoleCompactionSummary {
			latest = i
		}
	}
	if latest < 0 {
		return msgs
	}
	out := msgs // copied before a message changes (listToWrite)
	compactedAt, compactedOK := timestampMillis(msgs[latest].V.Get("timestamp"))
	for i := range msgs {
		m := &msgs[i]
		usage := m.V.Get("usage")
		if session.Role(&m.V) != session.RoleAssistant || !(usage.IsObject() || usage.IsArray()) {
			continue
		}
		at, ok := timestampMillis(m.V.Get("timestamp"))
		stale := i < latest
		if compactedOK && ok {
			stale = at <= compactedAt
		}
		if stale {
			out = listToWrite(out, msgs)
			out[i].V = withMember(&m.V, "usage", zeroUsageSnapshot())
			r.Record(ruleUsage, &out[i], "usage from before the latest compaction zeroed")
		}
	}
	return out
}

// zeroUsageSnapshot is makeZeroUsageSnapshot.
func zeroUsageSnapshot() jsonl.Value {
	zero := func(keys ...string) jsonl.Value {
		o := jsonl.ObjectValue()
		for _, k := range keys {
			o.Set(k, jsonl.IntValue(0))
		}
		return o
	}
	u := zero("input", "output", "cacheRead", "cacheWrite", "totalTokens")
	u.Set("cost", zero("input", "output", "cacheRead", "cacheWrite", "total"))
	return u
}

// usageNumbers is OpenClaw's normalised usage (normalizeUsage); a nil
// pointer field is undefined.
type usageNumbers struct {
	input, output, cacheRead, cacheWrite, reasoning, total *float64
	// contextState is "", "available" or "unavailable".
	contextState                string
	contextPrompt, contextTotal float64
	costTotal                   *float64
	present                     bool // normalizeUsage returned an object
}

func (u usageNumbers) nonzero() bool {
	positive := func(f *float64) bool { return f != nil && *f > 0 }
	if u.contextState == "unavailable" {
		return true
	}
	if u.contextState == "available" && (u.contextPrompt > 0 || u.contextTotal > 0) {
		return true
	}
	return positive(u.input) || positive(u.output) || positive(u.cacheRead) || positive(u.cacheWrite) || positive(u.reasoning) || positive(u.total)
}

// normalizeUsage reads provider usage in any of the shapes OpenClaw knows
// (camelCase, snake_case, OpenAI and Anthropic field names).
func normalizeUsage(raw *jsonl.Value) usageNumbers {
	var u usageNumbers
	if !raw.IsObject() {
		return u
	}
	var f usageFields
	f.index(raw)
	get := func(k usageKey) *jsonl.Value { return f[k] }
	sub := func(parent usageKey, key string) *jsonl.Value { return f[parent].Get(key) }
	u.cacheRead = tokenCount(coalesce(get(uCacheRead), get(usCacheRead), get(usCacheReadInputTokens), get(usCachedInputTokens), get(uCached), get(usCachedTokens), sub(usInputTokensDetails, "cached_tokens"), sub(usPromptTokensDetails, "cached_tokens")))
	u.cacheWrite = tokenCount(coalesce(get(uCacheWrite), get(usCacheWrite), get(usCacheCreationInputTokens), get(usCacheWriteInputTokens), sub(usInputTokensDetails, "cache_write_tokens"), sub(usPromptTokensDetails, "cache_write_tokens"), sub(usPromptTokensDetails, "cache_creation_input_tokens")))
	_, directInput := finiteNumber(get(uInput))
	cliCacheInInput := get(usCachedInputTokens) != nil || get(uCached) != nil
	openAICacheInInput := get(usCachedTokens) != nil || sub(usInputTokensDetails, "cached_tokens") != nil || sub(usPromptTokensDetails, "cached_tokens") != nil
	cacheWriteInInput := get(usCacheWriteInputTokens) != nil || sub(usInputTokensDetails, "cache_write_tokens") != nil || sub(usPromptTokensDetails, "cache_write_tokens") != nil || sub(usPromptTokensDetails, "cache_creation_input_tokens") != nil
	if rawInput, ok := finiteNumber(coalesce(get(uInput), get(uInputTokens), get(usInputTokens), get(uPromptTokens), get(usPromptTokens), get(usPromptN), sub(uTimings, "prompt_n"))); ok {
		if openAICacheInInput || (!directInput && cliCacheInInput) {
			rawInput -= deref(u.cacheRead)
		}
		if !directInput && cacheWriteInInput {
			rawInput -= deref(u.cacheWrite)
		}
		u.input = tokenCountOf(rawInput)
	}
	u.output = tokenCount(coalesce(get(uOutput), get(uOutputTokens), get(usOutputTokens), get(uCompletionTokens), get(usCompletionTokens), get(usPredictedN), sub(uTimings, "predicted_n")))
	readContextUsage(&u, get(uContextUsage))
	u.reasoning = tokenCount(coalesce(get(uReasoningTokens), get(usReasoningTokens), sub(usCompletionTokensDetails, "reasoning_tokens"), sub(usOutputTokensDetails, "reasoning_tokens"), sub(usOutputTokensDetails, "thinking_tokens")))
	u.total = tokenCount(coalesce(get(uTotal), get(uTotalTokens), get(usTotalTokens)))
	if t, ok := finiteNumber(sub(uCost, "total")); ok && t >= 0 {
		u.costTotal = &t
	}
	u.present = u.input != nil || u.output != nil || u.cacheRead != nil || u.cacheWrite != nil || u.contextState != "" || u.reasoning != nil || u.total != nil || u.costTotal != nil
	return u
}

// usageKey names a member of a usage object normalizeUsage reads.
type usageKey int

const (
	uCacheRead usageKey = iota
	usCacheRead
	usCacheReadInputTokens
	usCachedInputTokens
	uCached
	usCachedTokens
	uCacheWrite
	usCacheWrite
	usCacheCreationInputTokens
	usCacheWriteInputTokens
	uInput
	uInputTokens
	usInputTokens
	uPromptTokens
	usPromptTokens
	usPromptN
	uOutput
	uOutputTokens
	usOutputTokens
	uCompletionTokens
	usCompletionTokens
	usPredictedN
	uContextUsage
	uReasoningTokens
	usReasoningTokens
	uTotal
	uTotalTokens
	usTotalTokens
	usInputTokensDetails
	usPromptTokensDetails
	uTimings
	usCompletionTokensDetails
	usOutputTokensDetails
	uCost
	numUsageKeys
)

// usageFields holds the members of a usage object normalizeUsage reads
// (nil: absent).
type usageFields [numUsageKeys]*jsonl.Value

// index finds normalizeUsage's members in one walk over the object's
// members (the first of duplicates, as Get), instead of one search for each
// of the some forty names it tries.
func (f *usageFields) index(raw *jsonl.Value) {
	items := raw.Items()
	for i := range items {
		if k := usageKeyOf(items[i].Key); k >= 0 && f[k] == nil {
			f[k] = &items[i].Value
		}
	}
}

// usageKeyOf is the usageKey of a member name, or -1.
func usageKeyOf(name string) usageKey {
	switch name {
	case "cacheRead":
		return uCacheRead
	case "cache_read":
		return usCacheRead
	case "cache_read_input_tokens":
		return usCacheReadInputTokens
	case "cached_input_tokens":
		return usCachedInputTokens
	case "cached":
		return uCached
	case "cached_tokens":
		return usCachedTokens
	case "cacheWrite":
		return uCacheWrite
	case "cache_write":
		return usCacheWrite
	case "cache_creation_input_tokens":
		return usCacheCreationInputTokens
	case "cache_write_input_tokens":
		return usCacheWriteInputTokens
	case "input":
		return uInput
	case "inputTokens":
		return uInputTokens
	case "input_tokens":
		return usInputTokens
	case "promptTokens":
		return uPromptTokens
	case "prompt_tokens":
		return usPromptTokens
	case "prompt_n":
		return usPromptN
	case "output":
		return uOutput
	case "outputTokens":
		return uOutputTokens
	case "output_tokens":
		return usOutputTokens
	case "completionTokens":
		return uCompletionTokens
	case "completion_tokens":
		return usCompletionTokens
	case "predicted_n":
		return usPredictedN
	case "contextUsage":
		return uContextUsage
	case "reasoningTokens":
		return uReasoningTokens
	case "reasoning_tokens":
		return usReasoningTokens
	case "total":
		return uTotal
	case "totalTokens":
		return uTotalTokens
	case "total_tokens":
		return usTotalTokens
	case "input_tokens_details":
		return usInputTokensDetails
	case "prompt_tokens_details":
		return usPromptTokensDetails
	case "timings":
		return uTimings
	case "completion_tokens_details":
		return usCompletionTokensDetails
	case "output_tokens_details":
		return usOutputTokensDetails
	case "cost":
		return uCost
	}
	return -1
}

func readContextUsage(u *usageNumbers, ctx *jsonl.Value) {
	switch ctx.Get("state").StrOr("") {
	case "unavailable":
		u.contextState = "unavailable"
	case "available":
		p, t := tokenCount(ctx.Get("promptTokens")), tokenCount(ctx.Get("totalTokens"))
		if p != nil && t != nil && *t >= *p {
			u.contextState, u.contextPrompt, u.contextTotal = "available", *p, *t
		}
	}
}

// usageSpace is reused room for usage snapshots: most snapshots equal the
// stored usage and are thrown away, so they are built here and copied only
// when kept.
type usageSpace struct {
	top, cost []jsonl.Member
}

// assistantUsageSnapshot is normalizeAssistantUsageSnapshot: the normalised
// usage in OpenClaw's key order, or the zero snapshot when nothing is
// readable. The snapshot's member lists are space's (valid until the next
// call): Clone it to keep it.
func assistantUsageSnapshot(raw *jsonl.Value, space *usageSpace) jsonl.Value {
	n := normalizeUsage(raw)
	if !n.present {
		return zeroUsageSnapshot()
	}
	input, output, cacheRead, cacheWrite := deref(n.input), deref(n.output), deref(n.cacheRead), deref(n.cacheWrite)
	total := input + output + cacheRead + cacheWrite
	if n.total != nil {
		total = *n.total
	}
	if space.top == nil {
		space.top = make([]jsonl.Member, 0, 7) // room for every member
	}
	s := jsonl.ObjectValue()
	s.SetItems(space.top[:0])
	s.Set("input", numberValue(input))
	s.Set("output", numberValue(output))
	s.Set("cacheRead", numberValue(cacheRead))
	s.Set("cacheWrite", numberValue(cacheWrite))
	switch n.contextState {
	case "unavailable":
		s.Set("contextUsage", jsonl.ObjectOf(jsonl.Member{Key: "state", Value: jsonl.StringValue("unavailable")}))
	case "available":
		s.Set("contextUsage", jsonl.ObjectOf(
			jsonl.Member{Key: "state", Value: jsonl.StringValue("available")},
			jsonl.Member{Key: "promptTokens", Value: numberValue(n.contextPrompt)},
			jsonl.Member{Key: "totalTokens", Value: numberValue(n.contextTotal)}))
	}
	s.Set("totalTokens", numberValue(total))
	if cost, ok := usageCost(raw, space); ok {
		s.Set("cost", cost)
	}
	space.top = s.Items()[:0] // keep the room if Set had to grow it
	return s
}

// usageCost is normalizeAssistantUsageCost: the cost object completed with
// zeros and a computed total, when the usage has a cost with at least one
// finite component. Its member list is space's.
func usageCost(raw *jsonl.Value, space *usageSpace) (jsonl.Value, bool) {
	cost := raw.Get("cost")
	if !cost.IsObject() && !cost.IsArray() {
		return jsonl.Value{}, false
	}
	keys := []string{"input", "output", "cacheRead", "cacheWrite"}
	if space.cost == nil {
		space.cost = make([]jsonl.Member, 0, 6)
	}
	out := jsonl.ObjectValue()
	out.SetItems(space.cost[:0])
	sum, found := 0.0, false
	for _, k := range keys {
		f, ok := finiteNumber(cost.Get(k))
		found = found || ok
		sum += f
		out.Set(k, numberValue(f))
	}
	total, ok := finiteNumber(cost.Get("total"))
	if !found && !ok {
		return jsonl.Value{}, false
	}
	if !ok {
		total = sum
	}
	out.Set("total", numberValue(total))
	if cost.Get("totalOrigin").StrOr("") == "provider-billed" {
		out.Set("totalOrigin", jsonl.StringValue("provider-billed"))
	}
	space.cost = out.Items()[:0]
	return out, true
}

// usageMatches reports raw usage already equal (JavaScript ===, field by
// field) to its normalised snapshot, so OpenClaw leaves it alone.
func usageMatches(raw, snapshot *jsonl.Value) bool {
	if !raw.IsObject() {
		return false
	}
	for _, k := range []string{"input", "output", "cacheRead", "cacheWrite", "totalTokens"} {
		if !sameNumber(raw.Get(k), snapshot.Get(k)) {
			return false
		}
	}
	if !contextUsageMatches(raw.Get("contextUsage"), snapshot.Get("contextUsage")) {
		return false
	}
	rawCost, cost := raw.Get("cost"), snapshot.Get("cost")
	if cost == nil {
		return rawCost == nil
	}
	if !rawCost.IsObject() && !rawCost.IsArray() {
		return false
	}
	for _, k := range []string{"input", "output", "cacheRead", "cacheWrite", "total"} {
		if !sameNumber(rawCost.Get(k), cost.Get(k)) {
			return false
		}
	}
	return true
}

func contextUsageMatches(raw, normalized *jsonl.Value) bool {
	if normalized == nil {
		return raw == nil
	}
	if !raw.IsObject() && !raw.IsArray() {
		return false
	}
	if normalized.Get("state").StrOr("") == "unavailable" {
		return raw.Get("state").StrOr("") == "unavailable"
	}
	return raw.Get("state").StrOr("") == "available" &&
		sameNumber(raw.Get("promptTokens"), normalized.Get("promptTokens")) &&
		sameNumber(raw.Get("totalTokens"), normalized.Get("totalTokens"))
}

// sameNumber is a === b for two numbers (a missing or non-number a never
// matches).
func sameNumber(a, b *jsonl.Value) bool {
	x, ok1 := a.Float()
	y, ok2 := b.Float()
	return ok1 && ok2 && x == y
}

// ---------------------------------------------------------------------------
// Small JavaScript value helpers shared by the rules.

// coalesce is JavaScript's a ?? b ?? …: the first value present and not null.
func coalesce(vals ...*jsonl.Value) *jsonl.Value {
	for _, v := range vals {
		if v != nil && !v.IsNull() {
			return v
		}
	}
	return nil
}

// finiteNumber is asFiniteNumber: the value when it is a finite number.
func finiteNumber(v *jsonl.Value) (float64, bool) {
	f, ok := v.Float()
	if !ok || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

const maxSafeInteger = 1<<53 - 1

// tokenCount is normalizeTokenCount: a finite number clamped to a
// non-negative integer no larger than Number.MAX_SAFE_INTEGER.
func tokenCount(v *jsonl.Value) *float64 {
	f, ok := finiteNumber(v)
	if !ok {
		return nil
	}
	return tokenCountOf(f)
}

func tokenCountOf(f float64) *float64 {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil
	}
	if f <= 0 {
		return ptr(0.0)
	}
	return ptr(math.Min(math.Trunc(f), maxSafeInteger))
}

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

// numberValue is a JSON number holding f, written as JavaScript would.
func numberValue(f float64) jsonl.Value {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return jsonl.NumberValue(string(jsonl.AppendFloat(nil, f)))
	}
	return jsonl.FloatValue(f) // no allocation for the usual small counts
}

func nanValue() float64 { return math.NaN() }

// timestampMillis is parseDateFirstTimestampMs: a finite number as is, a
// string through Date.parse (within Date's range); see jsTimestampMillis.
func timestampMillis(v *jsonl.Value) (float64, bool) { return jsTimestampMillis(v) }

// canonicalUsageKeys are the members of the usage OpenClaw writes itself.
var canonicalUsageKeys = [...]string{"input", "output", "cacheRead", "cacheWrite", "totalTokens"}

// isCanonicalUsage reports a usage object holding exactly input, output,
// cacheRead, cacheWrite and totalTokens (in any order), each a token count
// (a non-negative integer no larger than 2^53-1). Its snapshot is itself,
// so usageMatches would hold: the common case, decided in one walk.
func isCanonicalUsage(u *jsonl.Value) bool {
	if !u.IsObject() || u.Len() != len(canonicalUsageKeys) {
		return false
	}
	var seen [len(canonicalUsageKeys)]bool
	for _, m := range u.Items() {
		k := slices.Index(canonicalUsageKeys[:], m.Key)
		if k < 0 || seen[k] {
			return false
		}
		seen[k] = true
		f, ok := finiteNumber(&m.Value)
		if !ok || f < 0 || f != math.Trunc(f) || f > maxSafeInteger {
			return false
		}
	}
	return true
}

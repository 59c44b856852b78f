package hygiene

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// Thinking-signature cleanup (replay-rules.md §3.7 a and b, §4 step 5):
// OpenClaw 2026.9.6 stripStaleThinkingSignaturesForCompactionReplay
// (src/agents/thinking-signatures.ts) followed by stripInvalidThinkingSignatures
// (src/agents/embedded-agent-runner/thinking.ts).

// omittedReasoningText replaces the content of an assistant turn that lost
// every block to thinking removal, so the turn keeps a non-empty body.
const omittedReasoningText = "[assistant reasoning omitted]"

// signedThinkingProviders are the providers whose thinking blocks carry
// provider-verified signatures (OpenClaw's SIGNED_THINKING_PROVIDERS).
var signedThinkingProviders = []string{"anthropic", "amazon-bedrock", "anthropic-vertex"}

// providerRequiresSignedThinking reports whether the trimmed, lower-cased
// provider is one of signedThinkingProviders.
func providerRequiresSignedThinking(provider string) bool {
	return slices.Contains(signedThinkingProviders, session.TrimLower(provider))
}

// cleanupThinkingSignatures strips the signatures of thinking blocks made
// before the latest compaction summary (§3.7a), then removes thinking blocks
// without a usable signature from every assistant turn except, when it is
// exempt, the latest one (§3.7b). It applies only when the provider signs
// thinking or the policy preserves signatures; otherwise msgs is returned
// unchanged. Changed messages are copies: msgs itself is never modified.
func cleanupThinkingSignatures(r *Run, msgs []Message) []Message {
	if !providerRequiresSignedThinking(r.Target.Provider) && !r.Policy.PreserveSignatures {
		return msgs
	}
	// OpenClaw decides the exemption on the list as it was before either
	// step; neither step changes roles or whether content is an array, so
	// deciding it first is the same.
	preserveLatest := preserveLatestAssistantThinking(r, msgs)
	msgs = stripPreCompactionSignatures(r, msgs)
	r.phase = 1
	return stripUnsignedThinking(r, msgs, preserveLatest)
}

// stripPreCompactionSignatures removes thinkingSignature, signature and
// thought_signature (and a redacted_thinking block's data) from the thinking
// blocks of assistant turns whose timestamp parses to a time before the
// latest parsable compactionSummary timestamp. Turns without a parsable
// timestamp are left alone.
func stripPreCompactionSignatures(r *Run, msgs []Message) []Message {
	cutoff, ok := r.compactionCutoff(msgs)
	if !ok {
		return msgs
	}
	var out []Message
	for i := range msgs {
		m := &msgs[i]
		if !isAssistantWithArrayContent(&m.V) {
			continue
		}
		ts, ok := jsTimestampMillis(m.V.Get("timestamp"))
		if !ok || ts >= cutoff {
			continue
		}
		content, stripped := stripSignaturesFromThinking(m.V.Get("content"))
		if stripped == 0 {
			continue
		}
		if out == nil {
			out = slices.Clone(msgs)
		}
		out[i] = withContent(*m, content)
		r.Record("thinking-signatures/pre-compaction", m,
			"removed the signatures of %d thinking block(s) older than the latest compaction", stripped)
	}
	if out == nil {
		return msgs
	}
	return out
}

// latestCompactionTimestamp returns the greatest parsable timestamp of a
// compactionSummary message.
func latestCompactionTimestamp(msgs []Message) (float64, bool) {
	latest, found := 0.0, false
	for i := range msgs {
		if session.Role(&msgs[i].V) != session.RoleCompactionSummary {
			continue
		}
		if ts, ok := jsTimestampMillis(msgs[i].V.Get("timestamp")); ok && (!found || ts > latest) {
			latest, found = ts, true
		}
	}
	return latest, found
}

// signatureKeys are the fields a thinking block may carry its signature in.
var signatureKeys = []string{"thinkingSignature", "signature", "thought_signature"}

// stripSignaturesFromThinking returns content with the signature fields
// removed from every thinking block that has one that is not null, and how
// many blocks it changed. content itself is not modified.
func stripSignaturesFromThinking(content *jsonl.Value) ([]jsonl.Member, int) {
	blocks := slices.Clone(content.Items())
	stripped := 0
	for i := range blocks {
		b := &blocks[i].Value
		if !isThinkingOrRedacted(b) || !hasNonNullSignatureField(b) {
			continue
		}
		c := shallowObject(b)
		for _, k := range signatureKeys {
			c.Delete(k)
		}
		if session.BlockType(b) == "redacted_thinking" {
			c.Delete("data")
		}
		*b = c
		stripped++
	}
	return blocks, stripped
}

// hasNonNullSignatureField reports a signature field (or a redacted block's
// data) that is present and not null, whatever its type.
func hasNonNullSignatureField(b *jsonl.Value) bool {
	for _, k := range signatureKeys {
		if v := b.Get(k); v != nil && !v.IsNull() {
			return true
		}
	}
	v := b.Get("data")
	return session.BlockType(b) == "redacted_thinking" && v != nil && !v.IsNull()
}

// stripUnsignedThinking removes thinking blocks without a replayable
// signature (a non-blank string in signature, thinkingSignature or
// thought_signature, or for redacted_thinking also data) from every assistant
// turn with array content. With preserveLatest the latest such turn is left
// as it is: providers reject a modified latest thinking turn. A turn left
// without blocks gets the omitted-reasoning placeholder.
func stripUnsignedThinking(r *Run, msgs []Message, preserveLatest bool) []Message {
	exempt := -1
	if preserveLatest {
		exempt = latestAssistantWithArrayContent(r, msgs)
	}
	var out []Message
	for i := range msgs {
		m := &msgs[i]
		if i == exempt || !isAssistantWithArrayContent(&m.V) {
			continue
		}
		kept, removed := filterBlocks(m.V.Get("content"), func(b *jsonl.Value) bool {
			return !isThinkingOrRedacted(b) || hasReplayableSignature(b)
		})
		if removed == 0 {
			continue
		}
		if out == nil {
			out = slices.Clone(msgs)
		}
		out[i] = withContent(*m, orOmittedReasoning(kept))
		r.Record("thinking-signatures/invalid", m,
			"removed %d thinking block(s) without a usable signature", removed)
	}
	if out == nil {
		return msgs
	}
	return out
}

// hasReplayableSignature reports whether a thinking block has a non-blank
// string signature.
func hasReplayableSignature(b *jsonl.Value) bool {
	for _, k := range signatureKeys {
		if s, ok := b.GetStr(k); ok && !jsonl.IsBlankJS(s) {
			return true
		}
	}
	if session.BlockType(b) != "redacted_thinking" {
		return false
	}
	s, ok := b.GetStr("data")
	return ok && !jsonl.IsBlankJS(s)
}

// Helpers shared by the thinking, reasoning and turn rules.

// isAssistantWithArrayContent reports an assistant message whose content is
// an array (OpenClaw's isAssistantMessageWithContent).
func isAssistantWithArrayContent(v *jsonl.Value) bool {
	return session.Role(v) == session.RoleAssistant && v.Get("content").IsArray()
}

// isThinkingOrRedacted reports an object block of type thinking or
// redacted_thinking.
func isThinkingOrRedacted(b *jsonl.Value) bool {
	return session.IsThinkingType(session.BlockType(b))
}

// filterBlocks returns the elements of the array content that keep accepts
// (a fresh slice) and how many it rejected. When keep accepts them all it
// allocates nothing and returns nil: the content is to stay as it is.
func filterBlocks(content *jsonl.Value, keep func(*jsonl.Value) bool) ([]jsonl.Member, int) {
	items := content.Items()
	first := 0 // the first rejected element
	for first < len(items) && keep(&items[first].Value) {
		first++
	}
	if first == len(items) {
		return nil, 0
	}
	kept := make([]jsonl.Member, first, len(items)-1)
	copy(kept, items[:first])
	for i := first + 1; i < len(items); i++ {
		if keep(&items[i].Value) {
			kept = append(kept, items[i])
		}
	}
	return kept, len(items) - len(kept)
}

// orOmittedReasoning returns blocks, or the omitted-reasoning placeholder
// block when blocks is empty.
func orOmittedReasoning(blocks []jsonl.Member) []jsonl.Member {
	if len(blocks) > 0 {
		return blocks
	}
	return []jsonl.Member{{Value: textBlock(omittedReasoningText)}}
}

// The helpers shallowObject, arrayOf and withContent live in
// tool_call_ids.go, textBlock in provider_hooks.go.

// Timestamps.

// maxDateMillis bounds the times a JavaScript Date can hold (±8.64e15 ms).
const maxDateMillis = 8.64e15

// jsTimestampMillis reads a message timestamp as OpenClaw's
// parseDateFirstTimestampMs does: a finite number is taken as epoch
// milliseconds, a string is parsed as Date.parse would (see jsDateParse);
// anything else has no timestamp.
func jsTimestampMillis(v *jsonl.Value) (float64, bool) {
	if f, ok := v.Float(); ok {
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return 0, false
		}
		return f, true
	}
	s, ok := v.Str()
	if !ok {
		return 0, false
	}
	ms, ok := jsDateParse(s)
	if !ok || math.Abs(ms) > maxDateMillis {
		return 0, false
	}
	return ms, true
}

// jsDateParse parses s as V8's Date.parse does for the date forms session
// files use, returning epoch milliseconds:
//
//   - the ECMAScript date-time string format, [+-YY]YYYY[-MM[-DD]]
//     [THH:mm[:ss[.fraction]][Z|±hh:mm|±hhmm]], with V8's extensions (a
//     fraction of any length, of which milliseconds are kept; T and Z in
//     either case). A date alone is UTC; a date-time without an offset is
//     local time;
//   - V8's legacy reading of an ISO date, white space and a time
//     H[H]:M[M][:S[S][.fraction]], optionally followed by Z, UTC, GMT or an
//     offset ±hh:mm / ±hhmm (local time without one).
//
// Day numbers up to 31 roll over into the next month as in V8. Other legacy
// forms V8 accepts ("Sat, 14 Mar 2026 …", "3/14/2026") are not recognised:
// they report false, so a turn carrying one counts as having no timestamp.
func jsDateParse(s string) (float64, bool) {
	p := dateScanner{s: s}
	y, mo, d, ok := p.isoDate()
	if !ok {
		return 0, false
	}
	if p.end() {
		return dateMillis(y, mo, d, 0, 0, 0, 0, time.UTC), true
	}
	if c := p.peek(); c == 'T' || c == 't' {
		p.i++
		return p.isoTime(y, mo, d)
	}
	return p.legacyTime(y, mo, d)
}

// dateScanner walks a date string byte by byte.
type dateScanner struct {
	s string
	i int
}

func (p *dateScanner) end() bool { return p.i >= len(p.s) }

func (p *dateScanner) peek() byte {
	if p.end() {
		return 0
	}
	return p.s[p.i]
}

// accept consumes c if it is next.
func (p *dateScanner) accept(c byte) bool {
	if p.peek() != c {
		return false
	}
	p.i++
	return true
}

// digits consumes between minN and maxN decimal digits.
func (p *dateScanner) digits(minN, maxN int) (int, bool) {
	n, v := 0, 0
	for n < maxN && p.peek() >= '0' && p.peek() <= '9' {
		v = v*10 + int(p.s[p.i]-'0')
		p.i++
		n++
	}
	return v, n >= minN
}

// isoDate reads [+-]YYYYYY or YYYY, then optional -MM and -DD (2 digits).
func (p *dateScanner) isoDate() (y, mo, d int, ok bool) {
	mo, d = 1, 1
	if c := p.peek(); c == '+' || c == '-' {
		p.i++
		if y, ok = p.digits(6, 6); !ok || (c == '-' && y == 0) {
			return 0, 0, 0, false
		}
		if c == '-' {
			y = -y
		}
	} else if y, ok = p.digits(4, 4); !ok {
		return 0, 0, 0, false
	}
	if p.accept('-') {
		if mo, ok = p.digits(2, 2); !ok || mo < 1 || mo > 12 {
			return 0, 0, 0, false
		}
		if p.accept('-') {
			if d, ok = p.digits(2, 2); !ok || d < 1 || d > 31 {
				return 0, 0, 0, false
			}
		}
	}
	return y, mo, d, true
}

// isoTime reads HH:mm[:ss[.fraction]] and an optional Z or offset, which
// must end the string.
func (p *dateScanner) isoTime(y, mo, d int) (float64, bool) {
	h, mi, sec, ms, ok := p.clock(2)
	if !ok {
		return 0, false
	}
	loc, ok := p.isoZone()
	if !ok || !p.end() {
		return 0, false
	}
	return dateMillis(y, mo, d, h, mi, sec, ms, loc), true
}

// legacyTime reads white space, H[H]:M[M][:S[S][.fraction]] and an optional
// zone after a date, as V8's legacy parser does for "2026-03-14 09:27:02".
func (p *dateScanner) legacyTime(y, mo, d int) (float64, bool) {
	if !p.skipSpaces() {
		return 0, false
	}
	h, mi, sec, ms, ok := p.clock(1)
	if !ok {
		return 0, false
	}
	p.skipSpaces()
	loc, ok := p.legacyZone()
	if !ok {
		return 0, false
	}
	p.skipSpaces()
	if !p.end() {
		return 0, false
	}
	return dateMillis(legacyYear(y), mo, d, h, mi, sec, ms, loc), true
}

// legacyYear maps the years 0–99 as V8's legacy parser does (0–49 → 2000s,
// 50–99 → 1900s).
func legacyYear(y int) int {
	switch {
	case y >= 0 && y <= 49:
		return y + 2000
	case y >= 50 && y <= 99:
		return y + 1900
	}
	return y
}

// skipSpaces consumes spaces and tabs, reporting whether there were any.
func (p *dateScanner) skipSpaces() bool {
	start := p.i
	for p.peek() == ' ' || p.peek() == '\t' {
		p.i++
	}
	return p.i > start
}

// clock reads hours:minutes[:seconds[.fraction]], each field having minN to
// 2 digits; hour 24 is allowed only for 24:00:00.000.
func (p *dateScanner) clock(minN int) (h, mi, sec, ms int, ok bool) {
	if h, ok = p.digits(minN, 2); !ok || !p.accept(':') {
		return 0, 0, 0, 0, false
	}
	if mi, ok = p.digits(minN, 2); !ok {
		return 0, 0, 0, 0, false
	}
	if p.accept(':') {
		if sec, ok = p.digits(minN, 2); !ok {
			return 0, 0, 0, 0, false
		}
		if p.accept('.') {
			if ms, ok = p.fractionMillis(); !ok {
				return 0, 0, 0, 0, false
			}
		}
	}
	if h > 24 || mi > 59 || sec > 59 || (h == 24 && mi+sec+ms > 0) {
		return 0, 0, 0, 0, false
	}
	return h, mi, sec, ms, true
}

// fractionMillis reads one or more digits and keeps the first three as
// milliseconds.
func (p *dateScanner) fractionMillis() (int, bool) {
	start := p.i
	ms := 0
	for p.peek() >= '0' && p.peek() <= '9' {
		if p.i-start < 3 {
			ms = ms*10 + int(p.s[p.i]-'0')
		}
		p.i++
	}
	for n := p.i - start; n < 3; n++ {
		ms *= 10
	}
	return ms, p.i > start
}

// isoZone reads nothing (local time), Z, or ±hh:mm / ±hhmm.
func (p *dateScanner) isoZone() (*time.Location, bool) {
	switch p.peek() {
	case 0:
		return time.Local, true
	case 'Z', 'z':
		p.i++
		return time.UTC, true
	case '+', '-':
		return p.offset()
	}
	return nil, false
}

// legacyZone reads nothing (local time), Z, UTC, GMT or an offset.
func (p *dateScanner) legacyZone() (*time.Location, bool) {
	rest := p.s[p.i:]
	for _, name := range []string{"UTC", "GMT", "Z"} {
		if len(rest) >= len(name) && strings.EqualFold(rest[:len(name)], name) {
			p.i += len(name)
			return time.UTC, true
		}
	}
	if c := p.peek(); c == '+' || c == '-' {
		return p.offset()
	}
	return time.Local, true
}

// offset reads ±hh:mm or ±hhmm (hh ≤ 23, mm ≤ 59).
func (p *dateScanner) offset() (*time.Location, bool) {
	sign := 1
	if p.s[p.i] == '-' {
		sign = -1
	}
	p.i++
	hh, ok := p.digits(2, 2)
	if !ok {
		return nil, false
	}
	p.accept(':')
	mm, ok := p.digits(2, 2)
	if !ok || hh > 23 || mm > 59 {
		return nil, false
	}
	return time.FixedZone("", sign*(hh*3600+mm*60)), true
}

// dateMillis returns the epoch milliseconds of a calendar time; out-of-range
// days and hour 24 roll over as in JavaScript's MakeDate.
func dateMillis(y, mo, d, h, mi, sec, ms int, loc *time.Location) float64 {
	return float64(time.Date(y, time.Month(mo), d, h, mi, sec, ms*int(time.Millisecond), loc).UnixMilli())
}

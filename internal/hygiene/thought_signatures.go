package hygiene

import (
	"slices"
	"strconv"
	"strings"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// Gemini thought-signature stripping (docs/replay.md, part of step
// 4): OpenClaw 2026.9.6 stripThoughtSignatures, which the image pass
// applies to assistant content.

// stripThoughtSignatures removes thought signatures a Gemini replay cannot
// use from the content blocks of assistant turns with array content:
//
//   - by default, a thought_signature string starting with "msg_" (a Claude
//     message id stored where Gemini expects its own signature);
//   - with sanitizeThoughtSignatures.allowBase64Only, every thought_signature
//     that is not a string holding canonical base64 or base64url;
//   - with includeCamelCase, thoughtSignature under the same test.
//
// Turns with stopReason "error" are skipped, and nothing applies when the
// policy preserves signatures. The rule does not depend on sanitizeMode.
// msgs itself is never modified.
func stripThoughtSignatures(r *Run, msgs []Message) []Message {
	if r.Policy.PreserveSignatures {
		return msgs
	}
	opts := ThoughtSignaturePolicy{}
	if r.Policy.SanitizeThoughtSignatures != nil {
		opts = *r.Policy.SanitizeThoughtSignatures
	}
	var out []Message
	for i := range msgs {
		m := &msgs[i]
		if !isAssistantWithArrayContent(&m.V) || m.V.Get("stopReason").StrOr("") == "error" {
			continue
		}
		blocks, removed := stripBlockThoughtSignatures(m.V.Get("content"), opts)
		if len(removed) == 0 {
			continue
		}
		if out == nil {
			out = slices.Clone(msgs)
		}
		out[i] = withContent(*m, blocks)
		r.Record("thought-signatures/strip", m, "removed %s", strings.Join(removed, ", "))
	}
	if out == nil {
		return msgs
	}
	return out
}

// stripBlockThoughtSignatures returns a copy of the content blocks with the
// signatures opts rejects removed, and a description of each removal (none
// when nothing changed).
func stripBlockThoughtSignatures(content *jsonl.Value, opts ThoughtSignaturePolicy) ([]jsonl.Member, []string) {
	blocks := slices.Clone(content.Items())
	var removed []string
	for i := range blocks {
		b := &blocks[i].Value
		if b.IsArray() && opts.AllowBase64Only {
			// OpenClaw treats the missing signature of an array block as
			// invalid and copies the block with an object spread, which
			// turns the array into an object keyed by index.
			*b = arrayAsObject(b)
			removed = append(removed, "block "+strconv.Itoa(i)+": array turned into an object")
			continue
		}
		if !b.IsObject() {
			continue
		}
		keys := thoughtSignatureKeysToStrip(b, opts)
		if len(keys) == 0 {
			continue
		}
		c := shallowObject(b)
		for _, k := range keys {
			c.Delete(k)
			removed = append(removed, "block "+strconv.Itoa(i)+": "+k)
		}
		*b = c
	}
	return blocks, removed
}

// thoughtSignatureKeysToStrip returns the present signature keys of block b
// that opts rejects.
func thoughtSignatureKeysToStrip(b *jsonl.Value, opts ThoughtSignaturePolicy) []string {
	keys := []string{"thought_signature"}
	if opts.IncludeCamelCase {
		keys = append(keys, "thoughtSignature")
	}
	var strip []string
	for _, k := range keys {
		if v := b.Get(k); v != nil && rejectThoughtSignature(v, opts.AllowBase64Only) {
			strip = append(strip, k)
		}
	}
	return strip
}

// rejectThoughtSignature reports whether a present signature value must go:
// with allowBase64Only anything but a base64 string, otherwise only a string
// starting with "msg_".
func rejectThoughtSignature(v *jsonl.Value, allowBase64Only bool) bool {
	s, isString := v.Str()
	if !allowBase64Only {
		return isString && strings.HasPrefix(s, "msg_")
	}
	return !isString || !isBase64Signature(s)
}

// isBase64Signature reports whether s, trimmed and with white space removed,
// is canonical base64 (or base64url when it contains '-' or '_') of at least
// one byte, ignoring trailing '=' padding — what OpenClaw's check (decode
// with Node's Buffer, re-encode, compare without padding) accepts.
func isBase64Signature(s string) bool {
	compact := removeJSSpace(jsonl.TrimJS(s))
	if compact == "" || !containsOnly(compact, base64URLAlphabet+"+/=") {
		return false
	}
	alphabet := base64StdAlphabet
	if strings.ContainsAny(compact, "-_") {
		alphabet = base64URLAlphabet
	}
	body := strings.TrimRight(compact, "=")
	if len(body) < 2 || len(body)%4 == 1 || !containsOnly(body, alphabet) {
		return false
	}
	// The last character may only carry bits of the final byte: canonical
	// encodings leave the rest zero.
	last := strings.IndexByte(alphabet, body[len(body)-1])
	switch len(body) % 4 {
	case 2:
		return last&0x0f == 0
	case 3:
		return last&0x03 == 0
	}
	return true
}

const (
	base64StdAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	base64URLAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
)

// containsOnly reports whether every character of s is in set (trimming
// stops at the first character outside set, from either end).
func containsOnly(s, set string) bool { return strings.Trim(s, set) == "" }

// removeJSSpace drops every JavaScript white-space character (regexp \s).
func removeJSSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if jsonl.IsJSSpace(r) {
			return -1
		}
		return r
	}, s)
}

// arrayAsObject returns the object {...arr} gives in JavaScript: the elements
// keyed "0", "1", … in order.
func arrayAsObject(arr *jsonl.Value) jsonl.Value {
	o := jsonl.ObjectValue()
	for i, it := range arr.Items() {
		o.Set(strconv.Itoa(i), it.Value)
	}
	return o
}

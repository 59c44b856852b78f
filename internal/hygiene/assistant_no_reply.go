package hygiene

import (
	"regexp"
	"strings"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// The assistant/no-reply rule of step 3: NO_REPLY detection, for the token "NO_REPLY".

// ruleSilentReply is the rule id recorded by this file.
const ruleSilentReply = "assistant/no-reply"

var (
	silentExact        = jsRegexp(`(?i)^\s*NO_REPLY(?:\s+NO_REPLY)*\s*$`)
	leadingPunct       = regexp.MustCompile(`^\p{P}+`)
	trailingPunct      = regexp.MustCompile(`\p{P}+$`)
	taggedReasoning    = jsRegexp(`(?i)^\s*<\s*(?:(?:antml:|mm:)?(?:think(?:ing)?|thought)|antthinking)\b[^<>]*>[\s\S]*?<\s*/\s*(?:(?:antml:|mm:)?(?:think(?:ing)?|thought)|antthinking)\s*>\s*`)
	openReasoning      = jsRegexp(`(?i)^\s*<\s*(?:(?:antml:|mm:)?(?:think(?:ing)?|thought)|antthinking)\b[^<>]*>`)
	plainReasoning     = jsRegexp(`(?i)^\s*(?:think(?:ing)?|thought|analysis|reasoning)\s*:?\s*\r?\n`)
	finalSilentToken   = jsRegexp(`(?i)(?:^|[\s*.])NO_REPLY\s*$`)
	silentIntent       = jsRegexp(`(?i)^\s*(?:i|i'll|i\s+will|i'm|i\s+am|we|we'll|we\s+will|the\s+assistant|assistant|the\s+bot|bot|openclaw)\s+(?:(?:will\s+)?(?:stay|remain|keep|be)\s+(?:quiet|silent)(?:\s+(?:here|for\s+now|on\s+this|in\s+this\s+(?:chat|thread|channel|conversation)))?|(?:do\s+not|don't|dont|will\s+not|won't|would\s+not|should\s+not)\s+(?:reply|respond)(?:\s+(?:here|for\s+now|on\s+this|in\s+this\s+(?:chat|thread|channel|conversation)))?|(?:have|has)\s+nothing\s+(?:to|for)\s+(?:say|add|reply|respond))(?:[.!?]+)?\s*$`)
	substantiveCue     = jsRegexp(`(?i)\b(?:answer|here(?:'s|\s+is)|tell\s+them|you\s+(?:should|can|could|need|must)|please|try|use|send|service\s+is|resolved|retry|yes|no,|sure)\b`)
	bareReasoningLabel = jsRegexp(`(?i)^\s*(?:(?:internal|private)\s+)?(?:reasoning|thinking|thoughts?|analysis)(?:\s+notes?)?\s*$`)
	lineBreak          = regexp.MustCompile(`\r?\n`)
)

const silentToken = "NO_REPLY"

// isSilentReplyPayloadText reports text that asks for no reply: the token
// alone (repeated, with edge punctuation), the token as a JSON string, a
// {"action":"NO_REPLY"} envelope, or the token after leading reasoning.
func isSilentReplyPayloadText(text string) bool {
	// Every form holds the token: most texts are decided by looking for it.
	return mentionsSilentToken(text) && isSilentReplyForm(text)
}

// isSilentReplyForm is isSilentReplyPayloadText without the pre-check.
func isSilentReplyForm(text string) bool {
	return isSilentReplyText(text) || isSilentJSONString(text) || isSilentEnvelope(text) || isReasoningPrefixedSilent(text)
}

// mentionsSilentToken reports NO_REPLY in text in any ASCII case (the
// patterns' case folding changes none of its letters beyond ASCII).
func mentionsSilentToken(text string) bool {
	for i := 0; ; {
		j := strings.IndexByte(text[i:], '_')
		if j < 0 {
			return false
		}
		i += j
		if i >= 2 && i+6 <= len(text) && strings.EqualFold(text[i-2:i+6], silentToken) {
			return true
		}
		i++
	}
}

func isSilentReplyText(text string) bool {
	if text == "" {
		return false
	}
	return silentExact.MatchString(text) || silentExact.MatchString(stripEdgePunctuation(jsonl.TrimJS(text)))
}

func stripEdgePunctuation(text string) string {
	start, end := 0, len(text)
	if loc := leadingPunct.FindStringIndex(text); loc != nil {
		start = loc[1]
	}
	if loc := trailingPunct.FindStringIndex(text); loc != nil {
		end = loc[0]
	}
	if start >= end {
		return ""
	}
	return text[start:end]
}

func isSilentJSONString(text string) bool {
	t := jsonl.TrimJS(text)
	if !strings.HasPrefix(t, `"`) || !strings.HasSuffix(t, `"`) || !strings.Contains(t, silentToken) {
		return false
	}
	v, err := jsonl.Parse([]byte(t))
	if err != nil {
		return false
	}
	s, ok := v.Str()
	return ok && jsonl.TrimJS(s) == silentToken
}

func isSilentEnvelope(text string) bool {
	t := jsonl.TrimJS(text)
	if !strings.HasPrefix(t, "{") || !strings.HasSuffix(t, "}") || !strings.Contains(t, silentToken) {
		return false
	}
	v, err := jsonl.Parse([]byte(t))
	if err != nil || !v.IsObject() || v.Len() != 1 {
		return false
	}
	action, ok := v.GetStr("action")
	return ok && jsonl.TrimJS(action) == silentToken
}

func isReasoningPrefixedSilent(text string) bool {
	t := jsonl.TrimJS(text)
	if t == "" {
		return false
	}
	if rest := stripLeadingReasoningBlocks(t); rest != t {
		return isSilentReplyText(rest) || hasSilentIntentFinalToken(rest)
	}
	if loc := openReasoning.FindStringIndex(t); loc != nil {
		rest := t[loc[1]:]
		return isSilentReplyText(rest) || hasPlainReasoningFinalToken(rest)
	}
	loc := plainReasoning.FindStringIndex(t)
	if loc == nil {
		return false
	}
	rest := t[loc[1]:]
	return isSilentReplyText(rest) || hasPlainReasoningFinalToken(rest)
}

func stripLeadingReasoningBlocks(text string) string {
	for {
		loc := taggedReasoning.FindStringIndex(text)
		if loc == nil || loc[1] == 0 {
			return text
		}
		text = text[loc[1]:]
	}
}

// stripFinalSilentToken removes a final NO_REPLY; ok is false when there is
// none.
func stripFinalSilentToken(text string) (rest string, ok bool) {
	loc := finalSilentToken.FindStringIndex(text)
	if loc == nil {
		return "", false
	}
	stripped := jsonl.TrimJS(text[:loc[0]] + text[loc[1]:])
	if stripped == jsonl.TrimJS(text) {
		return "", false
	}
	return stripped, true
}

func hasSilentIntentFinalToken(text string) bool {
	rest, ok := stripFinalSilentToken(text)
	return ok && (rest == "" || silentIntent.MatchString(rest))
}

func hasPlainReasoningFinalToken(text string) bool {
	rest, ok := stripFinalSilentToken(text)
	if !ok {
		return false
	}
	if rest == "" || silentIntent.MatchString(rest) {
		return true
	}
	var lines []string
	for _, l := range lineBreak.Split(rest, -1) {
		if l = jsonl.TrimJS(l); l != "" {
			lines = append(lines, l)
		}
	}
	if n := len(lines); n > 0 {
		previous := strings.Join(lines[:n-1], "\n")
		if silentIntent.MatchString(lines[n-1]) && previous != "" && !substantiveCue.MatchString(previous) {
			return true
		}
	}
	return bareReasoningLabel.MatchString(rest)
}

package repair

import (
	"strings"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// Action is what the repair does with one physical line.
type Action uint8

// The actions, in the words of docs/fix.md
const (
	// Keep: the line is an entry that no rule changes. A rewrite writes its
	// original bytes (invalid UTF-8 replaced), or re-serializes it when
	// [Verdict.Reserialize] is set.
	Keep Action = iota
	// Blank: the line is empty after trim(); it is no entry and disappears
	// on rewrite, uncounted.
	Blank
	// Drop: the line is removed and counted in droppedLines.
	Drop
	// Rewrite: the entry is replaced by a rewritten one.
	Rewrite
)

// Rules is the set of rules that fired on a line.
type Rules uint8

// The per-line rules (docs/fix.md). A Drop has exactly one of the first
// two; a Rewrite has RuleEmptyErrorTurn alone, or RuleCorruptedImage and/or
// RuleBlankUserText.
const (
	RuleMalformedLine      Rules = 1 << iota // JSON.parse fails
	RuleInvalidMessageRole                   // message entry without an object message or a non-blank string role
	RuleEmptyErrorTurn                       // assistant, content [], stopReason "error"
	RuleCorruptedImage                       // image blocks replaced by a placeholder
	RuleBlankUserText                        // blank user text replaced or removed
)

// ruleNames are the stable identifiers of the rules, for reports.
var ruleNames = [...]string{"malformed-line", "invalid-message-role", "empty-error-turn", "corrupted-image", "blank-user-text"}

// Names returns the identifiers of the rules in r, in rule order.
func (r Rules) Names() []string {
	var out []string
	for i, n := range ruleNames {
		if r&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

func (r Rules) String() string { return strings.Join(r.Names(), "+") }

// Verdict is the classification of one physical line.
type Verdict struct {
	Line   int // physical line number (1-based)
	Action Action
	Rules  Rules
	// CorruptedImages is the number of image blocks a Rewrite replaces.
	CorruptedImages int
	// Err is JSON.parse's complaint for a malformed line (a
	// *jsonl.SyntaxError).
	Err error
	// Reserialize marks a kept line that a rewrite writes as JSON.stringify
	// would, because its bytes do not read back as OpenClaw's output would:
	// a number outside float64's range (1e400 is written null).
	Reserialize bool
	// Value is the entry as a rewrite writes it, set only for Rewrite.
	Value *jsonl.Value
}

// Changed reports whether a rewrite writes something other than the line's
// original bytes (blank lines excepted).
func (v Verdict) Changed() bool {
	return v.Action == Drop || v.Action == Rewrite || v.Reserialize
}

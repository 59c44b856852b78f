package hygiene

import (
	"fmt"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// Target is the provider and model a session is replayed for.
type Target struct {
	Provider  string // e.g. "anthropic"; trimmed and lower-cased when resolving the policy
	ModelAPI  string // e.g. "anthropic-messages"
	ModelID   string // e.g. "claude-sonnet-4-5"
	Reasoning bool   // the model's reasoning flag (changes the completions policy)
	// ImageMaxDimensionPx is agents.defaults.imageMaxDimensionPx (0 = 1200).
	ImageMaxDimensionPx int
}

// ThoughtSignaturePolicy is OpenClaw's sanitizeThoughtSignatures option.
type ThoughtSignaturePolicy struct {
	AllowBase64Only  bool `json:"allowBase64Only"`
	IncludeCamelCase bool `json:"includeCamelCase"`
}

// Policy is OpenClaw's resolved transcript policy; field names and JSON
// names are OpenClaw's. Optional fields are absent when OpenClaw leaves them
// undefined.
type Policy struct {
	SanitizeMode                      string                  `json:"sanitizeMode"`
	SanitizeToolCallIDs               bool                    `json:"sanitizeToolCallIds"`
	ToolCallIDMode                    string                  `json:"toolCallIdMode,omitempty"`
	DuplicateToolCallIDStyle          string                  `json:"duplicateToolCallIdStyle,omitempty"`
	PreserveNativeAnthropicToolUseIDs bool                    `json:"preserveNativeAnthropicToolUseIds"`
	RepairToolUseResultPairing        bool                    `json:"repairToolUseResultPairing"`
	PreserveSignatures                bool                    `json:"preserveSignatures"`
	AppendOnlyRuntimeContext          bool                    `json:"appendOnlyRuntimeContext"`
	SanitizeThoughtSignatures         *ThoughtSignaturePolicy `json:"sanitizeThoughtSignatures,omitempty"`
	DropThinkingBlocks                bool                    `json:"dropThinkingBlocks"`
	DropReasoningFromHistory          bool                    `json:"dropReasoningFromHistory"`
	ApplyGoogleTurnOrdering           bool                    `json:"applyGoogleTurnOrdering"`
	ValidateGeminiTurns               bool                    `json:"validateGeminiTurns"`
	ValidateAnthropicTurns            bool                    `json:"validateAnthropicTurns"`
	AllowSyntheticToolResults         bool                    `json:"allowSyntheticToolResults"`
}

// Message is one context message on its way through the rules, with where
// it came from so findings and diffs can name the physical line.
type Message struct {
	V       jsonl.Value // the message object, in OpenClaw's shape
	Line    int         // physical line of the entry it came from; 0 for synthetic messages
	EntryID string      // id of that entry, "" when unknown or synthetic
}

// Change is one modification a rule made, for `replay --diff` and for
// `check --provider` findings.
type Change struct {
	Rule    string // rule id, e.g. "tool-call-ids/strict9"
	Line    int    // physical line of the affected entry (0 = synthetic or unknown)
	EntryID string
	Detail  string // e.g. "call_01HX… → a1b2c3d4e"
	// Rejects is true when the change is an error OpenClaw raises (the
	// provider cannot be replayed at all), false for a rewrite.
	Rejects bool
	// CauseLine is, for a refusal, the physical line of the entry that
	// causes it (0: a synthetic message, or unknown). The refusal itself
	// concerns the whole history, so Line stays 0 and the change log
	// (`replay --diff`) shows it as before; `check` names this line.
	CauseLine int
}

// Config is what the caller decides about a replay: the target, its
// policy, the clock and UUID source (injectable for tests), and whether to
// keep the change log.
type Config struct {
	Target Target
	Policy Policy
	Now    func() time.Time
	UUID   func() string
	// CountOnly keeps only how many changes each rule made (ChangeCounts),
	// not the changes themselves: for output that lists none. A replay
	// rewriting every turn of a large session then keeps no log.
	CountOnly bool
}

// NewConfig returns the Config of a replay for t: OpenClaw's policy for
// it, the real clock and random UUIDs.
func NewConfig(t Target) Config {
	return Config{Target: t, Policy: ResolvePolicy(t), Now: time.Now, UUID: session.RandomUUID}
}

// Run is one replay under way: its Config (embedded, so the rules read
// r.Target, r.Policy, r.Now) and what the pipeline finds and carries while
// it runs, the change log first.
type Run struct {
	Config
	// ModelSwitchAt is set by the model-snapshot step when the session's
	// recorded model differs from the target: assistants at or before it
	// count as from another model (epoch ms; 0 = no switch).
	ModelSwitchAt int64
	ModelSwitched bool
	Changes       []Change
	counts        map[string]int
	// seg is the state a segmented replay carries between segments (nil
	// when the whole list is replayed at once).
	seg *segment
	// step is the pipeline step running and phase the pass within it (the
	// pipeline and the rules set them); changeSteps holds step and phase of
	// each change: a segmented replay orders its changes by them, which is
	// the order of the whole-list replay, where every pass runs over all
	// messages before the next.
	step, phase int
	changeSteps []int
	lastDetail  string
	// pairing is the tool-result pairing's room, reused from segment to
	// segment, and shared by the runs of a segmented replay's lane, which
	// take turns (nil until the first pass).
	pairing *pairingRoom
}

// NowMillis is the current time in epoch milliseconds, as Date.now().
func (r *Run) NowMillis() int64 { return r.Now().UnixMilli() }

// Record appends a change.
func (r *Run) Record(rule string, m *Message, format string, args ...any) {
	if r.CountOnly {
		r.count(rule)
		return
	}
	r.recordDetail(rule, m, fmt.Sprintf(format, args...))
}

// recordDetail appends a change with the detail given (Record without its
// formatting, for the rules that make a change per tool call).
func (r *Run) recordDetail(rule string, m *Message, detail string) {
	if r.CountOnly {
		r.count(rule)
		return
	}
	c := Change{Rule: rule, Detail: detail}
	if c.Detail == r.lastDetail {
		c.Detail = r.lastDetail // one string for a run of equal details: a long log keeps less
	}
	r.lastDetail = c.Detail
	if m != nil {
		c.Line, c.EntryID = m.Line, m.EntryID
	}
	r.addChange(c)
}

// addChange appends c to the change log, made by the step running.
func (r *Run) addChange(c Change) { r.addChangeAt(c, r.step<<4|r.phase) }

// addChangeAt appends c to the change log, made by the step and pass of
// step key key (see changeSteps).
func (r *Run) addChangeAt(c Change, key int) {
	r.count(c.Rule)
	if r.CountOnly {
		return
	}
	if len(r.Changes) == cap(r.Changes) {
		// Double: append grows a large list by a quarter, copying a log of
		// a hundred thousand changes over and over.
		grown := make([]Change, len(r.Changes), max(64, 2*cap(r.Changes)))
		copy(grown, r.Changes)
		r.Changes = grown
	}
	r.Changes = append(r.Changes, c)
	r.changeSteps = append(r.changeSteps, key)
}

// at starts pipeline step n.
func (r *Run) at(n int) { r.step, r.phase = n, 0 }

// count counts a change made by rule.
func (r *Run) count(rule string) {
	if r.counts == nil {
		r.counts = map[string]int{}
	}
	r.counts[rule]++
}

// ChangeCounts returns how many changes each rule made (read only).
func (r *Run) ChangeCounts() map[string]int { return r.counts }

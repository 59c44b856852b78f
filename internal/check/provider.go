package check

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/hygiene"
	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// This file is `check --provider`: what OpenClaw's replay would change
// before sending a session to one provider (or to every provider family of
// the compatibility matrix), as findings. The replay itself is package
// hygiene's; this file only turns its changes into findings, one check id
// per rule, and folds repetitive ones.

// ReplayIDPrefix starts the id of every replay check: "replay/<rule>",
// e.g. "replay/tool-call-ids/strict9".
const ReplayIDPrefix = "replay/"

// ReplayID is the check id of the findings of replay rule rule.
func ReplayID(rule string) ID { return ID(ReplayIDPrefix + rule) }

// LoaderError is the check id of a session OpenClaw's own loader throws on:
// nothing can be replayed, for any provider.
const LoaderError ID = ReplayIDPrefix + "loader-error"

// ProviderAll is the --provider value that runs every family of
// [MatrixTargets].
const ProviderAll = "all"

// replayHintCommand is how catalogue hints name the replay command; the
// hints of findings name the finding's target instead of P.
const replayHintCommand = "openclaw-doctor replay --provider P --diff"

// Hints of the replay checks, by what the replay does.
var (
	replayRewriteHint  = fmt.Sprintf("OpenClaw's replay rewrites this before sending (see `%s`); nothing to do unless the rewrite loses something you need", replayHintCommand)
	replayMetadataHint = fmt.Sprintf("no action needed: OpenClaw's replay changes only transcript state the provider never sees (see `%s`)", replayHintCommand)
	replayRejectHint   = fmt.Sprintf("OpenClaw refuses to send this history to the provider (see `%s`); repair the session by hand or use another provider", replayHintCommand)
)

// replayCheck is one catalogue entry of a replay rule.
func replayCheck(rule string, sev Severity, summary string) Check {
	hint := replayRewriteHint
	switch sev {
	case Info:
		hint = replayMetadataHint
	case Error:
		hint = replayRejectHint
	}
	return Check{ID: ReplayID(rule), Severity: sev, Summary: summary, Hint: hint}
}

// ReplayCatalogue is every replay check, in the order of OpenClaw's replay
// steps (docs/replay.md). Severities: error for what makes OpenClaw refuse
// the history, info for changes to transcript state the provider never
// receives (tool-result details, usage snapshots, the model-switch state),
// warning for every rewrite of what the provider receives. Every rule
// package hygiene records is listed (a test replays the conformance corpus
// for every matrix target to keep it so).
var ReplayCatalogue = []Check{
	{ID: LoaderError, Severity: Error,
		Summary: "OpenClaw's session loader throws on the file (a null line before the header, a bare number in a v1 file, a summary entry without a valid timestamp): no provider can be sent anything.",
		Hint:    "OpenClaw cannot load this session at all (see `openclaw-doctor replay`); repair the file by hand"},
	replayCheck("user/inter-session-marker", Warning, "A user message routed from another session gets OpenClaw's inter-session marker prepended to its text."),
	replayCheck("model-snapshot/switch", Info, "The session was last replayed for another model: reasoning from before now counts as another model's (the rewrites it causes are reported under their own rules)."),
	replayCheck("user/blank-content", Warning, "A user message whose text is blank loses its blank blocks, or is removed."),
	replayCheck("assistant/transcript-artifact", Warning, "An OpenClaw transcript-only assistant turn (a delivery mirror, a gateway injection) is removed."),
	replayCheck("assistant/stream-error-turn", Warning, "An assistant turn that ended in an error or abort with no content is removed."),
	replayCheck("assistant/content-shape", Warning, "Assistant content that is not an array is wrapped or converted to a text block."),
	replayCheck("assistant/display-blocks", Warning, "Display-only blocks (image, audio, video, attachment) are removed from assistant turns."),
	replayCheck("assistant/internal-metadata", Warning, "OpenClaw's internal metadata (timestamps, runtime-context prefaces) is stripped from assistant text."),
	replayCheck("assistant/no-reply", Warning, "NO_REPLY (silent) text blocks, or whole silent replies, are removed from assistant turns."),
	replayCheck("assistant/length-reasoning-only", Warning, "An assistant turn cut off by the length limit with only reasoning in it is removed."),
	replayCheck("assistant/mirror-duplicate", Warning, "An assistant turn that duplicates the previous one (a delivery mirror of it) is removed."),
	replayCheck("thought-signatures/strip", Warning, "Gemini thought signatures the target cannot use (Claude message ids, non-base64 values) are removed."),
	replayCheck("images/resize", Warning, "An image larger than the configured side or 5 MiB is re-encoded as a smaller JPEG on every turn."),
	replayCheck("images/omit", Warning, "An image that cannot be decoded or made small enough is replaced by a text placeholder."),
	replayCheck("images/mime", Warning, "An image's mimeType is replaced by the type its bytes show."),
	replayCheck("images/base64", Warning, "An image payload is rewritten as canonical base64."),
	replayCheck("content/blank-text", Warning, "Blank text blocks are removed (or non-array tool-result content replaced)."),
	replayCheck("content/empty-turn", Warning, "A turn left without content is removed, or gets a placeholder text."),
	replayCheck("thinking-signatures/pre-compaction", Warning, "Thinking signatures from before the latest compaction are removed (the provider would reject them as stale)."),
	replayCheck("thinking-signatures/invalid", Warning, "Thinking blocks without a usable signature are removed for providers that verify signatures."),
	replayCheck("reasoning/drop", Warning, "Reasoning blocks are removed from history for targets that do not replay them."),
	replayCheck("thinking/drop", Warning, "Thinking blocks of earlier turns are removed for targets that drop them."),
	replayCheck("tool-call-inputs/non-object", Warning, "A message that is not an object is removed."),
	replayCheck("tool-call-inputs/signed-thinking-turn", Warning, "An assistant turn with signed thinking and an invalid tool call is removed whole (its signature covers every block)."),
	replayCheck("tool-call-inputs/missing-input", Warning, "A tool call with neither input nor arguments is dropped."),
	replayCheck("tool-call-inputs/missing-id", Warning, "A tool call without an id is dropped."),
	replayCheck("tool-call-inputs/invalid-name", Warning, "A tool call whose name is missing, too long or not [A-Za-z0-9_:.-] is dropped."),
	replayCheck("tool-call-inputs/partial-json", Warning, "An unfinished streamed tool call (partialJson) is dropped."),
	replayCheck("tool-call-inputs/partial-json-stripped", Warning, "A finished OpenAI Responses call loses its leftover partialJson."),
	replayCheck("tool-call-inputs/name-trimmed", Warning, "A tool name with surrounding white space is trimmed."),
	replayCheck("tool-call-inputs/empty-turn", Warning, "An assistant turn left without blocks after tool-call validation is removed."),
	replayCheck("tool-result-pairing/non-object", Warning, "A message that is not an object is removed by the pairing pass."),
	replayCheck("tool-result-pairing/duplicate", Warning, "A second result for the same tool call is dropped (or replaces a synthetic one)."),
	replayCheck("tool-result-pairing/orphan", Warning, "A tool result that answers no unresolved tool call is dropped."),
	replayCheck("tool-result-pairing/displaced", Warning, "A tool result separated from its tool call is moved back to follow it."),
	replayCheck("tool-result-pairing/synthetic", Warning, "A tool call without a result gets a synthetic error (or \"aborted\") result."),
	replayCheck("tool-result-pairing/failed-turn", Warning, "A turn that ended in an error or abort is removed with its tool calls and their results."),
	replayCheck("tool-result-pairing/tool-name", Warning, "A tool result's toolName is corrected to its call's."),
	replayCheck("tool-result-pairing/legacy-id", Warning, "A tool result without an id is attached to its tool call as an error."),
	replayCheck("responses/stale-reasoning", Warning, "OpenAI reasoning items from before a model switch are removed (or the turn holding only them)."),
	replayCheck("responses/call-id", Warning, "A tool-call id OpenAI Responses would reject is rewritten, with its results."),
	replayCheck("responses/downgrade", Warning, "A call|item id whose reasoning item is gone is reduced to its call id."),
	replayCheck("tool-call-ids/strict", Warning, "Tool-call ids are rewritten to letters and digits only (the provider's id format), with their results."),
	replayCheck("tool-call-ids/strict9", Warning, "Tool-call ids are rewritten to exactly 9 letters and digits (Mistral's id format), with their results."),
	replayCheck("tool-results/details", Info, "The `details` field of a tool result (transcript state) is not sent."),
	replayCheck("usage/snapshot", Info, "An assistant's usage snapshot is normalised or zeroed (transcript state the provider never sees)."),
	replayCheck("google/turn-ordering", Warning, "A history that starts with the model gets OpenClaw's \"(session bootstrap)\" user turn in front."),
	replayCheck("github-copilot/thinking", Warning, "Thinking blocks are removed for GitHub Copilot."),
	replayCheck("responses/invariant", Error, "OpenClaw's OpenAI Responses invariant fails (`invalid_replay_transcript`: an orphan tool result, a call without a result): OpenClaw refuses the history."),
	replayCheck("turns/merge-user", Warning, "Consecutive user turns are merged into one (strict alternation)."),
	replayCheck("turns/merge-assistant", Warning, "Consecutive assistant turns are merged into one (strict alternation)."),
	replayCheck("turns/dangling-tool-calls", Warning, "Tool calls no result answers before the next assistant turn are removed."),
}

// lookupReplay returns the replay catalogue entry of id ([Lookup] falls
// back to it, so --only and --skip accept replay ids).
func lookupReplay(id ID) (Check, bool) {
	for _, c := range ReplayCatalogue {
		if c.ID == id {
			return c, true
		}
	}
	return Check{}, false
}

// replayRuleCheck is the catalogue entry of rule; a rule the catalogue does
// not list yet (a test keeps that from happening) is a warning.
func replayRuleCheck(rule string) Check {
	if c, ok := lookupReplay(ReplayID(rule)); ok {
		return c
	}
	return replayCheck(rule, Warning, "")
}

// NamedTarget is a replay target of the compatibility matrix.
type NamedTarget struct {
	Name   string
	Target hygiene.Target
}

// MatrixTargets are the provider families `check --provider all` replays
// for: the targets of the conformance corpus (testdata/conformance/
// targets.txt), one per transcript policy OpenClaw 2026.9.6 resolves, with
// a usual model of each family. "default" is a provider without a plugin on
// an api OpenClaw does not know: the default policy.
func MatrixTargets() []NamedTarget {
	t := func(name, provider, api, model string) NamedTarget {
		return NamedTarget{name, hygiene.Target{Provider: provider, ModelAPI: api, ModelID: model}}
	}
	return []NamedTarget{
		t("anthropic-sonnet45", "anthropic", "anthropic-messages", "claude-sonnet-4-5"),
		t("anthropic-opus46", "anthropic", "anthropic-messages", "claude-opus-4-6"),
		t("google", "google", "google-generative-ai", "gemini-2.5-pro"),
		t("google-cli", "google-gemini-cli", "google-gemini-cli", "gemini-3-pro-preview"),
		t("openai-responses", "openai", "openai-responses", "gpt-5"),
		t("openai-completions", "openai", "openai-completions", "gpt-4.1"),
		t("codex", "openai-codex", "openai-chatgpt-responses", "gpt-5.5"),
		t("mistral", "mistral", "openai-completions", "mistral-large-latest"),
		t("bedrock", "amazon-bedrock", "bedrock-converse-stream", "anthropic.claude-sonnet-4-5-20250929-v1:0"),
		t("openrouter-gemini", "openrouter", "openai-completions", "google/gemini-2.5-pro"),
		t("openrouter-claude", "openrouter", "openai-completions", "anthropic/claude-sonnet-4.5"),
		t("openrouter-mistral", "openrouter", "openai-completions", "mistralai/mistral-large"),
		t("ollama", "ollama", "ollama", "llama3.3"),
		t("groq", "groq", "openai-completions", "llama-3.3-70b-versatile"),
		t("xai", "xai", "openai-responses", "grok-4"),
		t("minimax", "minimax", "anthropic-messages", "MiniMax-M2"),
		t("default", "custom", "custom-api", "custom-model"),
	}
}

// ProviderOptions are the options of `check --provider`.
type ProviderOptions struct {
	// Target is what --provider, --model-api, --model-id and --reasoning
	// give; each file completes it with [hygiene.CompleteTarget]. Target.Provider
	// [ProviderAll] replays for every [MatrixTargets] family instead (with
	// Target.Reasoning and Target.ImageMaxDimensionPx).
	Target hygiene.Target
	// Now is the replay's clock (model switches); nil is the real clock.
	Now func() time.Time
	// Only and Skip select replay checks as they select the others: with
	// Only set, only the replay ids it names run.
	Only, Skip []ID
	// TargetDone, when set, is called as the replay of a file for one
	// target ends (from the goroutines checking files: it must be safe for
	// concurrent use), so that the caller can show progress.
	TargetDone func()
	// WholeReplay, when set, is called before a target the segmented
	// replay could not vouch for is replayed whole (a replay that keeps the
	// whole branch), from the goroutines checking files, so that the
	// caller can let the collector go at its usual pace again.
	WholeReplay func()
}

// All reports that the options ask for the compatibility matrix.
func (o *ProviderOptions) All() bool {
	return strings.EqualFold(strings.TrimSpace(o.Target.Provider), ProviderAll)
}

// Enabled reports whether replay check id runs.
func (o *ProviderOptions) Enabled(id ID) bool { return selected(o.Only, o.Skip, id) }

// Counts returns how many replay checks run and how many are skipped.
func (o *ProviderOptions) Counts() (run, skipped int) {
	return countSelected(ReplayCatalogue, o.Enabled)
}

// MatrixVerdict is a matrix row's outcome: how OpenClaw's replay treats
// the session for the row's target.
type MatrixVerdict uint8

// The verdicts, best first.
const (
	// Compatible: replay sends the stored branch, or changes only
	// transcript state the provider never sees.
	Compatible MatrixVerdict = iota
	// Rewrites: replay silently changes what the provider receives.
	Rewrites
	// Rejects: OpenClaw refuses to send the history (or cannot load it).
	Rejects
)

// MatrixRow is the outcome of the replay for one target of the matrix.
type MatrixRow struct {
	Name    string
	Target  hygiene.Target
	Verdict MatrixVerdict
	// Rewrites counts the changes of warning rules, Rules names them (in
	// the order replay applies them); Metadata counts info-rule changes.
	Rewrites int
	Rules    []string
	Metadata int
	// Reason is OpenClaw's error when the verdict is Rejects.
	Reason string
}

// ProviderResult is what `check --provider` finds in one file.
type ProviderResult struct {
	// Findings are the replay findings: per target (in matrix order), in
	// line order (findings without a line first).
	Findings []Finding
	// Matrix has one row per target of [MatrixTargets] when the options ask
	// for all of them; nil otherwise.
	Matrix []MatrixRow
}

// Folding. Replay changes are reported one finding per rule and line (the
// details of all the rule's changes on that line in it, identical ones
// counted), at most maxLinesPerRule lines per rule and target: the last
// finding of a rule that changes more lines says how many more changes and
// lines follow, so a session with 10,000 rewritten tool calls prints five
// lines per rule, not 10,000 (`replay --diff` lists them all). The matrix
// reports one finding per target and rule.
const (
	maxLinesPerRule = 5
	maxDetailsShown = 3
)

// FindReplayChanges replays (under ctx: once it is done, the replay stops
// at its next read) the session read from ra for the target of o
// (or every matrix target) and reports the changes as findings of path. A
// file OpenClaw's loader throws on gets one [LoaderError] finding; a file
// that cannot be read, one [Unreadable] finding.
//
// The session is read once for every target and replayed segment by
// segment ([hygiene.ReplaySession]); each target's changes are folded as
// each segment's replay ends (changeFold), so that no target keeps a change
// log. A target the segmented replay cannot vouch for is replayed whole.
func FindReplayChanges(ctx context.Context, ra io.ReaderAt, path string, o ProviderOptions) ProviderResult {
	ra = jsonl.WithContextAt(ctx, ra) // a cancelled run stops at its next read
	s, err := session.OpenContext(ra)
	if err != nil {
		return loadFailure(path, o, err)
	}
	targets := providerTargets(o, s.Facts)
	configs := make([]hygiene.Config, len(targets))
	for k, nt := range targets {
		configs[k] = replayConfig(nt.Target, o.Now)
	}
	out := &findingsOutput{path: path, o: &o, targets: targets, folds: make([]*changeFold, len(targets)),
		outcomes: make([]targetOutcome, len(targets))}
	if err := hygiene.ReplaySession(ctx, ra, s, configs, out); err != nil {
		return loadFailure(path, o, err)
	}
	return providerResult(&o, out.outcomes)
}

// findingsOutput folds each target's changes as its replay makes them (a
// hygiene.ChangeSink: the messages are not needed).
type findingsOutput struct {
	path     string
	o        *ProviderOptions
	targets  []NamedTarget
	folds    []*changeFold // by target: its current attempt's
	outcomes []targetOutcome
}

func (f *findingsOutput) Begin(k int, whole bool) error {
	if whole && f.o.WholeReplay != nil {
		f.o.WholeReplay()
	}
	f.folds[k] = newChangeFold(f.o.perRule())
	return nil
}

func (*findingsOutput) Segment(int, []hygiene.Message) error { return nil }

func (f *findingsOutput) Changes(k int, changes []hygiene.Change, steps []int) error {
	f.folds[k].add(changes, steps)
	return nil
}

func (f *findingsOutput) Done(k int, res hygiene.Replayed) error {
	if res.Whole {
		f.folds[k].add(res.Run.Changes, nil)
	}
	f.outcomes[k] = foldTarget(f.path, f.o, f.targets[k], f.folds[k])
	f.folds[k] = nil
	if f.o.TargetDone != nil {
		f.o.TargetDone()
	}
	return nil
}

// replayConfig is the replay of t with the clock now (nil: the real
// clock).
func replayConfig(t hygiene.Target, now func() time.Time) hygiene.Config {
	c := hygiene.NewConfig(t)
	if now != nil {
		c.Now = now
	}
	return c
}

// targetOutcome is what one target's replay adds to the result.
type targetOutcome struct {
	findings []Finding
	row      MatrixRow
}

// foldTarget is the findings of fold, the replay's changes for nt (and a
// matrix row when o asks for every target).
func foldTarget(path string, o *ProviderOptions, nt NamedTarget, fold *changeFold) targetOutcome {
	if !o.All() {
		return targetOutcome{findings: fold.findings(path, "", nt.Target, o)}
	}
	return targetOutcome{findings: fold.findings(path, nt.Name, nt.Target, o), row: fold.row(nt, o)}
}

// perRule is how many lines the findings of a rule show: maxLinesPerRule
// for one target, one for the matrix.
func (o *ProviderOptions) perRule() int {
	if o.All() {
		return 1
	}
	return maxLinesPerRule
}

// providerTargets is the target of o, completed from the session (named ""),
// or every matrix target.
func providerTargets(o ProviderOptions, facts *session.Context) []NamedTarget {
	if !o.All() {
		t, _ := hygiene.CompleteTarget(o.Target, facts) // --provider is never empty here
		return []NamedTarget{{Target: t}}
	}
	targets := MatrixTargets()
	for k := range targets {
		targets[k].Target.Reasoning, targets[k].Target.ImageMaxDimensionPx = o.Target.Reasoning, o.Target.ImageMaxDimensionPx
	}
	return targets
}

// providerResult puts the targets' outcomes together in target order.
func providerResult(o *ProviderOptions, outcomes []targetOutcome) ProviderResult {
	var res ProviderResult
	for _, out := range outcomes {
		res.Findings = append(res.Findings, out.findings...)
		if o.All() {
			res.Matrix = append(res.Matrix, out.row)
		}
	}
	return res
}

// loadFailure reports a file the replay cannot load: OpenClaw's loader
// throws (every target rejects it), or the file cannot be read.
// ReplayLoadFailure is the result of a replay that cannot load the session
// of path: err is a [session.LoaderError] where OpenClaw's loader (or
// runtime) refuses it, anything else a failure to read it. It gives the
// findings and matrix rows [FindReplayChanges] gives such a session.
func ReplayLoadFailure(path string, o ProviderOptions, err error) ProviderResult {
	return loadFailure(path, o, err)
}

func loadFailure(path string, o ProviderOptions, err error) ProviderResult {
	var le *session.LoaderError
	if !errors.As(err, &le) {
		return ProviderResult{Findings: []Finding{{ID: Unreadable, Severity: Error, Path: path,
			Message: fmt.Sprintf("cannot read the file for replay: %v", err), Hint: mustLookup(Unreadable).Hint}}}
	}
	var res ProviderResult
	if o.Enabled(LoaderError) {
		c, _ := lookupReplay(LoaderError)
		res.Findings = []Finding{{ID: LoaderError, Severity: Error, Path: path, Line: le.Line,
			Message: fmt.Sprintf("OpenClaw's session loader throws %s: no provider can be sent this session", le.Msg), Hint: c.Hint}}
	}
	if o.All() {
		for _, nt := range MatrixTargets() {
			res.Matrix = append(res.Matrix, MatrixRow{Name: nt.Name, Target: nt.Target, Verdict: Rejects,
				Reason: "OpenClaw's session loader throws " + le.Msg})
		}
	}
	return res
}

// describeTarget names a target in messages: "anthropic anthropic-messages
// claude-sonnet-4-5", prefixed with the matrix name when there is one.
func describeTarget(name string, t hygiene.Target) string {
	s := strings.Join([]string{t.Provider, orDash(t.ModelAPI), orDash(t.ModelID)}, " ")
	if name != "" {
		s = name + " (" + s + ")"
	}
	return s
}

// replayCommand is the command that shows every change for t.
func replayCommand(t hygiene.Target) string {
	var b strings.Builder
	b.WriteString("openclaw-doctor replay --provider " + shellWord(t.Provider))
	if t.ModelAPI != "" {
		b.WriteString(" --model-api " + shellWord(t.ModelAPI))
	}
	if t.ModelID != "" {
		b.WriteString(" --model-id " + shellWord(t.ModelID))
	}
	if t.Reasoning {
		b.WriteString(" --reasoning")
	}
	b.WriteString(" --diff")
	return b.String()
}

// shellWord quotes s for a shell when it needs it.
func shellWord(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@+", r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// lineChanges are the changes of one rule on one line, identical details
// counted once.
type lineChanges struct {
	line    int
	entryID string
	details []string
	counts  []int
	// index maps a detail to its place in details once there are more
	// than a few (a line with 100,000 changes must not scan them all for
	// each).
	index map[string]int
}

// indexFrom is the number of distinct details above which add looks them
// up in an index instead of scanning.
const indexFrom = 8

func (l *lineChanges) add(detail string) {
	i, ok := -1, false
	if l.index != nil {
		i, ok = l.index[detail]
	} else if i = slices.Index(l.details, detail); i >= 0 {
		ok = true
	}
	if ok {
		l.counts[i]++
		return
	}
	l.details = append(l.details, detail)
	l.counts = append(l.counts, 1)
	switch n := len(l.details); {
	case n > indexFrom:
		l.index[detail] = n - 1
	case n == indexFrom:
		l.index = make(map[string]int, 2*indexFrom)
		for k, d := range l.details {
			l.index[d] = k
		}
	}
}

// text joins the details: "a; b ×3; c (+2 more)".
func (l *lineChanges) text() string {
	parts := make([]string, 0, maxDetailsShown+1)
	for i, d := range l.details {
		if i == maxDetailsShown {
			parts = append(parts, fmt.Sprintf("(+%d more)", len(l.details)-i))
			break
		}
		if l.counts[i] > 1 {
			d += " ×" + strconv.Itoa(l.counts[i])
		}
		parts = append(parts, d)
	}
	return strings.Join(parts, "; ")
}

// findingHint is the catalogue hint naming the finding's own target.
func findingHint(c Check, t hygiene.Target) string {
	return strings.Replace(c.Hint, replayHintCommand, replayCommand(t), 1)
}

// countNoun is "1 thing" or "n things".
func countNoun(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

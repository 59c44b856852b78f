package cmd

import (
	"fmt"
	"strings"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/check"
)

// behaviourFamily is one page of docs/behaviour: a family of fix or replay
// rules, explained in a few sentences, with the checks that report them.
type behaviourFamily struct {
	page, title, intro string
	// prefix selects the replay checks of the family ("replay/images/");
	// empty for the repair page, which lists the checks fix repairs.
	prefix string
}

// behaviourFamilies are the pages, in the order the index lists them: the
// repair first, then the replay families in the order the replay runs them.
var behaviourFamilies = []behaviourFamily{
	{page: "repair.md", title: "Repair (`fix`)", intro: `fix rewrites a session file so that OpenClaw can load every durable record
in it. It reads each non-blank line in order and applies the first rule that
matches: a line that is not JSON is dropped, a message entry without a usable
role is dropped, an assistant turn that failed before producing content gets
a fallback text, blank user text becomes "(continue)", and an image whose data
is not a valid image becomes a text placeholder. When the file starts with a
session header, tool calls of OpenAI code-mode turns (and message tool calls
before a delivery mirror) that have no result get a synthetic "aborted"
result. Every other line keeps its bytes. A file whose header is missing or
invalid, or in which no line survives, is left alone: those need a person.
docs/fix.md has the exact conditions, counts and report.`},
	{page: "replay-loader.md", prefix: "replay/loader-error", title: "Loading the session", intro: `Before any replay rule runs, OpenClaw loads the session's active branch. When
that load throws, OpenClaw cannot send the session to any provider, and no
rule below runs.`},
	{page: "replay-user.md", prefix: "replay/user/", title: "User messages", intro: `A user message routed from another session is marked as such, and a user
message whose text is blank loses its blank blocks (or is removed), since
several providers reject blank text.`},
	{page: "replay-model-snapshot.md", prefix: "replay/model-snapshot/", title: "Model switches", intro: `OpenClaw remembers which model a session was last replayed for. When that
changes, reasoning from before the switch counts as another model's, which
later rules (stale reasoning, thinking) act on. The switch itself changes
nothing the provider sees.`},
	{page: "replay-assistant.md", prefix: "replay/assistant/", title: "Assistant turns", intro: `Assistant turns are normalised before they are sent: turns that exist only in
the transcript (delivery mirrors, gateway injections), turns that ended in an
error with nothing in them, silent replies and reasoning-only turns cut off by
the length limit are removed; content that is not a list of blocks is
converted; display-only blocks and OpenClaw's own metadata are stripped.`},
	{page: "replay-thought-signatures.md", prefix: "replay/thought-signatures/", title: "Gemini thought signatures", intro: `Gemini attaches thought signatures to blocks. A signature the target cannot
use (one that is really a Claude message id, or not base64) is removed.`},
	{page: "replay-images.md", prefix: "replay/images/", title: "Images", intro: `Every image in the history is checked on every turn: images larger than the
configured side (imageMaxDimensionPx, default 1200 px) or 5 MiB are
re-encoded smaller, images that cannot be decoded or shrunk are replaced by a
text placeholder, a wrong MIME type is corrected from the bytes, and
non-canonical base64 is rewritten.`},
	{page: "replay-content.md", prefix: "replay/content/", title: "Blank content", intro: `Blank text blocks are removed, and a turn left with no content is removed or
given a placeholder, because providers reject empty content.`},
	{page: "replay-thinking-signatures.md", prefix: "replay/thinking-signatures/", title: "Thinking signatures", intro: `Providers that verify thinking signatures reject a signature from before the
latest compaction, and thinking blocks without a usable signature. OpenClaw
removes both before sending.`},
	{page: "replay-reasoning.md", prefix: "replay/reasoning/", title: "Reasoning blocks", intro: `Targets that do not take reasoning back in the history get the history
without its reasoning blocks.`},
	{page: "replay-thinking.md", prefix: "replay/thinking/", title: "Thinking blocks", intro: `Targets that drop earlier thinking get the history without the thinking
blocks of earlier turns.`},
	{page: "replay-tool-call-inputs.md", prefix: "replay/tool-call-inputs/", title: "Tool-call inputs", intro: `Every tool call is validated: a call without an input, an id or a valid name,
or one that was still streaming, is dropped; names are trimmed. In a turn
whose thinking is signed, the signature covers every block, so an invalid
call removes the whole turn. A turn left empty is removed.`},
	{page: "replay-tool-result-pairing.md", prefix: "replay/tool-result-pairing/", title: "Tool-result pairing", intro: `Providers want every tool call answered by exactly one result, right after
the turn that made the call. The pairing pass moves displaced results back,
drops duplicates and results that answer nothing, inserts a synthetic error
result for a call that has none, removes failed turns with their calls and
results, and corrects a result's tool name to its call's. It runs again at
the end of the replay.`},
	{page: "replay-responses.md", prefix: "replay/responses/", title: "OpenAI Responses", intro: `The OpenAI Responses transports carry reasoning items and "call|item" ids.
Reasoning from before a model switch is removed, ids the API would reject are
rewritten, an id whose reasoning item is gone is reduced to its call id, and
finally OpenClaw checks the history's invariant: a result must answer a call
and a call must have a result. When that check fails OpenClaw refuses to send
the history at all (an error finding, and the session needs repair by hand or
another provider).`},
	{page: "replay-tool-call-ids.md", prefix: "replay/tool-call-ids/", title: "Tool-call ids", intro: `Some providers accept only tool-call ids of their own format: letters and
digits only, or exactly nine of them (Mistral). Ids are rewritten, and their
results with them, so that calls and results still match.`},
	{page: "replay-tool-results.md", prefix: "replay/tool-results/", title: "Tool-result details", intro: `The details a tool result keeps for the transcript are not sent.`},
	{page: "replay-usage.md", prefix: "replay/usage/", title: "Usage snapshots", intro: `An assistant turn's usage snapshot is normalised; the provider never sees it.`},
	{page: "replay-google.md", prefix: "replay/google/", title: "Google turn ordering", intro: `Gemini wants a history that starts with the user: one that starts with the
model gets OpenClaw's "(session bootstrap)" user turn in front.`},
	{page: "replay-github-copilot.md", prefix: "replay/github-copilot/", title: "GitHub Copilot", intro: `GitHub Copilot gets the history without thinking blocks.`},
	{page: "replay-turns.md", prefix: "replay/turns/", title: "Turn alternation", intro: `Providers that want strict alternation (Gemini, Anthropic) get consecutive
user turns, and consecutive assistant turns, merged into one, and tool calls
that no result answers before the next assistant turn removed.`},
}

// behaviourPages renders docs/behaviour: an index and one page per family,
// by path under docs/.
func behaviourPages(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	var index strings.Builder
	index.WriteString("# How openclaw-doctor behaves\n\n" + generatedNote +
		"What `fix` changes on disk, and what OpenClaw's replay changes before a\n" +
		"provider sees a session (`replay`, `check --provider`), one page per family of\n" +
		"rules, with the check ids that report each rule. docs/checks.md lists every\n" +
		"check; docs/fix.md and docs/replay.md give the details.\n\n")
	listed := map[check.ID]bool{}
	for _, f := range behaviourFamilies {
		checks := familyChecks(f)
		if len(checks) == 0 {
			t.Errorf("behaviour page %s: no check has the prefix %q", f.page, f.prefix)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "# %s\n\n%s%s\n\n| check id | severity | what it reports |\n|---|---|---|\n", f.title, generatedNote, f.intro)
		for _, c := range checks {
			listed[c.ID] = true
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", c.ID, c.Severity, strings.ReplaceAll(c.Summary, "|", `\|`))
		}
		out["behaviour/"+f.page] = []byte(b.String())
		fmt.Fprintf(&index, "- [%s](%s)\n", f.title, f.page)
	}
	for _, c := range check.ReplayCatalogue {
		if !listed[c.ID] {
			t.Errorf("replay check %s is on no page of docs/behaviour: add its family to behaviourFamilies", c.ID)
		}
	}
	out["behaviour/README.md"] = []byte(index.String())
	return out
}

// generatedNote heads every generated page.
const generatedNote = "<!-- Generated by `go test ./cmd -run TestGeneratedDocs -update` (cmd/behaviour_test.go). Do not edit. -->\n\n"

// familyChecks are the checks of one family: the checks fix repairs, or
// the replay checks under the family's prefix.
func familyChecks(f behaviourFamily) []check.Check {
	var out []check.Check
	if f.prefix == "" {
		for _, c := range check.Catalogue {
			if c.Fixed {
				out = append(out, c)
			}
		}
		return out
	}
	for _, c := range check.ReplayCatalogue {
		if strings.HasPrefix(string(c.ID), f.prefix) {
			out = append(out, c)
		}
	}
	return out
}

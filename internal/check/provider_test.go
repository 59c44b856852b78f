package check

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/hygiene"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

var conformanceDir = filepath.Join("..", "..", "testdata", "conformance")

// corpusClock is the clock the conformance corpus was recorded with.
func corpusClock() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }

// extraTargets reach rules and policies the matrix does not (Copilot's
// thinking hook, Vertex, an OpenAI-compatible reasoning model).
var extraTargets = []hygiene.Target{
	{Provider: "github-copilot", ModelAPI: "anthropic-messages", ModelID: "claude-sonnet-4.5"},
	{Provider: "github-copilot", ModelAPI: "openai-responses", ModelID: "gpt-5"},
	{Provider: "google-vertex", ModelAPI: "google-vertex", ModelID: "gemini-2.5-pro"},
	{Provider: "deepseek", ModelAPI: "openai-completions", ModelID: "deepseek-reasoner", Reasoning: true},
}

// TestReplayCatalogueListsEveryRule replays every conformance case for
// every matrix target (and a few more) and requires each rule the replay
// records to have its catalogue entry.
func TestReplayCatalogueListsEveryRule(t *testing.T) {
	targets := extraTargets
	for _, nt := range MatrixTargets() {
		targets = append(targets, nt.Target)
	}
	seen := map[string]bool{}
	for _, path := range sessiontest.ShortSample(sessiontest.ConformanceCases(t), 3, nil) {
		sctx := readContext(t, path)
		if sctx == nil {
			continue
		}
		for _, tg := range targets {
			for _, c := range wholeChanges(hygiene.NewConfig(tg), func() *session.Context { return readContext(t, path) }) {
				seen[c.Rule] = true
				if _, ok := lookupReplay(ReplayID(c.Rule)); !ok {
					t.Errorf("%s for %s: rule %q is not in ReplayCatalogue", filepath.Base(path), tg.Provider, c.Rule)
				}
			}
		}
	}
	for _, c := range ReplayCatalogue {
		if rule := strings.TrimPrefix(string(c.ID), ReplayIDPrefix); !seen[rule] && c.ID != LoaderError {
			t.Logf("catalogue rule %s not reached by the corpus", rule)
		}
	}
}

// TestReplayCatalogueIsConsistent: unique replay/ ids no transcript check
// shares, summaries, hints naming the replay command (with the target's
// placeholder), error only for refusals.
func TestReplayCatalogueIsConsistent(t *testing.T) {
	seen := map[ID]bool{}
	for _, c := range ReplayCatalogue {
		if seen[c.ID] {
			t.Errorf("%s listed twice", c.ID)
		}
		seen[c.ID] = true
		if !strings.HasPrefix(string(c.ID), ReplayIDPrefix) || c.Summary == "" || c.Hint == "" || c.Fixed {
			t.Errorf("%s: malformed entry %+v", c.ID, c)
		}
		if _, ok := Lookup(c.ID); !ok {
			t.Errorf("%s: Lookup does not find it (--only/--skip would reject it)", c.ID)
		}
		if c.ID != LoaderError && !strings.Contains(c.Hint, replayHintCommand) {
			t.Errorf("%s: hint %q does not name %q", c.ID, c.Hint, replayHintCommand)
		}
		if (c.Severity == Error) != (c.ID == LoaderError || c.ID == ReplayID("responses/invariant")) {
			t.Errorf("%s: severity %s", c.ID, c.Severity)
		}
	}
}

// TestMatrixRejectsAsOpenClaw: a matrix row rejects exactly when OpenClaw's
// replay of the case for that target is an error.
func TestMatrixRejectsAsOpenClaw(t *testing.T) {
	o := ProviderOptions{Target: hygiene.Target{Provider: ProviderAll}, Now: corpusClock}
	rejects := 0
	rejectedByOpenClaw := func(path string) bool {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		return slices.ContainsFunc(MatrixTargets(), func(nt NamedTarget) bool { return expectedRejects(t, name, nt.Name) })
	}
	for _, path := range sessiontest.ShortSample(sessiontest.ConformanceCases(t), 4, rejectedByOpenClaw) {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		res := providerOnFile(t, path, o)
		if len(res.Matrix) != len(MatrixTargets()) {
			t.Fatalf("%s: %d rows, want %d", name, len(res.Matrix), len(MatrixTargets()))
		}
		for _, row := range res.Matrix {
			want := expectedRejects(t, name, row.Name)
			if got := row.Verdict == Rejects; got != want {
				t.Errorf("%s for %s: rejects = %v, OpenClaw: %v (row %+v)", name, row.Name, got, want, row)
			}
			if row.Verdict == Rejects {
				rejects++
				if row.Reason == "" || !hasFinding(res.Findings, ReplayID("responses/invariant"), row.Name) {
					t.Errorf("%s for %s: rejecting row without a reason or finding: %+v", name, row.Name, row)
				}
			}
		}
	}
	if rejects == 0 {
		t.Error("no target rejected any case: the corpus has Responses refusals")
	}
}

// expectedRejects reads whether OpenClaw's replay of case for the
// conformance target name is an error ("default" is the corpus's "other").
func expectedRejects(t *testing.T, name, target string) bool {
	t.Helper()
	if target == "default" {
		target = "other"
	}
	b, err := os.ReadFile(filepath.Join(conformanceDir, "expected", name+".replay."+target+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return len(doc.Error) > 0 && string(doc.Error) != "null"
}

func hasFinding(fs []Finding, id ID, target string) bool {
	for _, f := range fs {
		if f.ID == id && strings.HasPrefix(f.Message, "for "+target+" (") {
			return true
		}
	}
	return false
}

// TestProviderFindingsFollowChanges: for one target, a file has findings
// exactly when the replay changes it, each on a line a change is on, with
// the target's replay command in its hint.
func TestProviderFindingsFollowChanges(t *testing.T) {
	tg := hygiene.Target{Provider: "mistral"}
	o := ProviderOptions{Target: tg, Now: corpusClock}
	for _, path := range sessiontest.ConformanceCases(t) {
		sctx := readContext(t, path)
		if sctx == nil {
			continue
		}
		full, _ := hygiene.CompleteTarget(tg, sctx)
		changes := wholeChanges(replayConfig(full, corpusClock), func() *session.Context { return readContext(t, path) })
		res := providerOnFile(t, path, o)
		lines := map[int]bool{}
		for _, c := range changes {
			lines[c.Line] = true
		}
		for _, f := range res.Findings {
			if !lines[f.Line] || !strings.HasPrefix(string(f.ID), ReplayIDPrefix) {
				t.Errorf("%s: finding %s on line %d, where no change is", filepath.Base(path), f.ID, f.Line)
			}
			if !strings.Contains(f.Hint, "openclaw-doctor replay --provider mistral --model-api openai-completions") {
				t.Errorf("%s: hint %q does not name the target's replay", filepath.Base(path), f.Hint)
			}
		}
		if (len(changes) == 0) != (len(res.Findings) == 0) {
			t.Errorf("%s: %d changes, %d findings", filepath.Base(path), len(changes), len(res.Findings))
		}
	}
}

func TestFoldChanges(t *testing.T) {
	tg := hygiene.Target{Provider: "mistral", ModelAPI: "openai-completions", ModelID: "m"}
	ch := func(rule string, line int, detail string) hygiene.Change {
		return hygiene.Change{Rule: rule, Line: line, EntryID: fmt.Sprint("e", line), Detail: detail}
	}
	var many []hygiene.Change
	for line := 10; line < 17; line++ {
		many = append(many, ch("tool-call-ids/strict9", line, "a → b"), ch("tool-call-ids/strict9", line, "c → d"))
	}
	for _, c := range []struct {
		name    string
		changes []hygiene.Change
		perRule int
		opts    ProviderOptions
		want    []string // "line severity id message"
	}{
		{"identical details on one line are counted",
			[]hygiene.Change{ch("thinking/drop", 4, "x"), ch("thinking/drop", 4, "x"), ch("thinking/drop", 4, "y")}, 5, ProviderOptions{},
			[]string{"4 warning replay/thinking/drop for mistral openai-completions m: x ×2; y"}},
		{"more than three details are cut",
			[]hygiene.Change{ch("turns/merge-user", 2, "a"), ch("turns/merge-user", 2, "b"), ch("turns/merge-user", 2, "c"), ch("turns/merge-user", 2, "d"), ch("turns/merge-user", 2, "e")}, 5, ProviderOptions{},
			[]string{"2 warning replay/turns/merge-user for mistral openai-completions m: a; b; c; (+2 more)"}},
		{"lines beyond the limit fold into the last finding",
			many, 5, ProviderOptions{},
			[]string{
				"10 warning replay/tool-call-ids/strict9 for mistral openai-completions m: a → b; c → d",
				"11 warning replay/tool-call-ids/strict9 for mistral openai-completions m: a → b; c → d",
				"12 warning replay/tool-call-ids/strict9 for mistral openai-completions m: a → b; c → d",
				"13 warning replay/tool-call-ids/strict9 for mistral openai-completions m: a → b; c → d",
				"14 warning replay/tool-call-ids/strict9 for mistral openai-completions m: a → b; c → d; and 4 more changes of this rule in 2 more places, up to line 16",
			}},
		{"one per rule for the matrix, sorted by line, info and errors",
			[]hygiene.Change{ch("usage/snapshot", 9, "u"), ch("usage/snapshot", 12, "u"), {Rule: "responses/invariant", Detail: "invalid_replay_transcript: x", Rejects: true}}, 1, ProviderOptions{},
			[]string{
				"0 error replay/responses/invariant for mistral openai-completions m: invalid_replay_transcript: x",
				"9 info replay/usage/snapshot for mistral openai-completions m: u; and 1 more change of this rule in 1 more place, up to line 12",
			}},
		{"skipped and not-selected rules are left out",
			[]hygiene.Change{ch("usage/snapshot", 9, "u"), ch("thinking/drop", 3, "t"), ch("reasoning/drop", 5, "r")}, 5,
			ProviderOptions{Only: []ID{ReplayID("thinking/drop"), ReplayID("reasoning/drop")}, Skip: []ID{ReplayID("reasoning/drop")}},
			[]string{"3 warning replay/thinking/drop for mistral openai-completions m: t"}},
		{"a rule the catalogue misses is a warning",
			[]hygiene.Change{ch("future/rule", 1, "z")}, 5, ProviderOptions{},
			[]string{"1 warning replay/future/rule for mistral openai-completions m: z"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fold := newChangeFold(c.perRule)
			fold.add(c.changes, nil)
			fs := fold.findings("s.jsonl", "", tg, &c.opts)
			var got []string
			for _, f := range fs {
				got = append(got, fmt.Sprintf("%d %s %s %s", f.Line, f.Severity, f.ID, f.Message))
				if f.Path != "s.jsonl" || (f.Line > 0 && f.EntryID != fmt.Sprint("e", f.Line)) {
					t.Errorf("finding %+v: wrong path or entry id", f)
				}
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

func TestMatrixRow(t *testing.T) {
	nt := NamedTarget{Name: "x", Target: hygiene.Target{Provider: "p"}}
	matrixRow := func(nt NamedTarget, changes []hygiene.Change, o *ProviderOptions) MatrixRow {
		fold := newChangeFold(1)
		fold.add(changes, nil)
		return fold.row(nt, o)
	}
	changes := []hygiene.Change{
		{Rule: "usage/snapshot"}, {Rule: "thinking/drop"}, {Rule: "tool-call-ids/strict"}, {Rule: "thinking/drop"},
	}
	row := matrixRow(nt, changes, &ProviderOptions{})
	if row.Verdict != Rewrites || row.Rewrites != 3 || row.Metadata != 1 || strings.Join(row.Rules, ",") != "thinking/drop,tool-call-ids/strict" {
		t.Errorf("row = %+v", row)
	}
	row = matrixRow(nt, append(changes, hygiene.Change{Rule: "responses/invariant", Detail: "why", Rejects: true}), &ProviderOptions{})
	if row.Verdict != Rejects || row.Reason != "why" {
		t.Errorf("row = %+v", row)
	}
	row = matrixRow(nt, changes[:1], &ProviderOptions{})
	if row.Verdict != Compatible || row.Metadata != 1 {
		t.Errorf("row = %+v", row)
	}
}

// TestProviderLoaderError: a file OpenClaw's loader throws on is one
// error finding on the line, and every matrix target rejects it.
func TestProviderLoaderError(t *testing.T) {
	data := []byte("null\n{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/\"}\n")
	if _, err := session.ReadContext(bytes.NewReader(data)); err == nil {
		t.Fatal("the loader accepts a null line before the header")
	}
	res := FindReplayChanges(context.Background(), bytes.NewReader(data), "s.jsonl", ProviderOptions{Target: hygiene.Target{Provider: "all"}})
	if len(res.Findings) != 1 || res.Findings[0].ID != LoaderError || res.Findings[0].Severity != Error || res.Findings[0].Line != 1 {
		t.Fatalf("findings = %+v", res.Findings)
	}
	for _, row := range res.Matrix {
		if row.Verdict != Rejects || !strings.Contains(row.Reason, "loader") {
			t.Errorf("row = %+v", row)
		}
	}
}

func TestReplayCommandQuotes(t *testing.T) {
	got := replayCommand(hygiene.Target{Provider: "openrouter", ModelAPI: "openai-completions", ModelID: "it's a/b", Reasoning: true})
	want := `openclaw-doctor replay --provider openrouter --model-api openai-completions --model-id 'it'\''s a/b' --reasoning --diff`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// wholeChanges replays a fresh read of the session whole with c and returns
// the changes (a refusal to replay is one of them): ReplayContext consumes
// the context it replays.
func wholeChanges(c hygiene.Config, read func() *session.Context) []hygiene.Change {
	r := &hygiene.Run{Config: c}
	_, _ = hygiene.ReplayContext(r, read())
	return r.Changes
}

func readContext(t *testing.T, path string) *session.Context {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sctx, err := session.ReadContext(f)
	if err != nil {
		return nil // a loader error: nothing to replay
	}
	return sctx
}

func providerOnFile(t *testing.T, path string, o ProviderOptions) ProviderResult {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return FindReplayChanges(context.Background(), f, filepath.Base(path), o)
}

// FuzzProvider: any input gives findings of replay ids (or Unreadable) on
// lines the input has, for one target and for the matrix, without panics.
func FuzzProvider(f *testing.F) {
	cases := sessiontest.Glob(f, "testdata/conformance/cases/4*.jsonl")
	for _, path := range cases {
		if b, err := os.ReadFile(path); err == nil {
			f.Add(b, false)
		}
	}
	f.Add([]byte("null\n{\"type\":\"session\"}\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, all bool) {
		o := ProviderOptions{Target: hygiene.Target{Provider: "mistral"}, Now: corpusClock}
		if all {
			o.Target.Provider = ProviderAll
		}
		res := FindReplayChanges(context.Background(), bytes.NewReader(data), "f.jsonl", o)
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, fd := range res.Findings {
			if !strings.HasPrefix(string(fd.ID), ReplayIDPrefix) || fd.Line < 0 || fd.Line > lines {
				t.Errorf("finding %+v (input has %d lines)", fd, lines)
			}
		}
		if all && len(res.Matrix) != len(MatrixTargets()) {
			t.Errorf("%d matrix rows", len(res.Matrix))
		}
	})
}

// TestProviderSegmentedMatchesWhole: on long sessions (one clean, one whose
// first cut meets a hazard the replay gets past by avoiding it, one no cut
// avoids), check --provider P and --provider all report exactly what
// replaying each target whole reports.
func TestProviderSegmentedMatchesWhole(t *testing.T) {
	for _, damage := range []string{"", sessiontest.CallWithoutInput, sessiontest.LateResult} {
		data := sessiontest.Long(damage)
		for _, o := range []ProviderOptions{
			{Target: hygiene.Target{Provider: "anthropic"}, Now: corpusClock},
			{Target: hygiene.Target{Provider: ProviderAll}, Now: corpusClock},
		} {
			if testing.Short() && damage != "" && o.All() {
				continue // a quick run matches every target on the clean session only
			}
			got := FindReplayChanges(context.Background(), bytes.NewReader(data), "long.jsonl", o)
			want := wholeReplayFindings(t, data, "long.jsonl", o)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("damage %q, provider %s: segmented findings differ from the whole-list replay's", damage, o.Target.Provider)
			}
			if len(got.Findings) == 0 {
				t.Errorf("damage %q, provider %s: no findings (the session's replay rewrites it)", damage, o.Target.Provider)
			}
		}
	}
}

// wholeReplayFindings is what FindReplayChanges reports when every target
// is replayed whole.
func wholeReplayFindings(t *testing.T, data []byte, path string, o ProviderOptions) ProviderResult {
	t.Helper()
	read := func() *session.Context {
		sctx, err := session.ReadContext(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		return sctx
	}
	targets := providerTargets(o, read())
	outcomes := make([]targetOutcome, len(targets))
	for k, nt := range targets {
		fold := newChangeFold(o.perRule())
		fold.add(wholeChanges(replayConfig(nt.Target, o.Now), read), nil)
		outcomes[k] = foldTarget(path, &o, nt, fold)
	}
	return providerResult(&o, outcomes)
}

// TestLineChangesCountsDetails: identical details are counted once, in
// order of first appearance, whether add scans them or looks them up.
func TestLineChangesCountsDetails(t *testing.T) {
	for _, distinct := range []int{1, indexFrom - 1, indexFrom, indexFrom + 1, 3 * indexFrom} {
		var l lineChanges
		want := map[string]int{}
		for round := range 3 {
			for d := range distinct {
				if d%2 == 1 && round == 2 {
					continue
				}
				detail := fmt.Sprintf("d%d", d)
				l.add(detail)
				want[detail]++
			}
		}
		if len(l.details) != distinct {
			t.Fatalf("%d distinct: %d details", distinct, len(l.details))
		}
		for i, d := range l.details {
			if d != fmt.Sprintf("d%d", i) || l.counts[i] != want[d] {
				t.Errorf("%d distinct: detail %d is %s ×%d, want d%d ×%d", distinct, i, d, l.counts[i], i, want[d])
			}
		}
	}
}

// TestProviderAllMatchesEachAlone: on every conformance case and on
// damaged sessions made from them, check --provider all (every target over
// one read of the session, targets that replay alike replayed once, the
// changes folded as they come) reports exactly what replaying each target
// alone, whole, and folding its change log reports.
func TestProviderAllMatchesEachAlone(t *testing.T) {
	var sessions [][]byte
	for _, path := range sessiontest.ShortSample(sessiontest.ConformanceCases(t), 4, nil) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, data)
	}
	for i, s := range sessiontest.DamagedSeeds(t) {
		if i%5 == 0 {
			sessions = append(sessions, sessiontest.Damaged(s.Base, s.Program))
		}
	}
	o := ProviderOptions{Target: hygiene.Target{Provider: ProviderAll}, Now: corpusClock}
	compared := 0
	for i, data := range sessions {
		if _, err := session.ReadContext(bytes.NewReader(data)); err != nil {
			continue // a loader error: no target is replayed
		}
		got := FindReplayChanges(context.Background(), bytes.NewReader(data), "s.jsonl", o)
		want := wholeReplayFindings(t, data, "s.jsonl", o)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("session %d: check --provider all differs from each target replayed alone:\n got %+v\nwant %+v", i, got, want)
		}
		if len(got.Findings) > 0 {
			compared++
		}
	}
	if compared < len(sessions)/2 {
		t.Fatalf("only %d of %d sessions had findings to compare", compared, len(sessions))
	}
}

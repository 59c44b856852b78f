package hygiene

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// Test helpers shared by the thinking, reasoning and turn rule tests.

// thinkTestRun returns a Run for provider and api with policy p and a fixed
// clock.
func thinkTestRun(provider, api string, p Policy) *Run {
	fixed := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return &Run{Config: Config{
		Target: Target{Provider: provider, ModelAPI: api},
		Policy: p,
		Now:    func() time.Time { return fixed },
		UUID:   func() string { return "uuid" },
	}}
}

// thinkTestMessages parses one message per JSON text; message k (from 0)
// gets Line k+1 and EntryID "e<k+1>".
func thinkTestMessages(t *testing.T, texts ...string) []Message {
	t.Helper()
	msgs := make([]Message, len(texts))
	for k, s := range texts {
		v, err := jsonl.ParseOwned([]byte(s))
		if err != nil {
			t.Fatalf("message %d: %v", k, err)
		}
		msgs[k] = Message{V: v, Line: k + 1, EntryID: "e" + strconv.Itoa(k+1)}
	}
	return msgs
}

// thinkTestJSON renders each message as compact JSON.
func thinkTestJSON(msgs []Message) []string {
	out := make([]string, len(msgs))
	for k := range msgs {
		out[k] = jsonl.MarshalString(msgs[k].V)
	}
	return out
}

// thinkTestLines returns the Line of each message.
func thinkTestLines(msgs []Message) []int {
	out := make([]int, len(msgs))
	for k := range msgs {
		out[k] = msgs[k].Line
	}
	return out
}

// thinkTestRules returns the rule and line of every recorded change.
func thinkTestRules(r *Run) []string {
	var out []string
	for _, c := range r.Changes {
		out = append(out, c.Rule+"@"+strconv.Itoa(c.Line))
	}
	return out
}

// thinkTestCompare reports the first difference between two string lists.
func thinkTestCompare(t *testing.T, what string, want, got []string) {
	t.Helper()
	if slices.Equal(want, got) {
		return
	}
	for k := range max(len(want), len(got)) {
		var w, g string
		if k < len(want) {
			w = want[k]
		}
		if k < len(got) {
			g = got[k]
		}
		if w != g {
			t.Errorf("%s differ at %d (want %d items, got %d):\nwant %s\n got %s", what, k, len(want), len(got), w, g)
			return
		}
	}
}

// ruleCase is one table row: a run (provider, api, policy), input messages,
// the expected output and the expected changes (rule@line).
type ruleCase struct {
	name     string
	provider string
	api      string
	policy   Policy
	in       []string
	want     []string // nil: output equals input
	changes  []string
}

// runRuleCases runs rule on every case and checks the output, the change
// log, and that the input messages were left untouched.
func runRuleCases(t *testing.T, rule func(*Run, []Message) []Message, cases []ruleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := thinkTestRun(tc.provider, tc.api, tc.policy)
			in := thinkTestMessages(t, tc.in...)
			got := rule(r, in)
			want := tc.want
			if want == nil {
				want = tc.in
			}
			thinkTestCompare(t, "messages", thinkTestJSON(thinkTestMessages(t, want...)), thinkTestJSON(got))
			thinkTestCompare(t, "changes", tc.changes, thinkTestRules(r))
			thinkTestCompare(t, "input after the rule", thinkTestJSON(thinkTestMessages(t, tc.in...)), thinkTestJSON(in))
		})
	}
}

const (
	sigA = "iaR1YOXly+bUHxT4/AU47NaZ"
	sigB = "TfA7pSMBuIOYfmJaCbv7tUGk"
)

func TestCleanupThinkingSignatures(t *testing.T) {
	anthropic := Policy{PreserveSignatures: true}
	user := `{"role":"user","content":"q"}`
	cases := []ruleCase{
		{
			name:     "not a signing provider and signatures not preserved: unchanged",
			provider: "openai", api: "openai-completions",
			in: []string{
				user,
				`{"role":"assistant","content":[{"type":"thinking","thinking":"x"},{"type":"text","text":"a"}]}`,
				user,
			},
		},
		{
			name:     "unsigned thinking removed from earlier turns, last message exempt",
			provider: "anthropic", policy: anthropic,
			in: []string{
				user,
				`{"role":"assistant","content":[{"type":"thinking","thinking":"x"},{"type":"text","text":"a"}]}`,
				user,
				`{"role":"assistant","content":[{"type":"thinking","thinking":"y"},{"type":"text","text":"b"}]}`,
			},
			want: []string{
				user,
				`{"role":"assistant","content":[{"type":"text","text":"a"}]}`,
				user,
				`{"role":"assistant","content":[{"type":"thinking","thinking":"y"},{"type":"text","text":"b"}]}`,
			},
			changes: []string{"thinking-signatures/invalid@2"},
		},
		{
			name:     "provider is trimmed and lower-cased; policy need not preserve",
			provider: " Amazon-Bedrock ",
			in: []string{
				`{"role":"assistant","content":[{"type":"thinking","thinking":"x","signature":"  "}]}`,
				user,
			},
			want: []string{
				`{"role":"assistant","content":[{"type":"text","text":"[assistant reasoning omitted]"}]}`,
				user,
			},
			changes: []string{"thinking-signatures/invalid@1"},
		},
		{
			name:     "signature kinds: non-blank strings in any key kept, blank and non-string removed",
			provider: "minimax", policy: anthropic,
			in: []string{
				`{"role":"assistant","content":[` +
					`{"type":"thinking","thinking":"1","thinkingSignature":"` + sigA + `"},` +
					`{"type":"thinking","thinking":"2","signature":"s"},` +
					`{"type":"thinking","thinking":"3","thought_signature":"t"},` +
					`{"type":"thinking","thinking":"4","thinkingSignature":7},` +
					`{"type":"thinking","thinking":"5","thinkingSignature":" \u00a0"},` +
					`{"type":"redacted_thinking","data":"opaque"},` +
					`{"type":"redacted_thinking","data":" "},` +
					`{"type":"thinking","thinking":"6","data":"not for thinking"},` +
					`{"type":"text","text":"kept"}]}`,
				user,
			},
			want: []string{
				`{"role":"assistant","content":[` +
					`{"type":"thinking","thinking":"1","thinkingSignature":"` + sigA + `"},` +
					`{"type":"thinking","thinking":"2","signature":"s"},` +
					`{"type":"thinking","thinking":"3","thought_signature":"t"},` +
					`{"type":"redacted_thinking","data":"opaque"},` +
					`{"type":"text","text":"kept"}]}`,
				user,
			},
			changes: []string{"thinking-signatures/invalid@1"},
		},
		{
			name:     "latest assistant that is neither last nor a tool turn is not exempt",
			provider: "anthropic",
			in: []string{
				user,
				`{"role":"assistant","content":[{"type":"thinking","thinking":"x"},{"type":"text","text":"a"}]}`,
				user,
			},
			want: []string{
				user,
				`{"role":"assistant","content":[{"type":"text","text":"a"}]}`,
				user,
			},
			changes: []string{"thinking-signatures/invalid@2"},
		},
		{
			name:     "latest assistant in the current tool turn is exempt",
			provider: "anthropic",
			in: []string{
				user,
				`{"role":"assistant","content":[{"type":"thinking","thinking":"x"},{"type":"toolCall","id":"c1","name":"read","arguments":{}}]}`,
				`{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"ok"}]}`,
			},
		},
		{
			name:     "a string-content assistant after it does not count as the latest",
			provider: "anthropic",
			in: []string{
				user,
				`{"role":"assistant","content":[{"type":"thinking","thinking":"x"},{"type":"text","text":"a"}]}`,
				`{"role":"assistant","content":"plain"}`,
			},
			want: []string{
				user,
				`{"role":"assistant","content":[{"type":"text","text":"a"}]}`,
				`{"role":"assistant","content":"plain"}`,
			},
			changes: []string{"thinking-signatures/invalid@2"},
		},
		{
			name:     "signatures older than the latest compaction are stripped, then the unsigned blocks go",
			provider: "anthropic", policy: anthropic,
			in: []string{
				`{"role":"compactionSummary","summary":"s","timestamp":900}`,
				`{"role":"assistant","content":[{"type":"thinking","thinking":"old","thinkingSignature":"` + sigA + `"},{"type":"redacted_thinking","data":"` + sigB + `"},{"type":"text","text":"a"}],"timestamp":500}`,
				`{"role":"compactionSummary","summary":"s","timestamp":"1970-01-01T00:00:01.000Z"}`,
				`{"role":"assistant","content":[{"type":"thinking","thinking":"at","signature":"` + sigA + `"}],"timestamp":1000}`,
				`{"role":"assistant","content":[{"type":"thinking","thinking":"no ts","signature":"` + sigA + `"}]}`,
				user,
				`{"role":"assistant","content":[{"type":"thinking","thinking":"last","thinkingSignature":"` + sigB + `"}],"timestamp":"1970-01-01T00:00:00.999Z"}`,
			},
			want: []string{
				`{"role":"compactionSummary","summary":"s","timestamp":900}`,
				`{"role":"assistant","content":[{"type":"text","text":"a"}],"timestamp":500}`,
				`{"role":"compactionSummary","summary":"s","timestamp":"1970-01-01T00:00:01.000Z"}`,
				`{"role":"assistant","content":[{"type":"thinking","thinking":"at","signature":"` + sigA + `"}],"timestamp":1000}`,
				`{"role":"assistant","content":[{"type":"thinking","thinking":"no ts","signature":"` + sigA + `"}]}`,
				user,
				`{"role":"assistant","content":[{"type":"thinking","thinking":"last"}],"timestamp":"1970-01-01T00:00:00.999Z"}`,
			},
			changes: []string{
				"thinking-signatures/pre-compaction@2",
				"thinking-signatures/pre-compaction@7",
				"thinking-signatures/invalid@2",
			},
		},
		{
			name:     "compaction without a parsable timestamp strips nothing",
			provider: "anthropic",
			in: []string{
				`{"role":"compactionSummary","summary":"s","timestamp":"yesterday"}`,
				`{"role":"assistant","content":[{"type":"thinking","thinking":"old","signature":"` + sigA + `"}],"timestamp":5}`,
				user,
			},
		},
		{
			name:     "signature fields stripped before compaction whatever their type; null is not a signature",
			provider: "anthropic",
			in: []string{
				`{"role":"compactionSummary","summary":"s","timestamp":10}`,
				`{"role":"assistant","content":[{"type":"thinking","thinking":"a","signature":null,"thought_signature":1,"data":"d"},{"type":"thinking","thinking":"b","signature":null}],"timestamp":5}`,
			},
			want: []string{
				`{"role":"compactionSummary","summary":"s","timestamp":10}`,
				`{"role":"assistant","content":[{"type":"thinking","thinking":"a","data":"d"},{"type":"thinking","thinking":"b","signature":null}],"timestamp":5}`,
			},
			changes: []string{"thinking-signatures/pre-compaction@2"},
		},
	}
	runRuleCases(t, cleanupThinkingSignatures, cases)
}

func TestTimestampMillis(t *testing.T) {
	// Expected values were taken from Node 24's Date.parse (machine time
	// zone UTC for the local-time forms, which the test pins).
	saved := time.Local
	time.Local = time.UTC
	t.Cleanup(func() { time.Local = saved })
	cases := []struct {
		in   string // JSON value
		want float64
		ok   bool
	}{
		{`1773480422626`, 1773480422626, true},
		{`-5.5`, -5.5, true},
		{`1e400`, 0, false},
		{`null`, 0, false},
		{`true`, 0, false},
		{`"2026-03-14T09:27:02.626Z"`, 1773480422626, true},
		{`"2026-03-14"`, 1773446400000, true},
		{`"2026"`, 1767225600000, true},
		{`"2026-03"`, 1772323200000, true},
		{`"+002026-03-14"`, 1773446400000, true},
		{`"-000000-01-01T00:00:00Z"`, 0, false},
		{`"2026-02-30"`, 1772409600000, true},
		{`"2026-02-32"`, 0, false},
		{`"2026-13-01"`, 0, false},
		{`"2026-03-14t09:27Z"`, 1773480420000, true},
		{`"2026-03-14T09:27"`, 1773480420000, true},
		{`"2026-03-14T09:27:02.1234567Z"`, 1773480422123, true},
		{`"2026-03-14T09:27:02+0100"`, 1773476822000, true},
		{`"2026-01-01T12:00:00.5+01:30"`, 1767263400500, true},
		{`"2026-01-01T12:00:00-23:59"`, 1767355140000, true},
		{`"2026-03-14T09:27:02+01"`, 0, false},
		{`"2026-03-14T24:00:00Z"`, 1773532800000, true},
		{`"2026-03-14T24:00:01Z"`, 0, false},
		{`"2026-03-14T9:27Z"`, 0, false},
		{`"2026-03-14T09:60Z"`, 0, false},
		{`"2026-03-14T09:27:02 Z"`, 0, false},
		{`" 2026-03-14T09:27:02Z"`, 0, false},
		{`"1773480422626"`, 0, false},
		{`"-271821-04-20T00:00:00Z"`, -8.64e15, true},
		{`"-271821-04-19T23:59:59.999Z"`, 0, false},
		{`"+275760-09-13T00:00:00Z"`, 8.64e15, true},
		{`"2026-03-14 09:27:02"`, 1773480422000, true},
		{`"2026-01-01 1:2:3"`, 1767229323000, true},
		{`"2026-01-01 12:00:00 +0100"`, 1767265200000, true},
		{`"2026-01-01 12:00:00 UTC"`, 1767268800000, true},
		{`"2026-01-01  12:00"`, 1767268800000, true},
		{`"0049-03-01 00:00Z"`, 2498169600000, true},
		{`"+000050-01-01 10:00"`, -631116000000, true},
		// Legacy forms V8 accepts but jsDateParse does not read.
		{`"Sat, 14 Mar 2026 09:27:02 GMT"`, 0, false},
		{`"hello"`, 0, false},
	}
	for _, tc := range cases {
		v, err := jsonl.ParseOwned([]byte(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := jsTimestampMillis(&v)
		if ok != tc.ok || got != tc.want {
			t.Errorf("jsTimestampMillis(%s) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestProviderRequiresSignedThinking(t *testing.T) {
	yes := []string{"anthropic", "amazon-bedrock", "anthropic-vertex", "  ANTHROPIC\t"}
	no := []string{"", "openai", "anthropic-messages", "bedrock", "google"}
	for _, p := range yes {
		if !providerRequiresSignedThinking(p) {
			t.Errorf("%q: want true", p)
		}
	}
	for _, p := range no {
		if providerRequiresSignedThinking(p) {
			t.Errorf("%q: want false", p)
		}
	}
}

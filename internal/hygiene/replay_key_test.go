package hygiene

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// alikeTargets are targets of which some pairs replay alike (their
// policies are one, and so are their answers to the rest of replayKey) and
// some differ only in what replayKey holds besides the policy.
var alikeTargets = []Target{
	{Provider: "google", ModelAPI: "google-generative-ai", ModelID: "gemini-2.5-pro"},
	{Provider: "google-gemini-cli", ModelAPI: "google-gemini-cli", ModelID: "gemini-3-pro-preview"},
	{Provider: "google-antigravity", ModelAPI: "google-generative-ai", ModelID: "gemini-2.5-pro"},
	{Provider: "openai-codex", ModelAPI: "openai-chatgpt-responses", ModelID: "gpt-5.5"},
	{Provider: "xai", ModelAPI: "openai-responses", ModelID: "grok-4"},
	{Provider: "mistral", ModelAPI: "openai-completions", ModelID: "mistral-large-latest"},
	{Provider: "openrouter", ModelAPI: "openai-completions", ModelID: "mistralai/mistral-large"},
	{Provider: "openrouter", ModelAPI: "openai-completions", ModelID: "anthropic/claude-sonnet-4.5"},
	{Provider: "custom", ModelAPI: "custom-api", ModelID: "custom-model"},
	{Provider: "anthropic-vertex", ModelAPI: "openai-completions", ModelID: "gpt-4.1"},
	{Provider: "acme", ModelAPI: "openai-completions", ModelID: "gpt-4.1"},
}

// keyTargets are the conformance targets and a few that test the rest of
// replayKey: provider hooks, signed-thinking providers, image limits.
func keyTargets(t *testing.T) []Target {
	var out []Target
	for _, ct := range readConformanceTargets(t) {
		out = append(out, ct.Target)
	}
	out = append(out, alikeTargets...)
	return append(out,
		Target{Provider: "github-copilot", ModelAPI: "anthropic-messages", ModelID: "claude-sonnet-4-5"},
		Target{Provider: "github-copilot", ModelAPI: "openai-completions", ModelID: "gpt-4.1"},
		Target{Provider: "clawrouter", ModelAPI: "google-generative-ai", ModelID: "gemini-2.5-pro"},
		Target{Provider: "google-vertex", ModelAPI: "google-vertex", ModelID: "gemini-2.5-pro"},
		Target{Provider: "anthropic-vertex", ModelAPI: "anthropic-messages", ModelID: "claude-sonnet-4-5"},
		Target{Provider: "acme", ModelAPI: "anthropic-messages", ModelID: "claude-sonnet-4-5"},
		Target{Provider: "google", ModelAPI: "google-generative-ai", ModelID: "gemini-2.5-pro", ImageMaxDimensionPx: 800},
		Target{Provider: "google", ModelAPI: "google-generative-ai", ModelID: "gemini-2.5-pro", ImageMaxDimensionPx: 1200},
	)
}

// TestSameReplaysReplayAlike: targets with one replayKey replay every
// conformance case, and long sessions stitched from them, to the same
// messages and the same changes, as the whole-list replay of each.
func TestSameReplaysReplayAlike(t *testing.T) {
	cases := sessiontest.ShortSample(sessiontest.ConformanceCases(t), 4, nil)
	var inputs [][]byte
	for _, c := range cases {
		data, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, data)
	}
	var small []string
	for _, c := range cases {
		if !isImageCase(filepath.Base(c)) {
			small = append(small, c)
		}
	}
	for seed := range uint64(2) {
		inputs = append(inputs, stitchSession(t, small, seed))
	}
	targets := keyTargets(t)
	compared := 0
	for n, data := range inputs {
		ctx, err := session.ReadContext(bytes.NewReader(data))
		if err != nil {
			continue // a session OpenClaw's loader throws on replays for no target
		}
		configs := make([]Config, len(targets))
		for k, target := range targets {
			configs[k] = conformanceRun(target).Config
		}
		_, groups := sameReplays(configs, ctx.ModelSnapshot)
		for _, group := range groups {
			if len(group) < 2 {
				continue
			}
			lead := &Run{Config: configs[group[0]]}
			want, wantErr := replayCopy(lead, ctx)
			for _, k := range group[1:] {
				r := &Run{Config: configs[k]}
				got, err := replayCopy(r, ctx)
				if d := diffMessages(got, want); d != "" || !reflect.DeepEqual(err, wantErr) {
					t.Errorf("input %d: %+v replays unlike %+v: %s (errors %v, %v)", n, targets[k], targets[group[0]], d, err, wantErr)
				}
				if !reflect.DeepEqual(r.Changes, lead.Changes) || !reflect.DeepEqual(r.ChangeCounts(), lead.ChangeCounts()) {
					t.Errorf("input %d: %+v changes unlike %+v", n, targets[k], targets[group[0]])
				}
				compared++
			}
		}
	}
	if compared < 100 {
		t.Errorf("only %d replays compared", compared)
	}
}

// TestReplayKeySeparates: what the rules read of a target tells keys
// apart, what they do not read does not.
func TestReplayKeySeparates(t *testing.T) {
	key := func(target Target) replayKey { return keyOf(NewConfig(target), nil) }
	same := [][2]Target{
		{{Provider: "google", ModelAPI: "google-generative-ai", ModelID: "gemini-2.5-pro"}, {Provider: "google-gemini-cli", ModelAPI: "google-gemini-cli", ModelID: "gemini-3-pro-preview"}},
		{{Provider: "openai-codex", ModelAPI: "openai-chatgpt-responses", ModelID: "gpt-5.5"}, {Provider: "xai", ModelAPI: "openai-responses", ModelID: "grok-4"}},
	}
	differ := [][2]Target{
		{{Provider: "anthropic", ModelAPI: "anthropic-messages", ModelID: "claude-sonnet-4-5"}, {Provider: "amazon-bedrock", ModelAPI: "bedrock-converse-stream", ModelID: "anthropic.claude-sonnet-4-5-20250929-v1:0"}},
		{{Provider: "google", ModelAPI: "google-generative-ai", ModelID: "gemini-2.5-pro"}, {Provider: "google", ModelAPI: "google-generative-ai", ModelID: "gemini-2.5-pro", ImageMaxDimensionPx: 800}},
		{{Provider: "openai", ModelAPI: "openai-completions", ModelID: "gpt-4.1"}, {Provider: "github-copilot", ModelAPI: "openai-responses", ModelID: "gpt-4.1"}},
	}
	for _, p := range same {
		if key(p[0]) != key(p[1]) {
			t.Errorf("%+v and %+v: different keys", p[0], p[1])
		}
	}
	for _, p := range differ {
		if key(p[0]) == key(p[1]) {
			t.Errorf("%+v and %+v: one key", p[0], p[1])
		}
	}
	snapshot := []byte(`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}
{"type":"custom","customType":"model-snapshot","id":"c1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","data":{"timestamp":1767225600000,"provider":"google","modelApi":"google-generative-ai","modelId":"gemini-2.5-pro"}}
`)
	ctx, err := session.ReadContext(bytes.NewReader(snapshot))
	if err != nil || ctx.ModelSnapshot == nil {
		t.Fatalf("no snapshot read: %v", err)
	}
	a, b := NewConfig(same[0][0]), NewConfig(same[0][1])
	if keyOf(a, ctx.ModelSnapshot) == keyOf(b, ctx.ModelSnapshot) {
		t.Error("a snapshot naming one target of two: one key")
	}
}

// TestReplaySessionShares: ReplaySession over configs of which some replay
// alike hands every run what replaying its config alone hands it.
func TestReplaySessionShares(t *testing.T) {
	targets := append([]Target{{Provider: "anthropic", ModelAPI: "anthropic-messages", ModelID: "claude-sonnet-4-5"}}, alikeTargets[:5]...)
	for _, damage := range []string{"", sessiontest.CallWithoutInput, sessiontest.LateResult} {
		data := sessiontest.Long(damage)
		all := replaySessionOf(t, context.Background(), data, targets)
		if all.err != nil {
			t.Fatal(all.err)
		}
		for k, target := range targets {
			alone := replaySessionOf(t, context.Background(), data, []Target{target})
			got, want := all.done[k], alone.done[0]
			if alone.err != nil || got.Run == nil || got.Run.Target != target {
				t.Fatalf("%q, %s: run %+v, error %v", damage, target.Provider, got.Run, alone.err)
			}
			if all.begins[k] != alone.begins[0] || got.Whole != want.Whole || got.ContextLen != want.ContextLen {
				t.Errorf("%q, %s: attempts %q whole %v, alone %q whole %v", damage, target.Provider, all.begins[k], got.Whole, alone.begins[0], want.Whole)
			}
			gotMsgs, wantMsgs := got.Messages, want.Messages
			if !got.Whole {
				gotMsgs, wantMsgs = all.segments[k], alone.segments[0]
			}
			if d := diffMessages(gotMsgs, wantMsgs); d != "" {
				t.Errorf("%q, %s: %s", damage, target.Provider, d)
			}
			if !reflect.DeepEqual(got.Run.Changes, want.Run.Changes) {
				t.Errorf("%q, %s: %d changes, alone %d", damage, target.Provider, len(got.Run.Changes), len(want.Run.Changes))
			}
		}
	}
}

// FuzzSameReplays replays arbitrary session files (seeded with the
// conformance cases) for every pair of targets the input picks: when the
// two have one replayKey, their replays are alike.
func FuzzSameReplays(f *testing.F) {
	for i, c := range sessiontest.ConformanceCases(f) {
		if data, err := os.ReadFile(c); err == nil && len(data) < 64<<10 {
			f.Add(data, uint8(i), uint8(i/3))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, a, b uint8) {
		ctx, err := session.ReadContext(bytes.NewReader(data))
		if err != nil {
			return
		}
		ra, rb := replayTestRun(alikeTargets[int(a)%len(alikeTargets)]), replayTestRun(alikeTargets[int(b)%len(alikeTargets)])
		if keyOf(ra.Config, ctx.ModelSnapshot) != keyOf(rb.Config, ctx.ModelSnapshot) {
			return
		}
		wantMsgs, wantErr := replayCopy(ra, ctx)
		gotMsgs, gotErr := replayCopy(rb, ctx)
		if d := diffMessages(gotMsgs, wantMsgs); d != "" || !reflect.DeepEqual(gotErr, wantErr) || !reflect.DeepEqual(rb.Changes, ra.Changes) {
			t.Fatalf("%s and %s replay unlike: %s (errors %v, %v; %d and %d changes)",
				rb.Target.Provider, ra.Target.Provider, d, gotErr, wantErr, len(rb.Changes), len(ra.Changes))
		}
	})
}

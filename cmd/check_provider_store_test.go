package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCheckProviderStoreMatchesReplay: check --provider on a store session
// reports the rules replay --session --diff lists, at the lines it names
// (lines of the replayed view), for the bounded view of the default and of
// a small context window and for the whole branch; a session the runtime
// refuses gets the loader-error finding.
func TestCheckProviderStoreMatchesReplay(t *testing.T) {
	getenv := func(k string) string {
		if k == "OPENCLAW_DOCTOR_NOW" {
			return "2026-01-01T00:00:00Z"
		}
		return ""
	}
	invoke := func(t *testing.T, args ...string) []byte {
		t.Helper()
		var out, errOut bytes.Buffer
		code := run(context.Background(), args, streams{In: strings.NewReader(""), Out: &out, Err: &errOut}, getenv)
		if code > exitFindings {
			t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
		}
		return out.Bytes()
	}
	sessions := map[string][]string{
		"multi": {"agent:main:62-replay-branches-leaf-row", "agent:main:63-replay-compaction-and-custom-message",
			"agent:main:main", "agent:work:main", "agent:work:clean"},
		"views": {"agent:main:45-replay-missing-results-synthetic", "agent:main:67-replay-bash-and-custom-roles",
			"agent:main:68-replay-legacy-v1-no-ids", "agent:main:91-edge-headerless", "agent:main:main"},
	}
	views := [][]string{nil, {"--context-tokens", "1100"}, {"--full"}}
	compared := 0
	for name, keys := range sessions {
		state := filepath.Join("..", "testdata", "stores", name, "state")
		for _, key := range keys {
			for _, provider := range []string{"anthropic", "openai", "google"} {
				for _, view := range views {
					t.Run(strings.Join(append([]string{name, key, provider}, view...), " "), func(t *testing.T) {
						var replayed struct {
							Changes []struct {
								Rule    string `json:"rule"`
								Line    int    `json:"line"`
								Rejects bool   `json:"rejects"`
							} `json:"changes"`
							Error *struct{ Message string } `json:"error"`
						}
						args := append([]string{"replay", "--diff", "--format", "json", "--session", key, "--provider", provider}, view...)
						if err := json.Unmarshal(invoke(t, append(args, state)...), &replayed); err != nil {
							t.Fatal(err)
						}
						var checked struct {
							Findings []struct {
								CheckID    string `json:"checkId"`
								Line       int    `json:"line"`
								SessionKey string `json:"sessionKey"`
								Seq        *int64 `json:"seq"`
								Path       string `json:"path"`
							} `json:"findings"`
						}
						args = append([]string{"check", "--severity-min", "info", "--format", "json", "--session", key, "--provider", provider}, view...)
						if err := json.Unmarshal(invoke(t, append(args, state)...), &checked); err != nil {
							t.Fatal(err)
						}
						want := map[string][]int{}    // rule → lines replay names
						refusals := map[string]bool{} // check places a refusal at the message causing it
						for _, c := range replayed.Changes {
							want[c.Rule] = append(want[c.Rule], c.Line)
							refusals[c.Rule] = refusals[c.Rule] || c.Rejects
						}
						if replayed.Error != nil && replayed.Changes == nil { // the loader's, not the provider's refusal
							want["loader-error"] = []int{0}
						}
						got := map[string]bool{}
						for _, f := range checked.Findings {
							rule, ok := strings.CutPrefix(f.CheckID, "replay/")
							if !ok {
								continue
							}
							got[rule] = true
							if f.SessionKey != key || !strings.HasSuffix(f.Path, "openclaw-agent.sqlite") {
								t.Errorf("%s: located at %s#%s", f.CheckID, f.Path, f.SessionKey)
							}
							if lines, ok := want[rule]; !ok || !slices.Contains(lines, f.Line) && !refusals[rule] {
								t.Errorf("%s at line %d: replay --diff lists %v", f.CheckID, f.Line, lines)
							}
							if (f.Line > 0) != (f.Seq != nil) {
								t.Errorf("%s at line %d: seq %v", f.CheckID, f.Line, f.Seq)
							}
						}
						for rule := range want {
							if !got[rule] {
								t.Errorf("replay --diff lists %s, check does not", rule)
							}
						}
						compared += len(want)
					})
				}
			}
		}
	}
	if compared == 0 {
		t.Fatal("no replay change compared")
	}
}

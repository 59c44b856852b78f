package hygiene

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

const zeroSnapshot = `{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}`

func TestNormalizeUsageSnapshots(t *testing.T) {
	tests := []struct {
		name, usage, want string // usage "" = absent
	}{
		{"counters filled, total summed", `{"input":5,"output":3}`, `{"input":5,"output":3,"cacheRead":0,"cacheWrite":0,"totalTokens":8}`},
		{"absent", ``, zeroSnapshot},
		{"not an object", `"n/a"`, zeroSnapshot},
		{"nothing readable", `{"foo":1}`, zeroSnapshot},
		{"canonical kept", `{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10,"cost":{"input":0.1,"output":0.2,"cacheRead":0,"cacheWrite":0,"total":0.3}}`,
			`{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10,"cost":{"input":0.1,"output":0.2,"cacheRead":0,"cacheWrite":0,"total":0.3}}`},
		{"extra fields dropped when rewritten", `{"input":1,"output":2,"reasoningTokens":7}`, `{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3}`},
		{"extra fields kept when canonical", `{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cacheWrite1h":0}`, `{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cacheWrite1h":0}`},
		{"OpenAI shape, cached tokens out of input", `{"prompt_tokens":100,"completion_tokens":20,"prompt_tokens_details":{"cached_tokens":30}}`,
			`{"input":70,"output":20,"cacheRead":30,"cacheWrite":0,"totalTokens":120}`},
		{"Anthropic shape", `{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":7,"cache_creation_input_tokens":2}`,
			`{"input":10,"output":5,"cacheRead":7,"cacheWrite":2,"totalTokens":24}`},
		{"truncated and clamped", `{"input":2.7,"output":-3,"totalTokens":9.9}`, `{"input":2,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":9}`},
		{"string counts unreadable", `{"input":"5","output":1}`, `{"input":0,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":1}`},
		{"context usage", `{"input":1,"output":1,"contextUsage":{"state":"available","promptTokens":10,"totalTokens":12}}`,
			`{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"contextUsage":{"state":"available","promptTokens":10,"totalTokens":12},"totalTokens":2}`},
		{"inconsistent context usage dropped", `{"input":1,"contextUsage":{"state":"available","promptTokens":10,"totalTokens":2}}`,
			`{"input":1,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":1}`},
		{"partial cost completed", `{"input":1,"output":1,"cost":{"input":0.5}}`,
			`{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0.5,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.5}}`},
		{"empty cost dropped", `{"input":1,"output":1,"cost":{}}`, `{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2}`},
	}
	for _, tt := range tests {
		msg := `{"role":"assistant","content":[]}`
		if tt.usage != "" {
			msg = `{"role":"assistant","content":[],"usage":` + tt.usage + `}`
		}
		r := replayTestRun(Target{})
		out := normalizeUsageSnapshots(r, replayTestMessages(t, msg))
		want := `{"role":"assistant","content":[],"usage":` + tt.want + `}`
		if got := strings.TrimSpace(replayTestJSON(out)); got != want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, want)
		}
		if changed := tt.usage != tt.want; changed != (len(r.Changes) > 0) {
			t.Errorf("%s: changes %+v", tt.name, r.Changes)
		}
	}
}

func TestZeroStaleUsage(t *testing.T) {
	msgs := replayTestMessages(t,
		`{"role":"assistant","content":[],"usage":{"input":5},"timestamp":50}`,
		`{"role":"assistant","content":[],"usage":{"input":6},"timestamp":"not a date"}`,
		`{"role":"compactionSummary","summary":"s","timestamp":"1970-01-01T00:00:00.100Z"}`,
		`{"role":"assistant","content":[],"usage":{"input":7},"timestamp":100}`,
		`{"role":"assistant","content":[],"usage":{"input":8},"timestamp":101}`,
		`{"role":"assistant","content":[],"usage":{"input":9}}`,
	)
	out := normalizeUsageSnapshots(replayTestRun(Target{}), msgs)
	got := replayTestJSON(out)
	wantInputs := []string{`"input":0`, `"input":0`, ``, `"input":0`, `"input":8`, `"input":9`}
	for i, line := range strings.Split(strings.TrimSpace(got), "\n") {
		if !strings.Contains(line, wantInputs[i]) {
			t.Errorf("message %d: %s, want %s", i+1, line, wantInputs[i])
		}
	}
}

// TestJSDateParse pins Date.parse values measured with Node.

// TestCanonicalUsageNeedsNoSnapshot: wherever the fast path says a usage is
// canonical, the snapshot OpenClaw would build matches it; it is checked on
// usage objects drawn from the members and numbers that matter.
func TestCanonicalUsageNeedsNoSnapshot(t *testing.T) {
	keys := []string{"input", "output", "cacheRead", "cacheWrite", "totalTokens", "total", "cost", "input_tokens"}
	nums := []string{"0", "1", "15", "-0", "-3", "1.5", "1e3", "9007199254740991", "9007199254740993", "1e400", `"7"`, "null"}
	rng := rand.New(rand.NewPCG(1, 2))
	canonical := 0
	var space usageSpace
	for range 20000 {
		// Mostly the five members in some order, sometimes one more, one
		// less, a repeat or another member.
		order := rng.Perm(5)
		n := 4 + rng.IntN(3)
		var b strings.Builder
		b.WriteString("{")
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			k := keys[order[i%5]]
			if rng.IntN(10) == 0 {
				k = keys[rng.IntN(len(keys))]
			}
			num := nums[rng.IntN(4)] // token counts
			if rng.IntN(6) == 0 {
				num = nums[rng.IntN(len(nums))]
			}
			fmt.Fprintf(&b, "%q:%s", k, num)
		}
		b.WriteString("}")
		u, err := jsonl.Parse([]byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		if !isCanonicalUsage(&u) {
			continue
		}
		canonical++
		if snap := assistantUsageSnapshot(&u, &space); !usageMatches(&u, &snap) {
			t.Errorf("%s: canonical, but its snapshot is %s", b.String(), jsonl.MarshalString(snap))
		}
	}
	if canonical < 50 {
		t.Errorf("only %d canonical usages drawn", canonical)
	}
}

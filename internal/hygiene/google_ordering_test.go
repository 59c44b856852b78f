package hygiene

import (
	"strings"
	"testing"
)

func TestGoogleTurnOrdering(t *testing.T) {
	const boot = `{"role":"user","content":"(session bootstrap)","timestamp":1767225600000}`
	tests := []struct {
		name string
		in   []string
		want string
	}{
		{"assistant first", []string{`{"role":"assistant","content":[]}`}, boot + "\n" + `{"role":"assistant","content":[]}`},
		{"user first", []string{`{"role":"user","content":"hi"}`}, `{"role":"user","content":"hi"}`},
		{"tool result first", []string{`{"role":"toolResult","content":[]}`}, `{"role":"toolResult","content":[]}`},
		{"empty", nil, ""},
	}
	for _, tt := range tests {
		r := replayTestRun(Target{})
		once := googleTurnOrdering(r, replayTestMessages(t, tt.in...))
		twice := googleTurnOrdering(r, once)
		if got := strings.TrimSpace(replayTestJSON(twice)); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

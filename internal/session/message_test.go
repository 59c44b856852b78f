package session

import (
	"os"
	"strings"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// TestHasToolCallsMatchesToolCalls checks HasToolCalls against ToolCalls
// over every message of the conformance cases and some odd contents.
func TestHasToolCallsMatchesToolCalls(t *testing.T) {
	lines := []string{
		`{"content":[{"type":"toolCall","id":""},{"type":"toolUse","id":7},{"type":"functionCall"}]}`,
		`{"content":[{"type":"text"},{"type":"toolUse","id":"x"}]}`,
		`{"content":{"type":"toolCall","id":"x"}}`, `{"content":"toolCall"}`, `{}`, `[]`,
	}
	for _, path := range sessiontest.ConformanceCases(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Split(string(data), "\n")...)
	}
	calls := 0
	for _, line := range lines {
		v, err := jsonl.Parse([]byte(line))
		if err != nil {
			continue
		}
		if msg := v.Get("message"); msg != nil {
			v = *msg
		}
		want := len(ToolCalls(&v)) > 0
		if want {
			calls++
		}
		if got := HasToolCalls(&v); got != want {
			t.Errorf("HasToolCalls(%s) = %v, ToolCalls finds %v", line, got, want)
		}
	}
	if calls == 0 {
		t.Fatal("no message with tool calls compared")
	}
}

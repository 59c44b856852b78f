package hygiene

import (
	"strings"
	"testing"
)

func TestStripToolResultDetails(t *testing.T) {
	r := replayTestRun(Target{})
	out := stripToolResultDetails(r, replayTestMessages(t,
		`{"role":"toolResult","toolCallId":"a","details":{"exit":0},"content":[]}`,
		`{"role":"toolResult","toolCallId":"b","details":null,"content":[]}`,
		`{"role":"toolResult","toolCallId":"c","content":[]}`,
		`{"role":"assistant","details":{"x":1},"content":[]}`,
	))
	want := `{"role":"toolResult","toolCallId":"a","content":[]}
{"role":"toolResult","toolCallId":"b","content":[]}
{"role":"toolResult","toolCallId":"c","content":[]}
{"role":"assistant","details":{"x":1},"content":[]}`
	if got := strings.TrimSpace(replayTestJSON(out)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if len(r.Changes) != 2 || r.Changes[0].Line != 1 || r.Changes[1].Line != 2 {
		t.Errorf("changes = %+v", r.Changes)
	}
}

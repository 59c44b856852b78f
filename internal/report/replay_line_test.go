package report

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/hygiene"
	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// lineWithFmt is the text replay's message line as fmt writes it, the
// reference appendMessageLine must match byte for byte.
func lineWithFmt(n int, m *hygiene.Message) string {
	v := &m.V
	origin := "new"
	if m.Line > 0 {
		origin = fmt.Sprintf("L%d", m.Line)
	}
	role := session.Role(v)
	types := "(no content)"
	switch c := v.Get("content"); {
	case c == nil:
	case c.IsString():
		types = "string"
	case !c.IsArray():
		types = c.Kind().String()
	case c.Len() == 0:
		types = "[]"
	default:
		names := make([]string, c.Len())
		for i := range names {
			if names[i] = clip(session.BlockType(c.Index(i))); names[i] == "" {
				names[i] = "?"
			}
		}
		types = "[" + strings.Join(names, ",") + "]"
	}
	parts := []string{fmt.Sprintf("%-6s %-17s %s", origin, clip(role), types)}
	switch role {
	case session.RoleAssistant:
		if calls := session.ToolCalls(v); len(calls) > 0 {
			ids := make([]string, len(calls))
			for i, c := range calls {
				ids[i] = clip(c.ID)
			}
			parts = append(parts, "calls="+strings.Join(ids, ","))
		}
		if s := v.Get("stopReason").StrOr(""); s != "" && s != "stop" {
			parts = append(parts, "stop="+clip(s))
		}
	case session.RoleToolResult:
		parts = append(parts, "id="+clip(v.Get("toolCallId").StrOr("?")))
		if v.Get("isError").IsTrue() {
			parts = append(parts, "error")
		}
	}
	return fmt.Sprintf("%4d  %s\n", n, strings.Join(parts, "  "))
}

// TestMessageLineMatchesFmt compares the text replay's message lines with
// fmt's over every line of the conformance cases, those cases damaged in
// every way the damaged-session generator knows, and odd roles and ids.
func TestMessageLineMatchesFmt(t *testing.T) {
	var sessions [][]byte
	for _, seed := range sessiontest.DamagedSeeds(t) {
		sessions = append(sessions, seed.Base, sessiontest.Damaged(seed.Base, seed.Program))
	}
	for _, path := range sessiontest.ConformanceCases(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, data)
	}
	sessions = append(sessions, []byte(strings.Join([]string{
		`{"role":"rôle-ünïcode","content":[{"type":"tëxt"},{"type":1},{}]}`,
		`{"role":"` + strings.Repeat("r", 200) + `","content":{}}`,
		`{"role":"a\udc00b\u00ff","content":[]}`,
		`{"role":"assistant","content":[{"type":"toolCall","id":"` + strings.Repeat("é", 100) + `"},{"type":"toolUse","id":"x"}],"stopReason":"length"}`,
		`{"role":"toolResult","isError":true,"content":"s"}`,
		`{"role":"toolResult","toolCallId":7}`,
		`{"content":null}`, `[1,2]`, `"text"`, `{}`,
	}, "\n")))
	n := 0
	for _, data := range sessions {
		for k, line := range strings.Split(string(data), "\n") {
			v, err := jsonl.Parse([]byte(line))
			if err != nil {
				continue
			}
			if msg := v.Get("message"); msg != nil {
				v = *msg
			}
			for _, m := range []hygiene.Message{{V: v, Line: k + 1}, {V: v}, {V: v, Line: 123456789}} {
				n++
				num := n%20000 + 1
				if got, want := string(appendMessageLine([]byte("x"), num, &m)), "x"+lineWithFmt(num, &m); got != want {
					t.Fatalf("line of %s:\n got %q\nwant %q", line, got, want)
				}
			}
		}
	}
	if n < 1000 {
		t.Fatalf("only %d messages compared", n)
	}
}

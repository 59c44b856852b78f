package check

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// Session lines for the detector tables.
const (
	hdr       = `{"type":"session","version":3,"id":"s1","timestamp":"2026-03-14T09:26:53.589Z","cwd":"/tmp"}`
	userHello = `{"type":"message","id":"u1","parentId":null,"timestamp":"2026-03-14T09:27:00.000Z","message":{"role":"user","content":"hello"}}`
)

func asstCalls(id, parent, api string, calls ...string) string {
	var blocks []string
	for _, c := range calls {
		blocks = append(blocks, fmt.Sprintf(`{"type":"toolCall","id":%q,"name":"read","arguments":{}}`, c))
	}
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%q,"timestamp":"2026-03-14T09:27:01.000Z","message":{"role":"assistant","content":[%s],"api":%q,"provider":"anthropic","model":"m","stopReason":"toolUse"}}`,
		id, parent, strings.Join(blocks, ","), api)
}

func toolResult(id, parent, callID string) string {
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%q,"timestamp":"2026-03-14T09:27:02.000Z","message":{"role":"toolResult","toolCallId":%q,"toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false}}`, id, parent, callID)
}

func userMsg(id, parent, text string) string {
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%q,"timestamp":"2026-03-14T09:27:03.000Z","message":{"role":"user","content":%q}}`, id, parent, text)
}

// TestDetectors runs check on small sessions and compares "line:id" of
// every finding (severity info included).
func TestDetectors(t *testing.T) {
	cases := []struct {
		name  string
		lines []string
		want  []string
	}{
		{"clean tool turn", []string{hdr, userHello, asstCalls("a1", "u1", "anthropic-messages", "c1", "c2"), toolResult("r1", "a1", "c2"), toolResult("r2", "r1", "c1")}, nil},
		{"missing result before a user turn", []string{hdr, userHello, asstCalls("a1", "u1", "anthropic-messages", "c1"), userMsg("u2", "a1", "go on")},
			[]string{"3:" + string(MissingToolResult)}},
		{"missing result at the end", []string{hdr, userHello, asstCalls("a1", "u1", "anthropic-messages", "c1")},
			[]string{"3:" + string(MissingToolResult)}},
		{"orphan, duplicate and displaced results", []string{hdr, userHello, toolResult("r0", "u1", "nope"),
			asstCalls("a1", "r0", "anthropic-messages", "c1"), toolResult("r1", "a1", "c1"), toolResult("r2", "r1", "c1"),
			asstCalls("a2", "r2", "anthropic-messages", "c2"), userMsg("u2", "a2", "wait"), toolResult("r3", "u2", "c2")},
			[]string{"3:" + string(OrphanToolResult), "6:" + string(OrphanToolResult), "7:" + string(MissingToolResult), "9:" + string(OrphanToolResult)}},
		// OpenClaw's pairing gives each occurrence of a repeated id its own
		// result, in order (and a synthetic one when there is none).
		{"same call id twice in a turn is two calls", []string{hdr, userHello, asstCalls("a1", "u1", "anthropic-messages", "c1", "c1"), toolResult("r1", "a1", "c1")},
			[]string{"3:" + string(MissingToolResult), "3:" + string(DuplicateToolCallID)}},
		{"same call id twice in a turn, both answered", []string{hdr, userHello, asstCalls("a1", "u1", "anthropic-messages", "c1", "c1"),
			toolResult("r1", "a1", "c1"), toolResult("r2", "r1", "c1")}, []string{"3:" + string(DuplicateToolCallID)}},
		{"same call id three times among others, answered out of order", []string{hdr, userHello,
			asstCalls("a1", "u1", "anthropic-messages", "c1", "c2", "c1", "c3", "c1"),
			toolResult("r1", "a1", "c1"), toolResult("r2", "r1", "c3"), toolResult("r3", "r2", "c1"), toolResult("r4", "r3", "c2"),
			toolResult("r5", "r4", "c1"), toolResult("r6", "r5", "c1"), toolResult("r7", "r6", "c3")},
			[]string{"3:" + string(DuplicateToolCallID), "9:" + string(OrphanToolResult), "10:" + string(OrphanToolResult)}},
		{"distinct call ids in a turn are no duplicate", []string{hdr, userHello, asstCalls("a1", "u1", "anthropic-messages", "c1", "c2"),
			toolResult("r1", "a1", "c1"), toolResult("r2", "r1", "c2")}, nil},
		{"result id only in an alias field", []string{hdr, userHello, asstCalls("a1", "u1", "anthropic-messages", "c1"),
			`{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-03-14T09:27:02.000Z","message":{"role":"toolResult","tool_call_id":"c1","toolName":"read","content":[],"isError":false}}`},
			[]string{"3:" + string(MissingToolResult), "4:" + string(OrphanToolResult)}},
		{"code-mode call: fix inserts the result", []string{hdr, userHello,
			`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-03-14T09:27:01.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_1|fc_1","name":"exec","arguments":{}}],"api":"openai-chatgpt-responses","provider":"openai","model":"gpt-5.5","stopReason":"toolUse"}}`},
			[]string{"3:" + string(MissingCodeModeRes)}},
		{"tool call without input", []string{hdr, userHello,
			`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-03-14T09:27:01.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"ls","input":null}],"api":"anthropic-messages","provider":"anthropic","model":"m","stopReason":"toolUse"}}`,
			toolResult("r1", "a1", "c1")},
			[]string{"3:" + string(ToolCallMissingInput)}},
		{"unsigned thinking only on signed-thinking providers", []string{hdr, userHello,
			`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-03-14T09:27:01.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"x"},{"type":"thinking","thinking":"y","thinkingSignature":"  "},{"type":"thinking","thinking":"z","signature":"sig"},{"type":"redacted_thinking","data":"opaque"}],"api":"anthropic-messages","provider":"anthropic","model":"m","stopReason":"stop"}}`,
			`{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-03-14T09:27:02.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"x"}],"api":"openai-responses","provider":"openai","model":"m","stopReason":"stop"}}`},
			[]string{"3:" + string(UnsignedThinking)}},
		{"duplicate id and missing parent", []string{hdr, userHello, userMsg("u1", "u1x", "again")},
			[]string{"3:" + string(DuplicateEntryID), "3:" + string(MissingParent)}},
		{"long line", []string{hdr, userMsg("u1", "", strings.Repeat("x", LongLineBytes))},
			[]string{"2:" + string(LongLine)}}, // parentId "" is a root, as in JavaScript
		{"fix-class findings in line order", []string{hdr, `{"type":"message","id":"m0","message":{"role":"  "}}`, "", `{"type":"message"`},
			[]string{"2:" + string(InvalidMessageRole), "4:" + string(MalformedLine)}},
		{"legacy v1 file without ids: no tree findings", []string{`{"type":"session","id":"s1","timestamp":"2026-03-14T09:26:53.589Z"}`,
			`{"type":"message","timestamp":"2026-03-14T09:27:00.000Z","message":{"role":"user","content":"hi"}}`}, nil},
	}
	sel := mustSelection(t, Options{})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := strings.Join(c.lines, "\n") + "\n"
			res := Run(context.Background(), strings.NewReader(data), "s.jsonl", int64(len(data)), sel, Options{})
			var got []string
			for _, f := range res.Findings {
				got = append(got, fmt.Sprintf("%d:%s", f.Line, f.ID))
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("findings = %q, want %q", got, c.want)
				for _, f := range res.Findings {
					t.Logf("  %d %s %s", f.Line, f.ID, f.Message)
				}
			}
		})
	}
}

// TestOversizedImage reads sizes from the header only: a 2400×1600 PNG is
// over the default 1200 px and under a 4000 px limit.
func TestOversizedImage(t *testing.T) {
	data, err := os.ReadFile("../../testdata/conformance/cases/64-replay-images-user-and-tool-result.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	count := func(o Options) int {
		sel := mustSelection(t, Options{Only: []ID{OversizedImage}})
		res := Run(context.Background(), strings.NewReader(string(data)), "64.jsonl", int64(len(data)), sel, o)
		return len(res.Findings)
	}
	if n := count(Options{}); n == 0 {
		t.Error("no oversized image at the default limit")
	}
	if n := count(Options{ImageMaxDimensionPx: 4000}); n != 0 {
		t.Errorf("%d oversized images at a 4000 px limit", n)
	}
}

// TestUnopenedAndReadErrors: an unreadable input has exactly one
// Unreadable finding naming the cause.
func TestUnopenedAndReadErrors(t *testing.T) {
	sel := mustSelection(t, Options{})
	dir := t.TempDir()
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res := Run(context.Background(), f, dir, -1, sel, Options{})
	if !res.Unreadable || len(res.Findings) != 1 || res.Findings[0].ID != Unreadable || !strings.Contains(res.Findings[0].Message, "is a directory") {
		t.Errorf("reading a directory: %+v", res)
	}
	_, err = os.Open(filepath.Join(dir, "missing.jsonl"))
	res = Unopened("missing.jsonl", err, sel)
	if !res.Unreadable || len(res.Findings) != 1 || !strings.Contains(res.Findings[0].Message, "no such file") {
		t.Errorf("missing file: %+v", res)
	}
}

// FuzzCheck: check never panics, reports only existing lines, and the
// inline and parallel passes agree.
func FuzzCheck(f *testing.F) {
	files := sessiontest.ConformanceCases(f)
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	sel, _ := (&Options{}).Selection()
	f.Fuzz(func(t *testing.T, data []byte) {
		inline := Run(context.Background(), strings.NewReader(string(data)), "f", int64(len(data)), sel, Options{})
		parallel := Run(context.Background(), strings.NewReader(string(data)), "f", -1, sel, Options{Workers: 2})
		if !equalFindings(inline.Findings, parallel.Findings) {
			t.Fatalf("inline and parallel differ:\n%v\n%v", inline.Findings, parallel.Findings)
		}
		for _, fd := range inline.Findings {
			if fd.Line < 0 || fd.Line > inline.Lines {
				t.Fatalf("finding on line %d of %d", fd.Line, inline.Lines)
			}
		}
	})
}

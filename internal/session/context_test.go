package session

import (
	"bufio"
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

const header = `{"type":"session","version":3,"id":"s","timestamp":"2026-03-14T09:00:00.000Z","cwd":"/w"}`

// readString builds the context of a transcript given as lines.
func readString(t *testing.T, lines ...string) (*Context, error) {
	t.Helper()
	return ReadContext(strings.NewReader(strings.Join(lines, "\n") + "\n"))
}

func mustRead(t *testing.T, lines ...string) *Context {
	t.Helper()
	ctx, err := readString(t, lines...)
	if err != nil {
		t.Fatal(err)
	}
	return ctx
}

func user(id, parent, text string) string {
	return `{"type":"message","id":"` + id + `","parentId":` + parent + `,"timestamp":"2026-03-14T09:00:01.000Z","message":{"role":"user","content":"` + text + `","timestamp":1}}`
}

func assistant(id, parent, provider, model, api string) string {
	return `{"type":"message","id":"` + id + `","parentId":` + parent + `,"timestamp":"2026-03-14T09:00:02.000Z","message":{"role":"assistant","content":[],"api":"` + api + `","provider":"` + provider + `","model":"` + model + `","usage":{},"stopReason":"stop","timestamp":2}}`
}

func snapshot(id, parent, provider string, ts string) string {
	return `{"type":"custom","id":"` + id + `","parentId":"` + parent + `","timestamp":"2026-03-14T09:00:03.000Z","customType":"model-snapshot","data":{"provider":"` + provider + `","modelApi":"x","modelId":"m","timestamp":` + ts + `}}`
}

func TestContextBranchFacts(t *testing.T) {
	ctx := mustRead(t, header,
		user("u1", "null", "hi"),
		assistant("a1", `"u1"`, "anthropic", "claude-x", "anthropic-messages"),
		`{"type":"thinking_level_change","id":"t1","parentId":"a1","timestamp":"2026-03-14T09:00:03.000Z","thinkingLevel":"high"}`,
		`{"type":"model_change","id":"m1","parentId":"t1","timestamp":"2026-03-14T09:00:03.000Z","provider":"openai","modelId":"gpt-5"}`,
		snapshot("c1", "m1", "anthropic", "100"),
		snapshot("c2", "c1", "openai", "200"),
		snapshot("c3", "c2", "openai", "300"),
		`{"type":"custom","id":"cx","parentId":"u1","timestamp":"2026-03-14T09:00:03.000Z","customType":"  bootstrap  ","data":{"k":1}}`,
		`{"type":"custom","id":"cy","parentId":"u1","timestamp":"2026-03-14T09:00:03.000Z","customType":"   "}`,
		user("u2", `"c3"`, "again"),
	)
	if ctx.ThinkingLevel != "high" {
		t.Errorf("ThinkingLevel = %q", ctx.ThinkingLevel)
	}
	if ctx.Model == nil || *ctx.Model != (Model{Provider: "openai", ModelID: "gpt-5"}) {
		t.Errorf("Model = %+v, want the later model_change", ctx.Model)
	}
	if ctx.ModelAPI != "anthropic-messages" {
		t.Errorf("ModelAPI = %q", ctx.ModelAPI)
	}
	if ctx.ModelSnapshot == nil || ctx.ModelSnapshot.Get("timestamp").StrOr("") != "" || jsonl.MarshalString(*ctx.ModelSnapshot.Get("timestamp")) != "300" {
		t.Errorf("ModelSnapshot = %v", ctx.ModelSnapshot)
	}
	if !ctx.HasModelSwitchTimestamp || ctx.ModelSwitchTimestamp != 200 {
		t.Errorf("switch timestamp = %v %v, want 200 (c3 repeats c2's model)", ctx.ModelSwitchTimestamp, ctx.HasModelSwitchTimestamp)
	}
	var types []string
	for _, c := range ctx.CustomEntries {
		types = append(types, c.CustomType)
	}
	if got := strings.Join(types, ","); got != "model-snapshot,model-snapshot,model-snapshot,bootstrap" {
		t.Errorf("CustomEntries = %s (off-branch entries included, blank types dropped)", got)
	}
	if ctx.LeafID != "u2" || ctx.Lines != 11 || ctx.MalformedLines != 0 || len(ctx.Messages) != 3 {
		t.Errorf("leaf %q lines %d malformed %d messages %d", ctx.LeafID, ctx.Lines, ctx.MalformedLines, len(ctx.Messages))
	}
}

func TestContextModelFromLaterAssistant(t *testing.T) {
	ctx := mustRead(t, header,
		`{"type":"model_change","id":"m1","parentId":null,"timestamp":"2026-03-14T09:00:03.000Z","provider":"openai","modelId":"gpt-5"}`,
		user("u1", `"m1"`, "hi"),
		assistant("a1", `"u1"`, "google", "gemini", "google-generative-ai"))
	if ctx.Model == nil || *ctx.Model != (Model{Provider: "google", ModelID: "gemini"}) || ctx.ThinkingLevel != "off" {
		t.Errorf("Model = %+v thinking %q", ctx.Model, ctx.ThinkingLevel)
	}
	empty := mustRead(t, header, user("u1", "null", "hi"))
	if empty.Model != nil || empty.ModelSnapshot != nil || empty.HasModelSwitchTimestamp {
		t.Errorf("no model facts expected: %+v", empty)
	}
}

func TestContextMessageLinesAndIDs(t *testing.T) {
	ctx := mustRead(t, header, "", user("u1", "null", "hi"), "{broken", assistant("a1", `"u1"`, "p", "m", "x"))
	if len(ctx.Messages) != 2 || ctx.Messages[0].Line != 3 || ctx.Messages[0].EntryID != "u1" || ctx.Messages[1].Line != 5 {
		t.Fatalf("messages = %+v", ctx.Messages)
	}
	if ctx.MalformedLines != 1 || ctx.Lines != 5 {
		t.Errorf("malformed %d lines %d", ctx.MalformedLines, ctx.Lines)
	}
}

// TestReadJSTrim: OpenClaw trims the whole file with String.prototype.trim,
// so only the first line may start and only the last line may end with
// JavaScript whitespace that JSON.parse rejects.
func TestReadJSTrim(t *testing.T) {
	const bom, nbsp = "\ufeff", "\u00a0"
	tests := []struct {
		name      string
		lines     []string
		messages  int
		malformed int
	}{
		{"BOM on the first line", []string{bom + header, user("u1", "null", "a")}, 1, 0},
		{"BOM on a later line", []string{header, bom + user("u1", "null", "a"), user("u2", `"u1"`, "b")}, 1, 1},
		{"NBSP after the last line", []string{header, user("u1", "null", "a") + nbsp}, 1, 0},
		{"NBSP after a middle line", []string{header, user("u1", "null", "a") + nbsp, user("u2", `"u1"`, "b")}, 1, 1},
		{"NBSP after the last line, blank lines follow", []string{header, user("u1", "null", "a") + nbsp, "  ", ""}, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := mustRead(t, tc.lines...)
			if len(ctx.Messages) != tc.messages || ctx.MalformedLines != tc.malformed {
				t.Errorf("messages %d malformed %d, want %d %d", len(ctx.Messages), ctx.MalformedLines, tc.messages, tc.malformed)
			}
		})
	}
}

func TestReadLoaderErrors(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		line  int
		msg   string
	}{
		{"null before the header", []string{"null", header}, 1,
			"TypeError: Cannot read properties of null (reading 'type')"},
		{"null in a v1 file", []string{user("u1", "null", "a"), "null"}, 2,
			"TypeError: Cannot read properties of null (reading 'type')"},
		{"string line in a v1 file", []string{user("u1", "null", "a"), `"a\u0041"`}, 2,
			"TypeError: Cannot create property 'id' on string 'aA'"},
		{"boolean line in a v1 file", []string{`{"type":"session","id":"s"}`, "true"}, 2,
			"TypeError: Cannot create property 'id' on boolean 'true'"},
		{"number line in a v1 file", []string{"1.50"}, 1,
			"TypeError: Cannot create property 'id' on number '1.5'"},
		{"branch summary without a timestamp", []string{header,
			`{"type":"branch_summary","id":"b","parentId":null,"fromId":"x","summary":"s"}`}, 2,
			"Error: branch summary timestamp must be a valid timestamp"},
		{"compaction with a bad timestamp", []string{header, user("u1", "null", "a"),
			`{"type":"compaction","id":"k","parentId":"u1","timestamp":"soon","summary":"s","firstKeptEntryId":"u1","tokensBefore":1}`}, 3,
			"Error: compaction summary timestamp must be a valid timestamp"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readString(t, tc.lines...)
			var le *LoaderError
			if !errors.As(err, &le) || le.Line != tc.line || le.Msg != tc.msg {
				t.Errorf("err = %v, want line %d %q", err, tc.line, tc.msg)
			}
		})
	}
	// null after a v3 header is harmless (the migration does not run).
	if ctx := mustRead(t, header, "null", "42", user("u1", "null", "a")); len(ctx.Messages) != 1 {
		t.Errorf("messages = %d", len(ctx.Messages))
	}
}

func TestReadEmptyInputs(t *testing.T) {
	for _, in := range []string{"", "\n\n", "  \t\n"} {
		ctx, err := ReadContext(strings.NewReader(in))
		if err != nil || len(ctx.Messages) != 0 || ctx.LeafID != "" || ctx.ThinkingLevel != "off" {
			t.Errorf("%q: %+v %v", in, ctx, err)
		}
	}
}

func TestLoadMigration(t *testing.T) {
	v1 := `{"type":"session","version":1,"id":"s"}`
	tr, err := Load(strings.NewReader(v1 + "\n" + `{"type":"message","message":{"role":"user","content":"a"}}` + "\n"))
	if err != nil || !tr.Migrated {
		t.Fatalf("v1 file: migrated %v err %v", tr != nil && tr.Migrated, err)
	}
	i, ok := tr.Tree().Leaf()
	if !ok || tr.Tree().Node(i).Line != 2 || tr.Tree().Node(i).ID == "" {
		t.Errorf("v1 entry got no id: %+v", tr.Tree().Node(i))
	}
	tr, err = Load(strings.NewReader(header + "\n"))
	if err != nil || tr.Migrated {
		t.Errorf("v3 file: migrated %v err %v", tr.Migrated, err)
	}
}

// TestParallelSecondPass: the split second pass gives the same context as a
// single reader, on a transcript large enough to be split.
func TestParallelSecondPass(t *testing.T) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	writeBenchTranscript(w, 3*minParallelBytes/2)
	w.Flush()
	read := func(workers int) *Context {
		saved := parseWorkers
		parseWorkers = func() int { return workers }
		defer func() { parseWorkers = saved }()
		ctx, err := ReadContext(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		return ctx
	}
	one, four := read(1), read(4)
	if len(one.Messages) < 1000 || len(one.Messages) != len(four.Messages) {
		t.Fatalf("messages: %d with one reader, %d with four", len(one.Messages), len(four.Messages))
	}
	for i := range one.Messages {
		a, b := one.Messages[i], four.Messages[i]
		if a.Line != b.Line || a.EntryID != b.EntryID || !sameJSON(&a.V, &b.V) {
			t.Fatalf("message %d differs: line %d/%d", i, a.Line, b.Line)
		}
	}
	if one.LeafID != four.LeafID || one.Lines != four.Lines {
		t.Errorf("leaf %q/%q lines %d/%d", one.LeafID, four.LeafID, one.Lines, four.Lines)
	}
}

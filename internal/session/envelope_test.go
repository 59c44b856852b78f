package session

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// refEnvelope derives an Envelope from a fully parsed line: a second,
// straightforward reading of the entry codec's schemas that the fast
// scanner must agree with.
func refEnvelope(v *jsonl.Value) Envelope {
	var e Envelope
	switch v.Kind() {
	case jsonl.Object:
	case jsonl.Array:
		e.Shape = ShapeArray
		return e
	case jsonl.Null:
		e.Shape = ShapeNull
		return e
	default:
		e.Shape = ShapePrimitive
		return e
	}
	if s, ok := v.GetStr("type"); ok {
		e.Type = ParseEntryType(s)
	}
	e.ID, e.ParentID = refOf(v.Get("id")), refOf(v.Get("parentId"))
	e.Timestamp = refOf(v.Get("timestamp")).State
	e.AppendModeSet = v.Has("appendMode")
	e.Side = v.Get("appendMode").StrOr("") == "side"
	str := func(k string) bool { return v.Get(k).IsString() }
	nonEmpty := func(k string) bool { s, ok := v.GetStr(k); return ok && s != "" }
	switch e.Type {
	case TypeLabel:
		e.TargetID = refOf(v.Get("targetId"))
	case TypeLeaf:
		e.TargetID, e.AppendParentID = refOf(v.Get("targetId")), refOf(v.Get("appendParentId"))
	case TypeCompaction, TypeReset:
		e.FirstKeptID = refOf(v.Get("firstKeptEntryId"))
		if n, ok := v.Get("firstKeptEntryIndex").NumberText(); ok {
			e.FirstKeptIndex, e.HasFirstKeptIndex = n, true
		}
	case TypeSession:
		if x := v.Get("version"); x != nil {
			e.Version = jsonl.Marshal(*x)
		}
	case TypeCustom:
		e.ModelSnapshot = v.Get("customType").StrOr("") == "model-snapshot"
	}
	msg := v.Get("message")
	e.role = refRole(msg)
	switch e.Type {
	case TypeMessage:
		e.FieldsOK = refMessageOK(msg, false)
		e.MessageOKAfterHookMigration = refMessageOK(msg, true)
	case TypeThinkingLevelChange:
		e.FieldsOK = nonEmpty("thinkingLevel")
	case TypeModelChange:
		e.FieldsOK = nonEmpty("provider") && nonEmpty("modelId")
	case TypeCompaction:
		e.boundaryOK = str("summary") && v.Get("tokensBefore").IsNumber()
		e.FieldsOK = e.boundaryOK && nonEmpty("firstKeptEntryId")
	case TypeReset:
		e.boundaryOK = validResetReason(refString(v.Get("reason")))
		e.FieldsOK = e.boundaryOK && (!v.Has("firstKeptEntryId") || str("firstKeptEntryId"))
	case TypeBranchSummary:
		e.FieldsOK = str("fromId") && str("summary")
	case TypeCustom:
		e.FieldsOK = nonEmpty("customType")
	case TypeCustomMessage:
		d := v.Get("display")
		e.FieldsOK = nonEmpty("customType") && readableContent(v.Get("content")) && d.IsBool()
	case TypeLabel:
		e.FieldsOK = nonEmpty("targetId") && (!v.Has("label") || str("label"))
	case TypeSessionInfo:
		e.FieldsOK = !v.Has("name") || str("name")
	}
	if e.Type != TypeMessage {
		e.MessageOKAfterHookMigration = e.FieldsOK
	}
	e.LegacyReadable = e.Type.Canonical() && (e.Type != TypeMessage || refLegacy(msg, false))
	e.LegacyReadableAfterHookMigration = e.Type.Canonical() && (e.Type != TypeMessage || refLegacy(msg, true))
	return e
}

func refOf(v *jsonl.Value) Ref {
	switch {
	case v == nil:
		return Ref{}
	case v.Kind() == jsonl.Null:
		return Null
	case v.IsString():
		return Str(v.StrOr(""))
	}
	return Ref{State: RefOther}
}

// refString is String(v) for the values whose text can name a reset reason.
func refString(v *jsonl.Value) string {
	switch {
	case v.IsString():
		return v.StrOr("")
	case v.IsArray() && v.Len() == 1:
		return refString(v.Index(0))
	}
	return "\x00"
}

func refRole(msg *jsonl.Value) roleKind {
	if !msg.IsObject() {
		return roleNone
	}
	r := msg.Get("role")
	if !r.IsString() {
		return roleNone
	}
	return map[string]roleKind{"user": roleUser, "assistant": roleAssistant, "toolResult": roleToolResult,
		"custom": roleCustom, "bashExecution": roleBash, "hookMessage": roleHook}[r.StrOr("")] | roleOtherIfZero(r.StrOr(""))
}

func roleOtherIfZero(s string) roleKind {
	switch s {
	case "user", "assistant", "toolResult", "custom", "bashExecution", "hookMessage":
		return 0
	}
	return roleOther
}

// refMessageOK loads the message as OpenClaw does and applies the schema.
func refMessageOK(msg *jsonl.Value, hookMigrated bool) bool {
	if !msg.IsObject() {
		return false
	}
	m := msg.Clone()
	normalizeLoadedMessage(&m, hookMigrated)
	isStr := func(k string) bool { return m.Get(k).IsString() }
	switch Role(&m) {
	case RoleUser, RoleAssistant:
		return readableContent(m.Get("content"))
	case RoleToolResult:
		return isStr("toolCallId") && isStr("toolName") && m.Get("isError").IsBool() && m.Get("content").IsArray()
	case RoleCustom:
		return isStr("customType") && readableContent(m.Get("content"))
	case RoleBashExecution:
		return isStr("command") && isStr("output")
	}
	return false
}

func refLegacy(msg *jsonl.Value, hookMigrated bool) bool {
	if !msg.IsObject() {
		return false
	}
	if !hookMigrated && Role(msg) == "hookMessage" {
		return readableContent(msg.Get("content"))
	}
	return refMessageOK(msg, hookMigrated)
}

// checkEnvelope compares the scanner with the reference on one line.
func checkEnvelope(t *testing.T, line []byte) {
	t.Helper()
	var s jsonl.Scanner
	got, scanErr := scanEnvelope(&s, line, nil)
	v, err := jsonl.Parse(line)
	if (err == nil) != (scanErr == nil) {
		t.Fatalf("%q: scan error %v, parse error %v", line, scanErr, err)
	}
	if err != nil {
		return
	}
	want := refEnvelope(&v)
	// The message's text, which the context parses alone, holds the value
	// the full parse keeps.
	if msg := v.Get("message"); msg == nil || !v.IsObject() {
		if got.msgEnd != 0 {
			t.Errorf("%s: message text %d:%d without a message member", line, got.msgStart, got.msgEnd)
		}
	} else if alone, err := jsonl.Parse(line[got.msgStart:got.msgEnd]); err != nil || jsonl.MarshalString(alone) != jsonl.MarshalString(*msg) {
		t.Errorf("%s: message text %q parses to %s (%v), want %s", line, line[got.msgStart:got.msgEnd], jsonl.MarshalString(alone), err, jsonl.MarshalString(*msg))
	}
	got.msgStart, got.msgEnd = 0, 0
	// The scanner keeps the version's source text: compare what it means.
	if gv, wv := versionNumber(got.Version), versionNumber(want.Version); gv == wv || gv != gv && wv != wv {
		got.Version, want.Version = nil, nil
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("scanEnvelope(%s) differs from the full parse:\n got: %+v\nwant: %+v", line, got, want)
	}
}

func TestScanEnvelope(t *testing.T) {
	lines := []string{
		`{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":"x"}}`,
		`{"t\u0079pe":"message","id":"\u0061\ud83d","parentId":"p","message":{"role":"assistant","content":"text"}}`,
		`{"type":"message","id":"a","id":"b","message":{"role":"user","content":[{"type":"text"},{"type":1}]}}`,
		`{"type":"message","id":"a","message":{"role":"user","content":[{"type":1,"type":"text"}]}}`,
		`{"type":"message","message":{"role":"toolResult","toolCallId":"c","toolName":"n","isError":false,"content":{"type":"text"}}}`,
		`{"type":"message","message":{"role":"toolResult","toolUseId":"c","toolName":"n","isError":false,"content":[]}}`,
		`{"type":"message","message":{"role":"custom","content":"x"}}`,
		`{"type":"message","message":{"role":"custom","customType":null,"content":"x"}}`,
		`{"type":"message","message":{"role":"hookMessage","customType":0,"content":[]}}`,
		`{"type":"message","message":{"role":"hookMessage","customType":7,"content":[]}}`,
		`{"type":"message","message":{"role":"bashExecution","command":"ls","output":""}}`,
		`{"type":"message","message":["role","user"]}`,
		`{"type":"message","message":{"role":"user","content":"a"},"id":"m","message" : {"role":"assistant","content":[]} }`,
		`{"type":"message","message":"text"}`,
		`{"type":"reset","id":"r","reason":[["idle"]],"firstKeptEntryId":null}`,
		`{"type":"reset","id":"r","reason":"cron-stale"}`,
		`{"type":"compaction","id":"k","summary":"s","firstKeptEntryId":"","tokensBefore":1e400,"firstKeptEntryIndex":-0}`,
		`{"type":"leaf","id":"l","parentId":null,"targetId":"x","appendParentId":null,"appendMode":"side"}`,
		`{"type":"label","id":"l","targetId":"x","label":null}`,
		`{"type":"custom","customType":"model-snapshot","data":{}}`,
		`{"type":"custom_message","customType":"c","content":[{"type":"image"}],"display":true,"timestamp":5}`,
		`{"type":"session","version":"3","id":"s"}`,
		`{"type":"session_info","name":1}`,
		`{"type":"thinking_level_change","thinkingLevel":""}`,
		`{"type":"model_change","provider":"p","modelId":"m","appendMode":"Side"}`,
		`[1,{"type":"message"}]`, `null`, `42`, `"s"`, `{}`,
		"{\"type\":\"message\",\"id\":\"\xff\",\"message\":{\"role\":\"user\",\"content\":\"\xff\"}}",
	}
	for _, l := range lines {
		if jsonl.Validate([]byte(l)) != nil {
			t.Fatalf("test line is not valid JSON: %s", l)
		}
		checkEnvelope(t, []byte(l))
	}
}

// FuzzScanEnvelope checks the scan against the full parse on any line: the
// same verdict, and on a line JSON.parse accepts the same envelope.
func FuzzScanEnvelope(f *testing.F) {
	for _, line := range seedLines(f) {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkEnvelope(t, line)
	})
}

// FuzzReadContext loads arbitrary files: no panic, and every message
// points at a real line.
func FuzzReadContext(f *testing.F) {
	for _, file := range seedFiles(f) {
		f.Add(file)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx, err := ReadContext(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, m := range ctx.Messages {
			if m.Line < 1 || m.Line > ctx.Lines {
				t.Fatalf("message line %d outside 1..%d", m.Line, ctx.Lines)
			}
		}
	})
}

// seedFiles are the test inputs of this package and the conformance cases.
func seedFiles(f *testing.F) [][]byte {
	var out [][]byte
	for _, pattern := range []string{"testdata/cases/*.jsonl", "../../testdata/conformance/cases/*.jsonl"} {
		names, _ := filepath.Glob(pattern)
		for _, n := range names {
			if data, err := os.ReadFile(n); err == nil {
				out = append(out, data)
			}
		}
	}
	if len(out) == 0 {
		f.Fatal("no seed files")
	}
	return out
}

func seedLines(f *testing.F) [][]byte {
	var out [][]byte
	for _, file := range seedFiles(f) {
		out = append(out, bytes.Split(file, []byte("\n"))...)
	}
	return out
}

// TestScanManyEscapes: a long string full of escapes is scanned in linear
// time (a quadratic scan would take minutes here).
func TestScanManyEscapes(t *testing.T) {
	text := bytes.Repeat([]byte(`a\n\"`), 1<<18)
	line := []byte(`{"type":"message","message":{"role":"user","content":"` + string(text) + `"},"id":"x"}`)
	var s jsonl.Scanner
	if e, err := scanEnvelope(&s, line, nil); err != nil || e.ID.ID != "x" || !e.FieldsOK {
		t.Fatalf("envelope = %+v", e)
	}
	checkEnvelope(t, line)
}

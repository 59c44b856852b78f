package repair

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// fieldView is what a test compares of a Field: presence, kind, decoded
// string and the blank test.
type fieldView struct {
	Present bool
	Kind    jsonl.Kind
	Str     string
	Blank   bool
}

func viewField(f jsonl.Field) fieldView {
	if !f.Exists() {
		return fieldView{}
	}
	v := fieldView{Present: true, Kind: f.Kind()}
	if s, ok := f.Str(); ok {
		v.Str, v.Blank = s, f.IsBlankString()
	}
	return v
}

// viewValue is viewField's reference: the same view of a parsed member.
func viewValue(v *jsonl.Value) fieldView {
	if v == nil {
		return fieldView{}
	}
	out := fieldView{Present: true, Kind: v.Kind()}
	if s, ok := v.Str(); ok {
		out.Str, out.Blank = s, jsonl.IsBlankJS(s)
	}
	return out
}

// envelopeView is the comparable form of an Envelope.
type envelopeView struct {
	Object                   bool
	Top                      []fieldView
	Message                  fieldView
	Members                  []fieldView
	Blocks                   []blockView
	BadUTF8, Overflow, Empty bool
}

type blockView struct {
	Index  int
	Fields []fieldView
}

var (
	topKeys     = []string{"type", "id", "parentId", "timestamp", "appendMode", "targetId", "appendParentId", "firstKeptEntryId"}
	messageKeys = append([]string{"role", "content", "stopReason", "api", "provider", "model"}, session.ToolResultIDKeys...)
	blockKeys   = []string{"type", "id", "name", "input", "arguments", "signature", "thinkingSignature", "thought_signature", "data", "text"}
)

func viewEnvelope(e *Envelope) envelopeView {
	v := envelopeView{Object: e.Object}
	for _, f := range []jsonl.Field{e.Type, e.ID, e.ParentID, e.Timestamp, e.AppendMode, e.TargetID, e.AppendParentID, e.FirstKeptEntryID} {
		v.Top = append(v.Top, viewField(f))
	}
	m := &e.Message
	v.Message = viewField(m.Field)
	v.Message.Str = ""
	for _, f := range append([]jsonl.Field{m.Role, m.Content, m.StopReason, m.API, m.Provider, m.Model}, m.ResultIDs[:]...) {
		fv := viewField(f)
		if f.Kind() == jsonl.Array || f.Kind() == jsonl.Object {
			fv = fieldView{Present: f.Exists(), Kind: f.Kind()}
		}
		v.Members = append(v.Members, fv)
	}
	for _, b := range m.Blocks {
		bv := blockView{Index: b.Index}
		for _, f := range append([]jsonl.Field{b.Type, b.ID, b.Name, b.Input, b.Arguments}, append(b.Signatures[:], b.Data, b.Text)...) {
			bv.Fields = append(bv.Fields, presenceOnly(f.Kind(), viewField(f)))
		}
		v.Blocks = append(v.Blocks, bv)
	}
	return v
}

// presenceOnly drops what the scan does not promise for containers (their
// text): input and arguments are read for presence and null only.
func presenceOnly(k jsonl.Kind, v fieldView) fieldView {
	if k == jsonl.Array || k == jsonl.Object {
		return fieldView{Present: v.Present, Kind: k}
	}
	return v
}

// referenceEnvelope builds the view from a full parse: what JSON.parse's
// value says about the same members.
func referenceEnvelope(v *jsonl.Value, line []byte) envelopeView {
	out := envelopeView{Object: v.IsObject(), BadUTF8: !utf8.Valid(line)}
	if !v.IsObject() {
		out.Top = make([]fieldView, len(topKeys))
		out.Members = make([]fieldView, len(messageKeys))
		return out
	}
	for _, k := range topKeys {
		out.Top = append(out.Top, viewValue(v.Get(k)))
	}
	msg := v.Get("message")
	out.Message = viewValue(msg)
	out.Message.Str = ""
	if !msg.IsObject() {
		out.Members = make([]fieldView, len(messageKeys))
		return out
	}
	for _, k := range messageKeys {
		mv := msg.Get(k)
		fv := viewValue(mv)
		if mv.IsArray() || mv.IsObject() {
			fv = fieldView{Present: true, Kind: mv.Kind()}
		}
		out.Members = append(out.Members, fv)
	}
	content := msg.Get("content")
	if !content.IsArray() {
		return out
	}
	for i, it := range content.Items() {
		b := &it.Value
		typ, ok := session.BlockType(b), b.IsObject() && b.Get("type").IsString()
		if !ok || !(session.IsExtendedToolCallType(typ) || session.IsThinkingType(typ) || typ == "image") {
			continue
		}
		bv := blockView{Index: i}
		for _, k := range blockKeys {
			f := b.Get(k)
			fv := viewValue(f)
			if f.IsArray() || f.IsObject() {
				fv = fieldView{Present: true, Kind: f.Kind()}
			}
			bv.Fields = append(bv.Fields, fv)
		}
		out.Blocks = append(out.Blocks, bv)
	}
	return out
}

// checkEnvelope compares the scan of line with the reference, and the
// fast path's facts with the exact path's.
func checkEnvelope(t *testing.T, line []byte) {
	t.Helper()
	var j LineJudge
	l := jsonl.Line{Num: 1, Bytes: line, Newline: true, Blank: jsonl.IsBlank(line)}
	f := j.Judge(l)
	v, err := jsonl.Parse(line)
	if l.Blank {
		if j.Envelope() != nil {
			t.Fatalf("%q: blank line has an envelope", line)
		}
		return
	}
	if (err == nil) != (j.Envelope() != nil) {
		t.Fatalf("%q: parse error %v, envelope %v", line, err, j.Envelope() != nil)
	}
	if err != nil {
		return
	}
	got := viewEnvelope(j.Envelope())
	got.BadUTF8 = j.sc.s.BadUTF8()
	want := referenceEnvelope(&v, line)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\nscan      %+v\nreference %+v", line, got, want)
	}
	if f.v.Action != Keep || f.v.Reserialize {
		return
	}
	var exact LineFacts
	exact.v.Line = 1
	j.exact(l, &exact)
	exact.offset, exact.size, exact.irregular = f.offset, f.size, f.irregular
	if !reflect.DeepEqual(f, exact) {
		t.Fatalf("%q: fast path facts differ from the exact path's:\nfast  %+v\nexact %+v", line, f, exact)
	}
}

// envelopeLines are lines that exercise the noted members: escapes in keys
// and values, duplicates, odd kinds, blocks of every notable type.
var envelopeLines = []string{
	`{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}},{"type":"thinking","thinking":"x","signature":" "},{"type":"image","data":"AAAA","mimeType":"image/png"}],"api":"openai-responses","provider":"openai","stopReason":"toolUse"}}`,
	`{"type":"message","id":"a","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":" Message "},{"type":"toolUse","id":"","name":"message"},{"type":"functionCall","id":"c2"}],"api":" azure-openai-responses "}}`,
	`{"type":"message","id":7,"message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"exec","input":null}],"api":"openai-chatgpt-responses","provider":"openai"}}`,
	`{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1"}],"api":"openai-chatgpt-responses","provider":"openai","stopReason":"aborted"}}`,
	`{"\u0074ype":"mess\u0061ge","i\u0064":"\u00e9\ud800","message":{"r\u006fle":"toolResult","tool_call_id":" x ","toolCallId":"  "}}`,
	`{"type":"message","message":{"role":"user","content":"x"},"message":{"role":"assistant","content":[{"type":"tool_use","id":"k","input":{"a":1}}]}}`,
	`{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","id":"a"}],"content":"text"}}`,
	`{"type":"message","message":{"content":[{"type":"redacted_thinking","data":"\u2028"}],"role":"assistant"}}`,
	`{"type":"message","message":[1,2]}`,
	`{"type":"leaf","id":"L","parentId":null,"targetId":"a","appendParentId":"b","appendMode":"side"}`,
	`{"type":"compaction","id":"c","parentId":"p","firstKeptEntryId":"a","timestamp":12}`,
	`{"type":"label","id":"l","parentId":"p","targetId":{"x":1}}`,
	`{"type":"message","message":{"role":"user","content":[{"type":"text","text":" \n\t"},{"type":"text","text":"\u00a0\u3000"},5,"s",{"type":"image","data":"x\u002f","mediaType":"image/png"}]}}`,
	`{"type":"message","message":{"role":"user","content":[{"type":"text","text":"\ud83d\ude00"},{"type":"text","text":"\u0000"}]}}`,
	`{"type":"session","id":"s","version":3}`,
	`["type","message"]`,
	`"just a string"`,
	`1e400`,
	`{"a":1e400,"type":"message","message":{"role":"user","content":"ok"}}`,
	"{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"caf\xe9 \xff\"}}",
	"{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"\xed\xa0\xbd \xe2\x82\"}}",
	`{"type":"message","message":{"role":"user","content":"日本語 “quoted” ü"}}`,
}

func TestEnvelopeAgreesWithParse(t *testing.T) {
	for _, l := range envelopeLines {
		checkEnvelope(t, []byte(l))
	}
	cases := sessiontest.ConformanceCases(t)
	for _, c := range cases {
		data, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		lines := sessiontest.Lines(data)
		for _, l := range lines {
			checkEnvelope(t, l.Bytes)
		}
	}
}

// FuzzEnvelope: for any line, the scan notes what a full parse reads, and
// a line the fast path keeps yields the exact path's facts.
func FuzzEnvelope(f *testing.F) {
	for _, l := range envelopeLines {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.ContainsAny(line, "\n") {
			return
		}
		checkEnvelope(t, line)
	})
}

func ExampleLineJudge() {
	var j LineJudge
	line := []byte(`{"type":"message","id":"a1","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read"}]}}`)
	facts := j.Judge(jsonl.Line{Num: 1, Bytes: line, Newline: true})
	e := j.Envelope()
	fmt.Println(e.ID.StrOr(""), e.Message.Role.StrOr(""), e.Message.Blocks[0].Name.StrOr(""))
	c := NewClassifier()
	fmt.Println(c.Apply(&facts).Action)
	// Output:
	// a1 assistant read
	// keep
}

// TestScanStrings drives the string scanner's word loop with random string
// bodies dense in what it must stop at (escapes of every kind, quotes,
// control bytes, multi-byte and invalid UTF-8) at every alignment: its
// verdict and its UTF-8 flag must be JSON.parse's and utf8.Valid's, and
// the decoded text must be a full parse's.
func TestScanStrings(t *testing.T) {
	pieces := []string{"a", "bc", "defg", " ", `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u0041`, `\ud83d`, `\u00e9`,
		"é", "日", "😀", "\x7f", "\xff", "\xe2\x82", "\xed\xa0\xbd", "\xc0\xaf", "\xf4\x90\x80\x80",
		`\x`, `\u12`, "\x01", "\t", `"`, `\`}
	rng := rand.New(rand.NewPCG(1, 2))
	var s envelopeReader
	for range 20000 {
		var b strings.Builder
		b.WriteString(`{"type":"message","message":{"role":"user","content":"`)
		b.WriteString(strings.Repeat("x", rng.IntN(8))) // every alignment
		valid := 24                                     // the pieces before that are valid in a string
		if rng.IntN(2) == 0 {
			valid = len(pieces)
		}
		for range rng.IntN(24) {
			b.WriteString(pieces[rng.IntN(valid)])
		}
		b.WriteString(`"}}`)
		line := []byte(b.String())
		err := s.scan(line)
		if (err == nil) != (jsonl.Validate(line) == nil) {
			t.Fatalf("%q: scan error %v, JSON.parse accepts: %v", line, err, (jsonl.Validate(line) == nil))
		}
		if err == nil {
			if s.s.BadUTF8() != !utf8.Valid(line) {
				t.Fatalf("%q: badUTF8 %v", line, s.s.BadUTF8())
			}
			checkEnvelope(t, line)
		}
	}
}

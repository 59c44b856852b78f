package check

import (
	"bytes"
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/media"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// lineView is the comparable form of one line's check facts.
type lineView struct {
	F      facts
	Calls  []callFact
	Images []imageFact
}

// scannedFacts are the facts the workers compute, from the classifier's
// scan of the line.
func scannedFacts(l jsonl.Line) lineView {
	x := &extractor{maxDim: 1200, sizes: true}
	var o lineFacts
	o.rep = append(o.rep, x.judge.Judge(l))
	var f facts
	x.extract(l, x.judge.Envelope(), &f, &o)
	return lineView{F: f, Calls: o.calls, Images: o.images}
}

// referenceFacts computes the same facts from a full parse of the line
// (the definitions the docs give, on JSON.parse's value).
func referenceFacts(l jsonl.Line) lineView {
	f := facts{line: l.Num, length: len(l.Bytes)}
	v, err := jsonl.Parse(l.Bytes)
	if l.Blank || err != nil {
		f.bom = !l.Blank && bytes.HasPrefix(l.Bytes, utf8BOM)
		return lineView{F: f}
	}
	f.valid = true
	f.node = referenceNode(&v, l.Num)
	f.idHash = session.HashID(f.node.ID)
	msg := v.Get("message")
	if !v.IsObject() || !v.Get("type").IsString() || v.Get("type").StrOr("") != "message" || !msg.IsObject() {
		return lineView{F: f}
	}
	var out lineView
	f.isMessage = true
	role := msg.Get("role")
	switch s, ok := role.Str(); {
	case !ok:
		f.role = roleNone
	case s == session.RoleUser:
		f.role = roleUser
	case s == session.RoleAssistant:
		f.role = roleAssistant
	case s == session.RoleToolResult:
		f.role = roleToolResult
	default:
		f.role = roleOther
	}
	content := msg.Get("content")
	var blocks []jsonl.Member
	if content.IsArray() {
		blocks = content.Items()
	}
	switch f.role {
	case roleAssistant:
		api := jsonl.TrimJS(msg.Get("api").StrOr(""))
		provider := session.TrimLower(msg.Get("provider").StrOr(""))
		signedAPI := api == "anthropic-messages" || api == "bedrock-converse-stream" ||
			provider == "anthropic" || provider == "amazon-bedrock" || provider == "anthropic-vertex"
		for i, it := range blocks {
			b := &it.Value
			typ, ok := b.Get("type").Str()
			if !b.IsObject() || !ok {
				continue
			}
			switch {
			case session.IsExtendedToolCallType(typ):
				id := b.Get("id").StrOr("")
				if jsonl.IsBlankJS(id) {
					continue
				}
				in, args := b.Get("input"), b.Get("arguments")
				out.Calls = append(out.Calls, callFact{id: id, hash: idHash(id), name: b.Get("name").StrOr(""), block: i,
					missingInput: (in == nil || in.IsNull()) && (args == nil || args.IsNull())})
			case signedAPI && session.IsThinkingType(typ) && !referenceSigned(b, typ):
				f.unsigned++
			}
		}
		f.calls.hi = int32(len(out.Calls))
	case roleToolResult:
		if t := jsonl.TrimJS(msg.Get("toolCallId").StrOr("")); t != "" {
			f.resultID = t
			break
		}
		for _, k := range session.ToolResultIDKeys[1:] {
			if s, ok := msg.Get(k).Str(); ok && !jsonl.IsBlankJS(s) {
				f.aliasKey = k
				break
			}
		}
	}
	if f.role == roleToolResult {
		f.resultHash = idHash(f.resultID)
	}
	if f.role == roleUser || f.role == roleToolResult {
		x := &extractor{maxDim: 1200}
		for i, it := range blocks {
			b := &it.Value
			data, ok := b.Get("data").Str()
			if !b.IsObject() || b.Get("type").StrOr("") != "image" || !ok {
				continue
			}
			if media.EstimateDecodedBytes(data) == 0 {
				continue
			}
			f.imageN++
			if im, over := x.oversized(data); over {
				im.block = i
				out.Images = append(out.Images, im)
			}
		}
		f.images.hi = int32(len(out.Images))
	}
	out.F = f
	return out
}

func referenceSigned(b *jsonl.Value, typ string) bool {
	for _, k := range []string{"signature", "thinkingSignature", "thought_signature"} {
		if s, ok := b.Get(k).Str(); ok && !jsonl.IsBlankJS(s) {
			return true
		}
	}
	s, ok := b.Get("data").Str()
	return typ == "redacted_thinking" && ok && !jsonl.IsBlankJS(s)
}

// referenceNode is navNode on the parsed value.
func referenceNode(v *jsonl.Value, line int) session.Node {
	n := session.Node{Line: line}
	if !v.IsObject() {
		return n
	}
	if t, ok := v.Get("type").Str(); ok {
		n.Type = session.ParseEntryType(t)
	}
	ref := func(key string) session.Ref {
		m := v.Get(key)
		switch {
		case m == nil:
			return session.Ref{}
		case m.IsNull():
			return session.Null
		case m.IsString():
			s, _ := m.Str()
			return session.Str(s)
		}
		return session.Ref{State: session.RefOther}
	}
	id, parent, mode := ref("id"), ref("parentId"), v.Get("appendMode")
	side := mode.IsString() && mode.StrOr("") == "side"
	ts := v.Get("timestamp")
	fieldsOK := true
	switch n.Type {
	case session.TypeMessage:
		fieldsOK = v.Get("message").IsObject() && v.Path("message", "role").IsString()
	case session.TypeLabel:
		fieldsOK = ref("targetId").IsID()
	case session.TypeCompaction:
		fieldsOK = ref("firstKeptEntryId").IsID()
	}
	switch {
	case n.Type.Canonical() && id.IsID() && parent.State != session.RefOther && (ts == nil || ts.IsString()) && fieldsOK:
		n.Kind, n.Side = session.NodeEntry, side
		n.TargetID, n.FirstKeptID = ref("targetId"), ref("firstKeptEntryId")
	case n.Type == session.TypeLeaf && id.IsID() && parent.StrOrNull() && (mode == nil || side):
		target, ap := ref("targetId"), ref("appendParentId")
		if !target.StrOrNull() || ap.State == session.RefOther {
			return n
		}
		n.Kind, n.TargetID, n.AppendParentID = session.NodeLeaf, target, ap
	case n.Type != session.TypeSession && n.Type != session.TypeLeaf && id.IsID() && parent.StrOrNull():
		n.Kind = session.NodeLink
	default:
		return n
	}
	n.ID, n.ParentID = id.ID, parent
	return n
}

func checkFacts(t *testing.T, l jsonl.Line) {
	t.Helper()
	got, want := scannedFacts(l), referenceFacts(l)
	if len(got.Calls) == 0 {
		got.Calls = nil
	}
	if len(got.Images) == 0 {
		got.Images = nil
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("line %q:\nscanned   %+v\nreference %+v", l.Bytes, got, want)
	}
}

// factLines exercise what the facts read: calls with and without input,
// thinking signatures, result ids in alias fields, navigation shapes.
var factLines = []string{
	`{"type":"message","id":"a1","parentId":"u1","timestamp":"t","message":{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"ls","input":null},{"type":"toolCall","id":" ","name":"x"},{"type":"function_call","id":"c2","arguments":{}},{"type":"thinking","thinking":"x"},{"type":"thinking","thinkingSignature":" s "},{"type":"redacted_thinking","data":" "}],"api":" anthropic-messages ","provider":"x"}}`,
	`{"type":"message","id":"a2","parentId":null,"message":{"role":"assistant","content":[{"type":"thinking"}],"provider":" Amazon-Bedrock "}}`,
	`{"type":"message","id":"r1","parentId":"a1","message":{"role":"toolResult","toolCallId":" c1 ","content":[{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}]}}`,
	`{"type":"message","id":"r2","parentId":"a1","message":{"role":"toolResult","toolCallId":"  ","call_id":"c9"}}`,
	`{"type":"message","id":"r3","parentId":"a1","message":{"role":"toolResult","toolUseId":7,"tool_use_id":""}}`,
	`{"type":"message","id":"u","parentId":"x","message":{"role":"user"},"appendMode":"side"}`,
	`{"type":"message","id":"u","parentId":1,"message":{"role":"user"}}`,
	`{"type":"message","id":"u","timestamp":5,"message":{"role":"user"}}`,
	`{"type":"leaf","id":"L","parentId":null,"targetId":null,"appendParentId":"p"}`,
	`{"type":"leaf","id":"L","parentId":"q","targetId":"t","appendMode":"main"}`,
	`{"type":"label","id":"l","parentId":"p","targetId":""}`,
	`{"type":"compaction","id":"c","parentId":"p","firstKeptEntryId":"k"}`,
	`{"type":"reset","id":"r","parentId":"p"}`,
	`{"type":"weird","id":"w","parentId":null}`,
	`{"type":"session","id":"s","version":3}`,
	"\xef\xbb\xbf{\"type\":\"session\"}",
	`{"type":"message","id":"a","message":{"role":"assistant","content":[{"type":"toolCall","id":"c"}],"content":[]}}`,
}

func TestFactsAgreeWithParse(t *testing.T) {
	for i, s := range factLines {
		checkFacts(t, jsonl.Line{Num: i + 1, Bytes: []byte(s), Newline: true, Blank: jsonl.IsBlank([]byte(s))})
	}
	files := sessiontest.ConformanceCases(t)
	corpus := sessiontest.Glob(t, "testdata/corpus/*.jsonl")
	for _, name := range append(files, corpus...) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		lines := sessiontest.Lines(data)
		for _, l := range lines {
			checkFacts(t, l)
		}
	}
}

// FuzzFacts: for any line, the facts read from the classifier's scan are
// those of a full parse.
func FuzzFacts(f *testing.F) {
	for _, s := range factLines {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if slices.Contains(line, '\n') {
			return
		}
		checkFacts(t, jsonl.Line{Num: 1, Bytes: line, Newline: true, Blank: jsonl.IsBlank(line)})
	})
}

// TestIDTable: the pairing's table answers as a map would, through growth
// and reserve, a hash of 0 included.
func TestIDTable(t *testing.T) {
	for _, reserve := range []int{0, 100, 5000} {
		var x idTable
		x.init(0)
		want := map[uint64]idLines{}
		for i := range 5000 {
			if i == 50 {
				x.reserve(reserve)
			}
			h := uint64(i%1700) * 0x9E3779B97F4A7C15 // repeats, and 0 first
			l := x.at(h)
			w := want[h]
			if *l != w {
				t.Fatalf("reserve %d, step %d: hash %#x has %+v, want %+v", reserve, i, h, *l, w)
			}
			if i%2 == 0 {
				l.call = int32(i + 1)
			} else {
				l.answered = int32(i + 1)
			}
			want[h] = *l
		}
		if x.used != len(want) {
			t.Errorf("reserve %d: %d ids, want %d", reserve, x.used, len(want))
		}
	}
}

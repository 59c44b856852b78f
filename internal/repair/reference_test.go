package repair

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// referenceRepair is a direct, in-memory transcription of OpenClaw's
// repairSessionFileIfNeeded (2026.7.35): every line parsed in full, the
// entries held in a slice, the two insertion passes run over the slice the
// way OpenClaw runs them. The streaming classifier must agree with it on
// every input; the fuzz target checks that.
func referenceRepair(input []byte, now func() time.Time, uuid func() string) (Counts, string, []jsonl.Value) {
	var c Counts
	var entries []jsonl.Value
	for _, line := range strings.Split(string(input), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if jsonl.IsBlank([]byte(line)) {
			continue
		}
		v, err := jsonl.Parse([]byte(line))
		if err != nil {
			c.DroppedLines++
			continue
		}
		res := classifyEntry(v)
		switch res.action {
		case Drop:
			c.DroppedLines++
			continue
		case Rewrite:
			c.add(res.rules, res.images)
		}
		entries = append(entries, res.value)
	}
	if len(entries) == 0 {
		return Counts{DroppedLines: c.DroppedLines}, ReasonEmpty, nil
	}
	if !isSessionHeader(&entries[0]) {
		return Counts{DroppedLines: c.DroppedLines}, ReasonInvalidHeader, nil
	}
	known := map[string]bool{}
	for i := range entries {
		if m := entries[i].Get("message"); isMessageEntry(&entries[i]) && session.Role(m) == session.RoleToolResult {
			if id := session.ToolResultID(m); id != "" {
				known[id] = true
			}
		}
	}
	insert := func(e *jsonl.Value, tc session.ToolCall) jsonl.Value {
		in := Insert{ToolCallID: tc.ID, ToolName: tc.Name}
		if !tc.HasName {
			in.ToolName = "unknown"
		}
		in.ParentID, in.HasParentID = e.GetStr("id")
		c.InsertedToolResults++
		known[tc.ID] = true
		return in.Entry(now(), uuid())
	}
	var passA []jsonl.Value
	for i := range entries {
		e := &entries[i]
		passA = append(passA, *e)
		if !isMessageEntry(e) || !isCodeModeCandidate(e.Get("message")) {
			continue
		}
		for _, tc := range session.ToolCalls(e.Get("message")) {
			if !known[tc.ID] {
				passA = append(passA, insert(e, tc))
			}
		}
	}
	var passB []jsonl.Value
	for i := range passA {
		e := &passA[i]
		passB = append(passB, *e)
		if !isMessageEntry(e) || !isResponsesCandidate(e.Get("message")) {
			continue
		}
		next := nextMessageEntry(passA[i+1:])
		if next == nil || !isDeliveryMirror(next.Get("message")) {
			continue
		}
		for _, tc := range session.ToolCalls(e.Get("message")) {
			if session.TrimLower(tc.Name) == "message" && !known[tc.ID] {
				passB = append(passB, insert(e, tc))
			}
		}
	}
	return c, "", passB
}

func nextMessageEntry(entries []jsonl.Value) *jsonl.Value {
	for i := range entries {
		e := &entries[i]
		if e.IsObject() && isString(e.Get("type"), "message") && e.Get("message").Truthy() && (e.Get("message").IsObject() || e.Get("message").IsArray()) {
			return e
		}
	}
	return nil
}

// checkAgainstReference runs the streaming repair and the reference on
// input and reports any difference in reason, counts or entries.
func checkAgainstReference(t *testing.T, input []byte) {
	t.Helper()
	plan, err := Analyze(bytes.NewReader(input), nil)
	if err != nil {
		t.Fatal(err)
	}
	counts, reason, entries := referenceRepair(input, goldenClock, goldenUUIDs())
	got := plan.Counts
	if plan.Reason != "" {
		got = Counts{DroppedLines: plan.Counts.DroppedLines}
	}
	if plan.Reason != reason || got != counts {
		t.Fatalf("plan: reason %q counts %+v; reference: reason %q counts %+v", plan.Reason, got, reason, counts)
	}
	if !plan.NeedsRewrite() {
		return
	}
	var out bytes.Buffer
	if err := WriteRepaired(&out, bytes.NewReader(input), &plan, goldenClock, goldenUUIDs()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(entries) {
		t.Fatalf("%d output lines, reference has %d entries\n%s", len(lines), len(entries), out.Bytes())
	}
	for i, l := range lines {
		v, err := jsonl.Parse([]byte(l))
		want, _ := jsonl.Parse(jsonl.Marshal(entries[i])) // as OpenClaw writes it: 1e400 becomes null
		if err != nil || !jsonl.Equal(&v, &want) {
			t.Fatalf("line %d: %s\nreference: %s", i+1, l, jsonl.Marshal(entries[i]))
		}
	}
}

// TestClassifierAgreesWithReference covers inputs the conformance corpus
// does not: escaped keys, duplicate keys, odd value kinds where the fast
// path reads fields.
func TestClassifierAgreesWithReference(t *testing.T) {
	H := header
	tests := map[string]string{
		"escaped type key":          H + "\n" + `{"\u0074ype":"message","message":{"role":null}}`,
		"escaped role value":        H + "\n" + `{"type":"message","message":{"role":"\u0020"}}`,
		"duplicate message":         H + "\n" + `{"type":"message","message":{"role":"user","content":""},"message":{"role":"user","content":"x"}}`,
		"duplicate message reverse": H + "\n" + `{"type":"message","message":{"role":"user","content":"x"},"message":{"role":"user","content":" "}}`,
		"duplicate content":         H + "\n" + `{"type":"message","message":{"role":"user","content":[{"type":"text","text":""}],"content":"ok"}}`,
		"duplicate type":            H + "\n" + `{"type":"message","type":"custom","message":null}`,
		"message array":             H + "\n" + `{"type":"message","message":[{"role":"user"}]}`,
		"message false":             H + "\n" + `{"type":"message","message":false}`,
		"message string":            H + "\n" + `{"type":"message","message":"x"}`,
		"role number":               H + "\n" + `{"type":"message","message":{"role":7}}`,
		"role nbsp":                 H + "\n" + "{\"type\":\"message\",\"message\":{\"role\":\"\u00a0\\u2028\"}}",
		"blank text escapes":        H + "\n" + `{"type":"message","message":{"role":"user","content":[{"type":"text","text":"\n\t\u3000"},{"type":"text","text":"x"}]}}`,
		"blank text not string":     H + "\n" + `{"type":"message","message":{"role":"user","content":[{"type":"text","text":null}]}}`,
		"user content object":       H + "\n" + `{"type":"message","message":{"role":"user","content":{"type":"text","text":""}}}`,
		"user content empty":        H + "\n" + `{"type":"message","message":{"role":"user","content":[]}}`,
		"assistant empty no error":  H + "\n" + `{"type":"message","message":{"role":"assistant","content":[],"stopReason":"stop"}}`,
		"assistant empty error esc": H + "\n" + `{"type":"message","message":{"role":"assistant","content":[],"stopReason":"\u0065rror"}}`,
		"image escaped mime":        H + "\n" + `{"type":"message","message":{"role":"user","content":[{"type":"image","data":"SGVsbG8=","mediaType":"\u0049MAGE/png"}]}}`,
		"image second mime":         H + "\n" + `{"type":"message","message":{"role":"user","content":[{"type":"image","data":"SGVsbG8=","mimeType":"text/plain","media_type":" image/png"}]}}`,
		"image data escaped":        H + "\n" + `{"type":"message","message":{"role":"toolResult","content":[{"type":"image","data":"iVBORw0KGgo\u0041","mimeType":"image/png"}]}}`,
		"image block array":         H + "\n" + `{"type":"message","message":{"role":"user","content":[["image"],{"type":"image","data":7,"mimeType":"image/png"}]}}`,
		"image and blank text":      H + "\n" + `{"type":"message","message":{"role":"user","content":[{"type":"text","text":" "},{"type":"image","data":"…","mimeType":"image/png"}]}}`,
		"overflow number kept":      H + "\n" + `{"type":"custom","n":1e400,"m":-1E+999}` + "\n{",
		"header escaped":            `{"type":"sess\u0069on","id":"\u0041"}` + "\n{",
		"header empty id":           `{"type":"session","id":""}` + "\n{",
		"non-object first":          "[1]\n" + H + "\n{",
		"code mode results later": H + "\n" +
			`{"type":"message","id":"a1","message":{"role":"assistant","api":"openai-chatgpt-responses","provider":"openai","content":[{"type":"toolCall","id":"c1","name":"exec"},{"type":"toolCall","id":"c2"},{"type":"toolCall","id":"c1"}]}}` + "\n" +
			`{"type":"message","message":{"role":"toolResult","call_id":" c2 "}}` + "\n" +
			`{"type":"message","id":"a2","message":{"role":"assistant","api":"openai-chatgpt-responses","provider":"openai","content":[{"type":"functionCall","id":"c1","name":"again"},{"type":"toolUse","id":"c3","name":5}]}}`,
		"code mode result earlier": H + "\n" +
			`{"type":"message","message":{"role":"toolResult","toolCallId":"c9"}}` + "\n" +
			`{"type":"message","id":7,"message":{"role":"assistant","api":"openai-chatgpt-responses","provider":"openai","content":[{"type":"toolCall","id":"c9"},{"type":"toolCall","id":"c8","name":"x"}]}}`,
		"responses then mirror": H + "\n" +
			`{"type":"message","id":"r1","message":{"role":"assistant","api":" openai-responses ","content":[{"type":"toolCall","id":"m1","name":" Message "},{"type":"toolCall","id":"m2","name":"exec"}]}}` + "\n" +
			`{"type":"custom"}` + "\n" + `garbage` + "\n" +
			`{"type":"message","message":{"role":"assistant","provider":"openclaw ","model":" gateway-injected","content":[]}}`,
		"responses then other message": H + "\n" +
			`{"type":"message","id":"r1","message":{"role":"assistant","api":"azure-openai-responses","content":[{"type":"toolCall","id":"m1","name":"message"}]}}` + "\n" +
			`{"type":"message","message":{"role":"user","content":"hi"}}` + "\n" +
			`{"type":"message","message":{"role":"assistant","provider":"openclaw","model":"delivery-mirror","content":[]}}`,
		"responses aborted": H + "\n" +
			`{"type":"message","id":"r1","message":{"role":"assistant","api":"openai-codex-responses","stopReason":"aborted","content":[{"type":"toolCall","id":"m1","name":"message"}]}}` + "\n" +
			`{"type":"message","message":{"role":"assistant","provider":"openclaw","model":"delivery-mirror","content":[]}}`,
		"code mode id shared with responses": H + "\n" +
			`{"type":"message","id":"r1","message":{"role":"assistant","api":"openai-responses","content":[{"type":"toolCall","id":"x","name":"message"}]}}` + "\n" +
			`{"type":"message","message":{"role":"assistant","provider":"openclaw","model":"delivery-mirror","content":[]}}` + "\n" +
			`{"type":"message","id":"a1","message":{"role":"assistant","api":"openai-chatgpt-responses","provider":"openai","content":[{"type":"toolCall","id":"x"}]}}`,
		"crlf blank invalid utf8": H + "\r\n\r\n" + "{\"type\":\"custom\",\"s\":\"\xff\xe2\x82\"}\r\n   \n" + `{"type":"message"`,
	}
	for name, input := range tests {
		t.Run(name, func(t *testing.T) { checkAgainstReference(t, []byte(input)) })
	}
}

package hygiene

import (
	"strings"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

func TestAnnotateInterSession(t *testing.T) {
	const header = "[Inter-session message] sourceSession=agent:ops:main sourceTool=sessions_send isUser=false"
	prefix := header + "\n" + interSessionExplanation
	prov := `"provenance":{"kind":"inter_session","sourceSessionKey":" agent:ops:main ","sourceTool":"sessions_send","sourceChannel":"  "}`
	tests := []struct{ name, in, want string }{
		{"string content",
			`{"role":"user","content":"deploy done",` + prov + `}`,
			`{"role":"user","content":` + jsonString(prefix+"\ndeploy done") + `,` + prov + `}`},
		{"first text block of an array",
			`{"role":"user","content":[{"type":"image"},{"type":"text","text":"a"},{"type":"text","text":"b"}],` + prov + `}`,
			`{"role":"user","content":[{"type":"image"},{"type":"text","text":` + jsonString(prefix+"\na") + `},{"type":"text","text":"b"}],` + prov + `}`},
		{"no text block: placeholder prepended",
			`{"role":"user","content":[{"type":"image"}],` + prov + `}`,
			`{"role":"user","content":[{"type":"text","text":` + jsonString(prefix+"\nInter-session content follows.") + `},{"type":"image"}],` + prov + `}`},
		{"older marker replaced",
			`{"role":"user","content":` + jsonString("Status: [Inter-session message] sourceTool=old isUser=false\n"+interSessionExplanation+"\nbackup ok") + `,` + prov + `}`,
			`{"role":"user","content":` + jsonString(prefix+"\nStatus:\nbackup ok") + `,` + prov + `}`},
		{"already annotated",
			`{"role":"user","content":` + jsonString(prefix+"\nx") + `,` + prov + `}`,
			`{"role":"user","content":` + jsonString(prefix+"\nx") + `,` + prov + `}`},
		{"blank text untouched",
			`{"role":"user","content":"  ",` + prov + `}`,
			`{"role":"user","content":"  ",` + prov + `}`},
		{"other provenance untouched",
			`{"role":"user","content":"x","provenance":{"kind":"external_user"}}`,
			`{"role":"user","content":"x","provenance":{"kind":"external_user"}}`},
		{"assistant untouched",
			`{"role":"assistant","content":"x",` + prov + `}`,
			`{"role":"assistant","content":"x",` + prov + `}`},
	}
	for _, tt := range tests {
		r := replayTestRun(Target{})
		out := annotateInterSession(r, replayTestMessages(t, tt.in))
		if got := strings.TrimSpace(replayTestJSON(out)); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
		if changed := tt.in != tt.want; changed != hasRule(r.Changes, ruleInterSession) {
			t.Errorf("%s: change recorded = %v, want %v", tt.name, !changed, changed)
		}
	}
}

func TestStripInterSessionMarker(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"[Inter-session message] isUser=false", " isUser=false"}, // no newline: only the base text goes
		{"[Inter-session message] a\nbody", "body"},
		{"[Inter-session message] a\n" + interSessionExplanation + "\r\nbody", "body"},
		{"[Inter-session message] a\n" + interSessionExplanation + "body", "body"},
		{"lead  [Inter-session message] a\nbody", "lead\nbody"},
	}
	for _, tt := range tests {
		if got := stripInterSessionMarker(tt.in); got != tt.want {
			t.Errorf("stripInterSessionMarker(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// jsonString is s as a JSON string literal, as JSON.stringify writes it.
func jsonString(s string) string { return string(jsonl.AppendJSString(nil, s)) }

package hygiene

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestStripInternalMetadataForDisplay(t *testing.T) {
	notice := runtimeContextNotice
	tests := []struct{ name, in, want string }{
		{"plain text", "hello\nworld", "hello\nworld"},
		{"delimited block", "before\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nsecret\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>\nafter", "before\n\nafter"},
		{"nested blocks", "a\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nx\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>\ny\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>\nb", "a\n\nb"},
		{"unterminated block", "keep\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nrest", "keep"},
		{"token inside a line is not a delimiter", "x <<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>> y", "x <<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>> y"},
		{"stray end delimiter", "a\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>\nb", "a\nb"},
		{"CRLF", "a\r\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\r\nx\r\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>\r\nb", "a\n\nb"},
		{"legacy event", "hi\n\nOpenClaw runtime context (internal):\n" + notice + "\n\n[Internal task completion event]\nsource: x\n<<<BEGIN_UNTRUSTED_CHILD_RESULT>>>\nr\n<<<END_UNTRUSTED_CHILD_RESULT>>>\n\nAction:\ndo\n\nafter", "hi\n\nafter"},
		{"runtime preface", "OpenClaw runtime event.\n" + notice + "\nreal text", "real text"},
		{"leading timestamp", "[Mon 2026-03-14 09:27 UTC] hello", "hello"},
		{"inbound context block", "Sender: ⟦openclaw:ctx⟧\n```json\n{\"label\":\"ana\"}\n```\n\nhello", "hello"},
		{"delivery hint line", "Delivery: to send a message, use the `message` tool.\nanswer", "answer"},
		{"channel context tail", "answer\n\nContext: ⟦openclaw:ctx⟧\nchannel stuff", "answer"},
		{"active memory", "Context:\n<active_memory_plugin>\nmem\n</active_memory_plugin>\n\nreply", "reply"},
		{"bare Context line without memory", "Context:\nnot memory", "Context:\nnot memory"},
	}
	for _, tt := range tests {
		if got := stripInternalMetadataForDisplay(tt.in); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestStripInternalMetadataVectors compares with OpenClaw's own
// stripInternalMetadataForDisplay on the inputs of
// testdata/openclaw-strip-metadata.json ([input, OpenClaw's output] pairs,
// written by running OpenClaw 2026.9.6's function: hand-made inputs, then
// random concatenations of delimiters, markers, hints and line breaks).
func TestStripInternalMetadataVectors(t *testing.T) {
	for _, p := range stripMetadataVectors(t) {
		if got := stripInternalMetadataForDisplay(p[0]); got != p[1] {
			t.Errorf("strip(%q) = %q, OpenClaw %q", p[0], got, p[1])
		}
	}
}

// FuzzAssistantText: metadata stripping and NO_REPLY detection take any
// text without panicking, and stripping never adds text.
func FuzzAssistantText(f *testing.F) {
	for _, p := range stripMetadataVectors(f) {
		f.Add(p[0])
	}
	f.Add("<think>x</think>\nNO_REPLY")
	f.Add("[Inter-session message] a\n" + interSessionExplanation)
	f.Fuzz(func(t *testing.T, text string) {
		out := stripInternalMetadataForDisplay(text)
		if len(out) > len(text)+2 { // a removed block may leave one "\n\n" joint
			t.Errorf("stripping grew %q to %q", text, out)
		}
		_ = isSilentReplyPayloadText(text)
		_ = stripInterSessionMarker(text)
	})
}

// stripMetadataVectors reads testdata/openclaw-strip-metadata.json and fails
// tb when it holds no vector.
func stripMetadataVectors(tb testing.TB) [][2]string {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "openclaw-strip-metadata.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var pairs [][2]string
	if err := json.Unmarshal(data, &pairs); err != nil {
		tb.Fatal(err)
	}
	if len(pairs) == 0 {
		tb.Fatal("no vectors")
	}
	return pairs
}

package repair

import (
	"strings"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// Envelope is what the scan of one line noted besides the repair's
// verdict: the navigation fields of the entry, the members of its message
// that the checks read, and the notable blocks of the message's content.
// It lets a caller that needs more than the verdict (check) read the same
// single parse instead of parsing the line again.
//
// Member values follow JSON.parse: a duplicated key keeps its last value,
// keys match after their escapes are decoded, and a duplicated "message" or
// "content" replaces everything noted for the earlier one. Fields alias the
// judged line: an Envelope is valid until the next [LineJudge.Judge] and
// only while the line's bytes are unchanged.
type Envelope struct {
	// Object reports that the line is a JSON object (the other fields are
	// absent otherwise).
	Object bool
	// Top-level members.
	Type, ID, ParentID, Timestamp, AppendMode, TargetID, AppendParentID, FirstKeptEntryID jsonl.Field
	// Message is the top-level "message" member.
	Message Message
}

// Message is an entry's "message" member. Its members are noted only when
// it is an object.
type Message struct {
	jsonl.Field
	Role, Content, StopReason, API, Provider, Model jsonl.Field
	// ResultIDs are the members named by session.ToolResultIDKeys, in that
	// order.
	ResultIDs [6]jsonl.Field
	// Blocks are the notable object blocks of an array content, in order:
	// those whose type is a tool-call type (session.IsExtendedToolCallType),
	// a thinking type (session.IsThinkingType) or "image".
	Blocks []Block

	contentLen    int  // elements of an array content
	blankText     bool // a text block whose text is blank
	corruptImages int  // corrupted image blocks in an array content
}

// Block is one notable content block.
type Block struct {
	Index int // position in content
	Type  jsonl.Field
	// Tool calls.
	ID, Name, Input, Arguments jsonl.Field
	// Thinking: signature, thinkingSignature, thought_signature; redacted
	// thinking may carry its payload in Data.
	Signatures [3]jsonl.Field
	// Images (and redacted thinking).
	Data, Text jsonl.Field
	mime       [len(imageMimeKeys)]jsonl.Field
}

// clone returns a copy of s that does not alias the line.
func clone(s string) string { return strings.Clone(s) }

package repair

import (
	"fmt"
	"strings"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// Counts are OpenClaw's repair counters, with OpenClaw's field names.
type Counts struct {
	DroppedLines                int `json:"droppedLines"`
	RewrittenAssistantMessages  int `json:"rewrittenAssistantMessages"`
	DroppedBlankUserMessages    int `json:"droppedBlankUserMessages"` // always 0: OpenClaw's drop path is unreachable
	RewrittenUserMessages       int `json:"rewrittenUserMessages"`
	RemovedCorruptedImageBlocks int `json:"removedCorruptedImageBlocks"`
	InsertedToolResults         int `json:"insertedToolResults"`
}

// add counts a rewritten entry.
func (c *Counts) add(rules Rules, images int) {
	if rules&RuleEmptyErrorTurn != 0 {
		c.RewrittenAssistantMessages++
	}
	if rules&RuleCorruptedImage != 0 {
		c.RemovedCorruptedImageBlocks += images
	}
	if rules&RuleBlankUserText != 0 {
		c.RewrittenUserMessages++
	}
}

// Any reports whether any counter is non-zero, OpenClaw's condition for
// rewriting the file.
func (c Counts) Any() bool { return c != Counts{} }

// Summary joins the non-zero counters as OpenClaw's "session file
// repaired: …" message does ("no changes" when all are zero).
func (c Counts) Summary() string {
	var parts []string
	add := func(n int, format string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf(format, n))
		}
	}
	add(c.DroppedLines, "dropped %d malformed line(s)")
	add(c.RewrittenAssistantMessages, "rewrote %d assistant message(s)")
	add(c.DroppedBlankUserMessages, "dropped %d blank user message(s)")
	add(c.RewrittenUserMessages, "rewrote %d user message(s)")
	add(c.RemovedCorruptedImageBlocks, "removed %d corrupted image block(s)")
	add(c.InsertedToolResults, "inserted %d missing tool result(s)")
	if len(parts) == 0 {
		return "no changes"
	}
	return strings.Join(parts, ", ")
}

// LineEdit is a line a rewrite does not copy as is: a dropped, rewritten or
// re-serialized line. Consecutive malformed lines share one edit (Lines of
// them), so that a file of garbage costs one edit, not one per line.
type LineEdit struct {
	Line            int
	Lines           int    // the lines the edit covers: 1, or more for a run of malformed lines
	Offset, Size    int64  // the lines' bytes in the input, terminators included
	Action          Action // Drop, Rewrite, or Keep with Reserialize
	Rules           Rules
	CorruptedImages int
	Reserialize     bool
}

// Insert is a synthetic "aborted" tool result inserted right after an
// assistant entry (docs/fix.md).
type Insert struct {
	AfterLine   int    // physical line of the assistant entry
	AfterOffset int64  // input offset just after that line
	ParentID    string // the assistant entry's id
	HasParentID bool   // false when that id is not a string: parentId is omitted
	ToolCallID  string
	ToolName    string // "unknown" when the call's name is not a string
}

// Entry builds the synthetic entry with id "repair-<uuid>" and the given
// clock, in OpenClaw's key order.
func (in Insert) Entry(now time.Time, uuid string) jsonl.Value {
	ms := now.UnixMilli()
	msg := jsonl.ObjectOf(
		jsonl.Member{Key: "role", Value: jsonl.StringValue("toolResult")},
		jsonl.Member{Key: "toolCallId", Value: jsonl.StringValue(in.ToolCallID)},
		jsonl.Member{Key: "toolName", Value: jsonl.StringValue(in.ToolName)},
		jsonl.Member{Key: "content", Value: jsonl.ArrayValue(textBlock("aborted"))},
		jsonl.Member{Key: "details", Value: jsonl.ObjectOf(jsonl.Member{Key: "openclawSyntheticMissingToolResult", Value: jsonl.BoolValue(true)})},
		jsonl.Member{Key: "isError", Value: jsonl.BoolValue(true)},
		jsonl.Member{Key: "timestamp", Value: jsonl.IntValue(ms)},
	)
	e := jsonl.ObjectOf(
		jsonl.Member{Key: "type", Value: jsonl.StringValue("message")},
		jsonl.Member{Key: "id", Value: jsonl.StringValue("repair-" + uuid)},
	)
	if in.HasParentID {
		e.Set("parentId", jsonl.StringValue(in.ParentID))
	}
	e.Set("timestamp", jsonl.StringValue(isoMillis(now)))
	e.Set("message", msg)
	return e
}

// isoMillis formats t as JavaScript's Date.prototype.toISOString.
func isoMillis(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// Plan is the outcome of the first pass over a file: what the repair does.
type Plan struct {
	// Reason is OpenClaw's early-exit reason (ReasonEmpty,
	// ReasonInvalidHeader), or "" when the file can be repaired.
	Reason string
	// FirstEntryLine is the physical line of the first surviving entry (the
	// header, or the entry that failed the header check); 0 when none.
	FirstEntryLine int
	Counts         Counts
	Edits          []LineEdit // in line order
	Inserts        []Insert   // in line order
	Bytes          int64      // input size
	Lines          int        // physical lines
	BlankLines     int
	Entries        int // surviving entries
	// Verbatim reports that every line ends in "\n" (no "\r", no blank
	// line, a final newline) and is valid UTF-8, so a kept line's output is
	// its input bytes and the rewrite can copy whole ranges.
	Verbatim bool
}

// NeedsRewrite reports whether the file is rewritten: no early exit and a
// non-zero counter.
func (p *Plan) NeedsRewrite() bool { return p.Reason == "" && p.Counts.Any() }

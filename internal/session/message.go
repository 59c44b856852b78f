package session

import (
	"strings"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// Roles of persisted and in-memory messages.
const (
	RoleUser              = "user"
	RoleAssistant         = "assistant"
	RoleToolResult        = "toolResult"
	RoleCustom            = "custom"
	RoleBashExecution     = "bashExecution"
	RoleCompactionSummary = "compactionSummary"
	RoleBranchSummary     = "branchSummary"
)

// Role returns message.role when it is a string.
func Role(msg *jsonl.Value) string { return msg.Get("role").StrOr("") }

// ToolCallBlockTypes are the tool-call block types the repair and the
// tool-result pairing recognise.
var ToolCallBlockTypes = []string{"toolCall", "toolUse", "functionCall"}

// IsToolCallType reports a block type of ToolCallBlockTypes.
func IsToolCallType(t string) bool {
	return t == "toolCall" || t == "toolUse" || t == "functionCall"
}

// IsExtendedToolCallType adds the snake_case forms that replay's input
// validation also accepts (tool_call, tool_use, function_call).
func IsExtendedToolCallType(t string) bool {
	return IsToolCallType(t) || t == "tool_call" || t == "tool_use" || t == "function_call"
}

// BlockType returns block.type when the block is an object with a string type.
func BlockType(b *jsonl.Value) string {
	if !b.IsObject() {
		return ""
	}
	return b.Get("type").StrOr("")
}

// ToolCall is a tool-call block of an assistant message.
type ToolCall struct {
	Index   int    // position in content
	ID      string // as stored (not trimmed)
	Name    string // "" when not a string
	HasName bool
}

// ToolCalls returns the tool calls of an assistant message as the repair and
// the pairing see them: object blocks of a ToolCallBlockTypes type with a
// non-empty string id, in content order.
func ToolCalls(msg *jsonl.Value) []ToolCall { return AppendToolCalls(nil, msg) }

// AppendToolCalls appends the tool calls of an assistant message (see
// ToolCalls) to out, for callers that collect the calls of many messages
// in one list.
func AppendToolCalls(out []ToolCall, msg *jsonl.Value) []ToolCall {
	content := msg.Get("content")
	if !content.IsArray() {
		return out
	}
	for i, it := range content.Items() {
		b := &it.Value
		if id, ok := toolCallID(b); ok {
			name, hasName := b.GetStr("name")
			out = append(out, ToolCall{Index: i, ID: id, Name: name, HasName: hasName})
		}
	}
	return out
}

// HasToolCalls reports whether an assistant message has a tool call (see
// ToolCalls), without listing them.
func HasToolCalls(msg *jsonl.Value) bool {
	content := msg.Get("content")
	if !content.IsArray() {
		return false
	}
	for _, it := range content.Items() {
		if _, ok := toolCallID(&it.Value); ok {
			return true
		}
	}
	return false
}

// toolCallID is the id of a content block that is a tool call: an object
// of a ToolCallBlockTypes type with a non-empty string id.
func toolCallID(b *jsonl.Value) (string, bool) {
	if !IsToolCallType(BlockType(b)) {
		return "", false
	}
	id, ok := b.GetStr("id")
	return id, ok && id != ""
}

// ToolResultIDKeys are the fields a tool result may carry its call id in,
// in the order readers try them.
var ToolResultIDKeys = []string{"toolCallId", "toolUseId", "tool_call_id", "tool_use_id", "callId", "call_id"}

// ToolResultID returns the first non-empty trimmed id of a toolResult
// message among ToolResultIDKeys, or "".
func ToolResultID(msg *jsonl.Value) string {
	for _, k := range ToolResultIDKeys {
		if s, ok := msg.GetStr(k); ok {
			if t := jsonl.TrimJS(s); t != "" {
				return t
			}
		}
	}
	return ""
}

// IsThinkingType reports thinking-like block types.
func IsThinkingType(t string) bool { return t == "thinking" || t == "redacted_thinking" }

// TrimLower is strings.ToLower(TrimJS(s)).
func TrimLower(s string) string { return strings.ToLower(jsonl.TrimJS(s)) }

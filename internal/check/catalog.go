package check

import (
	"fmt"
	"strings"
)

// Severity ranks a finding. The zero value is Info.
type Severity uint8

// The severities, lowest first.
const (
	// Info is for what neither providers nor replay care about (over-long
	// lines).
	Info Severity = iota
	// Warning is for what OpenClaw's replay silently changes before a
	// provider sees it (a cut branch, a duplicated id, an oversized image).
	Warning
	// Error is for what a provider rejects, what fix drops or rewrites, and
	// files OpenClaw loads as an empty session.
	Error
)

func (s Severity) String() string { return [...]string{"info", "warning", "error"}[s] }

// ParseSeverity reads "info", "warning" or "error".
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "info":
		return Info, nil
	case "warning", "warn":
		return Warning, nil
	case "error":
		return Error, nil
	}
	return Info, fmt.Errorf("unknown severity %q (want info, warning or error)", s)
}

// ID is a stable check id, "transcript/<name>".
type ID string

// The check ids: "transcript/…" for a fault of the file, named after the
// failure it causes (docs/checks.md describes each).
const (
	MalformedLine          ID = "transcript/malformed-line"
	InvalidMessageRole     ID = "transcript/invalid-message-role"
	EmptyErrorTurn         ID = "transcript/empty-error-turn"
	BlankUserText          ID = "transcript/blank-user-text"
	CorruptedImage         ID = "transcript/corrupted-image"
	MissingCodeModeRes     ID = "transcript/missing-code-mode-result"
	InvalidHeader          ID = "transcript/invalid-header"
	EmptySession           ID = "transcript/empty-session"
	Unreadable             ID = "transcript/unreadable"
	OrphanToolResult       ID = "transcript/orphan-tool-result"
	MissingToolResult      ID = "transcript/missing-tool-result"
	ToolCallMissingInput   ID = "transcript/tool-call-missing-input"
	DuplicateEntryID       ID = "transcript/duplicate-entry-id"
	MissingParent          ID = "transcript/missing-parent"
	UnsignedThinking       ID = "transcript/unsigned-thinking"
	OversizedImage         ID = "transcript/oversized-image"
	ImageOverProviderLimit ID = "transcript/image-over-provider-limit"
	LongLine               ID = "transcript/long-line"
)

// FixCommand is the command named by the hints of checks that fix repairs.
const FixCommand = "openclaw-doctor fix"

// Check describes one check of the catalogue.
type Check struct {
	ID       ID
	Severity Severity
	// Fixed reports that `openclaw-doctor fix` repairs what the check finds
	// (the findings then carry the hint FixHint).
	Fixed bool
	// Summary says what the check finds, in one sentence.
	Summary string
	// Hint is the fix hint every finding of the check carries.
	Hint string
}

// fixHint is the hint of every check fix repairs.
var fixHint = fmt.Sprintf("run %q", FixCommand)

// FixHint is the hint of the checks fix repairs.
var FixHint = fixHint

// Catalogue is every check, in the order reports list them. docs/checks.md
// is generated from it.
var Catalogue = []Check{
	{MalformedLine, Error, true,
		"A line that JSON.parse rejects (a half-written tail, a raw control character, a literal `undefined`); OpenClaw skips it when loading and fix drops it.",
		fixHint},
	{InvalidMessageRole, Error, true,
		"A message entry whose `message` is missing or not an object, or whose `role` is not a non-blank string; fix drops it.",
		fixHint},
	{EmptyErrorTurn, Error, true,
		"An assistant turn with empty content and stopReason \"error\" (Bedrock rejects empty content); fix writes OpenClaw's fallback text into it.",
		fixHint},
	{BlankUserText, Error, true,
		"A user turn whose text is blank (Bedrock and Anthropic reject blank text blocks); fix rewrites it to \"(continue)\" or removes the blank blocks.",
		fixHint},
	{CorruptedImage, Error, true,
		"An image block whose base64 data is invalid, non-ASCII or not an image; fix replaces it with a text placeholder.",
		fixHint},
	{MissingCodeModeRes, Error, true,
		"An OpenAI code-mode tool call, or a Responses `message` tool call before a delivery mirror, without a tool result; fix inserts OpenClaw's synthetic \"aborted\" result.",
		fixHint},
	{InvalidHeader, Error, false,
		"The first entry is not a session header (`{\"type\":\"session\",\"id\":…}`): a head-truncated file, a BOM, another entry first. OpenClaw 2026.7 loads the file as an empty session and fix leaves it alone.",
		"by hand (fix cannot): restore the session header line from a backup, or move it to the first line"},
	{EmptySession, Error, false,
		"No line survives: the file is empty, blank, or every line is dropped. OpenClaw starts a new session in its place.",
		"by hand (fix cannot): restore the file from a backup, or delete it if the session is no longer needed"},
	{Unreadable, Error, false,
		"The file cannot be read (a directory, no permission, an I/O error).",
		"check the path and its permissions"},
	{OrphanToolResult, Error, false,
		"A tool result that does not answer a tool call of the assistant turn right before it (a duplicate, a displaced result, a result whose call is gone); Anthropic, Bedrock and OpenAI Responses reject it, replay drops or moves it.",
		"OpenClaw's replay drops or moves it before sending (see `openclaw-doctor replay`); to clean the file, remove the entry by hand"},
	{MissingToolResult, Error, false,
		"An assistant tool call with no tool result right after it (a killed gateway, an interrupted tool, a user turn in between); Anthropic and Gemini reject it, replay inserts a synthetic error result.",
		"OpenClaw's replay inserts a synthetic error result before sending (see `openclaw-doctor replay`); nothing to do unless the provider still rejects the session"},
	{ToolCallMissingInput, Error, false,
		"A tool call with neither `arguments` nor `input` (Anthropic: `tool_use.input: Field required`); replay drops the block.",
		"OpenClaw's replay drops the call before sending (see `openclaw-doctor replay`)"},
	{UnsignedThinking, Error, false,
		"A thinking block without a signature in an Anthropic or Bedrock turn (`thinking.signature: Field required`); replay removes it from every turn but the latest.",
		"OpenClaw's replay removes unsigned thinking before sending to signed-thinking providers (see `openclaw-doctor replay`)"},
	{DuplicateEntryID, Warning, false,
		"Two entries share an id; OpenClaw's loader keeps the later one, so the branch through the earlier one is lost.",
		"give one of the entries a new id by hand, or leave it: OpenClaw uses the later entry"},
	{MissingParent, Warning, false,
		"An entry whose parentId names no entry: the active branch is cut there and OpenClaw's context starts at that entry.",
		"restore the missing entries from a backup; otherwise the history before the cut stays out of the context"},
	{OversizedImage, Warning, false,
		"An image larger than the configured side (default 1200 px) or 5 MiB decoded; replay resizes or omits it on every turn.",
		"OpenClaw's replay resizes it on every turn (see `openclaw-doctor replay`); set imageMaxDimensionPx to change the limit"},
	{ImageOverProviderLimit, Error, false,
		"An image that replay still sends too large for a provider: over Anthropic's 8000 px a side, or over 2000 px when the session holds more than 20 images (the many-image limit). Possible only when imageMaxDimensionPx is set above those sides.",
		"lower imageMaxDimensionPx (default 1200) so that replay shrinks the image, or remove the image block by hand"},
	{LongLine, Info, false,
		"A line longer than 64 KiB (large tool output or image); OpenClaw handles it, but such lines dominate load time and memory.",
		"no action needed"},
}

// LongLineBytes is the length above which a line is reported as long.
const LongLineBytes = 64 << 10

// Lookup returns the catalogue entry of id.
func Lookup(id ID) (Check, bool) {
	for _, c := range Catalogue {
		if c.ID == id {
			return c, true
		}
	}
	if c, ok := lookupStore(id); ok {
		return c, true
	}
	return lookupReplay(id)
}

// mustLookup is Lookup for ids defined in this package.
func mustLookup(id ID) Check {
	c, ok := Lookup(id)
	if !ok {
		panic("check: id not in the catalogue: " + string(id))
	}
	return c
}

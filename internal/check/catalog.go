package check

import (
	"fmt"
	"strings"
)

// Severity ranks a finding. The zero value is Info.
type Severity uint8

// The severities, lowest first.
const (
	// Info is for what needs nobody: what OpenClaw's replay repairs in
	// memory for every provider (an orphan or missing tool result, an
	// oversized image), what providers do not care about (over-long
	// lines), and notes about a file (a write lock, a backup).
	Info Severity = iota
	// Warning is for what only a person can repair and providers still
	// accept (a cut branch, a duplicated entry id).
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
	DuplicateToolCallID    ID = "transcript/duplicate-tool-call-id"
)

// The notes: what a file is, and what lies beside it, rather than what is
// wrong in it ("file/…"). They are info findings printed at every
// threshold and never counted for the exit status ([Check.Note]).
const (
	NotATranscript ID = NotePrefix + "not-a-transcript"
	BackupCopy     ID = NotePrefix + "backup-copy"
	WriteLock      ID = NotePrefix + "write-lock"
	LeftoverBackup ID = NotePrefix + "leftover-backup"
)

// NotePrefix starts the id of every note, and only of notes.
const NotePrefix = "file/"

// IsNote reports whether id is a note's ([Check.Note]): a prefix test, for
// the renderers' per-finding path.
func IsNote(id ID) bool { return strings.HasPrefix(string(id), NotePrefix) }

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
	// ByHand reports that only a person can repair what the check finds:
	// neither fix nor OpenClaw's replay does. With the default threshold,
	// check exits 1 exactly when such a finding, or one a provider rejects,
	// remains (docs/checks.md, "Exit status").
	ByHand bool
	// Note reports a note about the file rather than a fault in it: printed
	// at every threshold, never counted for the exit status.
	Note bool
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
		fixHint, false, false},
	{InvalidMessageRole, Error, true,
		"A message entry whose `message` is missing or not an object, or whose `role` is not a non-blank string; fix drops it.",
		fixHint, false, false},
	{EmptyErrorTurn, Error, true,
		"An assistant turn with empty content and stopReason \"error\" (Bedrock rejects empty content); fix writes OpenClaw's fallback text into it.",
		fixHint, false, false},
	{BlankUserText, Error, true,
		"A user turn whose text is blank (Bedrock and Anthropic reject blank text blocks); fix rewrites it to \"(continue)\" or removes the blank blocks.",
		fixHint, false, false},
	{CorruptedImage, Error, true,
		"An image block whose base64 data is invalid, non-ASCII or not an image; fix replaces it with a text placeholder.",
		fixHint, false, false},
	{MissingCodeModeRes, Error, true,
		"An OpenAI code-mode tool call, or a Responses `message` tool call before a delivery mirror, without a tool result; fix inserts OpenClaw's synthetic \"aborted\" result.",
		fixHint, false, false},
	{InvalidHeader, Error, false,
		"The first entry is not a session header (`{\"type\":\"session\",\"id\":…}`): a head-truncated file, a BOM, another entry first. OpenClaw 2026.7 loads the file as an empty session and fix leaves it alone.",
		"by hand (fix cannot): restore the session header line from a backup, or move it to the first line", true, false},
	{EmptySession, Error, false,
		"No line survives: the file is empty, blank, or every line is dropped. OpenClaw starts a new session in its place.",
		"by hand (fix cannot): restore the file from a backup, or delete it if the session is no longer needed", true, false},
	{Unreadable, Error, false,
		"The file cannot be read (a directory, no permission, an I/O error).",
		"check the path and its permissions", true, false},
	{OrphanToolResult, Info, false,
		"A tool result that does not answer a tool call of the assistant turn right before it (a duplicate, a displaced result, a result whose call is gone); Anthropic, Bedrock and OpenAI Responses reject it, replay drops or moves it.",
		"OpenClaw's replay drops or moves it before sending (see `openclaw-doctor replay`); to clean the file, remove the entry by hand", false, false},
	{MissingToolResult, Info, false,
		"An assistant tool call with no tool result right after it (a killed gateway, an interrupted tool, a user turn in between); Anthropic and Gemini reject it, replay inserts a synthetic error result.",
		"OpenClaw's replay inserts a synthetic error result before sending (see `openclaw-doctor replay`); nothing to do unless the provider still rejects the session", false, false},
	{ToolCallMissingInput, Info, false,
		"A tool call with neither `arguments` nor `input` (Anthropic: `tool_use.input: Field required`); replay drops the block.",
		"OpenClaw's replay drops the call before sending (see `openclaw-doctor replay`)", false, false},
	{DuplicateToolCallID, Error, false,
		"Two tool calls share one id in one assistant turn (a retried stream written twice); OpenAI Responses, Codex and xAI refuse the history (`invalid_replay_transcript`: the second result answers no pending call), and other providers may pair the results with the wrong call.",
		"by hand (fix cannot): give the second call and its tool result a new id, or remove the second call and its result; until then replay for OpenAI Responses, Codex or xAI fails", true, false},
	{UnsignedThinking, Info, false,
		"A thinking block without a signature in an Anthropic or Bedrock turn (`thinking.signature: Field required`); replay removes it from every turn but the latest.",
		"OpenClaw's replay removes unsigned thinking before sending to signed-thinking providers (see `openclaw-doctor replay`)", false, false},
	{DuplicateEntryID, Warning, false,
		"Two entries share an id; OpenClaw's loader keeps the later one, so the branch through the earlier one is lost.",
		"give one of the entries a new id by hand, or leave it: OpenClaw uses the later entry", true, false},
	{MissingParent, Warning, false,
		"An entry whose parentId names no entry: the active branch is cut there and OpenClaw's context starts at that entry.",
		"restore the missing entries from a backup; otherwise the history before the cut stays out of the context", true, false},
	{OversizedImage, Info, false,
		"An image larger than the configured side (default 1200 px) or 5 MiB decoded; replay resizes or omits it on every turn.",
		"OpenClaw's replay resizes it on every turn (see `openclaw-doctor replay`); set imageMaxDimensionPx to change the limit", false, false},
	{ImageOverProviderLimit, Error, false,
		"An image that replay still sends too large for a provider: over Anthropic's 8000 px a side, or over 2000 px when the session holds more than 20 images (the many-image limit). Possible only when imageMaxDimensionPx is set above those sides.",
		"lower imageMaxDimensionPx (default 1200) so that replay shrinks the image, or remove the image block by hand", true, false},
	{LongLine, Info, false,
		"A line longer than 64 KiB (large tool output or image); OpenClaw handles it, but such lines dominate load time and memory.",
		"no action needed", false, false},
	{NotATranscript, Info, false,
		"A file named on the command line that is not a session transcript: OpenClaw's session index (`sessions.json`), a write lock (`*.lock`), a trajectory (`*.trajectory.jsonl`, `*.trajectory-path.json`). It is skipped, never checked as a transcript.",
		"nothing to do: OpenClaw keeps this file beside its transcripts; do not delete it", false, true},
	{BackupCopy, Info, false,
		"A file named on the command line that is a copy OpenClaw or fix keeps beside a transcript (a `.bak-*` backup, a `*.reset.*` or `*.deleted.*` archive): it is checked as a transcript, to judge it before restoring it.",
		"nothing to do unless you restore it: copy it over the session file while OpenClaw is stopped", false, true},
	{WriteLock, Info, false,
		"The session's write lock (`<file>.lock`): live while an OpenClaw process holds it (fix refuses the session), stale when its owner is gone or it is too old (fix takes it over).",
		"a live lock: stop OpenClaw, or wait for it to finish, before running fix; a stale lock: nothing to do (fix and OpenClaw replace it)", false, true},
	{LeftoverBackup, Info, false,
		"A backup (`<file>.bak-<pid>-<ms>`) or temp file an interrupted or kept repair left beside the session.",
		"compare it with the session, then delete it once you no longer need it", false, true},
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

package check

import (
	"fmt"
	"slices"
	"strings"
)

// StoreIDPrefix starts the ids of the checks of OpenClaw's SQLite store
// itself (the rows and index tables of an agent database), as opposed to
// the transcript the store holds, which the transcript checks read from
// the session's export.
const StoreIDPrefix = "store/"

// The store check ids.
const (
	StoreZstdFrame          ID = "store/zstd-undecodable"
	StoreZstdChecksum       ID = "store/zstd-checksum"
	StoreZstdSize           ID = "store/zstd-size"
	StoreInvalidUTF8        ID = "store/invalid-utf8"
	StoreInvalidJSON        ID = "store/invalid-json"
	StoreEmptyRow           ID = "store/empty-row"
	StoreIdentityMismatch   ID = "store/identity-mismatch"
	StoreActiveEventMissing ID = "store/active-event-missing"
	StoreSessionMissing     ID = "store/session-missing"
	StoreSchemaNewer        ID = "store/schema-newer"
	StoreSchemaUnsupported  ID = "store/schema-unsupported"
)

// storeRowHint is the hint of a row OpenClaw cannot read either.
const storeRowHint = "restore the agent database from a backup; reading the session stops at this row in OpenClaw too, and `openclaw-doctor export` writes the lines before it"

// storeIndexHint is the hint of an index table that disagrees with the
// events.
const storeIndexHint = "run `openclaw doctor --fix` (it rebuilds the index tables), or restore the agent database from a backup"

// StoreCatalogue is every store check, in the order reports list them.
// They run only on store sessions (check on a state folder or an agent
// database); docs/checks.md lists them after the transcript checks.
var StoreCatalogue = []Check{
	{ID: StoreZstdFrame, Severity: Error,
		Summary: "An `event_zstd` value that is not a zstd frame that decodes (cut short, bytes changed); the event, and every event after it, cannot be read.",
		Hint:    storeRowHint},
	{ID: StoreZstdChecksum, Severity: Error,
		Summary: "An `event_zstd` frame that decodes but fails its content checksum: the event's bytes changed on disk.",
		Hint:    storeRowHint},
	{ID: StoreZstdSize, Severity: Error,
		Summary: "An `event_zstd` frame whose decoded size is not `event_utf8_bytes` (or that size is out of range).",
		Hint:    storeRowHint},
	{ID: StoreInvalidUTF8, Severity: Error,
		Summary: "An `event_zstd` frame whose decoded text is not strict UTF-8 (a bad byte, a surrogate half); OpenClaw's decoder refuses it.",
		Hint:    storeRowHint},
	{ID: StoreInvalidJSON, Severity: Error,
		Summary: "An event whose text JSON.parse rejects; OpenClaw's export and loader stop there.",
		Hint:    storeRowHint},
	{ID: StoreEmptyRow, Severity: Error,
		Summary: "A `transcript_events` row with neither `event_json` nor `event_zstd`.",
		Hint:    storeRowHint},
	{ID: StoreIdentityMismatch, Severity: Error,
		Summary: "An event whose id or parentId differs from its `transcript_event_identities` row, an event id without such a row, or a row naming a seq that holds no event; OpenClaw finds entries and parents through this table.",
		Hint:    storeIndexHint},
	{ID: StoreActiveEventMissing, Severity: Error,
		Summary: "A `session_transcript_active_events` row (the indexed active branch OpenClaw's runtime loads before a model call) naming a seq that holds no event.",
		Hint:    storeIndexHint},
	{ID: StoreSessionMissing, Severity: Error,
		Summary: "A `session_nodes` row whose current session id has no `session_windows` row: the session key names a session that does not exist.",
		Hint:    "run `openclaw doctor --fix`, or reset the session in OpenClaw (`/new`) so that the key names a new session"},
	{ID: StoreSchemaNewer, Severity: Warning,
		Summary: "An agent database of a newer schema version than openclaw-doctor knows (23, OpenClaw 2026.9.6); what can be read is checked, but tables may have changed meaning.",
		Hint:    "upgrade openclaw-doctor; until then treat its store findings with care"},
	{ID: StoreSchemaUnsupported, Severity: Error,
		Summary: "An agent database without transcript tables (schema version 1, written by OpenClaw 2026.6 and 2026.7, seen in backups) or without `schema_meta`; OpenClaw 2026.9 refuses it too.",
		Hint:    "run `openclaw doctor --fix` to migrate it (on a copy, for a backup)"},
}

// lookupStore returns the store catalogue entry of id.
func lookupStore(id ID) (Check, bool) {
	for _, c := range StoreCatalogue {
		if c.ID == id {
			return c, true
		}
	}
	return Check{}, false
}

// StoreLocation places a finding in a store session: the session and the
// event's seq. The finding's Path is the database and its Line the line of
// the session's export (`openclaw-doctor export`).
type StoreLocation struct {
	SessionKey string
	SessionID  string
	Current    bool  // the key's current session
	Seq        int64 // -1 when the finding names no event
}

// Name is how reports name the session: its key when it is the key's
// current session, else its session id.
func (l *StoreLocation) Name() string {
	if l.Current && l.SessionKey != "" {
		return l.SessionKey
	}
	return l.SessionID
}

// StoreFinding is a finding of store check id, at line (0: none) of path.
// Its severity and hint are the catalogue's.
func StoreFinding(id ID, path string, line int, loc *StoreLocation, msg string) Finding {
	c, ok := lookupStore(id)
	if !ok {
		panic("check: not a store check id: " + string(id))
	}
	return Finding{ID: id, Severity: c.Severity, Path: path, Line: line, Message: msg, Hint: c.Hint, Store: loc}
}

// StoreEnabled reports whether store check id runs with these options.
func (o *Options) StoreEnabled(id ID) bool { return selected(o.Only, o.Skip, id) }

// StoreCounts returns how many store checks run and how many are skipped.
func (o *Options) StoreCounts() (run, skipped int) {
	return countSelected(StoreCatalogue, o.StoreEnabled)
}

// selected is --only and --skip's verdict on id.
func selected(only, skip []ID, id ID) bool {
	return !slices.Contains(skip, id) && (len(only) == 0 || slices.Contains(only, id))
}

// countSelected counts the checks of a catalogue that run and that do not.
func countSelected(catalogue []Check, on func(ID) bool) (run, skipped int) {
	for _, c := range catalogue {
		if on(c.ID) {
			run++
		} else {
			skipped++
		}
	}
	return run, skipped
}

// StoreReplayHint is the hint of a replay finding of a store session: the
// replay command it names replays the session (--session, the view flags
// the check replayed it with, the database), and a session OpenClaw's
// runtime refuses gets what an operator does for a store session, where a
// file's hint says to repair the file. Other findings keep their hint.
func StoreReplayHint(f *Finding, db string, viewFlags ...string) string {
	if f.Store == nil || !strings.HasPrefix(string(f.ID), ReplayIDPrefix) {
		return f.Hint
	}
	name := shellWord(f.Store.Name())
	replayed := name // the session, and the view flags replay takes
	for _, w := range viewFlags {
		replayed += " " + shellWord(w)
	}
	if f.ID == LoaderError {
		return fmt.Sprintf("OpenClaw's runtime cannot load this store session at all (see `openclaw-doctor replay --session %s %s`): run `openclaw doctor --fix` to migrate it, or export it (`openclaw-doctor export --session %s -o FILE %s`) and repair the file", replayed, shellWord(db), name, shellWord(db))
	}
	const cmd = "openclaw-doctor replay "
	start := strings.Index(f.Hint, cmd)
	if start < 0 {
		return f.Hint
	}
	end := strings.IndexByte(f.Hint[start:], '`')
	if end < 0 {
		end = len(f.Hint) - start
	}
	end += start
	return f.Hint[:start] + cmd + "--session " + replayed + " " + f.Hint[start+len(cmd):end] + " " + shellWord(db) + f.Hint[end:]
}

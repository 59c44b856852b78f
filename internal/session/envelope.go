package session

import (
	"unicode/utf8"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// EntryType is the "type" of a transcript line.
type EntryType uint8

// Entry types. The canonical ones (OpenClaw's session entry types) are
// [TypeMessage] … [TypeSessionInfo]; [TypeSession] is the header, [TypeLeaf]
// a leaf control row, [TypeOther] any other string, [TypeNone] a line whose
// type is missing or not a string (or that is not an object at all).
const (
	TypeNone EntryType = iota
	TypeOther
	TypeSession
	TypeLeaf
	TypeMessage
	TypeThinkingLevelChange
	TypeModelChange
	TypeCompaction
	TypeReset
	TypeBranchSummary
	TypeCustom
	TypeCustomMessage
	TypeLabel
	TypeSessionInfo
)

var entryTypeNames = [...]string{
	TypeNone: "", TypeOther: "", TypeSession: "session", TypeLeaf: "leaf",
	TypeMessage: "message", TypeThinkingLevelChange: "thinking_level_change",
	TypeModelChange: "model_change", TypeCompaction: "compaction", TypeReset: "reset",
	TypeBranchSummary: "branch_summary", TypeCustom: "custom",
	TypeCustomMessage: "custom_message", TypeLabel: "label", TypeSessionInfo: "session_info",
}

// String returns the type's wire name ("" for TypeNone and TypeOther).
func (t EntryType) String() string { return entryTypeNames[t] }

// Canonical reports OpenClaw's canonical entry types (the ten of
// isCanonicalSessionEntryType, reset included).
func (t EntryType) Canonical() bool { return t >= TypeMessage }

// ParseEntryType maps a wire name to its EntryType (TypeOther when unknown).
func ParseEntryType(name string) EntryType {
	for t := TypeSession; int(t) < len(entryTypeNames); t++ {
		if entryTypeNames[t] == name {
			return t
		}
	}
	return TypeOther
}

// entryTypeOf maps a scanned type string without allocating.
func entryTypeOf(t jsonl.Field) EntryType {
	if t.Escaped() {
		s, _ := t.Str()
		return ParseEntryType(s)
	}
	raw := t.Raw()
	switch string(raw) {
	case "message":
		return TypeMessage
	case "session":
		return TypeSession
	case "custom":
		return TypeCustom
	case "leaf":
		return TypeLeaf
	}
	if !utf8.Valid(raw) {
		return TypeOther
	}
	return ParseEntryType(string(raw))
}

// Shape is the JSON kind of a whole line.
type Shape uint8

// Line shapes.
const (
	ShapeObject    Shape = iota
	ShapeArray           // an array: a JavaScript object without own "type"/"id"
	ShapeNull            // null: reading a property of it throws in JavaScript
	ShapePrimitive       // number, string or boolean
)

// RefState says what a reference member (parentId, targetId, …) holds.
type RefState uint8

// Reference states.
const (
	RefAbsent RefState = iota // member missing (JavaScript undefined)
	RefNull                   // null
	RefString                 // a string (possibly empty), in Ref.ID
	RefOther                  // any other JSON value
)

// Ref is a member that names another entry.
type Ref struct {
	ID    string
	State RefState
}

// Str returns a string reference.
func Str(id string) Ref { return Ref{ID: id, State: RefString} }

// Null is the null reference.
var Null = Ref{State: RefNull}

// IsID reports a non-empty string (zod's string().min(1)).
func (r Ref) IsID() bool { return r.State == RefString && r.ID != "" }

// StrOrNull reports a string or null (zod's union([string(), null()])).
func (r Ref) StrOrNull() bool { return r.State == RefString || r.State == RefNull }

// Envelope is what the loader needs of one parsed line, read without
// building the line's values: the envelope members, the members the entry
// codec's schemas check, and per-message validity verdicts.
type Envelope struct {
	Shape     Shape
	Type      EntryType
	ID        Ref
	ParentID  Ref
	Timestamp RefState // timestamp kind: absent, string, or other
	// Side reports appendMode === "side"; AppendModeSet any appendMode.
	Side, AppendModeSet bool

	// TargetID: label and leaf rows. AppendParentID: leaf rows.
	TargetID, AppendParentID Ref
	// FirstKeptID: compaction and reset. FirstKeptIndex: v1 compaction's
	// firstKeptEntryIndex when it is a number (NaN-free JSON number text).
	FirstKeptID       Ref
	FirstKeptIndex    string
	HasFirstKeptIndex bool
	// Version of a session header: raw JSON text of "version" ("" = absent).
	Version []byte

	// FieldsOK: the type-specific members satisfy the entry codec's schema
	// (for messages: the message as loaded, before any v1/v2 migration).
	FieldsOK bool
	// MessageOKAfterHookMigration: the message would satisfy the schema once
	// the v2→v3 migration renamed role "hookMessage" to "custom".
	MessageOKAfterHookMigration bool
	// LegacyReadable: the v<3 reader (isReadableLegacySessionEntry) accepts
	// the line, before and after the hookMessage rename.
	LegacyReadable, LegacyReadableAfterHookMigration bool
	// ModelSnapshot: a custom entry with customType "model-snapshot".
	ModelSnapshot bool

	role       roleKind // message role as stored
	boundaryOK bool     // compaction/reset members other than firstKeptEntryId are valid
	// msgStart and msgEnd bound the text of the message member's value
	// in the line (the last one's, as JSON.parse keeps the last); msgEnd
	// is 0 without one.
	msgStart, msgEnd int
}

// message roles as scanned.
type roleKind uint8

const (
	roleNone roleKind = iota // missing or not a string
	roleOther
	roleUser
	roleAssistant
	roleToolResult
	roleCustom
	roleBash
	roleHook
)

// msgScan is what the schemas check in entry.message.
type msgScan struct {
	record     bool
	role       roleKind
	content    jsonl.Field
	readable   bool // content is a string or an array of objects with a string type
	customType jsonl.Field
	toolCallID jsonl.Field
	toolName   jsonl.Field
	isError    jsonl.Field
	command    jsonl.Field
	output     jsonl.Field
}

// scanEnvelope reads the envelope of one line with s, its ids carved from
// a (nil: plain strings). It returns jsonl.ErrScan when JSON.parse rejects
// the line.
func scanEnvelope(s *jsonl.Scanner, line []byte, a *arena) (Envelope, error) {
	s.Reset(line)
	var e Envelope
	switch s.Peek() {
	case '{':
	case '[':
		e.Shape = ShapeArray
	case 'n':
		e.Shape = ShapeNull
	default:
		e.Shape = ShapePrimitive
	}
	if e.Shape != ShapeObject {
		if _, err := s.Skip(); err != nil {
			return e, err
		}
		return e, s.End()
	}
	f := entryFields{line: line}
	if _, err := s.Object(func(key string) error { return f.member(s, key) }); err != nil {
		return e, err
	}
	if err := s.End(); err != nil {
		return e, err
	}
	f.fill(&e, a)
	return e, nil
}

// entryFields collects the top-level members; the last duplicate wins, as
// in JSON.parse.
type entryFields struct {
	line                                             []byte
	typ, id, parentID, timestamp, appendMode         jsonl.Field
	targetID, appendParentID, firstKeptID, firstKept jsonl.Field
	thinkingLevel, provider, modelID, summary        jsonl.Field
	tokensBefore, reason, fromID, customType         jsonl.Field
	display, label, name, version                    jsonl.Field
	contentReadable                                  bool
	versionRaw                                       []byte
	message                                          msgScan
	hasMessage                                       bool
	msgStart, msgEnd                                 int
}

// member scans the value of the top-level member key.
func (f *entryFields) member(s *jsonl.Scanner, key string) (err error) {
	switch key {
	case "type":
		f.typ, err = s.Value()
	case "id":
		f.id, err = s.Value()
	case "parentId":
		f.parentID, err = s.Value()
	case "timestamp":
		f.timestamp, err = s.Value()
	case "appendMode":
		f.appendMode, err = s.Value()
	case "targetId":
		f.targetID, err = s.Value()
	case "appendParentId":
		f.appendParentID, err = s.Value()
	case "firstKeptEntryId":
		f.firstKeptID, err = s.Value()
	case "firstKeptEntryIndex":
		f.firstKept, err = s.Value()
	case "thinkingLevel":
		f.thinkingLevel, err = s.Value()
	case "provider":
		f.provider, err = s.Value()
	case "modelId":
		f.modelID, err = s.Value()
	case "summary":
		f.summary, err = s.Value()
	case "tokensBefore":
		f.tokensBefore, err = s.Value()
	case "reason":
		f.reason, err = reasonField(s)
	case "fromId":
		f.fromID, err = s.Value()
	case "customType":
		f.customType, err = s.Value()
	case "content":
		_, f.contentReadable, err = contentField(s)
	case "display":
		f.display, err = s.Value()
	case "label":
		f.label, err = s.Value()
	case "name":
		f.name, err = s.Value()
	case "version":
		start := s.Pos()
		f.version, err = s.Value()
		f.versionRaw = f.line[start:s.Pos()]
	case "message":
		f.hasMessage = true
		f.msgStart = s.Pos()
		f.message, err = scanMessage(s)
		f.msgEnd = s.Pos()
	default:
		_, err = s.Skip()
	}
	return err
}

// reasonField scans reset.reason, which OpenClaw coerces with String(): a
// one-element array (nested) stringifies to its element. The result is the
// string when String(value) is a plain string, else the value.
func reasonField(s *jsonl.Scanner) (jsonl.Field, error) {
	if s.Peek() != '[' {
		return s.Value()
	}
	n, only := 0, jsonl.Field{}
	arr, err := s.Array(func() (err error) {
		if s.Peek() == '[' {
			only, err = reasonField(s)
		} else {
			only, err = s.Value()
		}
		n++
		return err
	})
	if n == 1 && only.IsString() {
		return only, err
	}
	return arr, err
}

// contentField scans a content member and reports whether it is readable
// (a string, or an array whose elements are all objects with a string type).
func contentField(s *jsonl.Scanner) (f jsonl.Field, readable bool, err error) {
	switch s.Peek() {
	case '"':
		f, err = s.Value()
		return f, true, err
	case '[':
		readable = true
		f, err = s.Array(func() error {
			typed, err := blockHasStringType(s)
			readable = readable && typed
			return err
		})
		return f, readable, err
	}
	f, err = s.Value()
	return f, false, err
}

// blockHasStringType scans one array element: an object whose last "type"
// member is a string.
func blockHasStringType(s *jsonl.Scanner) (bool, error) {
	if s.Peek() != '{' {
		_, err := s.Skip()
		return false, err
	}
	var typ jsonl.Field
	_, err := s.Object(func(key string) (err error) {
		if key == "type" {
			typ, err = s.Value()
		} else {
			_, err = s.Skip()
		}
		return err
	})
	return typ.IsString(), err
}

// scanMessage scans entry.message.
func scanMessage(s *jsonl.Scanner) (msgScan, error) {
	var m msgScan
	if s.Peek() != '{' {
		_, err := s.Skip()
		return m, err
	}
	m.record = true
	var role jsonl.Field
	_, err := s.Object(func(key string) (err error) {
		switch key {
		case "role":
			role, err = s.Value()
		case "content":
			m.content, m.readable, err = contentField(s)
		case "customType":
			m.customType, err = s.Value()
		case "toolCallId":
			m.toolCallID, err = s.Value()
		case "toolName":
			m.toolName, err = s.Value()
		case "isError":
			m.isError, err = s.Value()
		case "command":
			m.command, err = s.Value()
		case "output":
			m.output, err = s.Value()
		default:
			_, err = s.Skip()
		}
		return err
	})
	m.role = roleOf(role)
	return m, err
}

func roleOf(f jsonl.Field) roleKind {
	if !f.IsString() {
		return roleNone
	}
	switch {
	case f.StrEquals(RoleUser):
		return roleUser
	case f.StrEquals(RoleAssistant):
		return roleAssistant
	case f.StrEquals(RoleToolResult):
		return roleToolResult
	case f.StrEquals(RoleCustom):
		return roleCustom
	case f.StrEquals(RoleBashExecution):
		return roleBash
	case f.StrEquals("hookMessage"):
		return roleHook
	}
	return roleOther
}

// refIn converts a scanned member to a Ref, its string carved from a (it
// never aliases the line).
func refIn(f jsonl.Field, a *arena) Ref {
	switch {
	case !f.Exists():
		return Ref{}
	case f.IsNull():
		return Null
	case f.IsString():
		if !f.Escaped() && utf8.Valid(f.Raw()) {
			return Str(a.str(f.Raw()))
		}
		s, _ := f.Str() // decoded into a new string
		return Str(s)
	}
	return Ref{State: RefOther}
}

// refState is the state of a reference member.
func refState(f jsonl.Field) RefState {
	switch {
	case !f.Exists():
		return RefAbsent
	case f.IsNull():
		return RefNull
	case f.IsString():
		return RefString
	}
	return RefOther
}

// fill derives the envelope from the collected members.
func (f *entryFields) fill(e *Envelope, a *arena) {
	ref := func(f jsonl.Field) Ref { return refIn(f, a) }
	if f.typ.IsString() {
		e.Type = entryTypeOf(f.typ)
	}
	e.ID, e.ParentID = ref(f.id), ref(f.parentID)
	e.Timestamp = refState(f.timestamp)
	e.AppendModeSet = f.appendMode.Exists()
	e.Side = f.appendMode.StrEquals("side")
	switch e.Type {
	case TypeLabel:
		e.TargetID = ref(f.targetID)
	case TypeLeaf:
		e.TargetID, e.AppendParentID = ref(f.targetID), ref(f.appendParentID)
	case TypeCompaction, TypeReset:
		e.FirstKeptID = ref(f.firstKeptID)
		if f.firstKept.IsNumber() {
			e.FirstKeptIndex, e.HasFirstKeptIndex = string(f.firstKept.Raw()), true
		}
	case TypeSession:
		if f.version.Exists() {
			e.Version = append([]byte(nil), f.versionRaw...)
		}
	case TypeCustom:
		e.ModelSnapshot = f.customType.StrEquals("model-snapshot")
	}
	e.FieldsOK = f.fieldsOK(e.Type, false)
	e.role = f.message.role
	e.msgStart, e.msgEnd = f.msgStart, f.msgEnd
	switch e.Type {
	case TypeCompaction:
		e.boundaryOK = f.summary.IsString() && f.tokensBefore.IsNumber()
	case TypeReset:
		e.boundaryOK = validResetReason(f.reason.StrOr(""))
	}
	e.LegacyReadable = e.Type.Canonical() && (e.Type != TypeMessage || f.message.legacyReadable(false))
	if e.Type == TypeMessage {
		e.MessageOKAfterHookMigration = f.hasMessage && f.message.readableMessage(true)
		e.LegacyReadableAfterHookMigration = f.hasMessage && f.message.legacyReadable(true)
	} else {
		e.MessageOKAfterHookMigration = e.FieldsOK
		e.LegacyReadableAfterHookMigration = e.LegacyReadable
	}
}

// fieldsOK checks the type-specific members of the 2026.9.x entry codec
// (indexedSessionEntrySchema), not the envelope members.
func (f *entryFields) fieldsOK(t EntryType, hookMigrated bool) bool {
	switch t {
	case TypeMessage:
		return f.hasMessage && f.message.readableMessage(hookMigrated)
	case TypeThinkingLevelChange:
		return f.thinkingLevel.NonEmptyString()
	case TypeModelChange:
		return f.provider.NonEmptyString() && f.modelID.NonEmptyString()
	case TypeCompaction:
		return f.summary.IsString() && f.firstKeptID.NonEmptyString() && f.tokensBefore.IsNumber()
	case TypeReset:
		return validResetReason(f.reason.StrOr("")) && (!f.firstKeptID.Exists() || f.firstKeptID.IsString())
	case TypeBranchSummary:
		return f.fromID.IsString() && f.summary.IsString()
	case TypeCustom:
		return f.customType.NonEmptyString()
	case TypeCustomMessage:
		return f.customType.NonEmptyString() && f.contentReadable && f.display.IsBool()
	case TypeLabel:
		return f.targetID.NonEmptyString() && (!f.label.Exists() || f.label.IsString())
	case TypeSessionInfo:
		return !f.name.Exists() || f.name.IsString()
	}
	return false
}

// validResetReason reports a reset reason OpenClaw's schema accepts.
func validResetReason(r string) bool {
	switch r {
	case "new", "reset", "idle", "daily", "cron-stale":
		return true
	}
	return false
}

// readableMessage is the 2026.9.x readableMessageSchema, applied to the
// message as the loader holds it: string content of assistant and
// toolResult messages became a text block, an object toolResult content an
// array, and a custom message without customType got "hook"
// (normalizePersistedLegacyHookMessage). hookMigrated applies the v2→v3
// rename of role "hookMessage" to "custom" (customType ||= "hook").
func (m *msgScan) readableMessage(hookMigrated bool) bool {
	if !m.record {
		return false
	}
	role := m.role
	customTypeAbsent, customTypeStr := !m.customType.Exists(), m.customType.IsString()
	if hookMigrated && role == roleHook {
		role = roleCustom
		if m.customType.Falsy() {
			customTypeAbsent, customTypeStr = false, true // customType "hook"
		}
	}
	switch role {
	case roleUser:
		return m.readable
	case roleAssistant:
		return m.readable
	case roleToolResult:
		k := m.content.Kind()
		isArray := m.content.Exists() && (k == jsonl.Array || k == jsonl.String || k == jsonl.Object)
		return m.toolCallID.IsString() && m.toolName.IsString() && m.isError.IsBool() && isArray
	case roleCustom:
		if customTypeAbsent && m.readable {
			return true // normalizePersistedLegacyHookMessage adds customType "hook"
		}
		return customTypeStr && m.readable
	case roleBash:
		return m.command.IsString() && m.output.IsString()
	}
	return false
}

// legacyReadable is isReadableLegacySessionEntry's message test.
func (m *msgScan) legacyReadable(hookMigrated bool) bool {
	if !m.record {
		return false
	}
	if m.role == roleHook && !hookMigrated {
		return m.readable
	}
	return m.readableMessage(hookMigrated)
}

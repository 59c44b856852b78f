package session

import "unicode/utf8"

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
func entryTypeOf(t token) EntryType {
	if t.escaped {
		return ParseEntryType(t.slowText())
	}
	switch string(t.raw) {
	case "message":
		return TypeMessage
	case "session":
		return TypeSession
	case "custom":
		return TypeCustom
	case "leaf":
		return TypeLeaf
	}
	if !utf8.Valid(t.raw) {
		return TypeOther
	}
	return ParseEntryType(string(t.raw))
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
	content    field
	readable   bool // content is a string or an array of objects with a string type
	customType field
	toolCallID field
	toolName   field
	isError    field
	command    field
	output     field
}

// ScanEnvelope reads the envelope of one line that JSON.parse accepts. Its
// result is unspecified (but it does not panic) for invalid JSON.
func ScanEnvelope(line []byte) Envelope { return scanEnvelope(line, nil) }

// scanEnvelope is ScanEnvelope with ids carved from a (nil: plain strings).
func scanEnvelope(line []byte, a *arena) Envelope {
	s := scanner{b: line}
	var e Envelope
	switch s.peek() {
	case '{':
	case '[':
		e.Shape = ShapeArray
		return e
	case 'n':
		e.Shape = ShapeNull
		return e
	default:
		e.Shape = ShapePrimitive
		return e
	}
	var f entryFields
	s.members(func(key token) { f.member(&s, key) })
	f.fill(&e, a)
	return e
}

// entryFields collects the top-level members; the last duplicate wins, as
// in JSON.parse.
type entryFields struct {
	typ, id, parentID, timestamp, appendMode         field
	targetID, appendParentID, firstKeptID, firstKept field
	thinkingLevel, provider, modelID, summary        field
	tokensBefore, reason, fromID, customType         field
	content, display, label, name, version           field
	contentReadable                                  bool
	versionRaw                                       []byte
	message                                          msgScan
	hasMessage                                       bool
}

func (f *entryFields) member(s *scanner, key token) {
	if key.escaped {
		key = token{raw: []byte(key.slowText())}
	}
	switch string(key.raw) {
	case "type":
		f.typ = s.scanField()
	case "id":
		f.id = s.scanField()
	case "parentId":
		f.parentID = s.scanField()
	case "timestamp":
		f.timestamp = s.scanField()
	case "appendMode":
		f.appendMode = s.scanField()
	case "targetId":
		f.targetID = s.scanField()
	case "appendParentId":
		f.appendParentID = s.scanField()
	case "firstKeptEntryId":
		f.firstKeptID = s.scanField()
	case "firstKeptEntryIndex":
		f.firstKept = s.scanField()
	case "thinkingLevel":
		f.thinkingLevel = s.scanField()
	case "provider":
		f.provider = s.scanField()
	case "modelId":
		f.modelID = s.scanField()
	case "summary":
		f.summary = s.scanField()
	case "tokensBefore":
		f.tokensBefore = s.scanField()
	case "reason":
		f.reason = s.reasonField()
	case "fromId":
		f.fromID = s.scanField()
	case "customType":
		f.customType = s.scanField()
	case "content":
		f.content, f.contentReadable = s.contentField()
	case "display":
		f.display = s.scanField()
	case "label":
		f.label = s.scanField()
	case "name":
		f.name = s.scanField()
	case "version":
		start := s.i
		f.version = s.scanField()
		f.versionRaw = s.b[start:s.i]
	case "message":
		f.hasMessage = true
		f.message = s.message()
	}
}

// reasonField scans reset.reason, which OpenClaw coerces with String(): a
// one-element array (nested) stringifies to its element. The result is a
// string field holding String(value) when that is a plain string, else the
// value's kind.
func (s *scanner) reasonField() field {
	if s.peek() != '[' {
		return s.scanField()
	}
	var elems []field
	s.elements(func() {
		if s.peek() == '[' {
			elems = append(elems, s.reasonField())
			return
		}
		elems = append(elems, s.scanField())
	})
	if len(elems) == 1 && elems[0].kind == kString {
		return elems[0]
	}
	return field{kind: kArray}
}

// contentField scans a content member and reports whether it is readable
// (a string, or an array whose elements are all objects with a string type).
func (s *scanner) contentField() (field, bool) {
	switch s.peek() {
	case '"':
		return field{kind: kString, tok: s.str()}, true
	case '[':
		ok := true
		s.elements(func() {
			if !s.blockHasStringType() {
				ok = false
			}
		})
		return field{kind: kArray}, ok
	}
	return s.scanField(), false
}

// blockHasStringType scans one array element: an object whose last "type"
// member is a string.
func (s *scanner) blockHasStringType() bool {
	if s.peek() != '{' {
		s.skip()
		return false
	}
	var typ field
	s.members(func(key token) {
		if key.is("type") {
			typ = s.scanField()
		}
	})
	return typ.kind == kString
}

// message scans entry.message.
func (s *scanner) message() msgScan {
	var m msgScan
	if s.peek() != '{' {
		s.skip()
		return m
	}
	m.record = true
	var role field
	s.members(func(key token) {
		if key.escaped {
			key = token{raw: []byte(key.slowText())}
		}
		switch string(key.raw) {
		case "role":
			role = s.scanField()
		case "content":
			m.content, m.readable = s.contentField()
		case "customType":
			m.customType = s.scanField()
		case "toolCallId":
			m.toolCallID = s.scanField()
		case "toolName":
			m.toolName = s.scanField()
		case "isError":
			m.isError = s.scanField()
		case "command":
			m.command = s.scanField()
		case "output":
			m.output = s.scanField()
		}
	})
	m.role = roleOf(role)
	return m
}

func roleOf(f field) roleKind {
	if f.kind != kString {
		return roleNone
	}
	switch {
	case f.tok.is(RoleUser):
		return roleUser
	case f.tok.is(RoleAssistant):
		return roleAssistant
	case f.tok.is(RoleToolResult):
		return roleToolResult
	case f.tok.is(RoleCustom):
		return roleCustom
	case f.tok.is(RoleBashExecution):
		return roleBash
	case f.tok.is("hookMessage"):
		return roleHook
	}
	return roleOther
}

// refIn converts a scanned member to a Ref, its string carved from a.
func refIn(f field, a *arena) Ref {
	switch f.kind {
	case kAbsent:
		return Ref{}
	case kNull:
		return Null
	case kString:
		if !f.tok.escaped && utf8.Valid(f.tok.raw) {
			return Str(a.str(f.tok.raw))
		}
		return Str(f.tok.slowText())
	}
	return Ref{State: RefOther}
}

func refState(f field) RefState { return refIn(field{kind: f.kind}, nil).State }

// fill derives the envelope from the collected members.
func (f *entryFields) fill(e *Envelope, a *arena) {
	ref := func(f field) Ref { return refIn(f, a) }
	if f.typ.kind == kString {
		e.Type = entryTypeOf(f.typ.tok)
	}
	e.ID, e.ParentID = ref(f.id), ref(f.parentID)
	e.Timestamp = refState(f.timestamp)
	e.AppendModeSet = f.appendMode.kind != kAbsent
	e.Side = f.appendMode.kind == kString && f.appendMode.tok.is("side")
	switch e.Type {
	case TypeLabel:
		e.TargetID = ref(f.targetID)
	case TypeLeaf:
		e.TargetID, e.AppendParentID = ref(f.targetID), ref(f.appendParentID)
	case TypeCompaction, TypeReset:
		e.FirstKeptID = ref(f.firstKeptID)
		if f.firstKept.kind == kNumber {
			e.FirstKeptIndex, e.HasFirstKeptIndex = string(f.firstKept.num), true
		}
	case TypeSession:
		if f.version.kind != kAbsent {
			e.Version = append([]byte(nil), f.versionRaw...)
		}
	case TypeCustom:
		e.ModelSnapshot = f.customType.kind == kString && f.customType.tok.is("model-snapshot")
	}
	e.FieldsOK = f.fieldsOK(e.Type, false)
	e.role = f.message.role
	switch e.Type {
	case TypeCompaction:
		e.boundaryOK = f.summary.isStr() && f.tokensBefore.kind == kNumber
	case TypeReset:
		e.boundaryOK = f.reason.kind == kString && validResetReason(f.reason.tok.text())
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
		return f.thinkingLevel.nonEmptyStr()
	case TypeModelChange:
		return f.provider.nonEmptyStr() && f.modelID.nonEmptyStr()
	case TypeCompaction:
		return f.summary.isStr() && f.firstKeptID.nonEmptyStr() && f.tokensBefore.kind == kNumber
	case TypeReset:
		return f.reason.kind == kString && validResetReason(f.reason.tok.text()) &&
			(f.firstKeptID.kind == kAbsent || f.firstKeptID.isStr())
	case TypeBranchSummary:
		return f.fromID.isStr() && f.summary.isStr()
	case TypeCustom:
		return f.customType.nonEmptyStr()
	case TypeCustomMessage:
		return f.customType.nonEmptyStr() && f.contentReadable && (f.display.kind == kTrue || f.display.kind == kFalse)
	case TypeLabel:
		return f.targetID.nonEmptyStr() && (f.label.kind == kAbsent || f.label.isStr())
	case TypeSessionInfo:
		return f.name.kind == kAbsent || f.name.isStr()
	}
	return false
}

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
	role, customType := m.role, m.customType
	if hookMigrated && role == roleHook {
		role = roleCustom
		if customType.falsy() {
			customType = field{kind: kString, tok: token{raw: []byte("hook")}}
		}
	}
	switch role {
	case roleUser:
		return m.readable
	case roleAssistant:
		return m.readable
	case roleToolResult:
		isArray := m.content.kind == kArray || m.content.kind == kString || m.content.kind == kObject
		return m.toolCallID.isStr() && m.toolName.isStr() &&
			(m.isError.kind == kTrue || m.isError.kind == kFalse) && isArray
	case roleCustom:
		if customType.kind == kAbsent && m.readable {
			return true // normalizePersistedLegacyHookMessage adds customType "hook"
		}
		return customType.isStr() && m.readable
	case roleBash:
		return m.command.isStr() && m.output.isStr()
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

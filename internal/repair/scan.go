package repair

import (
	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// The fast path of the classifier. Most lines of a transcript are entries
// no rule touches, so each line is scanned once by jsonl's validating
// [jsonl.Scanner], which accepts exactly what JSON.parse accepts; on the
// way, an envelopeReader notes the few fields the rules and the checks
// look at ([Envelope]: type, id, parentId and the other navigation fields,
// message.role, message.content and its blocks, the tool-result ids,
// api/provider/model). Lines the scan cannot prove "kept" take the exact
// path: a full parse and the rules of rules.go, which are the reference
// (the fuzz test checks that the fast path never keeps a line the exact
// path would change).

// envelopeReader scans one line and notes its [Envelope]. It is reused
// from line to line (the scanner's stack and the block list keep their
// capacity).
type envelopeReader struct {
	s   jsonl.Scanner
	env Envelope
	blk Block // the content block being scanned

	// What the verdicts below ask of most lines, decided once per line
	// after the scan.
	msgTyped bool   // an object entry with type "message"
	role     string // message.role when a string, else ""
}

// Levels of the noted structure.
const (
	levelTop = iota
	levelMessage
	levelBlock
)

// scan validates d and notes its fields; it returns jsonl.ErrScan when
// JSON.parse would reject d.
func (r *envelopeReader) scan(d []byte) error {
	blocks := r.env.Message.Blocks[:0]
	r.env = Envelope{Message: Message{Blocks: blocks}}
	r.msgTyped, r.role = false, ""
	r.s.Reset(d)
	if r.s.Peek() == '{' {
		r.env.Object = true
		if _, err := r.object(levelTop); err != nil {
			return err
		}
	} else if _, err := r.s.Skip(); err != nil {
		return err
	}
	if err := r.s.End(); err != nil {
		return err
	}
	r.msgTyped = r.env.Object && r.env.Type.StrEquals("message")
	if r.msgTyped {
		r.role = r.env.Message.Role.StrOr("")
	}
	return nil
}

// object scans an object at the cursor whose members are noted at level,
// and returns it as a Field. It walks the members in its own loop (no
// callback per member: most lines are a few dozen short members).
func (r *envelopeReader) object(level int) (jsonl.Field, error) {
	obj, empty := r.s.Enter()
	if empty {
		return obj, nil
	}
	for {
		key, err := r.s.Key()
		if err != nil {
			return obj, err
		}
		if err := r.member(level, key); err != nil {
			return obj, err
		}
		if more, err := r.s.More('}'); !more || err != nil {
			return obj, err
		}
	}
}

// member scans the value of member k of an object at level, noting it when
// the level notes k.
func (r *envelopeReader) member(level int, k string) error {
	var f *jsonl.Field
	switch level {
	case levelTop:
		if k == "message" {
			return r.message()
		}
		f = r.topField(k)
	case levelMessage:
		if k == "content" {
			return r.content()
		}
		f = r.messageField(k)
	case levelBlock:
		f = r.blockField(k)
	}
	if f == nil {
		_, err := r.s.Skip()
		return err
	}
	v, err := r.s.Value()
	*f = v // a later duplicate key overwrites: JSON.parse keeps the last value
	return err
}

// topField is where a top-level member is noted, or nil. The switches on
// the length keep the common miss to one or two comparisons.
func (r *envelopeReader) topField(k string) *jsonl.Field {
	e := &r.env
	switch len(k) {
	case 2:
		if k == "id" {
			return &e.ID
		}
	case 4:
		if k == "type" {
			return &e.Type
		}
	case 8:
		switch k {
		case "parentId":
			return &e.ParentID
		case "targetId":
			return &e.TargetID
		}
	case 9:
		if k == "timestamp" {
			return &e.Timestamp
		}
	case 10:
		if k == "appendMode" {
			return &e.AppendMode
		}
	case 14:
		if k == "appendParentId" {
			return &e.AppendParentID
		}
	case 16:
		if k == "firstKeptEntryId" {
			return &e.FirstKeptEntryID
		}
	}
	return nil
}

// messageField is where a member of the message is noted, or nil.
func (r *envelopeReader) messageField(k string) *jsonl.Field {
	m := &r.env.Message
	switch len(k) {
	case 3:
		if k == "api" {
			return &m.API
		}
	case 4:
		if k == "role" {
			return &m.Role
		}
	case 5:
		if k == "model" {
			return &m.Model
		}
	case 6:
		if k == "callId" {
			return &m.ResultIDs[4]
		}
	case 7:
		if k == "call_id" {
			return &m.ResultIDs[5]
		}
	case 8:
		if k == "provider" {
			return &m.Provider
		}
	case 9:
		if k == "toolUseId" {
			return &m.ResultIDs[1]
		}
	case 10:
		switch k {
		case "stopReason":
			return &m.StopReason
		case "toolCallId":
			return &m.ResultIDs[0]
		}
	case 11:
		if k == "tool_use_id" {
			return &m.ResultIDs[3]
		}
	case 12:
		if k == "tool_call_id" {
			return &m.ResultIDs[2]
		}
	}
	return nil
}

// blockField is where a member of a content block is noted, or nil.
func (r *envelopeReader) blockField(k string) *jsonl.Field {
	b := &r.blk
	switch len(k) {
	case 2:
		if k == "id" {
			return &b.ID
		}
	case 4:
		switch k {
		case "type":
			return &b.Type
		case "text":
			return &b.Text
		case "data":
			return &b.Data
		case "name":
			return &b.Name
		}
	case 5:
		if k == "input" {
			return &b.Input
		}
	case 8:
		if k == "mimeType" {
			return &b.mime[0]
		}
	case 9:
		switch k {
		case "mediaType":
			return &b.mime[1]
		case "arguments":
			return &b.Arguments
		case "signature":
			return &b.Signatures[0]
		}
	case 10:
		if k == "media_type" {
			return &b.mime[2]
		}
	case 17:
		switch k {
		case "thinkingSignature":
			return &b.Signatures[1]
		case "thought_signature":
			return &b.Signatures[2]
		}
	}
	return nil
}

// message scans the entry's message; a duplicate "message" key replaces
// everything noted for the earlier one.
func (r *envelopeReader) message() error {
	m := &r.env.Message
	*m = Message{Blocks: m.Blocks[:0]}
	var err error
	if r.s.Peek() == '{' {
		m.Field, err = r.object(levelMessage)
	} else {
		m.Field, err = r.s.Value()
	}
	return err
}

// content scans message.content, evaluating each block of an array; a
// duplicate "content" key replaces what the earlier one noted.
func (r *envelopeReader) content() error {
	m := &r.env.Message
	m.contentLen, m.blankText, m.corruptImages, m.Blocks = 0, false, 0, m.Blocks[:0]
	if r.s.Peek() != '[' {
		var err error
		m.Content, err = r.s.Value()
		return err
	}
	var empty bool
	if m.Content, empty = r.s.Enter(); empty {
		return nil
	}
	for {
		if err := r.block(); err != nil {
			return err
		}
		if more, err := r.s.More(']'); !more || err != nil {
			return err
		}
	}
}

// block scans one element of an array content, noting it when it is an
// object.
func (r *envelopeReader) block() error {
	m := &r.env.Message
	m.contentLen++
	if r.s.Peek() != '{' {
		_, err := r.s.Skip()
		return err
	}
	r.blk = Block{Index: m.contentLen - 1}
	if _, err := r.object(levelBlock); err != nil {
		return err
	}
	r.endBlock()
	return nil
}

// endBlock applies the block-level tests of rules #4 and #5 to the block
// just scanned and keeps it when it is notable.
func (r *envelopeReader) endBlock() {
	b := &r.blk
	typ, ok := b.Type.Str()
	if !ok {
		return
	}
	switch {
	case typ == "text":
		if b.Text.IsBlankString() {
			r.env.Message.blankText = true
		}
		return
	case typ == "image":
		if b.Data.IsString() && r.hasImageMime() && isCorruptedImageData(b.Data.StrOr("")) {
			r.env.Message.corruptImages++
		}
	case !session.IsExtendedToolCallType(typ) && !session.IsThinkingType(typ):
		return
	}
	r.env.Message.Blocks = append(r.env.Message.Blocks, *b)
}

func (r *envelopeReader) hasImageMime() bool {
	for _, f := range r.blk.mime {
		if mime, ok := f.Str(); ok && isImageMime(mime) {
			return true
		}
	}
	return false
}

// The reader's verdicts on the line it scanned. They mirror the predicates
// of rules.go and classifier.go; where a rule needs more than the noted
// fields, needsExact sends the line to the exact path.

// isMessageTyped reports an object entry with type "message".
func (r *envelopeReader) isMessageTyped() bool { return r.msgTyped }

// isMessageEntry reports a message entry with an object message.
func (r *envelopeReader) isMessageEntry() bool {
	return r.isMessageTyped() && r.env.Message.IsObject()
}

// isHeader reports a valid session header: type "session", non-empty
// string id.
func (r *envelopeReader) isHeader() bool {
	return r.env.Object && r.env.Type.StrEquals("session") && r.env.ID.NonEmptyString()
}

// needsExact reports whether a rule might change the line: every case
// except the common "kept" ones goes to the full parse.
func (r *envelopeReader) needsExact() bool {
	if !r.isMessageTyped() {
		return false
	}
	m := &r.env.Message
	if !m.IsObject() || !m.Role.IsString() || m.Role.IsBlankString() {
		return true // rule #2 drops it
	}
	if m.corruptImages > 0 {
		return true // rule #4
	}
	switch r.role {
	case session.RoleAssistant:
		if m.Content.Kind() == jsonl.Array && m.Content.Exists() && m.contentLen == 0 {
			return true // rule #3 when stopReason is "error"
		}
		return jsonl.TrimJS(m.Provider.StrOr("")) == "openclaw" // a delivery mirror
	case session.RoleUser:
		switch {
		case !m.Content.Exists():
			return false
		case m.Content.Kind() == jsonl.String:
			return m.Content.IsBlankString()
		case m.Content.Kind() == jsonl.Array:
			return m.contentLen == 0 || m.blankText
		}
	}
	return false
}

// resultID returns a tool result's id (first non-empty trimmed string of
// session.ToolResultIDKeys), or "". The result may alias the line.
func (r *envelopeReader) resultID() string {
	if !r.isMessageEntry() || r.role != session.RoleToolResult {
		return ""
	}
	for _, f := range r.env.Message.ResultIDs {
		if id := jsonl.TrimJS(f.StrOr("")); id != "" {
			return id
		}
	}
	return ""
}

// candidateCalls is the fast path's [candidateCalls]: the calls of a kept
// assistant that may need a synthetic result, read from the noted blocks.
// The strings are copies: the classifier keeps them past the line.
func (r *envelopeReader) candidateCalls(l jsonl.Line) []pendingCall {
	m := &r.env.Message
	if !r.isMessageEntry() || r.role != session.RoleAssistant ||
		m.StopReason.StrEquals("error") || m.StopReason.StrEquals("aborted") {
		return nil
	}
	pass := 0
	switch {
	case m.API.StrEquals("openai-chatgpt-responses") && m.Provider.StrEquals("openai"):
	case isResponsesAPI(jsonl.TrimJS(m.API.StrOr(""))):
		pass = 1
	default:
		return nil
	}
	parentID, hasParentID := r.env.ID.Str()
	var out []pendingCall
	for i := range m.Blocks {
		b := &m.Blocks[i]
		typ, _ := b.Type.Str()
		id, ok := b.ID.Str()
		if !session.IsToolCallType(typ) || !ok || id == "" {
			continue
		}
		name, hasName := b.Name.Str()
		if pass == 1 && session.TrimLower(name) != "message" {
			continue
		}
		in := Insert{AfterLine: l.Num, AfterOffset: l.Offset + l.Size(), ToolCallID: clone(id), ToolName: clone(name),
			ParentID: clone(parentID), HasParentID: hasParentID}
		if !hasName {
			in.ToolName = "unknown"
		}
		out = append(out, pendingCall{Insert: in, id: hashID(id), pass: pass})
	}
	return out
}

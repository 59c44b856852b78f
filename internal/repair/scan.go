package repair

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// The fast path of the classifier. Most lines of a transcript are entries
// no rule touches, so each line is scanned once by a validating scanner that
// accepts exactly what JSON.parse accepts and, on the way, notes the few
// fields the rules and the checks look at ([Envelope]: type, id, parentId
// and the other navigation fields, message.role, message.content and its
// blocks, the tool-result ids, api/provider/model). Lines the scan cannot
// prove "kept" take the exact path: a full parse and the rules of rules.go,
// which are the reference (the fuzz test checks that the fast path never
// keeps a line the exact path would change).

// errSyntax is the scanner's only error; the classifier asks
// jsonl.Validate for the precise message.
var errSyntax = errors.New("invalid JSON")

// scanner validates one line and notes its fields. It is reused from line
// to line (its stack and block list keep their capacity).
type scanner struct {
	d           []byte
	i           int
	stack       []byte
	lastEscaped bool // the last string scanned had a backslash
	overflow    bool // a number outside float64's range
	badUTF8     bool // a string holds invalid UTF-8
	env         Envelope
	blk         Block // the content block being scanned
}

// Levels of the noted structure.
const (
	levelTop = iota
	levelMessage
	levelBlock
)

// scan validates d and notes its fields; it returns errSyntax when
// JSON.parse would reject d.
func (s *scanner) scan(d []byte) error {
	blocks := s.env.Message.Blocks[:0]
	*s = scanner{d: d, stack: s.stack[:0]}
	s.env.Message.Blocks = blocks
	s.space()
	if s.i < len(d) && d[s.i] == '{' {
		s.env.Object = true
		if err := s.object(levelTop); err != nil {
			return err
		}
	} else if _, err := s.skip(); err != nil {
		return err
	}
	s.space()
	if s.i < len(d) {
		return errSyntax
	}
	return nil
}

func (s *scanner) space() {
	for s.i < len(s.d) {
		switch s.d[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// object scans an object at s.i whose members are noted at level.
func (s *scanner) object(level int) error {
	if s.open('}') {
		return nil
	}
	for {
		key, esc, err := s.memberKey()
		if err != nil {
			return err
		}
		if err := s.member(level, keyString(key, esc)); err != nil {
			return err
		}
		if more, err := s.more('}'); !more || err != nil {
			return err
		}
	}
}

// open steps into the container at s.i and reports whether it is empty
// (its closing byte, close, is then consumed too).
func (s *scanner) open(close byte) bool {
	s.i++
	s.space()
	if s.i < len(s.d) && s.d[s.i] == close {
		s.i++
		return true
	}
	return false
}

// more steps over what follows a container's element: a comma (true:
// another element comes) or the closing byte close (false).
func (s *scanner) more(close byte) (bool, error) {
	s.space()
	if s.i >= len(s.d) {
		return false, errSyntax
	}
	switch s.d[s.i] {
	case ',':
		s.i++
		s.space()
		return true, nil
	case close:
		s.i++
		return false, nil
	}
	return false, errSyntax
}

// keyString is a member name as JSON.parse decodes it; it aliases the line
// unless the name has escapes.
func keyString(body []byte, escaped bool) string {
	if !escaped {
		return unsafe.String(unsafe.SliceData(body), len(body))
	}
	return decodeBody(body, true)
}

// member scans the value of member k of an object at level, noting it when
// the level notes k.
func (s *scanner) member(level int, k string) error {
	var f *Field
	switch level {
	case levelTop:
		if k == "message" {
			return s.message()
		}
		f = s.topField(k)
	case levelMessage:
		if k == "content" {
			return s.content()
		}
		f = s.messageField(k)
	case levelBlock:
		f = s.blockField(k)
	}
	if f == nil {
		_, err := s.skip()
		return err
	}
	return s.leaf(f)
}

// topField is where a top-level member is noted, or nil. The switches on
// the length keep the common miss to one or two comparisons.
func (s *scanner) topField(k string) *Field {
	e := &s.env
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
func (s *scanner) messageField(k string) *Field {
	m := &s.env.Message
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
func (s *scanner) blockField(k string) *Field {
	b := &s.blk
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

// leaf scans any value and notes it in f (a later duplicate key
// overwrites: JSON.parse keeps the last value).
func (s *scanner) leaf(f *Field) error {
	start := s.i
	kind, err := s.skip()
	if err != nil {
		return err
	}
	*f = Field{text: s.d[start:s.i], kind: kind, present: true}
	if kind == jsonl.String {
		f.text = s.d[start+1 : s.i-1]
		f.escaped = s.lastEscaped
	}
	return nil
}

// message scans the entry's message; a duplicate "message" key replaces
// everything noted for the earlier one.
func (s *scanner) message() error {
	m := &s.env.Message
	*m = Message{Field: Field{present: true}, Blocks: m.Blocks[:0]}
	if s.i < len(s.d) && s.d[s.i] == '{' {
		m.kind = jsonl.Object
		return s.object(levelMessage)
	}
	return s.leaf(&m.Field)
}

// content scans message.content, evaluating each block of an array; a
// duplicate "content" key replaces what the earlier one noted.
func (s *scanner) content() error {
	m := &s.env.Message
	m.contentLen, m.blankText, m.corruptImages, m.Blocks = 0, false, 0, m.Blocks[:0]
	if s.i >= len(s.d) || s.d[s.i] != '[' {
		return s.leaf(&m.Content)
	}
	m.Content = Field{kind: jsonl.Array, present: true}
	if s.open(']') {
		return nil
	}
	for {
		m.contentLen++
		if s.i < len(s.d) && s.d[s.i] == '{' {
			s.blk = Block{Index: m.contentLen - 1}
			if err := s.object(levelBlock); err != nil {
				return err
			}
			s.endBlock()
		} else if _, err := s.skip(); err != nil {
			return err
		}
		if more, err := s.more(']'); !more || err != nil {
			return err
		}
	}
}

// endBlock applies the block-level tests of rules #4 and #5 to the block
// just scanned and keeps it when it is notable.
func (s *scanner) endBlock() {
	b := &s.blk
	typ, ok := b.Type.Str()
	if !ok {
		return
	}
	switch {
	case typ == "text":
		if b.Text.IsBlankString() {
			s.env.Message.blankText = true
		}
		return
	case typ == "image":
		if b.Data.IsString() && s.hasImageMime() && isCorruptedImageData(b.Data.StrOr("")) {
			s.env.Message.corruptImages++
		}
	case !session.IsExtendedToolCallType(typ) && !session.IsThinkingType(typ):
		return
	}
	s.env.Message.Blocks = append(s.env.Message.Blocks, *b)
}

func (s *scanner) hasImageMime() bool {
	for _, f := range s.blk.mime {
		if mime, ok := f.Str(); ok && isImageMime(mime) {
			return true
		}
	}
	return false
}

// skip validates one value of any kind at s.i (nesting limited only by
// memory) and returns its kind.
func (s *scanner) skip() (jsonl.Kind, error) {
	base := len(s.stack)
	var kind jsonl.Kind
	first := true
	for {
		if s.i >= len(s.d) {
			return 0, errSyntax
		}
		var k jsonl.Kind
		switch c := s.d[s.i]; {
		case c == '{' || c == '[':
			k = jsonl.Object
			if c == '[' {
				k = jsonl.Array
			}
			if first {
				kind, first = k, false
			}
			s.i++
			s.space()
			if s.i < len(s.d) && s.d[s.i] == c+2 { // '}' and ']' are '{'+2 and '['+2
				s.i++
				break
			}
			s.stack = append(s.stack, c)
			if c == '{' {
				if _, _, err := s.memberKey(); err != nil {
					return 0, err
				}
			}
			continue
		case c == '"':
			k = jsonl.String
			if _, err := s.str(); err != nil {
				return 0, err
			}
		case c == '-' || (c >= '0' && c <= '9'):
			k = jsonl.Number
			if err := s.number(); err != nil {
				return 0, err
			}
		case c == 't':
			k = jsonl.Bool
			if err := s.lit("true"); err != nil {
				return 0, err
			}
		case c == 'f':
			k = jsonl.Bool
			if err := s.lit("false"); err != nil {
				return 0, err
			}
		case c == 'n':
			k = jsonl.Null
			if err := s.lit("null"); err != nil {
				return 0, err
			}
		default:
			return 0, errSyntax
		}
		if first {
			kind, first = k, false
		}
		// After a complete value: closers and at most one comma.
		for {
			if len(s.stack) == base {
				return kind, nil
			}
			s.space()
			if s.i >= len(s.d) {
				return 0, errSyntax
			}
			top := s.stack[len(s.stack)-1]
			c := s.d[s.i]
			if c == ',' {
				s.i++
				s.space()
				if top == '{' {
					if _, _, err := s.memberKey(); err != nil {
						return 0, err
					}
				}
				break
			}
			if c != top+2 {
				return 0, errSyntax
			}
			s.i++
			s.stack = s.stack[:len(s.stack)-1]
		}
	}
}

// memberKey scans `"key" :` and returns the key's raw text and whether it
// holds an escape.
func (s *scanner) memberKey() (key []byte, escaped bool, err error) {
	if s.i >= len(s.d) || s.d[s.i] != '"' {
		return nil, false, errSyntax
	}
	start := s.i + 1
	if escaped, err = s.str(); err != nil {
		return nil, false, err
	}
	key = s.d[start : s.i-1]
	s.space()
	if s.i >= len(s.d) || s.d[s.i] != ':' {
		return nil, false, errSyntax
	}
	s.i++
	s.space()
	return key, escaped, nil
}

func (s *scanner) lit(l string) error {
	if len(s.d)-s.i >= len(l) && string(s.d[s.i:s.i+len(l)]) == l {
		s.i += len(l)
		return nil
	}
	return errSyntax
}

// number scans a JSON number and notes one that overflows float64.
func (s *scanner) number() error {
	d := s.d
	start, i := s.i, s.i
	if d[i] == '-' {
		i++
	}
	switch {
	case i >= len(d):
		return errSyntax
	case d[i] == '0':
		i++
	case d[i] >= '1' && d[i] <= '9':
		for i++; i < len(d) && d[i] >= '0' && d[i] <= '9'; i++ {
		}
	default:
		return errSyntax
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return errSyntax
		}
		for ; i < len(d) && d[i] >= '0' && d[i] <= '9'; i++ {
		}
	}
	exp := false
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		exp = true
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return errSyntax
		}
		for ; i < len(d) && d[i] >= '0' && d[i] <= '9'; i++ {
		}
	}
	s.i = i
	// Only an exponent or more than 308 digits can leave float64's range.
	if (exp || i-start > 308) && !s.overflow {
		f, _ := strconv.ParseFloat(string(d[start:i]), 64)
		s.overflow = math.IsInf(f, 0)
	}
	return nil
}

// SWAR constants for the string scan: a word has a byte < 0x20, '"' or '\\'.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// stopMask flags (bit 7 of the byte) the bytes of w that end the fast
// part of a string scan: '"', '\\' and control characters. Bytes above the
// lowest flagged one may be flagged wrongly (borrows), so only the lowest
// flag is exact, which is all str needs.
func stopMask(w uint64) uint64 {
	ctl := (w - lsb*0x20) &^ w
	q := w ^ (lsb * '"')
	q = (q - lsb) &^ q
	b := w ^ (lsb * '\\')
	b = (b - lsb) &^ b
	return (ctl | q | b) & msb
}

// stopByte marks the bytes that end the fast part of a string scan.
var stopByte = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// exactStops flags (bit 7 of the byte) exactly the bytes of w that are
// '"', '\\', control characters or not ASCII.
func exactStops(w uint64) uint64 {
	ctlOrHigh := (^(w&^msb + lsb*0x60) | w) & msb
	return eqMask(w, '"') | eqMask(w, '\\') | ctlOrHigh
}

// eqMask flags (bit 7) exactly the bytes of w equal to c.
func eqMask(w uint64, c byte) uint64 {
	x := w ^ (lsb * uint64(c))
	return ^(x&^msb + lsb*0x7F | x) & msb
}

// simpleEscape marks the bytes that make a two-byte escape.
var simpleEscape = func() (t [256]bool) {
	for _, c := range `"\\/bfnrt` {
		t[c] = true
	}
	return t
}()

// escapeLen is the length of a valid escape by the byte after the
// backslash (0: invalid; \u is followed by four hex digits).
var escapeLen = func() (t [256]uint8) {
	for _, c := range `"\\/bfnrt` {
		t[c] = 2
	}
	t['u'] = 6
	return t
}()

// str scans a string at s.i (its opening quote) and leaves s.i after the
// closing quote; escaped reports a backslash in the body. A body with
// invalid UTF-8 sets s.badUTF8 (non-ASCII bytes can only appear inside
// strings, so the strings decide whether the whole line is valid UTF-8).
//
// Transcript text is dense with escapes (one every twenty-odd bytes) and
// has some non-ASCII text. A word without any of them costs one cheap test
// (stopMask); in a word with some, exactStops flags each, and the simple
// escapes and common characters that end inside the word are stepped over
// with bit operations; anything else goes to the general switch below.
func (s *scanner) str() (escaped bool, err error) {
	d := s.d
	i := s.i + 1
word:
	for {
		if i+8 <= len(d) {
			w := binary.LittleEndian.Uint64(d[i:])
			if stopMask(w)|w&msb == 0 {
				i += 8
				continue
			}
			// Simple escapes and three-byte characters that end within the
			// word are consumed here, several per word, off the general
			// path: each costs a few bit operations, not a branch miss.
			base, e := i, exactStops(w)
		events:
			for {
				if e == 0 {
					i = base + 8
					continue word
				}
				k := bits.TrailingZeros64(e) >> 3
				p := base + k
				switch c := d[p]; {
				case c == '\\' && k < 7 && simpleEscape[d[p+1]]:
					escaped = true
					e &^= 1<<(8*k+16) - 1 // the backslash and the byte it escapes
				case c >= 0xE1 && c <= 0xEC && k < 6 && d[p+1]&0xC0 == 0x80 && d[p+2]&0xC0 == 0x80:
					e &^= 1<<(8*k+24) - 1
				default:
					i = p
					break events
				}
			}
		} else {
			for i < len(d) && d[i] < utf8.RuneSelf && !stopByte[d[i]] {
				i++
			}
			if i >= len(d) {
				return false, errSyntax
			}
		}
		switch c := d[i]; {
		case c >= 0xE1 && c <= 0xEC && i+2 < len(d) && d[i+1]&0xC0 == 0x80 && d[i+2]&0xC0 == 0x80:
			i += 3 // the common three-byte form (most CJK), decided inline
		case c >= utf8.RuneSelf:
			n := utf8Len(d[i:])
			if n == 0 {
				s.badUTF8, n = true, 1
			}
			i += n
		case c == '\\':
			escaped = true
			if i+1 >= len(d) {
				return false, errSyntax
			}
			n := int(escapeLen[d[i+1]])
			if n == 0 || n == 6 && (i+6 > len(d) || !isHex4(d[i+2:i+6])) {
				return false, errSyntax
			}
			i += n
		case c == '"':
			s.i = i + 1
			s.lastEscaped = escaped
			return escaped, nil
		default:
			return false, errSyntax // a raw control character
		}
	}
}

// utf8Len is the length of the well-formed UTF-8 sequence at the start
// of b (whose first byte is not ASCII), or 0 when it is ill-formed. The
// common two- and three-byte forms are decided inline.
func utf8Len(b []byte) int {
	c := b[0]
	switch {
	case c >= 0xC2 && c <= 0xDF && len(b) >= 2 && b[1]&0xC0 == 0x80:
		return 2
	case c >= 0xE1 && c <= 0xEC && len(b) >= 3 && b[1]&0xC0 == 0x80 && b[2]&0xC0 == 0x80:
		return 3
	}
	r, n := utf8.DecodeRune(b)
	if r == utf8.RuneError && n == 1 {
		return 0
	}
	return n
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// The scanner's verdicts on the line it scanned. They mirror the predicates
// of rules.go and classifier.go; where a rule needs more than the noted
// fields, needsExact sends the line to the exact path.

// isMessageTyped reports an object entry with type "message".
func (s *scanner) isMessageTyped() bool {
	return s.env.Object && s.env.Type.StrEquals("message")
}

// isMessageEntry reports a message entry with an object message.
func (s *scanner) isMessageEntry() bool {
	return s.isMessageTyped() && s.env.Message.IsObject()
}

// isHeader reports a valid session header: type "session", non-empty
// string id.
func (s *scanner) isHeader() bool {
	return s.env.Object && s.env.Type.StrEquals("session") && s.env.ID.NonEmptyString()
}

// needsExact reports whether a rule might change the line: every case
// except the common "kept" ones goes to the full parse.
func (s *scanner) needsExact() bool {
	if !s.isMessageTyped() {
		return false
	}
	m := &s.env.Message
	if !m.IsObject() || !m.Role.IsString() || m.Role.IsBlankString() {
		return true // rule #2 drops it
	}
	if m.corruptImages > 0 {
		return true // rule #4
	}
	switch m.Role.StrOr("") {
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
func (s *scanner) resultID() string {
	if !s.isMessageEntry() || !s.env.Message.Role.StrEquals(session.RoleToolResult) {
		return ""
	}
	for _, f := range s.env.Message.ResultIDs {
		if id := jsonl.TrimJS(f.StrOr("")); id != "" {
			return id
		}
	}
	return ""
}

// candidateCalls is the fast path's [candidateCalls]: the calls of a kept
// assistant that may need a synthetic result, read from the noted blocks.
// The strings are copies: the classifier keeps them past the line.
func (s *scanner) candidateCalls(l jsonl.Line) []pendingCall {
	m := &s.env.Message
	if !s.isMessageEntry() || !m.Role.StrEquals(session.RoleAssistant) ||
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
	parentID, hasParentID := s.env.ID.Str()
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

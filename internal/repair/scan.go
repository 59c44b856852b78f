package repair

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// The fast path of the classifier. Most lines of a transcript are entries
// no rule touches, so each line is scanned once by a validating scanner that
// accepts exactly what JSON.parse accepts and, on the way, notes the few
// fields the rules look at (type, id, message.role, message.content and
// its blocks, the tool-result ids, api/provider/model). Lines the scan
// cannot prove "kept" take the exact path: a full parse and the rules of
// rules.go, which are the reference (the fuzz test checks that the fast
// path never keeps a line the exact path would change).

// errSyntax is the scanner's only error; the classifier asks
// jsonl.Validate for the precise message.
var errSyntax = errors.New("invalid JSON")

// span is a value noted by the scanner: for a string its body between the
// quotes, otherwise its raw text.
type span struct {
	start, end int
	kind       jsonl.Kind
	present    bool
	escaped    bool // string body contains a backslash
}

// blockFields are the noted members of one content block.
type blockFields struct {
	typ, text, data span
	mime            [len(imageMimeKeys)]span
}

// msgFields are the noted members of the entry's message.
type msgFields struct {
	present                          bool
	kind                             jsonl.Kind
	role, stop, api, provider, model span
	ids                              [6]span // session.ToolResultIDKeys, in order
	content                          span
	contentLen                       int  // elements of an array content
	blankText                        bool // a text block whose text is blank
	corruptImages                    int  // corrupted image blocks in an array content
}

// scanner validates one line and notes its fields. It is reused from line
// to line (its stack keeps its capacity).
type scanner struct {
	d           []byte
	i           int
	stack       []byte
	lastEscaped bool // the last string scanned had a backslash
	overflow    bool // a number outside float64's range
	isObject    bool
	typ, id     span
	msg         msgFields
	blk         blockFields
}

// Levels of the noted structure.
const (
	levelTop = iota
	levelMessage
	levelBlock
)

// key identifiers of the members the scanner notes.
type keyID uint8

const (
	keyOther keyID = iota
	keyType
	keyID_
	keyMessage
	keyRole
	keyContent
	keyStopReason
	keyAPI
	keyProvider
	keyModel
	keyText
	keyData
	keyMime0 // mimeType, mediaType, media_type
	keyMime1
	keyMime2
	keyResultID0 // toolCallId … call_id (session.ToolResultIDKeys)
)

// lookupKey maps a decoded key to its identifier at level. Only the keys
// the level notes are recognised; the switch on the length keeps the
// common miss to one or two comparisons.
func lookupKey(level int, k string) keyID {
	switch level {
	case levelTop:
		switch k {
		case "type":
			return keyType
		case "id":
			return keyID_
		case "message":
			return keyMessage
		}
	case levelMessage:
		return messageKey(k)
	case levelBlock:
		switch k {
		case "type":
			return keyType
		case "text":
			return keyText
		case "data":
			return keyData
		case "mimeType":
			return keyMime0
		case "mediaType":
			return keyMime1
		case "media_type":
			return keyMime2
		}
	}
	return keyOther
}

// messageKey identifies the noted members of a message.
func messageKey(k string) keyID {
	switch len(k) {
	case 3:
		if k == "api" {
			return keyAPI
		}
	case 4:
		if k == "role" {
			return keyRole
		}
	case 5:
		if k == "model" {
			return keyModel
		}
	case 6:
		if k == "callId" {
			return keyResultID0 + 4
		}
	case 7:
		switch k {
		case "content":
			return keyContent
		case "call_id":
			return keyResultID0 + 5
		}
	case 8:
		if k == "provider" {
			return keyProvider
		}
	case 9:
		if k == "toolUseId" {
			return keyResultID0 + 1
		}
	case 10:
		switch k {
		case "stopReason":
			return keyStopReason
		case "toolCallId":
			return keyResultID0
		}
	case 11:
		if k == "tool_use_id" {
			return keyResultID0 + 3
		}
	case 12:
		if k == "tool_call_id" {
			return keyResultID0 + 2
		}
	}
	return keyOther
}

// scan validates d and notes its fields; it returns errSyntax when
// JSON.parse would reject d.
func (s *scanner) scan(d []byte) error {
	*s = scanner{d: d, stack: s.stack[:0]}
	s.space()
	if s.i < len(d) && d[s.i] == '{' {
		s.isObject = true
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
	s.i++
	s.space()
	if s.i < len(s.d) && s.d[s.i] == '}' {
		s.i++
		return nil
	}
	for {
		if s.i >= len(s.d) || s.d[s.i] != '"' {
			return errSyntax
		}
		start := s.i + 1
		esc, err := s.str()
		if err != nil {
			return err
		}
		k := s.key(level, start, s.i-1, esc)
		s.space()
		if s.i >= len(s.d) || s.d[s.i] != ':' {
			return errSyntax
		}
		s.i++
		s.space()
		if err := s.member(level, k); err != nil {
			return err
		}
		s.space()
		if s.i >= len(s.d) {
			return errSyntax
		}
		switch s.d[s.i] {
		case ',':
			s.i++
			s.space()
		case '}':
			s.i++
			return nil
		default:
			return errSyntax
		}
	}
}

// key identifies the key whose body is d[start:end], at level.
func (s *scanner) key(level, start, end int, esc bool) keyID {
	if !esc {
		return lookupKey(level, unsafe.String(unsafe.SliceData(s.d[start:end]), end-start))
	}
	return lookupKey(level, decodeString(s.d, start, end, true))
}

// member scans the value of member k of an object at level.
func (s *scanner) member(level int, k keyID) error {
	switch level {
	case levelTop:
		switch k {
		case keyType:
			return s.leaf(&s.typ)
		case keyID_:
			return s.leaf(&s.id)
		case keyMessage:
			return s.message()
		}
	case levelMessage:
		m := &s.msg
		switch {
		case k == keyRole:
			return s.leaf(&m.role)
		case k == keyContent:
			return s.content()
		case k == keyStopReason:
			return s.leaf(&m.stop)
		case k == keyAPI:
			return s.leaf(&m.api)
		case k == keyProvider:
			return s.leaf(&m.provider)
		case k == keyModel:
			return s.leaf(&m.model)
		case k >= keyResultID0 && k < keyResultID0+6:
			return s.leaf(&m.ids[k-keyResultID0])
		}
	case levelBlock:
		b := &s.blk
		switch {
		case k == keyType:
			return s.leaf(&b.typ)
		case k == keyText:
			return s.leaf(&b.text)
		case k == keyData:
			return s.leaf(&b.data)
		case k >= keyMime0 && k <= keyMime2:
			return s.leaf(&b.mime[k-keyMime0])
		}
	}
	_, err := s.skip()
	return err
}

// leaf scans any value and notes it in sp (a later duplicate key
// overwrites: JSON.parse keeps the last value).
func (s *scanner) leaf(sp *span) error {
	start := s.i
	kind, err := s.skip()
	if err != nil {
		return err
	}
	*sp = span{start: start, end: s.i, kind: kind, present: true}
	if kind == jsonl.String {
		sp.start, sp.end = start+1, s.i-1
		sp.escaped = s.lastEscaped
	}
	return nil
}

// message scans the entry's message; a duplicate "message" key replaces
// everything noted for the earlier one.
func (s *scanner) message() error {
	s.msg = msgFields{present: true}
	if s.i < len(s.d) && s.d[s.i] == '{' {
		s.msg.kind = jsonl.Object
		return s.object(levelMessage)
	}
	kind, err := s.skip()
	s.msg.kind = kind
	return err
}

// content scans message.content, evaluating each block of an array.
func (s *scanner) content() error {
	m := &s.msg
	m.contentLen, m.blankText, m.corruptImages = 0, false, 0
	if s.i >= len(s.d) || s.d[s.i] != '[' {
		return s.leaf(&m.content)
	}
	m.content = span{start: s.i, kind: jsonl.Array, present: true}
	s.i++
	s.space()
	if s.i < len(s.d) && s.d[s.i] == ']' {
		s.i++
		return nil
	}
	for {
		m.contentLen++
		if s.i < len(s.d) && s.d[s.i] == '{' {
			s.blk = blockFields{}
			if err := s.object(levelBlock); err != nil {
				return err
			}
			s.endBlock()
		} else if _, err := s.skip(); err != nil {
			return err
		}
		s.space()
		if s.i >= len(s.d) {
			return errSyntax
		}
		switch s.d[s.i] {
		case ',':
			s.i++
			s.space()
		case ']':
			s.i++
			return nil
		default:
			return errSyntax
		}
	}
}

// endBlock applies the block-level tests of rules #4 and #5 to the block
// just scanned.
func (s *scanner) endBlock() {
	b := &s.blk
	switch {
	case s.isStr(b.typ, "text"):
		if b.text.kind == jsonl.String && b.text.present && s.blankString(b.text) {
			s.msg.blankText = true
		}
	case s.isStr(b.typ, "image"):
		if !b.data.present || b.data.kind != jsonl.String || !s.hasImageMime() {
			return
		}
		if isCorruptedImageData(s.strOf(b.data)) {
			s.msg.corruptImages++
		}
	}
}

func (s *scanner) hasImageMime() bool {
	for _, sp := range s.blk.mime {
		if sp.present && sp.kind == jsonl.String && isImageMime(s.strOf(sp)) {
			return true
		}
	}
	return false
}

// isStr reports whether sp is the string lit.
func (s *scanner) isStr(sp span, lit string) bool {
	if !sp.present || sp.kind != jsonl.String {
		return false
	}
	if !sp.escaped {
		return string(s.d[sp.start:sp.end]) == lit
	}
	return decodeString(s.d, sp.start, sp.end, true) == lit
}

// strOf returns the decoded string of a string span. Without escapes and
// with valid UTF-8 it aliases the line (valid until the next scan).
func (s *scanner) strOf(sp span) string {
	return decodeString(s.d, sp.start, sp.end, sp.escaped)
}

// blankString reports whether a string span is blank after trim().
func (s *scanner) blankString(sp span) bool {
	if !sp.escaped {
		return jsonl.IsBlank(s.d[sp.start:sp.end])
	}
	return jsonl.IsBlankJS(s.strOf(sp))
}

// decodeString decodes the string body d[start:end] as JSON.parse does.
func decodeString(d []byte, start, end int, escaped bool) string {
	body := d[start:end]
	if !escaped {
		if utf8.Valid(body) {
			return unsafe.String(unsafe.SliceData(body), len(body))
		}
		return string(jsonl.ToValidUTF8(body))
	}
	v, err := jsonl.Parse(d[start-1 : end+1])
	if err != nil {
		return "" // unreachable: the scanner validated the string
	}
	s, _ := v.Str()
	return s
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
				if err := s.memberKey(); err != nil {
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
					if err := s.memberKey(); err != nil {
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

// memberKey scans `"key" :` inside a skipped object.
func (s *scanner) memberKey() error {
	if s.i >= len(s.d) || s.d[s.i] != '"' {
		return errSyntax
	}
	if _, err := s.str(); err != nil {
		return err
	}
	s.space()
	if s.i >= len(s.d) || s.d[s.i] != ':' {
		return errSyntax
	}
	s.i++
	s.space()
	return nil
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

func hasStop(w uint64) bool {
	ctl := (w - lsb*0x20) &^ w
	q := w ^ (lsb * '"')
	q = (q - lsb) &^ q
	b := w ^ (lsb * '\\')
	b = (b - lsb) &^ b
	return (ctl|q|b)&msb != 0
}

// stopByte marks the bytes that end the fast part of a string scan.
var stopByte = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// str scans a string at s.i (its opening quote) and leaves s.i after the
// closing quote; escaped reports a backslash in the body.
func (s *scanner) str() (escaped bool, err error) {
	d := s.d
	i := s.i + 1
	for {
		for i+8 <= len(d) && !hasStop(binary.LittleEndian.Uint64(d[i:])) {
			i += 8
		}
		for i < len(d) && !stopByte[d[i]] {
			i++
		}
		if i >= len(d) {
			return false, errSyntax
		}
		switch d[i] {
		case '"':
			s.i = i + 1
			s.lastEscaped = escaped
			return escaped, nil
		case '\\':
			escaped = true
			if i+1 >= len(d) {
				return false, errSyntax
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(d) || !isHex4(d[i+2:i+6]) {
					return false, errSyntax
				}
				i += 6
			default:
				return false, errSyntax
			}
		default:
			return false, errSyntax // a raw control character
		}
	}
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
	return s.isObject && s.isStr(s.typ, "message")
}

// isMessageEntry reports a message entry with an object message.
func (s *scanner) isMessageEntry() bool {
	return s.isMessageTyped() && s.msg.present && s.msg.kind == jsonl.Object
}

// isHeader reports a valid session header: type "session", non-empty
// string id (a non-empty body decodes to a non-empty string).
func (s *scanner) isHeader() bool {
	return s.isObject && s.isStr(s.typ, "session") && s.id.present && s.id.kind == jsonl.String && s.id.end > s.id.start
}

// needsExact reports whether a rule might change the line or whether the
// synthetic tool-result rules need its tool calls: every case except the
// common "kept" ones goes to the full parse.
func (s *scanner) needsExact() bool {
	if !s.isMessageTyped() {
		return false
	}
	m := &s.msg
	if !m.present || m.kind != jsonl.Object || !m.role.present || m.role.kind != jsonl.String || s.blankString(m.role) {
		return true // rule #2 drops it
	}
	if m.corruptImages > 0 {
		return true // rule #4
	}
	switch s.strOf(m.role) {
	case "assistant":
		if m.content.kind == jsonl.Array && m.content.present && m.contentLen == 0 {
			return true // rule #3 when stopReason is "error"
		}
		if m.api.present && m.api.kind == jsonl.String {
			api := jsonl.TrimJS(s.strOf(m.api))
			if api == "openai-chatgpt-responses" || isResponsesAPI(api) {
				return true // §4 candidates
			}
		}
		return m.provider.present && m.provider.kind == jsonl.String && jsonl.TrimJS(s.strOf(m.provider)) == "openclaw" // a delivery mirror
	case "user":
		switch {
		case !m.content.present:
			return false
		case m.content.kind == jsonl.String:
			return s.blankString(m.content)
		case m.content.kind == jsonl.Array:
			return m.contentLen == 0 || m.blankText
		}
	}
	return false
}

// resultID returns a tool result's id (first non-empty trimmed string of
// session.ToolResultIDKeys), or "". The result may alias the line.
func (s *scanner) resultID() string {
	if !s.isMessageEntry() || !s.isStr(s.msg.role, session.RoleToolResult) {
		return ""
	}
	for _, sp := range s.msg.ids {
		if sp.present && sp.kind == jsonl.String {
			if id := jsonl.TrimJS(s.strOf(sp)); id != "" {
				return id
			}
		}
	}
	return ""
}

package jsonl

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// SyntaxError is a line that JSON.parse rejects.
type SyntaxError struct {
	Offset int    // byte offset in the line where parsing failed
	Msg    string // what was wrong, e.g. "unexpected end of input"
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.Msg)
}

// Parse parses one line as JavaScript's JSON.parse would after the file was
// decoded as UTF-8. data is copied first, so the caller may reuse it.
func Parse(data []byte) (Value, error) {
	var p Parser
	return p.ParseOwned(bytes.Clone(data))
}

// ParseOwned is [Parse] without the copy: the returned value's strings alias
// data, which the caller must never modify afterwards.
func ParseOwned(data []byte) (Value, error) {
	var p Parser
	return p.ParseOwned(data)
}

// Validate returns the [SyntaxError] for data, or nil when it is valid.
func Validate(data []byte) error {
	if err := validate(data); err != nil {
		return err
	}
	return nil
}

// Parser parses lines as [Parse] does, keeping its working memory between
// calls: a Parser that has parsed a few lines allocates only the values it
// returns, and it carves those from large shared blocks (members of
// containers, decoded strings) instead of allocating each one.
//
// Guarantees:
//
//   - It accepts exactly the lines [Validate] finds no error in (but for
//     lines of 4 GiB or more, which no JavaScript string can hold), and a
//     rejection is the same *[SyntaxError] as Validate returns.
//   - The values it returns never alias its scratch space: they stay valid
//     and unchanged across later calls. They are independent of each other
//     except that a block of memory stays alive while any value carved
//     from it is alive (a top-level object's or array's own member list is
//     never carved, so a caller that keeps only a member of each line does
//     not keep the others).
//   - With a [BlockPool] (UsePool), a value stays valid until the blocks
//     its lists were carved from are put back in the pool; until then
//     the pool hands them to no one.
//
// A Parser is not safe for concurrent use; give each goroutine its own. The
// zero Parser is ready to use.
type Parser struct {
	scratch  []Member         // members of the open containers, innermost last
	frames   []parseFrame     // the open containers
	slabs    [slabDepths]slab // blocks closed containers' members are carved from, by depth
	text     []byte           // the block decoded strings are carved from
	textCap  int              // size of the next text block (grows to maxText)
	copying  bool             // the values may not alias the parsed bytes
	reuseTop bool             // the top-level member list goes to top (ParseTop)
	nested   bool             // the value is a member the caller nests (ParseMember)
	top      []Member         // the reused top-level member list
	buf      []byte           // decoding space for one string
	pool     *BlockPool       // where blocks come from and are recorded (UsePool); nil: allocated
	taken    Blocks           // the blocks carved from since the last TakeBlocks
}

// Block sizes: the lists and strings of a Parser's first line get exact
// allocations, then blocks grow from small to large (a Parser used for a
// file allocates rarely); a member list or string longer than a quarter
// block gets an allocation of its own.
const (
	minSlab = 32
	maxSlab = 8 << 10 // members (512 KiB)
	minText = 256
	maxText = 64 << 10 // bytes
)

// Parse parses data (see the package-level [Parse]) into values that do
// not alias data: their strings are copied into the parser's text block
// (common keys and short values are shared constants), so the caller may
// reuse data and the values keep only their own text alive.
func (p *Parser) Parse(data []byte) (Value, error) {
	p.copying = true
	v, err := p.ParseOwned(data)
	p.copying = false
	return v, err
}

// ParseTop is [Parser.Parse] for a caller that keeps only values nested
// in the top-level array or object (for example one member of each line):
// the top-level container's own member list is the parser's, reused by the
// next call, so a line costs no allocation of its own.
func (p *Parser) ParseTop(data []byte) (Value, error) {
	p.reuseTop = true
	v, err := p.Parse(data)
	p.reuseTop = false
	return v, err
}

// ParseMember is [Parser.Parse] for the value of one member of an object
// the caller builds around it (for example one member of a line, parsed
// alone): its lists are carved from the blocks as though it were nested in
// that object, so that values parsed one after another share blocks, as
// the members of lines parsed whole do.
func (p *Parser) ParseMember(data []byte) (Value, error) {
	p.nested = true
	v, err := p.Parse(data)
	p.nested = false
	return v, err
}

// ParseOwned parses data without copying it: the returned value's strings
// may alias data, which the caller must never modify afterwards.
func (p *Parser) ParseOwned(data []byte) (Value, error) {
	if uint64(len(data)) > math.MaxUint32 {
		// A Value's text is shorter than 4 GiB; V8's strings are far shorter
		// still, so OpenClaw cannot even read such a line.
		return Value{}, &SyntaxError{Msg: "line of 4 GiB or more: longer than any JavaScript string"}
	}
	v, ok := p.parse(data)
	if ok {
		// Blocks start after the first line, so that a one-line parse
		// allocates exactly what it returns.
		for d := range p.slabs {
			p.slabs[d].next = max(p.slabs[d].next, minSlab)
		}
		p.textCap = max(p.textCap, minText)
		return v, nil
	}
	clear(p.scratch)
	p.scratch = p.scratch[:0]
	clear(p.frames)
	p.frames = p.frames[:0]
	if err := validate(data); err != nil {
		return Value{}, err
	}
	// Unreachable while the parser and the validator agree (the fuzz
	// target checks that they do).
	return Value{}, &SyntaxError{Msg: "rejected by the parser"}
}

// parseFrame is one open array or object. The parser is iterative so that
// nesting depth is limited only by memory, as in V8.
type parseFrame struct {
	start  int    // index of the container's first member in p.scratch
	key    string // objects: the key of the member being parsed
	isObj  bool
	keyIdx map[string]int // built for large objects to find duplicate keys
	keys   uint64         // objects: the keySign bits of the keys added so far
}

// isSpace marks JSON's four whitespace bytes.
var isSpace = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

func skipSpace(d []byte, i int) int {
	for i < len(d) && isSpace[d[i]] {
		i++
	}
	return i
}

// parse builds the value of data; false means data is not valid JSON
// (the caller asks the validator why).
func (p *Parser) parse(d []byte) (Value, bool) {
	if !p.copying {
		p.taken.pins = true // the values alias d
	}
	v, frames, ok := p.run(d, p.frames[:0])
	if !ok {
		clear(frames)
		clear(p.scratch)
		p.scratch = p.scratch[:0]
	}
	p.frames = frames[:0]
	return v, ok
}

// run is parse's loop; it returns the frames still open (none on success).
func (p *Parser) run(d []byte, frames []parseFrame) (Value, []parseFrame, bool) {
	i := skipSpace(d, 0)
	for {
		// One value, or the opening of a container.
		if i >= len(d) {
			return Value{}, frames, false
		}
		var v Value
		switch c := d[i]; c {
		case '"':
			s, j, plain, ok := p.str(d, i, false)
			if !ok {
				return Value{}, frames, false
			}
			v, i = textValue(String, s), j
			if plain {
				v.meta |= plainBit
			}
		case '{', '[':
			i++
			if i < len(d) && isSpace[d[i]] {
				i = skipSpace(d, i)
			}
			if c == '{' {
				if i < len(d) && d[i] == '}' {
					v, i = Value{meta: uint32(Object)}, i+1
					break
				}
				key, j, ok := p.key(d, i)
				if !ok {
					return Value{}, frames, false
				}
				frames = append(frames, parseFrame{start: len(p.scratch), key: key, isObj: true})
				i = j
				continue
			}
			if i < len(d) && d[i] == ']' {
				v, i = Value{meta: uint32(Array)}, i+1
				break
			}
			frames = append(frames, parseFrame{start: len(p.scratch)})
			continue
		case 't':
			if !hasLiteral(d, i, "true") {
				return Value{}, frames, false
			}
			v, i = Value{meta: uint32(Bool) | boolBit}, i+4
		case 'f':
			if !hasLiteral(d, i, "false") {
				return Value{}, frames, false
			}
			v, i = Value{meta: uint32(Bool)}, i+5
		case 'n':
			if !hasLiteral(d, i, "null") {
				return Value{}, frames, false
			}
			i += 4
		default:
			j, canonical, ok := numberEndForm(d, i)
			if !ok {
				return Value{}, frames, false
			}
			v = textValue(Number, p.numberText(d[i:j]))
			if canonical {
				v.meta |= plainBit
			}
			i = j
		}
		// Attach v to its parent, closing finished containers.
		for {
			if len(frames) == 0 {
				if i < len(d) && isSpace[d[i]] {
					i = skipSpace(d, i)
				}
				return v, frames, i == len(d)
			}
			f := &frames[len(frames)-1]
			if f.isObj {
				p.addMember(f, v)
			} else {
				p.scratch = append(p.scratch, Member{Value: v})
			}
			if i < len(d) && isSpace[d[i]] {
				i = skipSpace(d, i)
			}
			if i >= len(d) {
				return Value{}, frames, false
			}
			c := d[i]
			if c == ',' {
				i++
				if i < len(d) && isSpace[d[i]] {
					i = skipSpace(d, i)
				}
				if f.isObj {
					key, j, ok := p.key(d, i)
					if !ok {
						return Value{}, frames, false
					}
					f.key, i = key, j
				}
				break
			}
			if c != '}' && c != ']' || (c == '}') != f.isObj {
				return Value{}, frames, false
			}
			i++
			v = p.closeContainer(f, len(frames)-1)
			frames[len(frames)-1] = parseFrame{}
			frames = frames[:len(frames)-1]
		}
	}
}

// closeContainer moves a finished container's members off the scratch
// stack into a list of their own: carved from the block for its depth, or
// for a top-level container (depth 0) allocated alone. ParseMember's value
// counts as nested.
func (p *Parser) closeContainer(f *parseFrame, depth int) Value {
	if p.nested {
		depth++
	}
	members := p.scratch[f.start:]
	var items []Member
	switch {
	case depth == 0 && p.reuseTop:
		clear(p.top) // drop the previous line's values
		if cap(p.top) < len(members) {
			p.top = make([]Member, len(members))
		}
		items = p.top[:len(members):len(members)]
	case depth == 0:
		items = make([]Member, len(members))
	default:
		items = p.carve(min(depth, slabDepths)-1, len(members))
	}
	copy(items, members)
	clear(members) // drop references so the GC can free them
	p.scratch = p.scratch[:f.start]
	if f.isObj {
		return listValue(Object, items)
	}
	return listValue(Array, items)
}

// slabDepths is how many depths have blocks of their own: the lists of the
// containers at depth 1, 2, 3 and 4 or more (0 is the top level) go to
// separate blocks. Over many lines, a pass that reads the same shallow
// part of each (every message's role, every message's blocks' types) then
// walks memory in order instead of hopping over the deeper lists.
const slabDepths = 4

// slab is a block member lists are carved from.
type slab struct {
	free []Member
	next int // size of the next block (grows to maxSlab)
}

// carve returns a list of n members (len = cap = n) from the block for
// depth d.
func (p *Parser) carve(d, n int) []Member {
	s := &p.slabs[d]
	if n > len(s.free) {
		if p.pool != nil {
			if n > poolBlock/4 {
				p.taken.pins = true
				return make([]Member, n)
			}
			s.free = p.pool.get()
			p.taken.blocks = append(p.taken.blocks, s.free)
		} else {
			size := s.next
			if n > size/4 {
				return make([]Member, n)
			}
			s.free = make([]Member, size)
			s.next = min(2*size, maxSlab)
		}
	}
	items := s.free[:n:n]
	s.free = s.free[n:]
	return items
}

// carveText returns a copy of b in the text block (never written again).
func (p *Parser) carveText(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	if cap(p.text)-len(p.text) < len(b) {
		size := p.textCap
		if len(b) > size/4 {
			p.taken.pins = true
			return bytes.Clone(b)
		}
		p.text = make([]byte, 0, size)
		p.textCap = min(2*size, maxText)
	}
	start := len(p.text)
	p.text = append(p.text, b...)
	return p.text[start:len(p.text):len(p.text)]
}

// addMember adds (f.key, v) with JSON.parse's duplicate rule: the first
// position, the last value.
func (p *Parser) addMember(f *parseFrame, v Value) {
	items := p.scratch[f.start:]
	if f.keyIdx == nil && len(items) < 32 {
		// Keys rarely repeat: when no earlier key has this one's sign,
		// none can equal it, and the search is skipped.
		sign := keySign(f.key)
		if f.keys&sign == 0 {
			f.keys |= sign
			p.scratch = append(p.scratch, Member{Key: f.key, Value: v})
			return
		}
		for i := range items {
			if len(items[i].Key) == len(f.key) && items[i].Key == f.key {
				items[i].Value = v
				return
			}
		}
		p.scratch = append(p.scratch, Member{Key: f.key, Value: v})
		return
	}
	if f.keyIdx == nil {
		f.keyIdx = make(map[string]int, len(items)*2)
		for i := range items {
			f.keyIdx[items[i].Key] = i
		}
	}
	if i, ok := f.keyIdx[f.key]; ok {
		items[i].Value = v
		return
	}
	f.keyIdx[f.key] = len(items)
	p.scratch = append(p.scratch, Member{Key: f.key, Value: v})
}

// keySign is one bit of 64 chosen by a key's length and its first and
// last bytes: keys with different signs differ.
func keySign(k string) uint64 {
	h := uint(len(k))
	if len(k) > 0 {
		h += uint(k[0])*3 + uint(k[len(k)-1])*5
	}
	return 1 << (h & 63)
}

// key parses `"key" :` at i and returns the key and the position of the
// member's value.
func (p *Parser) key(d []byte, i int) (string, int, bool) {
	if i >= len(d) || d[i] != '"' {
		return "", i, false
	}
	key, i, _, ok := p.str(d, i, true)
	if !ok {
		return "", i, false
	}
	if i < len(d) && isSpace[d[i]] {
		i = skipSpace(d, i)
	}
	if i >= len(d) || d[i] != ':' {
		return "", i, false
	}
	i++
	if i < len(d) && isSpace[d[i]] {
		i = skipSpace(d, i)
	}
	return key, i, true
}

func hasLiteral(d []byte, i int, lit string) bool {
	return len(d)-i >= len(lit) && string(d[i:i+len(lit)]) == lit
}

// numberText is a number's text: aliasing the line, or in copying mode a
// copy (single digits are constants).
func (p *Parser) numberText(b []byte) string {
	if !p.copying {
		return bytesString(b)
	}
	if len(b) == 1 {
		return digits[b[0]-'0' : b[0]-'0'+1]
	}
	return bytesString(p.carveText(b))
}

const digits = "0123456789"

// numberEnd returns the end of the JSON number at i.
func numberEnd(d []byte, i int) (int, bool) {
	j, _, ok := numberEndForm(d, i)
	return j, ok
}

// numberEndForm is numberEnd, and whether the number is an integer of at
// most 15 digits without a leading zero: text JSON.stringify writes as it
// is (see isShortCanonicalInt).
func numberEndForm(d []byte, i int) (end int, canonical, ok bool) {
	// The common case: a short run of digits ending the number.
	j := i
	if j < len(d) && d[j] == '-' {
		j++
	}
	if j < len(d) && d[j] >= '1' && d[j] <= '9' {
		first := j
		for j++; j < len(d) && d[j] >= '0' && d[j] <= '9'; j++ {
		}
		if j == len(d) || d[j] != '.' && d[j] != 'e' && d[j] != 'E' {
			return j, j-first <= 15, true
		}
	}
	n, err := scanNumber(d, i)
	return n, false, err == nil
}

// stringStop reports whether any byte of w is a control character, '"' or
// '\\' (the bytes that end the fast scan of a string body).
func stringStop(w uint64) bool { return StringStops(w) != 0 }

// str parses a string starting at its opening quote; it returns the text,
// the position after the closing quote and whether the text is plain (see
// plainBit). Keys, and in copying mode short values, that are common in
// transcripts come from a table of constants; other text without escapes
// and in valid UTF-8 aliases d, or in copying mode is copied into the text
// block.
//
// A string without escapes is plain: its body holds no quote, backslash or
// control character, and its text is either that body (valid UTF-8, so no
// surrogate) or the body with U+FFFD in place of invalid bytes. A string
// with escapes is not marked plain, whatever it decodes to.
func (p *Parser) str(d []byte, i int, key bool) (string, int, bool, bool) {
	start := i + 1
	j := start
	var high uint64  // the OR of the bytes scanned: bit 7 set when any was non-ASCII
	var short uint64 // a body shorter than eight bytes found in one word: its word8
	shortKnown := false
	for j+8 <= len(d) {
		w := binary.LittleEndian.Uint64(d[j:])
		if m := StringStops(w); m != 0 {
			// The lowest flag is exact: the bytes below it are the body's.
			k := bits.TrailingZeros64(m) >> 3
			body := w & (1<<(8*k) - 1)
			high |= body
			if j == start {
				short, shortKnown = body, true
			}
			j += k
			goto stop
		}
		high |= w
		j += 8
	}
	for j < len(d) && !strTable[d[j]] {
		high |= uint64(d[j])
		j++
	}
stop:
	if j < len(d) && d[j] == '"' {
		seg := d[start:j]
		if high&msb != 0 && !utf8.Valid(seg) {
			return p.carveString(appendValidUTF8(p.buf[:0], seg)), j + 1, true, true
		}
		if key || p.copying {
			w := short
			if !shortKnown {
				w = word8(seg)
			}
			if s, ok := internWord(seg, w); ok {
				return s, j + 1, true, true
			}
		}
		if p.copying {
			return bytesString(p.carveText(seg)), j + 1, true, true
		}
		return bytesString(seg), j + 1, true, true
	}
	if j >= len(d) || d[j] != '\\' {
		return "", j, false, false // unterminated, or a control character
	}
	s, end, ok := p.strEscaped(d, start, j)
	return s, end, false, ok
}

// internTable holds strings that recur in transcripts (keys, roles, block
// types, providers and apis), hashed on their length and first eight
// bytes, so that parsing can share one constant instead of keeping a copy
// per occurrence.
var internTable = func() (t [internSize]internEntry) {
	for _, s := range internWords {
		w := word8([]byte(s))
		h := internHash(w, len(s))
		for t[h].s != "" {
			h = (h + 1) & (internSize - 1)
		}
		t[h] = internEntry{w: w, s: s}
	}
	return t
}()

type internEntry struct {
	w uint64 // the first eight bytes (zero-padded), little-endian
	s string
}

const internSize = 1024

var internWords = [...]string{
	// Entry and message keys.
	"type", "id", "parentId", "timestamp", "message", "role", "content", "text", "thinking",
	"thinkingSignature", "thoughtSignature", "thought_signature", "signature", "redacted",
	"name", "arguments", "input", "partialJson", "toolCallId", "toolUseId", "toolName", "isError",
	"details", "usage", "output", "cacheRead", "cacheWrite", "totalTokens", "cost", "total",
	"provider", "api", "model", "stopReason", "errorMessage", "responseId", "data", "mimeType",
	"customType", "display", "summary", "fromId", "tokensBefore", "firstKeptEntryId",
	"thinkingLevel", "modelId", "modelApi", "version", "cwd", "provenance", "kind",
	"excludeFromContext", "providerReplay", "source", "image", "images", "url", "path",
	"command", "oldText", "newText", "diff", "offset", "limit", "exitCode", "truncated",
	"cancelled", "timeout", "appendMode", "targetId", "label", "reason", "status",
	// Values (besides keys above that are also values: "text", "thinking",
	// "image", "label", "custom"...).
	"session", "thinking_level_change", "model_change", "compaction", "branch_summary",
	"custom", "custom_message", "leaf", "reset", "user", "assistant", "toolResult",
	"bashExecution", "compactionSummary", "branchSummary", "toolCall", "toolUse",
	"functionCall", "tool_use", "tool_result", "stop", "length", "error", "aborted",
	"anthropic", "anthropic-messages", "openai", "openai-responses", "openai-completions",
	"openai-codex", "openai-chatgpt-responses", "google", "google-generative-ai",
	"amazon-bedrock", "bedrock-converse-stream", "ollama", "mistral", "openrouter", "xai",
	"groq", "deepseek", "off", "minimal", "low", "medium", "high", "xhigh",
	"image/png", "image/jpeg", "image/gif", "image/webp", "base64", "exec", "bash", "read",
	"edit", "write", "(no output)", "model-snapshot",
}

// internedText holds where the bytes of each interned word are, hashed on
// that address, so that whether a string is one of the table's (and so
// needs no escaping) is a lookup of its pointer, not of its text. The
// words stay the program's string constants: a parsed key then shares its
// bytes with the same constant in the code that looks it up, which
// compares equal without reading the bytes.
var internedText = func() (t [internPtrSize]internedWord) {
	for _, s := range internWords {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		h := internPtrHash(p)
		for t[h].p != 0 {
			h = (h + 1) & (internPtrSize - 1)
		}
		t[h] = internedWord{p, len(s)}
	}
	return t
}()

// internedWord is where an interned word's bytes are and how many.
type internedWord struct {
	p uintptr
	n int
}

const internPtrSize = 512

func internPtrHash(p uintptr) int { return int((uint64(p) * 0x9E3779B97F4A7C15) >> (64 - 9)) }

// isInterned reports whether s is one of the intern table's strings: then
// JSON.stringify writes it as it is, between quotes. (A string with the
// same text elsewhere in memory is not one; a string starting at a word's
// first byte and no longer is a prefix of the word, or the word itself.)
func isInterned(s string) bool {
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	if p == 0 {
		return false
	}
	for h := internPtrHash(p); ; h = (h + 1) & (internPtrSize - 1) {
		switch e := internedText[h]; e.p {
		case p:
			return len(s) <= e.n
		case 0:
			return false
		}
	}
}

func internHash(w uint64, n int) int {
	return int(((w ^ uint64(n)<<56) * 0x9E3779B97F4A7C15) >> (64 - 10))
}

// word8 is the first eight bytes of b (zero-padded), little-endian.
func word8(b []byte) uint64 {
	if len(b) >= 8 {
		return binary.LittleEndian.Uint64(b)
	}
	var w uint64
	for i := len(b) - 1; i >= 0; i-- {
		w = w<<8 | uint64(b[i])
	}
	return w
}

// internWord returns the table's copy of b, if it has one; w is b's word8,
// which the caller has at hand.
func internWord(b []byte, w uint64) (string, bool) {
	n := len(b)
	if n == 0 || n > 32 {
		return "", false
	}
	for h := internHash(w, n); ; h = (h + 1) & (internSize - 1) {
		e := &internTable[h]
		if e.s == "" {
			return "", false
		}
		if e.w == w && len(e.s) == n && (n <= 8 || e.s[8:] == string(b[8:])) {
			return e.s, true
		}
	}
}

// carveString keeps b (the decoding space) as a string in the text block.
func (p *Parser) carveString(b []byte) string {
	s := bytesString(p.carveText(b))
	if cap(b) <= maxText {
		p.buf = b[:0] // keep the space, unless a huge string grew it
	}
	return s
}

// strEscaped decodes a string with escapes; i is the first backslash.
func (p *Parser) strEscaped(d []byte, start, i int) (string, int, bool) {
	buf := appendValidUTF8(p.buf[:0], d[start:i])
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			return p.carveString(buf), i + 1, true
		case c == '\\':
			if i+1 >= len(d) {
				return "", i, false
			}
			e := d[i+1]
			if r := unescape[e]; r != 0 {
				buf = append(buf, r)
				i += 2
				continue
			}
			if e != 'u' {
				return "", i, false
			}
			r, ok := hex4(d, i+2)
			if !ok {
				return "", i, false
			}
			i += 6
			if r >= 0xD800 && r <= 0xDBFF && i+1 < len(d) && d[i] == '\\' && d[i+1] == 'u' {
				if r2, ok := hex4(d, i+2); ok && r2 >= 0xDC00 && r2 <= 0xDFFF {
					buf = utf8.AppendRune(buf, 0x10000+(r-0xD800)<<10+(r2-0xDC00))
					i += 6
					continue
				}
			}
			buf = appendWTF8(buf, r)
		case c < 0x20:
			return "", i, false
		default:
			// A run up to the next quote, backslash or control character.
			j := i + 1
			ascii := c < 0x80
			for j < len(d) && !strTable[d[j]] {
				if d[j] >= 0x80 {
					ascii = false
				}
				j++
			}
			if ascii {
				buf = append(buf, d[i:j]...)
			} else {
				buf = appendValidUTF8(buf, d[i:j])
			}
			i = j
		}
	}
	p.buf = buf[:0]
	return "", i, false
}

// unescape maps the byte after a backslash to what it stands for (0: not
// a one-character escape).
var unescape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

type numErr string

func (e numErr) Error() string { return string(e) }

// scanNumber returns the end of the number starting at i.
func scanNumber(d []byte, i int) (int, error) {
	if i < len(d) && d[i] == '-' {
		i++
	}
	if i >= len(d) {
		return i, numErr("no number after minus sign")
	}
	switch {
	case d[i] == '0':
		i++
	case d[i] >= '1' && d[i] <= '9':
		for i++; i < len(d) && d[i] >= '0' && d[i] <= '9'; i++ {
		}
	default:
		return i, numErr("no number after minus sign")
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return i, numErr("unterminated fractional number")
		}
		for ; i < len(d) && d[i] >= '0' && d[i] <= '9'; i++ {
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return i, numErr("exponent part is missing a number")
		}
		for ; i < len(d) && d[i] >= '0' && d[i] <= '9'; i++ {
		}
	}
	return i, nil
}

func hex4(d []byte, i int) (rune, bool) {
	if i+4 > len(d) {
		return 0, false
	}
	var r rune
	for _, c := range d[i : i+4] {
		h := hexValue[c]
		if h == 0xFF {
			return 0, false
		}
		r = r<<4 | rune(h)
	}
	return r, true
}

// hexValue maps a hex digit to its value, anything else to 0xFF.
var hexValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xFF
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c - 'a' + 10)
		t[c-'a'+'A'] = byte(c - 'a' + 10)
	}
	return t
}()

// appendWTF8 appends r, encoding a lone surrogate as its generalized UTF-8
// form (ED A0..BF xx) so that the encoder can write it back as "\udXXX".
func appendWTF8(buf []byte, r rune) []byte {
	if r >= 0xD800 && r <= 0xDFFF {
		return append(buf, 0xED, byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
	}
	return utf8.AppendRune(buf, r)
}

func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// parseJSNumber converts JSON number text as JavaScript does (overflow gives
// ±Inf rather than an error).
func parseJSNumber(s string) float64 {
	if f, ok := shortInt(s); ok {
		return f
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// shortInt is the value of number text that is an integer of at most 15
// digits, which a float64 holds exactly: timestamps and token counts, which
// the replay reads by the million, without the float parser.
func shortInt(s string) (float64, bool) {
	t := s
	if len(t) > 0 && t[0] == '-' {
		t = t[1:]
	}
	if len(t) == 0 || len(t) > 15 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(t); i++ {
		d := t[i] - '0'
		if d > 9 {
			return 0, false
		}
		n = n*10 + int64(d)
	}
	f := float64(n)
	if len(t) < len(s) {
		f = -f // -0 too, as the float parser gives
	}
	return f, true
}

package sessiontest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// Damaged turns program, a fuzzer's bytes, into a plausible damaged
// session: a session header (or a broken one, or none), user and assistant
// turns with tool calls, thinking blocks and tool results, branches,
// duplicate ids, parents that do not exist, malformed and blank lines,
// invalid roles, corrupted images and other entry types, mixed with lines
// copied from base (a real session, whose lines the program copies in).
// Every program byte is an instruction or an argument, so a fuzzer's
// mutations change the session's shape rather than break its JSON; the
// same inputs always give the same session. The session has at most
// damagedMaxLines lines.
func Damaged(base, program []byte) []byte {
	d := &damager{prog: program, base: bytes.Split(bytes.TrimRight(base, "\n"), []byte("\n"))}
	d.header()
	for len(d.prog) > 0 && d.lines < damagedMaxLines {
		d.step(d.next() % 16)
	}
	return d.out.Bytes()
}

// damagedMaxLines bounds the sessions Damaged writes, so that one fuzz
// input stays quick to check, repair and replay.
const damagedMaxLines = 400

// damager holds the session Damaged writes.
type damager struct {
	out      bytes.Buffer
	prog     []byte
	base     [][]byte
	nextBase int
	lines    int
	ids      []string // the ids written, in order
	parent   string   // the parent of the next entry ("" for null)
	pending  []string // tool call ids still without a result
	crlf     bool
	model    int // the model of the assistant turns (damagedModels)
}

// next consumes one program byte (0 once the program is spent).
func (d *damager) next() byte {
	if len(d.prog) == 0 {
		return 0
	}
	c := d.prog[0]
	d.prog = d.prog[1:]
	return c
}

// pick returns one of options, chosen by the next program byte.
func pick[T any](d *damager, options ...T) T { return options[int(d.next())%len(options)] }

func (d *damager) line(s string) {
	d.out.WriteString(s)
	if d.crlf {
		d.out.WriteByte('\r')
	}
	d.out.WriteByte('\n')
	d.lines++
}

const damagedTime = `"timestamp":"2026-01-01T00:00:00.000Z"`

// header writes the first line: usually a valid session header.
func (d *damager) header() {
	const valid = `{"type":"session","version":3,"id":"fuzz",` + damagedTime + `,"cwd":"/w"}`
	switch c := d.next(); {
	case c < 192:
		d.line(valid)
	case c < 208:
		d.line("\ufeff" + valid) // a BOM before the header
	case c < 224:
		d.line(`{"type":"session","id":7}`)
	case c < 240:
		d.line(valid[:len(valid)/2])
	}
	// else: no header, the first line is whatever comes next
}

// step writes what one instruction says.
func (d *damager) step(op byte) {
	switch op {
	case 0, 1:
		d.copyBase(d.nextBase)
		d.nextBase++
	case 2:
		d.user()
	case 3, 4:
		d.assistant()
	case 5:
		d.toolResult()
	case 6:
		if len(d.ids) > 0 { // a branch: the next entry forks from an earlier one
			d.parent = d.ids[int(d.next())%len(d.ids)]
		}
	case 7:
		d.parent = fmt.Sprintf("missing-%d", d.next()) // a parent that does not exist
	case 8:
		d.malformed()
	case 9:
		switch d.next() % 3 {
		case 0:
			d.line("")
		case 1:
			d.line("   \t")
		default:
			d.crlf = !d.crlf
		}
	case 10:
		d.entry("message", pick(d, `{"role":" "}`, `null`, `{"role":7,"content":"x"}`, `"text"`, `{"content":"no role"}`))
	case 11:
		d.message(pick(d, "user", "toolResult"), d.imageContent())
	case 12:
		d.otherEntry()
	case 13:
		if len(d.ids) > 0 { // the next entry reuses an earlier id
			d.ids = append(d.ids, d.ids[int(d.next())%len(d.ids)])
			d.writeEntry("message", `{"role":"user","content":"again","timestamp":1767225600000}`, d.ids[len(d.ids)-1])
		}
	case 14:
		d.model = int(d.next()) % len(damagedModels)
	default:
		if len(d.base) > 0 {
			d.copyBase(int(d.next()))
		}
	}
}

// copyBase copies base line i (modulo the number of lines).
func (d *damager) copyBase(i int) {
	if len(d.base) == 0 {
		return
	}
	d.line(strings.TrimSuffix(string(d.base[i%len(d.base)]), "\r"))
}

// entry writes an entry of type typ holding message (a JSON value) with a
// new id, chained to the parent.
func (d *damager) entry(typ, message string) {
	id := fmt.Sprintf("f%04d", len(d.ids))
	d.ids = append(d.ids, id)
	d.writeEntry(typ, message, id)
}

func (d *damager) writeEntry(typ, message, id string) {
	parent := d.parentJSON()
	field := "message"
	if typ != "message" {
		field = "data"
	}
	d.line(fmt.Sprintf(`{"type":%s,"id":%s,"parentId":%s,%s,%q:%s}`, quote(typ), quote(id), parent, damagedTime, field, message))
	d.parent = id
}

// parentJSON is the parent of the next entry as JSON.
func (d *damager) parentJSON() string {
	if d.parent == "" {
		return "null"
	}
	return quote(d.parent)
}

func (d *damager) message(role, content string) {
	extra := ""
	if role == "toolResult" {
		extra = `,"toolCallId":` + quote(d.resultID()) + `,"toolName":"exec","isError":false`
	}
	d.entry("message", fmt.Sprintf(`{"role":%q,"content":%s%s,"timestamp":1767225600000}`, role, content, extra))
}

var damagedTexts = []string{"hello", "", " ", "\n\t", "run it", "done", "ok \u3000", "(continue)"}

func (d *damager) user() {
	text := pick(d, damagedTexts...)
	if d.next()%2 == 0 {
		d.message("user", quote(text))
		return
	}
	d.message("user", `[{"type":"text","text":`+quote(text)+`}]`)
}

// damagedModels are the api, provider and model of assistant turns.
var damagedModels = [][3]string{
	{"anthropic-messages", "anthropic", "claude-sonnet-4-5"},
	{"openai-responses", "openai", "gpt-5"},
	{"google-generative-ai", "google", "gemini-2.5-pro"},
	{"openai-completions", "mistral", "mistral-large-latest"},
	{"bedrock-converse-stream", "amazon-bedrock", "anthropic.claude-sonnet-4-5"},
}

var damagedThinking = []string{
	``,
	`{"type":"thinking","thinking":"hmm","thinkingSignature":"c2ln"},`,
	`{"type":"thinking","thinking":"hmm"},`,
	`{"type":"thinking","thinking":"","thinkingSignature":"c2ln"},`,
	`{"type":"redactedThinking","data":"c2ln"},`,
	`{"type":"thinking","thinking":"r","thinkingSignature":"{\"id\":\"rs_1\",\"type\":\"reasoning\",\"summary\":[]}"},`,
}

// assistant writes an assistant turn: thinking, text and tool calls as the
// program says, with a stop reason that may not match them.
func (d *damager) assistant() {
	var content strings.Builder
	content.WriteString(pick(d, damagedThinking...))
	if c := d.next(); c%3 == 0 {
		content.WriteString(`{"type":"text","text":` + quote(damagedTexts[int(c/3)%len(damagedTexts)]) + `},`)
	}
	for range int(d.next() % 4) {
		id := d.callID()
		name := pick(d, `,"name":"exec"`, `,"name":"read"`, `,"name":""`, ``, `,"name":" exec "`)
		args := pick(d, `,"arguments":{"command":"ls"}`, ``, `,"arguments":"{\"a\":1}"`, `,"arguments":{}`)
		fmt.Fprintf(&content, `{"type":"toolCall","id":%s%s%s},`, quote(id), name, args)
		d.pending = append(d.pending, id)
	}
	body := strings.TrimSuffix(content.String(), ",")
	stop := pick(d, `"toolUse"`, `"stop"`, `"error"`, `"aborted"`, `"length"`)
	m := damagedModels[d.model]
	d.entry("message", fmt.Sprintf(`{"role":"assistant","content":[%s],"stopReason":%s,"api":%q,"provider":%q,"model":%q,"usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15},"timestamp":1767225600000}`,
		body, stop, m[0], m[1], m[2]))
}

// callID is a new tool call id in one of the shapes providers disagree on,
// or an id already used.
func (d *damager) callID() string {
	n := len(d.ids)
	switch d.next() % 6 {
	case 0:
		return fmt.Sprintf("call_%d|fc_%d", n, n)
	case 1:
		return fmt.Sprintf("call%d", n)
	case 2:
		return fmt.Sprintf("tool.use:%d/with spaces and a long tail %032d", n, n)
	case 3:
		if len(d.pending) > 0 {
			return d.pending[len(d.pending)-1]
		}
	}
	return fmt.Sprintf("toolu_%08d", n)
}

// resultID is the id a tool result answers: the oldest call still waiting,
// another one, or a call that was never made.
func (d *damager) resultID() string {
	c := d.next()
	switch {
	case len(d.pending) == 0 || c%5 == 4:
		return fmt.Sprintf("toolu_ghost%d", c)
	case c%5 == 3:
		return d.pending[int(c)%len(d.pending)]
	}
	id := d.pending[0]
	d.pending = d.pending[1:]
	return id
}

func (d *damager) toolResult() {
	d.message("toolResult", pick(d, `[{"type":"text","text":"out"}]`, `[]`, `"plain"`, `[{"type":"text","text":""}]`))
}

// imageContent is content with an image block, its data valid, corrupted
// or of another type.
func (d *damager) imageContent() string {
	data := pick(d, `"iVBORw0KGgo="`, `"not base64!"`, `"SGVsbG8"`, `7`, `""`)
	mime := pick(d, `"mimeType":"image/png"`, `"mediaType":"image/jpeg"`, `"mimeType":"text/plain"`)
	return `[{"type":"text","text":"see"},{"type":"image","data":` + data + `,` + mime + `}]`
}

func (d *damager) otherEntry() {
	switch d.next() % 5 {
	case 0:
		m := damagedModels[int(d.next())%len(damagedModels)]
		d.line(fmt.Sprintf(`{"type":"model_change","id":"m%d","parentId":%s,%s,"provider":%q,"modelId":%q}`, d.lines, d.parentJSON(), damagedTime, m[1], m[2]))
	case 1:
		d.line(fmt.Sprintf(`{"type":"thinking_level_change","id":"t%d","parentId":%s,%s,"thinkingLevel":"high"}`, d.lines, d.parentJSON(), damagedTime))
	case 2:
		if len(d.ids) > 0 {
			d.line(fmt.Sprintf(`{"type":"compaction","id":"c%d","parentId":%s,%s,"summary":"earlier work","firstKeptEntryId":%s,"tokensBefore":100}`,
				d.lines, d.parentJSON(), damagedTime, quote(d.ids[int(d.next())%len(d.ids)])))
		}
	case 3:
		d.entry("custom", `{"k":1}`)
	default:
		d.line(`{"type":"session","version":3,"id":"second",` + damagedTime + `,"cwd":"/w"}`)
	}
}

// malformed writes a line JSON.parse rejects, or one it accepts that
// looks wrong.
func (d *damager) malformed() {
	last := d.out.Bytes()
	if i := bytes.LastIndexByte(bytes.TrimRight(last, "\r\n"), '\n'); i >= 0 {
		last = last[i+1:]
	}
	switch d.next() % 6 {
	case 0:
		d.line(string(bytes.TrimRight(last, "\r\n")[:len(bytes.TrimRight(last, "\r\n"))/2])) // a half-written line
	case 1:
		d.line(`{"type":"message"`)
	case 2:
		d.line("undefined")
	case 3:
		d.line("{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"\xff\xfe bad \xc3\"}}") // invalid UTF-8
	case 4:
		d.line("{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"raw \x01 control\"}}")
	default:
		d.line(`[1,2,3]`)
	}
}

// quote is s as a JSON string.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// DamagedSeed is a seed of a fuzz target that reads Damaged sessions.
//
// The targets take the base by its index in DamagedSeeds, not as bytes:
// the fuzzing engine minimizes every byte argument of each input that
// reaches new code, one byte at a time and then range by range
// (quadratic in the length), and on a base of kilobytes that kept every
// worker minimizing for the whole run, so no new input was ever tried.
// Bytes mutated inside real lines are the byte-level targets' domain. An
// index names another base once a session is added to the examples or
// the conformance cases, so a failing input worth keeping becomes a test
// with the session it needs.
type DamagedSeed struct{ Base, Program []byte }

// damagedSeedMaxBase leaves the few large conformance cases (big images)
// out of the seeds: they are slow to replay many times.
const damagedSeedMaxBase = 16 << 10

// DamagedSeeds are seeds for Damaged from the repository's sessions (the
// examples and the conformance cases): each base copied whole, and each
// base interleaved with every kind of damage. It fails tb when there are
// none.
func DamagedSeeds(tb testing.TB) []DamagedSeed {
	tb.Helper()
	var seeds []DamagedSeed
	for _, path := range append(Glob(tb, "testdata/examples/*.jsonl"), ConformanceCases(tb)...) {
		base, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		if len(base) > damagedSeedMaxBase {
			continue
		}
		n := bytes.Count(base, []byte("\n")) + 1
		copyAll := append([]byte{255}, make([]byte, n)...) // no header of its own; op 0 copies the next base line
		mixed := []byte{255}
		for i := range n {
			mixed = append(mixed, 0, byte(2+i%14), byte(i*37), byte(i*11), byte(i*5), byte(i*3))
		}
		seeds = append(seeds, DamagedSeed{base, copyAll}, DamagedSeed{base, mixed})
	}
	return seeds
}

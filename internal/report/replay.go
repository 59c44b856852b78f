package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/openclaw-doctor/openclaw-doctor/internal/hygiene"
	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// This file renders `openclaw-doctor replay` (docs/replay.md, "Output"):
// text for people, one line per replayed message and a summary of the
// changes; JSON in OpenClaw's message shape, streamed one message at a
// time. The functions report write errors only: whether a refusal makes
// the command fail is the caller's decision.

// replayHeader is the common head of the JSON output.
type replayHeader struct {
	Provider string         `json:"provider"`
	ModelAPI string         `json:"modelApi"`
	ModelID  string         `json:"modelId"`
	Policy   hygiene.Policy `json:"policy"`
}

// headerJSON is the JSON head of r without its closing brace, so members
// can follow.
func headerJSON(r *hygiene.Run) ([]byte, error) {
	t := r.Target
	b, err := json.Marshal(replayHeader{Provider: t.Provider, ModelAPI: t.ModelAPI, ModelID: t.ModelID, Policy: r.Policy})
	if err != nil {
		return nil, err
	}
	return b[:len(b)-1], nil
}

// ReplayPolicyJSON writes {"provider","modelApi","modelId","policy"} and a
// newline (`replay --policy-only --format json`).
func ReplayPolicyJSON(w io.Writer, r *hygiene.Run) error {
	head, err := headerJSON(r)
	if err != nil {
		return err
	}
	_, err = w.Write(append(head, "}\n"...))
	return err
}

// ReplayPolicyText writes the target, then the policy one field per line
// in OpenClaw's order (`replay --policy-only`).
func ReplayPolicyText(w io.Writer, r *hygiene.Run) error {
	t := r.Target
	if _, err := fmt.Fprintf(w, "target: %s %s %s\n", clip(t.Provider), clip(orDash(t.ModelAPI)), clip(orDash(t.ModelID))); err != nil {
		return err
	}
	b, err := json.Marshal(r.Policy)
	if err != nil {
		return err
	}
	v, err := jsonl.Parse(b)
	if err != nil {
		return err
	}
	for _, m := range v.Items() {
		if _, err := fmt.Fprintf(w, "  %-34s %s\n", clip(m.Key), clip(jsonl.MarshalString(m.Value))); err != nil {
			return err
		}
	}
	return nil
}

// jsChange is a change in the JSON output of --diff.
type jsChange struct {
	Rule    string `json:"rule"`
	Line    int    `json:"line,omitempty"`
	EntryID string `json:"entryId,omitempty"`
	Detail  string `json:"detail"`
	Rejects bool   `json:"rejects,omitempty"`
}

// ReplayJSON writes the replay document: the head, then "messages" (each
// written as JSON.stringify writes it, one at a time, so memory does not
// grow with the output) or, when replayErr is OpenClaw's refusal,
// "error":{"name":"Error","message":…}; with diff, the "changes" array.
func ReplayJSON(w io.Writer, r *hygiene.Run, msgs []hygiene.Message, replayErr error, diff bool) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	if replayErr != nil {
		head, err := headerJSON(r)
		if err != nil {
			return err
		}
		if _, err := bw.Write(appendErrorJSON(head, "Error", replayErr.Error())); err != nil {
			return err
		}
	} else {
		if err := ReplayJSONHead(bw, r); err != nil {
			return err
		}
		if err := (&ReplayMessages{JSON: true}).Write(bw, msgs); err != nil {
			return err
		}
		if _, err := bw.Write([]byte{']'}); err != nil {
			return err
		}
	}
	if err := replayJSONTail(bw, r, diff); err != nil {
		return err
	}
	return bw.Flush()
}

// ReplayJSONHead writes the head of the replay document up to the opening
// of its "messages" array: the replay document is ReplayJSONHead, the
// messages (ReplayMessages), then ReplayJSONTail.
func ReplayJSONHead(w io.Writer, r *hygiene.Run) error {
	head, err := headerJSON(r)
	if err != nil {
		return err
	}
	_, err = w.Write(append(head, `,"messages":[`...))
	return err
}

// ReplayMessages writes replayed messages a batch at a time: with JSON,
// the elements of the "messages" array (each as JSON.stringify writes it,
// separated by commas); else one numbered line each, from 1.
type ReplayMessages struct {
	JSON bool
	N    int // messages written so far
	buf  []byte
}

// Write writes msgs after those written before.
func (s *ReplayMessages) Write(w io.Writer, msgs []hygiene.Message) error {
	for i := range msgs {
		if s.JSON {
			if s.N > 0 {
				s.buf = append(s.buf, ',')
			}
			s.buf = jsonl.AppendJSON(s.buf, &msgs[i].V)
		} else {
			s.buf = appendMessageLine(s.buf, s.N+1, &msgs[i])
		}
		s.N++
		if len(s.buf) >= 64<<10 || i == len(msgs)-1 {
			if _, err := w.Write(s.buf); err != nil {
				return err
			}
			s.buf = s.buf[:0]
		}
	}
	return nil
}

// ReplayJSONTail closes the "messages" array and the document: with diff,
// the "changes" array comes first.
func ReplayJSONTail(w io.Writer, r *hygiene.Run, diff bool) error {
	if _, err := w.Write([]byte{']'}); err != nil {
		return err
	}
	return replayJSONTail(w, r, diff)
}

// replayJSONTail writes what follows "messages" or "error".
func replayJSONTail(w io.Writer, r *hygiene.Run, diff bool) error {
	var buf []byte
	if diff {
		var err error
		if buf, err = appendChangesJSON(buf, r.Changes); err != nil {
			return err
		}
	}
	_, err := w.Write(append(buf, "}\n"...))
	return err
}

func appendChangesJSON(buf []byte, changes []hygiene.Change) ([]byte, error) {
	out := make([]jsChange, len(changes))
	for i, c := range changes {
		out[i] = jsChange{c.Rule, c.Line, c.EntryID, c.Detail, c.Rejects}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return buf, err
	}
	return append(append(buf, `,"changes":`...), b...), nil
}

func appendErrorJSON(buf []byte, name, message string) []byte {
	buf = append(buf, `,"error":{"name":`...)
	buf = jsonl.AppendJSString(buf, name)
	buf = append(buf, `,"message":`...)
	buf = jsonl.AppendJSString(buf, message)
	return append(buf, '}')
}

// ReplayLoaderErrorJSON writes the document of a session OpenClaw's loader
// throws on: the head and "error" with the JavaScript error's name and
// message ("TypeError: …" splits into both; a message without a name is an
// Error).
func ReplayLoaderErrorJSON(w io.Writer, r *hygiene.Run, le *session.LoaderError) error {
	head, err := headerJSON(r)
	if err != nil {
		return err
	}
	name, message, ok := strings.Cut(le.Msg, ": ")
	if !ok {
		name, message = "Error", le.Msg
	}
	_, err = w.Write(append(appendErrorJSON(head, name, message), "}\n"...))
	return err
}

// ReplayText writes the text output: the target and how many of the
// contextLen context messages are sent, one line per sent message (none
// when replayErr is OpenClaw's refusal), the number of changes per rule,
// and with diff every change in the order the rules made them.
func ReplayText(out io.Writer, r *hygiene.Run, contextLen int, msgs []hygiene.Message, replayErr error, diff bool) error {
	w := bufio.NewWriterSize(out, 64<<10)
	sent := len(msgs)
	if replayErr != nil {
		sent = -1
	}
	ReplayTextHead(w, r, contextLen, sent)
	if replayErr == nil {
		(&ReplayMessages{}).Write(w, msgs)
	}
	ReplayTextTail(w, r, diff)
	return w.Flush() // bufio keeps the first write error
}

// ReplayTextHead writes the text output's first line: the target, and how
// many of the contextLen context messages are sent (sent < 0: none, as
// OpenClaw refuses the history). The text output is ReplayTextHead, the
// message lines (ReplayMessages), then ReplayTextTail.
func ReplayTextHead(w io.Writer, r *hygiene.Run, contextLen, sent int) error {
	t := r.Target
	_, err := fmt.Fprintf(w, "replay for %s %s %s: %d context message(s)", clip(t.Provider), clip(orDash(t.ModelAPI)), clip(orDash(t.ModelID)), contextLen)
	if err == nil && sent >= 0 {
		_, err = fmt.Fprintf(w, " -> %d sent", sent)
	}
	if err == nil {
		_, err = fmt.Fprintln(w)
	}
	return err
}

// ReplayTextTail writes the number of changes per rule and, with diff,
// every change in the order the rules made them.
func ReplayTextTail(out io.Writer, r *hygiene.Run, diff bool) error {
	w := bufio.NewWriter(out)
	writeChangeSummary(w, r)
	if diff {
		writeChanges(w, r.Changes)
	}
	return w.Flush()
}

// appendMessageLine appends the message's number (right-aligned in four
// columns), two spaces and its description. A large session's replay
// writes a line per message: appended by hand, not with fmt.
func appendMessageLine(b []byte, n int, m *hygiene.Message) []byte {
	var num [20]byte
	digits := strconv.AppendInt(num[:0], int64(n), 10)
	for k := len(digits); k < 4; k++ {
		b = append(b, ' ')
	}
	b = append(append(b, digits...), ' ', ' ')
	b = appendDescription(b, m)
	return append(b, '\n')
}

// appendDescription appends one line describing m: origin line and role
// left-aligned in 6 and 17 columns, block types, tool-call ids, stop
// reason, separated by two spaces.
func appendDescription(b []byte, m *hygiene.Message) []byte {
	v := &m.V
	mark := len(b)
	if m.Line > 0 {
		b = strconv.AppendInt(append(b, 'L'), int64(m.Line), 10)
	} else {
		b = append(b, "new"...)
	}
	b = padTo(b, mark, 6)
	role := session.Role(v)
	b = append(b, ' ')
	mark = len(b)
	b = padTo(append(b, clip(role)...), mark, 17)
	b = appendBlockTypes(append(b, ' '), v.Get("content"))
	switch role {
	case session.RoleAssistant:
		if calls := session.ToolCalls(v); len(calls) > 0 {
			b = append(b, "  calls="...)
			for i, c := range calls {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, clip(c.ID)...)
			}
		}
		if s := v.Get("stopReason").StrOr(""); s != "" && s != "stop" {
			b = append(append(b, "  stop="...), clip(s)...)
		}
	case session.RoleToolResult:
		b = append(append(b, "  id="...), clip(v.Get("toolCallId").StrOr("?"))...)
		if v.Get("isError").IsTrue() {
			b = append(b, "  error"...)
		}
	}
	return b
}

// padTo pads b[from:] with spaces to width characters, as fmt's %-*s
// counts them (runes, an invalid byte as one).
func padTo(b []byte, from, width int) []byte {
	for k := utf8.RuneCount(b[from:]); k < width; k++ {
		b = append(b, ' ')
	}
	return b
}

func appendBlockTypes(b []byte, c *jsonl.Value) []byte {
	switch {
	case c == nil:
		return append(b, "(no content)"...)
	case c.IsString():
		return append(b, "string"...)
	case !c.IsArray():
		return append(b, c.Kind().String()...)
	case c.Len() == 0:
		return append(b, "[]"...)
	}
	b = append(b, '[')
	for i, it := range c.Items() {
		if i > 0 {
			b = append(b, ',')
		}
		t := clip(session.BlockType(&it.Value))
		if t == "" {
			t = "?"
		}
		b = append(b, t...)
	}
	return append(b, ']')
}

// writeChangeSummary prints how many changes each rule made.
func writeChangeSummary(w io.Writer, r *hygiene.Run) {
	counts := r.ChangeCounts()
	total := 0
	rules := make([]string, 0, len(counts))
	for rule, n := range counts {
		rules = append(rules, rule)
		total += n
	}
	if total == 0 {
		fmt.Fprintln(w, "no changes: OpenClaw sends the stored branch as it is")
		return
	}
	sort.Strings(rules)
	fmt.Fprintf(w, "%d change(s):\n", total)
	for _, rule := range rules {
		fmt.Fprintf(w, "  %-34s %d\n", rule, counts[rule])
	}
}

// writeChanges lists every change in rule order of application.
func writeChanges(w io.Writer, changes []hygiene.Change) {
	if len(changes) == 0 {
		return
	}
	fmt.Fprintln(w, "changes:")
	for _, c := range changes {
		where := "  -   "
		if c.Line > 0 {
			where = fmt.Sprintf("L%-5d", c.Line)
		}
		fmt.Fprintf(w, "  %s %s: %s\n", where, c.Rule, clipN(c.Detail, maxDetail))
	}
}

// maxShown is the most of a value from the session (a role, a block type,
// an id, a model) the text output shows: a 10 MB block type is shown as
// its first bytes and its length. The JSON output is never shortened.
// maxDetail bounds a change's description, which quotes such values.
const (
	maxShown  = 200
	maxDetail = 1000
)

// clip shortens s to about maxShown bytes (see clipN).
func clip(s string) string { return clipN(s, maxShown) }

// clipN shortens s longer than n bytes to its first n bytes (not cutting
// a UTF-8 sequence) and "… (N bytes)".
func clipN(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:cut], len(s))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

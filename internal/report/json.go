package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"

	"github.com/openclaw-doctor/openclaw-doctor/internal/check"
)

// SchemaVersion is the version of the JSON document (OpenClaw's lint
// schema).
const SchemaVersion = 1

// InspectionCheckID is the check id of the single finding of a run that
// failed before any check completed, as OpenClaw names it.
const InspectionCheckID = "core/doctor/lint-inspection"

// jsonReport is `openclaw doctor --lint --json`'s document, field for field.
type jsonReport struct {
	SchemaVersion int           `json:"schemaVersion"`
	OK            bool          `json:"ok"`
	ChecksRun     int           `json:"checksRun"`
	ChecksSkipped int           `json:"checksSkipped"`
	Findings      []jsonFinding `json:"findings"`
}

type jsonFinding struct {
	CheckID  string `json:"checkId"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Path     string `json:"path"`
	Line     int    `json:"line,omitempty"`
	// A store session's finding also names the session and the event.
	SessionKey string `json:"sessionKey,omitempty"`
	SessionID  string `json:"sessionId,omitempty"`
	Seq        *int64 `json:"seq,omitempty"`
	FixHint    string `json:"fixHint,omitempty"`
}

// JSONStream writes check's JSON document for a run finding by finding,
// so that a run's findings need not be held until its end:
// [JSONStream.Add] writes them as they arrive, [JSONStream.Close] ends the
// document. The bytes are those of the whole document encoded at once
// from the same findings (a test compares them). The document's "ok" comes before
// its findings; it is false as soon as one finding at or above the
// threshold exists, so the head is written with the first such finding,
// and by Close (from the final summary) when there is none.
type JSONStream struct {
	w         *bufio.Writer
	head      jsonReport // the document without findings
	threshold check.Severity
	n         int // findings written
	// notes are the notes that came before the head was written: the
	// head's "ok" is known only with the first failing finding or at Close.
	notes []check.Finding
	buf   bytes.Buffer
	enc   *json.Encoder // encodes one finding into buf
	err   error         // the first write error
}

// NewJSONStream starts the document of a run with s's checks counts and
// threshold; nothing is written before the first finding or Close.
func NewJSONStream(w io.Writer, s Summary) *JSONStream {
	st := &JSONStream{w: bufio.NewWriterSize(w, 64<<10), threshold: s.Threshold,
		head: jsonReport{SchemaVersion: SchemaVersion, ChecksRun: s.ChecksRun, ChecksSkipped: s.ChecksSkipped,
			Findings: []jsonFinding{}}}
	st.enc = json.NewEncoder(&st.buf)
	st.enc.SetEscapeHTML(false)
	st.enc.SetIndent(findingIndent, "  ") // an element of "findings", two levels in
	return st
}

// findingIndent is the indentation of a finding in the document.
const findingIndent = "    "

// Add writes the findings of fs at or above the threshold, and the notes.
func (st *JSONStream) Add(fs []check.Finding) {
	for _, f := range fs {
		note := check.IsNote(f.ID)
		if f.Severity < st.threshold && !note || st.err != nil {
			continue
		}
		if st.n == 0 && note {
			st.notes = append(st.notes, f)
			continue
		}
		if st.n == 0 {
			st.writeHead(false)
			st.writeNotes()
		}
		st.writeFinding(f)
	}
}

// writeNotes writes the notes held until the head was written.
func (st *JSONStream) writeNotes() {
	notes := st.notes
	st.notes = nil
	for _, f := range notes {
		st.writeFinding(f)
	}
}

// writeFinding writes one element of "findings", the head being written.
func (st *JSONStream) writeFinding(f check.Finding) {
	if st.n == 0 {
		st.write([]byte("\n" + findingIndent))
	} else {
		st.write([]byte(",\n" + findingIndent))
	}
	st.n++
	st.buf.Reset()
	if err := st.enc.Encode(toJSONFinding(f)); err != nil && st.err == nil {
		st.err = err
	}
	st.write(bytes.TrimSuffix(st.buf.Bytes(), []byte("\n")))
}

// Close ends the document; s is the run's final summary (its "ok" when no
// finding was written). It returns the first write error.
func (st *JSONStream) Close(s Summary) error {
	if st.n == 0 && len(st.notes) > 0 {
		st.writeHead(!s.Failed())
		st.writeNotes()
	}
	if st.n == 0 {
		st.writeHead(!s.Failed())
		st.write([]byte("]\n}\n"))
	} else {
		st.write([]byte("\n  ]\n}\n"))
	}
	if err := st.w.Flush(); err != nil && st.err == nil {
		st.err = err
	}
	return st.err
}

// writeHead writes the document up to the "[" of "findings".
func (st *JSONStream) writeHead(ok bool) {
	st.head.OK = ok
	var b bytes.Buffer
	if err := encode(&b, st.head); err != nil {
		st.err = err
		return
	}
	doc := b.Bytes()
	st.write(doc[:bytes.LastIndex(doc, []byte("[]"))+1])
}

func (st *JSONStream) write(p []byte) {
	if st.err == nil {
		_, st.err = st.w.Write(p)
	}
}

func toJSONFinding(f check.Finding) jsonFinding {
	jf := jsonFinding{CheckID: string(f.ID), Severity: f.Severity.String(),
		Message: f.Message, Path: f.Path, Line: f.Line, FixHint: f.Hint}
	if l := f.Store; l != nil {
		jf.SessionKey, jf.SessionID = l.SessionKey, l.SessionID
		if l.Seq >= 0 {
			seq := l.Seq
			jf.Seq = &seq
		}
	}
	return jf
}

// JSONFailure writes the document of a run that failed before any check
// completed (exit status 2): ok false, no checks run, one error finding.
func JSONFailure(w io.Writer, msg string) error {
	return encode(w, jsonReport{SchemaVersion: SchemaVersion, Findings: []jsonFinding{{
		CheckID: InspectionCheckID, Severity: check.Error.String(), Message: msg,
	}}})
}

// encode writes doc as indented JSON, with <, > and & as they are.
func encode(w io.Writer, doc any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

package report

import (
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

// JSON writes the document for a run: shown are the findings at or above
// the threshold (see [Shown]).
func JSON(w io.Writer, s Summary, shown []check.Finding) error {
	doc := jsonReport{SchemaVersion: SchemaVersion, OK: !s.Failed(), ChecksRun: s.ChecksRun,
		ChecksSkipped: s.ChecksSkipped, Findings: []jsonFinding{}}
	for _, f := range shown {
		jf := jsonFinding{CheckID: string(f.ID), Severity: f.Severity.String(),
			Message: f.Message, Path: f.Path, Line: f.Line, FixHint: f.Hint}
		if l := f.Store; l != nil {
			jf.SessionKey, jf.SessionID = l.SessionKey, l.SessionID
			if l.Seq >= 0 {
				jf.Seq = &l.Seq
			}
		}
		doc.Findings = append(doc.Findings, jf)
	}
	return encode(w, doc)
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

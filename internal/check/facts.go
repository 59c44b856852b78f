package check

import (
	"bytes"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/media"
	"github.com/openclaw-doctor/openclaw-doctor/internal/repair"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// facts is what the ordered pass needs of one physical line besides the
// repair classifier's facts, read by a worker from the classifier's own
// scan of the line ([repair.Envelope]): the line is parsed once. Strings
// alias the batch buffer the line lives in: the ordered pass copies what
// it keeps.
type facts struct {
	line   int  // physical line number
	length int  // bytes of the line, terminator excluded
	valid  bool // JSON.parse accepts the line
	bom    bool // the line starts with a UTF-8 byte order mark
	node   session.Node
	idHash uint64 // session.HashID(node.ID), computed by the worker

	isMessage  bool
	role       role
	resultID   string // toolResult: trimmed toolCallId
	resultHash uint64 // idHash(resultID)
	aliasKey   string // toolResult without toolCallId: the alias field holding its id

	calls    span // tool calls of an assistant, in lineFacts.calls
	images   span // images over a limit (or over the many-image side), in lineFacts.images
	imageN   int  // decodable image blocks of a user or toolResult message
	unsigned int  // thinking blocks without a signature
}

var utf8BOM = []byte("\xef\xbb\xbf")

// span is a range of a batch's side slices.
type span struct{ lo, hi int32 }

// role is a message role the checks distinguish.
type role uint8

const (
	roleNone role = iota // not a message, or no string role
	roleOther
	roleUser
	roleAssistant
	roleToolResult
)

// callFact is one tool-call block of an assistant turn.
type callFact struct {
	id, name     string
	hash         uint64 // idHash(id)
	block        int
	missingInput bool // neither a non-null arguments nor a non-null input
}

// imageFact is one image over the limits.
type imageFact struct {
	block, width, height, bytes int
	headerKnown                 bool
}

// lineFacts is a batch's output: per line, the classifier's facts and
// check's, plus the side slices check's facts point into.
type lineFacts struct {
	rep    []repair.LineFacts
	facts  []facts
	calls  []callFact
	images []imageFact
	// With [Options.Rows]: per line, what the ordered pass hands the
	// store, and the export lines judged in place of stored texts
	// (exports[:used]; the buffers are kept from batch to batch).
	rows    []rowFacts
	exports [][]byte
	used    int
}

// reset empties the slices, keeping their capacity, and drops the
// references the previous batch left in them.
func (o *lineFacts) reset() {
	clear(o.rep)
	clear(o.rows)
	o.rep, o.facts, o.calls, o.images, o.rows = o.rep[:0], o.facts[:0], o.calls[:0], o.images[:0], o.rows[:0]
	o.used = 0
}

// extractor computes both kinds of facts for the lines of a batch. One per
// worker: it owns the classifier's judge.
type extractor struct {
	judge  repair.LineJudge
	maxDim int
	sizes  bool // check image sizes (OversizedImage enabled)
	rows   Rows // Options.Rows
}

// batch judges every line of b.
func (x *extractor) batch(b *jsonl.Batch[lineFacts]) {
	o := &b.Out
	o.reset()
	for l := range b.Lines {
		if x.rows != nil {
			x.storedLine(l, o)
			continue
		}
		o.rep = append(o.rep, x.judge.Judge(l))
		o.facts = append(o.facts, facts{})
		x.extract(l, x.judge.Envelope(), &o.facts[len(o.facts)-1], o)
	}
}

// extract fills f from the scan e of line l (nil: blank or invalid),
// appending tool calls and images to o.
func (x *extractor) extract(l jsonl.Line, e *repair.Envelope, f *facts, o *lineFacts) {
	*f = facts{line: l.Num, length: len(l.Bytes)}
	if e == nil {
		f.bom = !l.Blank && bytes.HasPrefix(l.Bytes, utf8BOM)
		return
	}
	f.valid = true
	f.node = navNode(e, l.Num)
	f.idHash = session.HashID(f.node.ID)
	if !e.Object || !e.Type.StrEquals("message") || !e.Message.IsObject() {
		return
	}
	msg := &e.Message
	f.isMessage = true
	f.role = roleOf(msg.Role)
	switch f.role {
	case roleAssistant:
		x.assistant(msg, f, o)
	case roleToolResult:
		f.resultID, f.aliasKey = resultID(msg)
		f.resultHash = idHash(f.resultID)
	}
	if x.sizes && (f.role == roleUser || f.role == roleToolResult) {
		x.images(msg, f, o)
	}
}

func roleOf(r jsonl.Field) role {
	switch {
	case !r.IsString():
		return roleNone
	case r.StrEquals(session.RoleUser):
		return roleUser
	case r.StrEquals(session.RoleAssistant):
		return roleAssistant
	case r.StrEquals(session.RoleToolResult):
		return roleToolResult
	}
	return roleOther
}

// signsThinking reports an assistant whose thinking blocks a provider
// checks for signatures: Anthropic and Bedrock reject unsigned thinking.
func signsThinking(msg *repair.Message) bool {
	api := jsonl.TrimJS(msg.API.StrOr(""))
	provider := session.TrimLower(msg.Provider.StrOr(""))
	return api == "anthropic-messages" || api == "bedrock-converse-stream" ||
		provider == "anthropic" || provider == "amazon-bedrock" || provider == "anthropic-vertex"
}

// assistant notes tool calls and unsigned thinking blocks.
func (x *extractor) assistant(msg *repair.Message, f *facts, o *lineFacts) {
	f.calls.lo = int32(len(o.calls))
	signedAPI := signsThinking(msg)
	for i := range msg.Blocks {
		blk := &msg.Blocks[i]
		typ, _ := blk.Type.Str()
		switch {
		case session.IsExtendedToolCallType(typ):
			id := blk.ID.StrOr("")
			if jsonl.IsBlankJS(id) {
				continue
			}
			in, args := blk.Input, blk.Arguments
			o.calls = append(o.calls, callFact{id: id, hash: idHash(id), name: blk.Name.StrOr(""), block: blk.Index,
				missingInput: (!in.Exists() || in.IsNull()) && (!args.Exists() || args.IsNull())})
		case signedAPI && session.IsThinkingType(typ) && !signed(blk, typ):
			f.unsigned++
		}
	}
	f.calls.hi = int32(len(o.calls))
}

// signed: a non-blank string among the signature fields, as OpenClaw's
// replay judges a thinking block signed (redacted thinking may carry its
// payload in data).
func signed(blk *repair.Block, typ string) bool {
	for _, s := range blk.Signatures {
		if s.IsString() && !s.IsBlankString() {
			return true
		}
	}
	return typ == "redacted_thinking" && blk.Data.IsString() && !blk.Data.IsBlankString()
}

// resultID is the id a toolResult answers: its trimmed toolCallId, which
// OpenClaw 2026.9.6 requires to load the result. A result with its id only
// in an alias field reports that field.
func resultID(msg *repair.Message) (id, alias string) {
	if t := jsonl.TrimJS(msg.ResultIDs[0].StrOr("")); t != "" {
		return t, ""
	}
	for i, k := range session.ToolResultIDKeys[1:] {
		if f := msg.ResultIDs[i+1]; f.IsString() && !f.IsBlankString() {
			return "", k
		}
	}
	return "", ""
}

// images counts image blocks and notes those over a limit, or over the
// many-image side (2000 px), which only counts once the whole file is seen.
// Corrupted payloads are left to the repair classifier (fix replaces them).
func (x *extractor) images(msg *repair.Message, f *facts, o *lineFacts) {
	f.images.lo = int32(len(o.images))
	for i := range msg.Blocks {
		blk := &msg.Blocks[i]
		if !blk.Type.StrEquals("image") {
			continue
		}
		data, ok := blk.Data.Str()
		if !ok || media.EstimateDecodedBytes(data) == 0 {
			continue
		}
		f.imageN++
		if im, over := x.oversized(data); over {
			im.block = blk.Index
			o.images = append(o.images, im)
		}
	}
	f.images.hi = int32(len(o.images))
}

// oversized reads an image's size from its header bytes only.
func (x *extractor) oversized(data string) (imageFact, bool) {
	canonical, ok := media.CanonicalBase64(data)
	if !ok {
		return imageFact{}, false
	}
	h, known, n := media.ProbeBase64(canonical)
	im := imageFact{bytes: n, headerKnown: known}
	if known {
		im.width, im.height = h.DisplaySize()
	}
	side := max(im.width, im.height)
	return im, n > media.MaxBytes || side > x.maxDim || side > media.ManyImagesMaxSidePx
}

// navNode is the line's navigation envelope, as OpenClaw's loader
// classifies lines of a current (version 3) file: canonical entries with an
// id, leaf control rows, and other records linked by id and parentId. The
// entry schemas are checked only where they decide navigation (a label's
// target, a compaction's first kept entry, a message's role).
func navNode(e *repair.Envelope, line int) session.Node {
	n := session.Node{Line: line}
	if !e.Object {
		return n
	}
	if t, ok := e.Type.Str(); ok {
		n.Type = session.ParseEntryType(t)
	}
	id, parent := refOf(e.ID), refOf(e.ParentID)
	mode := e.AppendMode
	side := mode.StrEquals("side")
	switch {
	case n.Type.Canonical() && id.IsID() && parent.State != session.RefOther && timestampOK(e) && fieldsOK(e, n.Type):
		n.Kind, n.Side = session.NodeEntry, side
		n.TargetID, n.FirstKeptID = refOf(e.TargetID), refOf(e.FirstKeptEntryID)
	case n.Type == session.TypeLeaf && id.IsID() && parent.StrOrNull() && (!mode.Exists() || side):
		target, ap := refOf(e.TargetID), refOf(e.AppendParentID)
		if !target.StrOrNull() || ap.State == session.RefOther {
			return n
		}
		n.Kind, n.TargetID, n.AppendParentID = session.NodeLeaf, target, ap
	case n.Type != session.TypeSession && n.Type != session.TypeLeaf && id.IsID() && parent.StrOrNull():
		n.Kind = session.NodeLink
	default:
		return n
	}
	n.ID, n.ParentID = id.ID, parent
	return n
}

func timestampOK(e *repair.Envelope) bool {
	return !e.Timestamp.Exists() || e.Timestamp.IsString()
}

// fieldsOK is the part of the entry schemas that decides navigation.
func fieldsOK(e *repair.Envelope, t session.EntryType) bool {
	switch t {
	case session.TypeMessage:
		return e.Message.IsObject() && e.Message.Role.IsString()
	case session.TypeLabel:
		return refOf(e.TargetID).IsID()
	case session.TypeCompaction:
		return refOf(e.FirstKeptEntryID).IsID()
	}
	return true
}

// refOf reads a reference member; its string aliases the line.
func refOf(f jsonl.Field) session.Ref {
	switch {
	case !f.Exists():
		return session.Ref{}
	case f.IsNull():
		return session.Null
	case f.IsString():
		s, _ := f.Str()
		return session.Str(s)
	}
	return session.Ref{State: session.RefOther}
}

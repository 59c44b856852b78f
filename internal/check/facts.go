package check

import (
	"bytes"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/media"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// facts is what the ordered pass needs of one physical line, read from the
// line's tape by a worker. Strings alias the batch buffer the line lives
// in: the ordered pass copies what it keeps.
type facts struct {
	valid bool // JSON.parse accepts the line
	bom   bool // the line starts with a UTF-8 byte order mark
	node  session.Node

	isMessage bool
	role      role
	resultID  string // toolResult: trimmed toolCallId
	aliasKey  string // toolResult without toolCallId: the alias field holding its id
	signedAPI bool   // assistant on an API that checks thinking signatures

	calls    span // tool calls of an assistant, in batch.calls
	images   span // oversized images, in batch.images
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
	block        int
	missingInput bool // neither a non-null arguments nor a non-null input
}

// imageFact is one image over the limits.
type imageFact struct {
	block, width, height, bytes int
	headerKnown                 bool
}

// extractor reads facts from tapes. One per worker.
type extractor struct {
	tape   jsonl.Tape
	maxDim int
	sizes  bool // check image sizes (OversizedImage enabled)
}

// extract parses l and fills f, appending tool calls and images to b.
func (x *extractor) extract(l jsonl.Line, f *facts, b *batch) {
	*f = facts{}
	if l.Blank {
		return
	}
	if err := x.tape.Parse(l.Bytes); err != nil {
		f.bom = bytes.HasPrefix(l.Bytes, utf8BOM)
		if err == jsonl.ErrTapeTooLong {
			f.valid = jsonl.Valid(l.Bytes)
		}
		return
	}
	f.valid = true
	root := x.tape.Root()
	f.node = navNode(root, l.Num)
	if !root.IsObject() || !root.Get("type").StrEquals("message") {
		return
	}
	msg := root.Get("message")
	if !msg.IsObject() {
		return
	}
	f.isMessage = true
	f.role = roleOf(msg.Get("role"))
	content := msg.Get("content")
	switch f.role {
	case roleAssistant:
		f.signedAPI = signsThinking(msg)
		x.assistant(content, f, b)
	case roleToolResult:
		f.resultID, f.aliasKey = resultID(msg)
	}
	if x.sizes && (f.role == roleUser || f.role == roleToolResult) {
		x.images(content, f, b)
	}
}

func roleOf(n jsonl.Node) role {
	switch {
	case !n.IsString():
		return roleNone
	case n.StrEquals(session.RoleUser):
		return roleUser
	case n.StrEquals(session.RoleAssistant):
		return roleAssistant
	case n.StrEquals(session.RoleToolResult):
		return roleToolResult
	}
	return roleOther
}

// signsThinking reports an assistant whose thinking blocks a provider
// checks for signatures (replay-rules.md §3.7: Anthropic and Bedrock).
func signsThinking(msg jsonl.Node) bool {
	api := jsonl.TrimJS(msg.Get("api").StrOr(""))
	provider := session.TrimLower(msg.Get("provider").StrOr(""))
	return api == "anthropic-messages" || api == "bedrock-converse-stream" ||
		provider == "anthropic" || provider == "amazon-bedrock" || provider == "anthropic-vertex"
}

// assistant notes tool calls and unsigned thinking blocks.
func (x *extractor) assistant(content jsonl.Node, f *facts, b *batch) {
	f.calls.lo = int32(len(b.calls))
	i := -1
	for blk := range content.Elems() {
		i++
		typ, ok := blk.Get("type").Str()
		if !ok {
			continue
		}
		switch {
		case session.IsExtendedToolCallType(typ):
			id := blk.Get("id").StrOr("")
			if jsonl.IsBlankJS(id) {
				continue
			}
			in, args := blk.Get("input"), blk.Get("arguments")
			b.calls = append(b.calls, callFact{id: id, name: blk.Get("name").StrOr(""), block: i,
				missingInput: (!in.Exists() || in.IsNull()) && (!args.Exists() || args.IsNull())})
		case f.signedAPI && session.IsThinkingType(typ) && !signed(blk, typ):
			f.unsigned++
		}
	}
	f.calls.hi = int32(len(b.calls))
}

// signed: a non-blank string among the signature fields (replay-rules.md
// §3.7b; redacted thinking may carry its payload in data).
func signed(blk jsonl.Node, typ string) bool {
	for _, k := range signatureKeys {
		if s, ok := blk.Get(k).Str(); ok && !jsonl.IsBlankJS(s) {
			return true
		}
	}
	s, ok := blk.Get("data").Str()
	return typ == "redacted_thinking" && ok && !jsonl.IsBlankJS(s)
}

var signatureKeys = []string{"signature", "thinkingSignature", "thought_signature"}

// resultID is the id a toolResult answers: its trimmed toolCallId, which
// OpenClaw 2026.9.6 requires to load the result. A result with its id only
// in an alias field reports that field.
func resultID(msg jsonl.Node) (id, alias string) {
	if s, ok := msg.Get("toolCallId").Str(); ok {
		if t := jsonl.TrimJS(s); t != "" {
			return t, ""
		}
	}
	for _, k := range session.ToolResultIDKeys[1:] {
		if s, ok := msg.Get(k).Str(); ok && !jsonl.IsBlankJS(s) {
			return "", k
		}
	}
	return "", ""
}

// images notes image blocks over the limits. Corrupted payloads are left
// to the repair classifier (fix replaces them).
func (x *extractor) images(content jsonl.Node, f *facts, b *batch) {
	f.images.lo = int32(len(b.images))
	i := -1
	for blk := range content.Elems() {
		i++
		if !blk.Get("type").StrEquals("image") {
			continue
		}
		data, ok := blk.Get("data").Str()
		if !ok || media.EstimateDecodedBytes(data) == 0 {
			continue
		}
		if im, over := x.oversized(data); over {
			im.block = i
			b.images = append(b.images, im)
		}
	}
	f.images.hi = int32(len(b.images))
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
	return im, n > media.MaxBytes || im.width > x.maxDim || im.height > x.maxDim
}

// navNode is the line's navigation envelope, as OpenClaw's loader
// classifies lines of a current (version 3) file: canonical entries with an
// id, leaf control rows, and other records linked by id and parentId. The
// entry schemas are checked only where they decide navigation (a label's
// target, a compaction's first kept entry, a message's role).
func navNode(r jsonl.Node, line int) session.Node {
	n := session.Node{Line: line}
	if !r.IsObject() {
		return n
	}
	if t, ok := r.Get("type").Str(); ok {
		n.Type = session.ParseEntryType(t)
	}
	id, parent := refOf(r.Get("id")), refOf(r.Get("parentId"))
	mode := r.Get("appendMode")
	side := mode.StrEquals("side")
	switch {
	case n.Type.Canonical() && id.IsID() && parent.State != session.RefOther && timestampOK(r) && fieldsOK(r, n.Type):
		n.Kind, n.Side = session.NodeEntry, side
		n.TargetID, n.FirstKeptID = refOf(r.Get("targetId")), refOf(r.Get("firstKeptEntryId"))
	case n.Type == session.TypeLeaf && id.IsID() && parent.StrOrNull() && (!mode.Exists() || side):
		target, ap := refOf(r.Get("targetId")), refOf(r.Get("appendParentId"))
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

func timestampOK(r jsonl.Node) bool {
	ts := r.Get("timestamp")
	return !ts.Exists() || ts.IsString()
}

// fieldsOK is the part of the entry schemas that decides navigation.
func fieldsOK(r jsonl.Node, t session.EntryType) bool {
	switch t {
	case session.TypeMessage:
		return r.Get("message").IsObject() && r.Path("message", "role").IsString()
	case session.TypeLabel:
		return refOf(r.Get("targetId")).IsID()
	case session.TypeCompaction:
		return refOf(r.Get("firstKeptEntryId")).IsID()
	}
	return true
}

// refOf reads a reference member; its string aliases the line.
func refOf(n jsonl.Node) session.Ref {
	switch {
	case !n.Exists():
		return session.Ref{}
	case n.IsNull():
		return session.Null
	case n.IsString():
		s, _ := n.Str()
		return session.Str(s)
	}
	return session.Ref{State: session.RefOther}
}

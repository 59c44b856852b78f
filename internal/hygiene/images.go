package hygiene

import (
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/media"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// This file is OpenClaw's replay image sanitizer (docs/replay.md,
// OpenClaw's sanitizeContentBlocksImages, label
// "session:history"). Each image block is kept (canonical base64, sniffed
// MIME type), re-encoded as a smaller JPEG, or replaced by OpenClaw's exact
// text placeholder. Images are probed from their header first and decoded
// only when the header says they may be too big; distinct payloads are
// processed in parallel.

const (
	ruleImageResize = "images/resize"
	ruleImageOmit   = "images/omit"
	ruleImageMIME   = "images/mime"
	ruleImageBase64 = "images/base64"

	imageLabel = "[session:history] "
)

// sanitizeSessionImages sanitizes, in one parallel batch, every image block
// the image pass would reach: the array content of user and toolResult
// messages. Running it before the per-message pass changes nothing in that
// pass's result (the sanitizer is idempotent) but lets images of different
// messages be processed at the same time, and records changes with their
// message.
func sanitizeSessionImages(r *Run, msgs []Message) {
	var sites []imageSite
	for i := range msgs {
		m := &msgs[i]
		switch session.Role(&m.V) {
		case session.RoleUser, session.RoleToolResult:
		default:
			continue
		}
		content := m.V.Get("content")
		if !content.IsArray() {
			continue
		}
		if !slices.ContainsFunc(content.Items(), func(it jsonl.Member) bool { return isImageBlock(&it.Value) }) {
			continue
		}
		// The sanitizer writes the image blocks in place: they are the
		// message's own copies (the runs of a segmented replay share the
		// values they are given).
		items := slices.Clone(content.Items())
		var blocks []*jsonl.Value // the image blocks: the only ones collectImageJobs reads
		for j := range items {
			if b := &items[j].Value; isImageBlock(b) {
				*b = shallowObject(b)
				blocks = append(blocks, b)
			}
		}
		m.V = withMember(&m.V, "content", arrayOf(items))
		sites = append(sites, imageSite{msg: m, blocks: blocks})
	}
	sanitizeImageSet(r, sites)
}

// imageSite is the content blocks of one message (msg nil when unknown).
type imageSite struct {
	msg    *Message
	blocks []*jsonl.Value
}

// isImageBlock reports a content block of type "image".
func isImageBlock(b *jsonl.Value) bool { return b.IsObject() && b.Get("type").StrOr("") == "image" }

// imageJob is one image payload to sanitize; identical payloads share a job.
type imageJob struct {
	data, mime string
	result     media.Sanitized
	omitted    string
}

// imageUse ties a block to the job that decides it.
type imageUse struct {
	msg   *Message
	block *jsonl.Value
	job   int // -1: the block lacks string data or mimeType
}

func sanitizeImageSet(r *Run, sites []imageSite) {
	uses, jobs := collectImageJobs(sites)
	if len(uses) == 0 {
		return
	}
	runImageJobs(jobs, imageLimits(r.Target))
	for _, u := range uses {
		if u.job < 0 {
			replaceWithPlaceholder(r, u.msg, u.block, "image payload: missing data or mimeType")
			continue
		}
		applyImageJob(r, u.msg, u.block, jobs[u.job])
	}
}

// collectImageJobs finds the image blocks (objects with type "image") and
// gives each distinct (data, mimeType) pair one job.
func collectImageJobs(sites []imageSite) ([]imageUse, []*imageJob) {
	var uses []imageUse
	var jobs []*imageJob
	index := map[[2]string]int{}
	for _, s := range sites {
		for _, b := range s.blocks {
			if !isImageBlock(b) {
				continue
			}
			data, okData := b.GetStr("data")
			mime, okMIME := b.GetStr("mimeType")
			if !okData || !okMIME {
				uses = append(uses, imageUse{s.msg, b, -1})
				continue
			}
			key := [2]string{data, mime}
			j, seen := index[key]
			if !seen {
				j = len(jobs)
				index[key] = j
				jobs = append(jobs, &imageJob{data: data, mime: mime})
			}
			uses = append(uses, imageUse{s.msg, b, j})
		}
	}
	return uses, jobs
}

// runImageJobs sanitizes the jobs on up to GOMAXPROCS goroutines. Each
// worker holds at most one decoded image, so memory stays bounded by the
// worker count times the largest image (25 million pixels).
func runImageJobs(jobs []*imageJob, lim media.Limits) {
	workers := min(runtime.GOMAXPROCS(0), len(jobs))
	next := make(chan *imageJob)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				j.result, j.omitted = media.Sanitize(j.data, j.mime, lim)
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
}

// imageLimits is OpenClaw's limits for the target: the configured max side
// (0 means the default 1200) and 5 MiB.
func imageLimits(t Target) media.Limits {
	lim := media.DefaultLimits
	if t.ImageMaxDimensionPx > 0 {
		lim.MaxSide = t.ImageMaxDimensionPx
	}
	return lim
}

// applyImageJob writes a job's outcome into one block and records it.
func applyImageJob(r *Run, m *Message, b *jsonl.Value, j *imageJob) {
	if j.omitted != "" {
		replaceWithPlaceholder(r, m, b, j.omitted)
		return
	}
	s := j.result
	switch {
	case s.Resized:
		r.Record(ruleImageResize, m, "%s %dx%d (%s) re-encoded as JPEG %dx%d q%d (%s)",
			strings.ToUpper(s.SourceFormat), s.SourceWidth, s.SourceHeight, media.FormatBytesShort(s.SourceBytes),
			s.Width, s.Height, s.Quality, media.FormatBytesShort(media.DecodedLen(s.Data)))
	case s.MIMEType != j.mime:
		r.Record(ruleImageMIME, m, "mimeType %q replaced by the sniffed %q", j.mime, s.MIMEType)
	}
	if !s.Resized && s.Data != j.data {
		r.Record(ruleImageBase64, m, "image payload rewritten as canonical base64")
	}
	// OpenClaw spreads the block and overrides data and mimeType, so every
	// other field stays, and both keep their places.
	b.Set("data", jsonl.StringValue(s.Data))
	b.Set("mimeType", jsonl.StringValue(s.MIMEType))
}

// replaceWithPlaceholder turns b into OpenClaw's text placeholder
// "[session:history] omitted <what>".
func replaceWithPlaceholder(r *Run, m *Message, b *jsonl.Value, what string) {
	text := imageLabel + "omitted " + what
	*b = jsonl.ObjectOf(
		jsonl.Member{Key: "type", Value: jsonl.StringValue("text")},
		jsonl.Member{Key: "text", Value: jsonl.StringValue(text)},
	)
	r.Record(ruleImageOmit, m, "%s", text)
}

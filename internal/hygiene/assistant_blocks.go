package hygiene

import (
	"fmt"
	"strings"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// normalizeAssistantBlocks is the block filter of step 3 that three rules
// share: assistant/display-blocks, assistant/no-reply and
// assistant/internal-metadata (each rule's own code is in its file).

// normalizeAssistantBlocks filters array content and reports whether the
// message survives.
func normalizeAssistantBlocks(r *Run, m *Message) bool {
	content := m.V.Get("content")
	items := content.Items()
	// kept and src (each kept block's index, -1 when changed) are built
	// once a block is touched: every block before it was kept as it is.
	var kept []jsonl.Value
	var src []int
	touched, removedSilent := false, false
	touch := func(i int) {
		if touched {
			return
		}
		touched = true
		kept, src = make([]jsonl.Value, 0, len(items)), make([]int, 0, len(items))
		for j := 0; j < i; j++ {
			kept, src = append(kept, items[j].Value), append(src, j)
		}
	}
	keep := func(i int) {
		if touched {
			kept, src = append(kept, items[i].Value), append(src, i)
		}
	}
	var display, silent, stripped int
	for i := range items {
		b := &items[i].Value
		if !b.IsObject() {
			keep(i)
			continue
		}
		if managedDisplayBlockTypes[b.Get("type").StrOr("")] {
			touch(i)
			display++
			continue
		}
		text, ok := b.GetStr("text")
		if !ok {
			keep(i)
			continue
		}
		clean := stripInternalMetadataForDisplay(text)
		if clean == text {
			if isSilentReplyPayloadText(jsonl.TrimJS(text)) {
				touch(i)
				removedSilent = true
				silent++
			} else {
				keep(i)
			}
			continue
		}
		touch(i)
		stripped++
		trimmed := jsonl.TrimJS(clean)
		isSilent := trimmed != "" && isSilentReplyPayloadText(trimmed)
		if trimmed != "" && !isSilent {
			nb := b.Clone()
			nb.Set("text", jsonl.StringValue(clean))
			kept, src = append(kept, nb), append(src, -1)
		}
		removedSilent = removedSilent || isSilent
	}
	if !touched {
		return true
	}
	if len(kept) == 0 {
		r.Record(emptiedBy(display, silent), m, "assistant turn left without content (%s), removed", blockChangeSummary(display, silent, stripped))
		return false
	}
	recordBlockChanges(r, m, display, silent, stripped)
	setAssistantContent(&m.V, kept, src, len(items))
	if removedSilent && hasOnlyReasoningContent(&m.V) {
		r.Record(ruleSilentReply, m, "silent reply with only reasoning left removed")
		return false
	}
	return true
}

// emptiedBy names the rule that removed an assistant's last blocks.
func emptiedBy(display, silent int) string {
	switch {
	case silent > 0:
		return ruleSilentReply
	case display > 0:
		return ruleDisplayBlocks
	}
	return ruleInternalMetadata
}

func blockChangeSummary(display, silent, stripped int) string {
	var parts []string
	if silent > 0 {
		parts = append(parts, fmt.Sprintf("%d NO_REPLY block(s)", silent))
	}
	if display > 0 {
		parts = append(parts, fmt.Sprintf("%d display-only block(s)", display))
	}
	if stripped > 0 {
		parts = append(parts, fmt.Sprintf("%d block(s) of internal metadata only", stripped))
	}
	return strings.Join(parts, ", ")
}

func recordBlockChanges(r *Run, m *Message, display, silent, stripped int) {
	if display > 0 {
		r.Record(ruleDisplayBlocks, m, "%d display-only block(s) removed (image, audio, video, attachment)", display)
	}
	if silent > 0 {
		r.Record(ruleSilentReply, m, "%d NO_REPLY text block(s) removed", silent)
	}
	if stripped > 0 {
		r.Record(ruleInternalMetadata, m, "internal metadata stripped from %d text block(s)", stripped)
	}
}

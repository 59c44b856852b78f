package hygiene

import (
	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// This file is step 13 of the replay (docs/replay.md): the bundled
// provider plugins' sanitizeReplayHistory hooks. Only two kinds exist in
// 2026.9.6: the Google family's turn-ordering bootstrap and GitHub
// Copilot's removal of thinking blocks.

const ruleCopilotThinking = "github-copilot/thinking"

// copilotReasoningOmitted replaces an assistant emptied by the Copilot hook.
const copilotReasoningOmitted = "[assistant reasoning omitted]"

// The replay hooks a target's provider plugin may have.
type replayHook uint8

const (
	noReplayHook replayHook = iota
	googleReplayHook
	copilotReplayHook
)

// replayHookOf is the replay hook of t's provider plugin for t's api.
func replayHookOf(t Target) replayHook {
	api := t.ModelAPI
	switch NormalizeProvider(t.Provider) {
	case "google", "google-gemini-cli", "google-vertex":
		return googleReplayHook
	case "clawrouter":
		if api == "google-generative-ai" {
			return googleReplayHook
		}
	case "github-copilot":
		if api == "openai-responses" || api == "anthropic-messages" {
			return copilotReplayHook
		}
	}
	return noReplayHook
}

// providerReplayHook runs the target provider's replay hook, if it has one.
func providerReplayHook(r *Run, msgs []Message) []Message {
	switch replayHookOf(r.Target) {
	case googleReplayHook:
		return googleTurnOrdering(r, msgs)
	case copilotReplayHook:
		return stripCopilotThinking(r, msgs)
	}
	return msgs
}

// stripCopilotThinking removes thinking and redacted_thinking blocks from
// every assistant; an assistant left empty gets one placeholder text block.
func stripCopilotThinking(r *Run, msgs []Message) []Message {
	out := msgs // copied before a message changes (listToWrite)
	for i := range msgs {
		m := &msgs[i]
		content := m.V.Get("content")
		if session.Role(&m.V) != session.RoleAssistant || !content.IsArray() {
			continue
		}
		kept := make([]jsonl.Member, 0, content.Len())
		for _, it := range content.Items() {
			if !session.IsThinkingType(session.BlockType(&it.Value)) {
				kept = append(kept, it)
			}
		}
		if len(kept) == content.Len() {
			continue
		}
		r.Record(ruleCopilotThinking, m, "%d thinking block(s) removed", content.Len()-len(kept))
		if len(kept) == 0 {
			kept = append(kept, jsonl.Member{Value: textBlock(copilotReasoningOmitted)})
		}
		out = listToWrite(out, msgs)
		out[i].V = withMember(&m.V, "content", arrayOf(kept))
	}
	return out
}

// textBlock is {type:"text", text}.
func textBlock(text string) jsonl.Value {
	return jsonl.ObjectOf(
		jsonl.Member{Key: "type", Value: jsonl.StringValue("text")},
		jsonl.Member{Key: "text", Value: jsonl.StringValue(text)},
	)
}

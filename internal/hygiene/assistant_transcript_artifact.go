package hygiene

import "github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"

// ruleTranscriptArtifact is the rule id recorded by this file (step 3).
const ruleTranscriptArtifact = "assistant/transcript-artifact"

// isTranscriptOnlyArtifact reports an assistant that OpenClaw wrote to the
// transcript itself (a delivery mirror or a gateway-injected turn).
func isTranscriptOnlyArtifact(msg *jsonl.Value) bool {
	if msg.Get("provider").StrOr("") == "openclaw" {
		if model, ok := msg.GetStr("model"); ok && (model == "delivery-mirror" || model == "gateway-injected") {
			return true
		}
	}
	marker := msg.Get("openclawDeliveryMirror")
	if !marker.IsObject() {
		return false
	}
	switch marker.Get("kind").StrOr("") {
	case "channel-final", "channel-final-suppressed", "message-tool-source-reply", "cron-direct-delivery-context":
		return true
	}
	return false
}

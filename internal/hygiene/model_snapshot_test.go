package hygiene

import (
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

func TestApplyModelSnapshot(t *testing.T) {
	const now = 1767225600000
	target := Target{Provider: "openai", ModelAPI: "openai-responses", ModelID: "gpt-5"}
	snap := func(s string) *jsonl.Value {
		v, err := jsonl.Parse([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return &v
	}
	tests := []struct {
		name      string
		target    Target
		last      *jsonl.Value
		switchAt  float64
		hasSwitch bool
		switched  bool
		at        int64
	}{
		{"no snapshot", target, nil, 0, false, false, 0},
		{"same model, no earlier switch", target, snap(`{"provider":"openai","modelApi":"openai-responses","modelId":"gpt-5"}`), 0, false, false, 0},
		{"same model, earlier switch", target, snap(`{"provider":"openai","modelApi":"openai-responses","modelId":"gpt-5"}`), 1234, true, true, 1234},
		{"other model: switch now", target, snap(`{"provider":"anthropic","modelApi":"anthropic-messages","modelId":"claude"}`), 1234, true, true, now},
		{"provider compared as given", Target{Provider: "OpenAI", ModelAPI: "openai-responses", ModelID: "gpt-5"}, snap(`{"provider":"openai","modelApi":"openai-responses","modelId":"gpt-5"}`), 0, false, true, now},
		{"null fields count as empty", Target{Provider: "openai"}, snap(`{"provider":"openai","modelApi":null}`), 0, false, false, 0},
		{"empty target", Target{}, snap(`{"provider":"x"}`), 0, false, false, 0},
	}
	for _, tt := range tests {
		r := replayTestRun(tt.target)
		ApplyModelSnapshot(r, tt.last, tt.switchAt, tt.hasSwitch)
		if r.ModelSwitched != tt.switched || r.ModelSwitchAt != tt.at {
			t.Errorf("%s: switched=%v at=%d, want %v %d", tt.name, r.ModelSwitched, r.ModelSwitchAt, tt.switched, tt.at)
		}
	}
}

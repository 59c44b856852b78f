package hygiene

import (
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

func TestCompleteTarget(t *testing.T) {
	sctx := &session.Context{Model: &session.Model{Provider: "anthropic", ModelID: "claude-opus-4-6"}, ModelAPI: "anthropic-messages"}
	custom := &session.Context{Model: &session.Model{Provider: "acme", ModelID: "a1"}, ModelAPI: "acme-api"}
	for _, c := range []struct {
		in   Target
		ctx  *session.Context
		want Target
		err  error
	}{
		{Target{}, sctx, Target{Provider: "anthropic", ModelAPI: "anthropic-messages", ModelID: "claude-opus-4-6"}, nil},
		{Target{Provider: "Anthropic "}, sctx, Target{Provider: "Anthropic ", ModelAPI: "anthropic-messages", ModelID: "claude-opus-4-6"}, nil},
		{Target{Provider: "openai"}, sctx, Target{Provider: "openai", ModelAPI: "openai-responses"}, nil},
		{Target{Provider: "mistral", ModelID: "m"}, nil, Target{Provider: "mistral", ModelAPI: "openai-completions", ModelID: "m"}, nil},
		{Target{Provider: "acme"}, custom, Target{Provider: "acme", ModelAPI: "acme-api", ModelID: "a1"}, nil},
		{Target{Provider: "other"}, custom, Target{Provider: "other"}, nil},
		{Target{}, &session.Context{}, Target{}, ErrNoProvider},
	} {
		got, err := CompleteTarget(c.in, c.ctx)
		if got != c.want || err != c.err {
			t.Errorf("CompleteTarget(%+v) = %+v, %v; want %+v, %v", c.in, got, err, c.want, c.err)
		}
	}
}

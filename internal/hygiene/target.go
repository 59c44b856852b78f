package hygiene

import (
	"errors"

	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// ErrNoProvider is CompleteTarget's error for a target without a provider
// for a session that records no model.
var ErrNoProvider = errors.New("no provider: the session records no model")

// CompleteTarget fills in what t leaves out from the session, as `replay`
// and `check --provider` do. Without a provider, the target is the
// session's: the provider and model of its last model change or assistant
// turn, and the api of its last assistant turn (or the provider's usual
// api). A provider given alone implies its usual api ([DefaultModelAPI]);
// the session's api is used only when the given provider is the session's
// and has no usual api, the session's model id whenever the provider is the
// session's. sctx may be nil (nothing known of the session).
func CompleteTarget(t Target, sctx *session.Context) (Target, error) {
	var sessionProvider, sessionModel, sessionAPI string
	if sctx != nil && sctx.Model != nil {
		sessionProvider, sessionModel, sessionAPI = sctx.Model.Provider, sctx.Model.ModelID, sctx.ModelAPI
	}
	fromSession := t.Provider == ""
	sameProvider := fromSession || NormalizeProvider(t.Provider) == NormalizeProvider(sessionProvider)
	if fromSession {
		t.Provider = sessionProvider
	}
	if t.Provider == "" {
		return t, ErrNoProvider
	}
	if t.ModelID == "" && sameProvider {
		t.ModelID = sessionModel
	}
	if t.ModelAPI == "" && fromSession {
		t.ModelAPI = sessionAPI
	}
	if t.ModelAPI == "" {
		t.ModelAPI = DefaultModelAPI(t.Provider)
	}
	if t.ModelAPI == "" && sameProvider {
		t.ModelAPI = sessionAPI
	}
	return t, nil
}

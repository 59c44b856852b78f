package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/hygiene"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// replaySession has a tool-call id Mistral rewrites, a call without a
// result, a NO_REPLY turn, and a result with details.
const replaySession = `{"type":"session","version":3,"id":"s","timestamp":"2026-03-14T09:26:53.589Z","cwd":"/w"}
{"type":"message","id":"u1","parentId":null,"timestamp":"2026-03-14T09:27:00.000Z","message":{"role":"user","content":"List the files.","timestamp":1773480420000}}
{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-03-14T09:27:05.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Listing."},{"type":"toolCall","id":"call_01HX|item:7","name":"list_dir","arguments":{"path":"."}}],"api":"openai-completions","provider":"openai","model":"gpt-4.1","usage":{"input":20,"output":5},"stopReason":"toolUse","timestamp":1773480425000}}
{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-03-14T09:27:06.000Z","message":{"role":"toolResult","toolCallId":"call_01HX|item:7","toolName":"list_dir","content":[{"type":"text","text":"a.txt"}],"details":{"count":1},"isError":false,"timestamp":1773480426000}}
{"type":"message","id":"a2","parentId":"r1","timestamp":"2026-03-14T09:27:07.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_02","name":"read","arguments":{"path":"a.txt"}}],"api":"openai-completions","provider":"openai","model":"gpt-4.1","usage":{"input":30,"output":4,"cacheRead":0,"cacheWrite":0,"totalTokens":34},"stopReason":"toolUse","timestamp":1773480427000}}
{"type":"message","id":"u2","parentId":"a2","timestamp":"2026-03-14T09:27:09.000Z","message":{"role":"user","content":"Never mind.","timestamp":1773480429000}}
{"type":"message","id":"a3","parentId":"u2","timestamp":"2026-03-14T09:27:10.000Z","message":{"role":"assistant","content":[{"type":"text","text":"NO_REPLY"}],"api":"openai-completions","provider":"openai","model":"gpt-4.1","usage":{"input":9,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":10},"stopReason":"stop","timestamp":1773480430000}}
`

// replayFor replays replaySession for target with a frozen clock.
func replayFor(t *testing.T, target hygiene.Target) (*hygiene.Run, int, []hygiene.Message, error) {
	t.Helper()
	sctx, err := session.ReadContext(strings.NewReader(replaySession))
	if err != nil {
		t.Fatal(err)
	}
	r := &hygiene.Run{Config: hygiene.NewConfig(target)}
	r.Now = func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
	n := len(sctx.Messages)
	msgs, replayErr := hygiene.ReplayContext(r, sctx)
	return r, n, msgs, replayErr
}

// messageLine is the start of a replayed message's line: "%4d  L3 ".
var messageLine = regexp.MustCompile(`(?m)^ *\d+  (L\d+|new) `)

var mistral = hygiene.Target{Provider: "mistral", ModelAPI: "openai-completions", ModelID: "mistral-large-latest"}

func TestReplayTextGolden(t *testing.T) {
	for _, diff := range []bool{false, true} {
		r, n, msgs, replayErr := replayFor(t, mistral)
		if replayErr != nil {
			t.Fatal(replayErr)
		}
		var b bytes.Buffer
		if err := ReplayText(&b, r, n, msgs, nil, diff); err != nil {
			t.Fatal(err)
		}
		name := "replay.txt"
		if diff {
			name = "replay-diff.txt"
		}
		golden(t, name, b.Bytes())
		if got := len(messageLine.FindAllString(b.String(), -1)); got != len(msgs) {
			t.Errorf("%d message lines for %d messages:\n%s", got, len(msgs), b.String())
		}
	}
}

// TestReplayJSONIsOneDocument: the streamed document parses, holds the
// head, every message and (with diff) every change.
func TestReplayJSONIsOneDocument(t *testing.T) {
	r, _, msgs, _ := replayFor(t, mistral)
	var b bytes.Buffer
	if err := ReplayJSON(&b, r, msgs, nil, true); err != nil {
		t.Fatal(err)
	}
	golden(t, "replay.json", b.Bytes())
	var doc struct {
		Provider, ModelAPI, ModelID string
		Policy                      map[string]any
		Messages                    []map[string]any
		Changes                     []map[string]any
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, b.String())
	}
	if doc.Provider != "mistral" || doc.Policy["toolCallIdMode"] != "strict9" || len(doc.Messages) != len(msgs) || len(doc.Changes) != len(r.Changes) {
		t.Errorf("document = %+v", doc)
	}
}

func TestReplayJSONRefusal(t *testing.T) {
	r := &hygiene.Run{Config: hygiene.NewConfig(hygiene.Target{Provider: "openai", ModelAPI: "openai-responses", ModelID: "gpt-5"})}
	var b bytes.Buffer
	if err := ReplayJSON(&b, r, nil, errors.New("invalid_replay_transcript: x \"y\""), false); err != nil {
		t.Fatal(err)
	}
	want := `,"error":{"name":"Error","message":"invalid_replay_transcript: x \"y\""}}` + "\n"
	if !strings.HasSuffix(b.String(), want) || strings.Contains(b.String(), "messages") {
		t.Errorf("got %s", b.String())
	}
}

func TestReplayLoaderErrorJSON(t *testing.T) {
	r := &hygiene.Run{Config: hygiene.NewConfig(mistral)}
	for msg, want := range map[string]string{
		"TypeError: Cannot read properties of null (reading 'type')": `"error":{"name":"TypeError","message":"Cannot read properties of null (reading 'type')"}}`,
		"no name here": `"error":{"name":"Error","message":"no name here"}}`,
	} {
		var b bytes.Buffer
		if err := ReplayLoaderErrorJSON(&b, r, &session.LoaderError{Line: 1, Msg: msg}); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(b.String(), want+"\n") {
			t.Errorf("%q: got %s", msg, b.String())
		}
	}
}

func TestReplayPolicy(t *testing.T) {
	r := &hygiene.Run{Config: hygiene.NewConfig(mistral)}
	var text, js bytes.Buffer
	if err := ReplayPolicyText(&text, r); err != nil {
		t.Fatal(err)
	}
	if err := ReplayPolicyJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	golden(t, "policy.txt", text.Bytes())
	var doc map[string]any
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil || doc["modelId"] != "mistral-large-latest" {
		t.Errorf("policy JSON %s: %v", js.String(), err)
	}
	// One line per policy field, in the JSON's order.
	if lines := strings.Count(text.String(), "\n"); lines != 1+len(doc["policy"].(map[string]any)) {
		t.Errorf("%d lines for %d fields:\n%s", lines, len(doc["policy"].(map[string]any)), text.String())
	}
}

package hygiene

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/media"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// The conformance corpus: OpenClaw's own replay of every case for every
// target (testdata/conformance, see its README for the masking rules).
var conformanceDir = filepath.Join("..", "..", "testdata", "conformance")

// imageCases are the cases whose outcome depends on the image rule; the
// stream tests leave them out (their images make them slow to replay many
// times).
var imageCases = []string{"28-", "30-", "31-", "35-", "36-", "64-"}

// expectedReplay is an expected/<case>.replay.<target>.json file.
type expectedReplay struct {
	Messages []any `json:"messages"`
	Error    *struct {
		Name, Message string
	} `json:"error"`
}

// TestReplayConformance replays every case of the corpus for every target
// and compares the messages (or the error) with OpenClaw's.
func TestReplayConformance(t *testing.T) {
	cases := sessiontest.ShortSample(sessiontest.ConformanceCases(t), 4, nil) // every case without -short
	targets := readConformanceTargets(t)
	var failed []string
	for _, casePath := range cases {
		name := strings.TrimSuffix(filepath.Base(casePath), ".jsonl")
		data, err := os.ReadFile(casePath)
		if err != nil {
			t.Fatal(err)
		}
		for _, ct := range targets {
			t.Run(name+"/"+ct.Name, func(t *testing.T) {
				problem := replayConformanceCase(t, data, name, ct)
				if problem == "" {
					return
				}
				failed = append(failed, name+" ["+ct.Name+"]")
				t.Error(problem)
			})
		}
	}
	t.Logf("replay conformance: %d case×target mismatches", len(failed))
}

func isImageCase(name string) bool {
	for _, p := range imageCases {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// conformanceRun is a Run as the corpus was made: clock frozen at
// 2026-01-01T00:00:00Z, UUIDs from a counter.
func conformanceRun(t Target) *Run {
	frozen := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	return &Run{Config: Config{
		Target: t, Policy: ResolvePolicy(t),
		Now: func() time.Time { return frozen },
		UUID: func() string {
			n++
			return fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
		},
	}}
}

// replayConformanceCase returns "" when our replay of the case matches
// OpenClaw's, else the first difference.
func replayConformanceCase(t *testing.T, data []byte, name string, ct conformanceTarget) string {
	raw, err := os.ReadFile(filepath.Join(conformanceDir, "expected", name+".replay."+ct.Name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var exp expectedReplay
	if err := json.Unmarshal(raw, &exp); err != nil {
		t.Fatal(err)
	}
	ctx, err := session.ReadContext(bytes.NewReader(data))
	if err != nil {
		return fmt.Sprintf("loading the session: %v", err)
	}
	msgs, err := ReplayContext(conformanceRun(ct.Target), ctx)
	if exp.Error != nil {
		if err == nil || !strings.HasPrefix(err.Error(), exp.Error.Message) {
			return fmt.Sprintf("want error %q, got %v", exp.Error.Message, err)
		}
		return ""
	}
	if err != nil {
		return fmt.Sprintf("unexpected error: %v", err)
	}
	got, err := messagesAsJSON(msgs)
	if err != nil {
		return err.Error()
	}
	if path, e, a, ok := firstDiff(maskMessages(exp.Messages), got, "messages"); !ok {
		return fmt.Sprintf("%s: want %s, got %s", path, short(e), short(a))
	}
	return ""
}

// messagesAsJSON writes msgs as OpenClaw would (JSON.stringify) and reads
// them back with encoding/json, as the expected files are read.
func messagesAsJSON(msgs []Message) ([]any, error) {
	buf := []byte{'['}
	for i := range msgs {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = jsonl.AppendJSON(buf, &msgs[i].V)
	}
	buf = append(buf, ']')
	var out []any
	if err := json.Unmarshal(buf, &out); err != nil {
		return nil, fmt.Errorf("our output is not JSON: %v", err)
	}
	return out, nil
}

// masked stands for a value compared only by kind.
type masked struct{}

var syntheticTexts = map[string]bool{abortedResultText: true, syntheticResultText: true}

// maskMessages masks the timestamps of synthetic tool results and of the
// Google bootstrap turn (OpenClaw takes them from the clock).
func maskMessages(msgs []any) []any {
	out := make([]any, len(msgs))
	for i, m := range msgs {
		out[i] = m
		obj, ok := m.(map[string]any)
		if !ok || (!isSyntheticResult(obj) && !(obj["role"] == "user" && obj["content"] == googleBootstrapText)) {
			continue
		}
		cp := map[string]any{}
		for k, v := range obj {
			cp[k] = v
		}
		if _, has := cp["timestamp"]; has {
			cp["timestamp"] = masked{}
		}
		out[i] = cp
	}
	return out
}

func isSyntheticResult(m map[string]any) bool {
	if m["role"] != "toolResult" {
		return false
	}
	if d, ok := m["details"].(map[string]any); ok && d["openclawSyntheticMissingToolResult"] == true {
		return true
	}
	blocks, _ := m["content"].([]any)
	for _, b := range blocks {
		if bm, ok := b.(map[string]any); ok && m["isError"] == true {
			if s, ok := bm["text"].(string); ok && syntheticTexts[s] {
				return true
			}
		}
	}
	return false
}

// firstDiff compares expected and actual values; images are compared by
// MIME type and pixel size (and stay within 5 MiB), not by bytes.
func firstDiff(exp, act any, path string) (string, any, any, bool) {
	switch e := exp.(type) {
	case masked:
		return "", nil, nil, true
	case map[string]any:
		a, ok := act.(map[string]any)
		if !ok {
			return path, exp, act, false
		}
		if e["type"] == "image" && e["data"] != nil {
			return compareImages(e, a, path)
		}
		keys := make([]string, 0, len(e)+len(a))
		for k := range e {
			keys = append(keys, k)
		}
		for k := range a {
			if _, dup := e[k]; !dup {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			ev, eok := e[k]
			av, aok := a[k]
			if !eok || !aok {
				return path + "." + k, presence(ev, eok), presence(av, aok), false
			}
			if p, x, y, ok := firstDiff(ev, av, path+"."+k); !ok {
				return p, x, y, false
			}
		}
		return "", nil, nil, true
	case []any:
		a, ok := act.([]any)
		if !ok {
			return path, exp, act, false
		}
		for i := 0; i < len(e) && i < len(a); i++ {
			if p, x, y, ok := firstDiff(e[i], a[i], fmt.Sprintf("%s[%d]", path, i)); !ok {
				return p, x, y, false
			}
		}
		if len(e) != len(a) {
			return fmt.Sprintf("%s (length)", path), len(e), len(a), false
		}
		return "", nil, nil, true
	}
	if !reflect.DeepEqual(exp, act) {
		return path, exp, act, false
	}
	return "", nil, nil, true
}

func presence(v any, ok bool) any {
	if !ok {
		return "<absent>"
	}
	return v
}

func compareImages(e, a map[string]any, path string) (string, any, any, bool) {
	if a["type"] != "image" || a["mimeType"] != e["mimeType"] {
		return path, e["mimeType"], a["mimeType"], false
	}
	ed, eok := imageSize(e["data"])
	ad, aok := imageSize(a["data"])
	if !eok {
		if !reflect.DeepEqual(e["data"], a["data"]) {
			return path + ".data", "the same undecodable bytes", "other bytes", false
		}
	} else if !aok || ed != ad {
		return path + ".data", ed, ad, false
	}
	for k, v := range e {
		if k != "data" && k != "mimeType" && !reflect.DeepEqual(v, a[k]) {
			return path + "." + k, v, a[k], false
		}
	}
	for k := range a {
		if _, ok := e[k]; !ok {
			return path + "." + k, "<absent>", a[k], false
		}
	}
	return "", nil, nil, true
}

// imageSize decodes a base64 payload and reads its pixel size; payloads over
// OpenClaw's 5 MiB limit count as undecodable.
func imageSize(data any) (string, bool) {
	s, ok := data.(string)
	if !ok {
		return "", false
	}
	s = strings.Join(strings.Fields(s), "")
	b, err := base64.StdEncoding.DecodeString(s + strings.Repeat("=", (4-len(s)%4)%4))
	if err != nil || len(b) > 5<<20 {
		return "", false
	}
	h, ok := media.ReadHeader(b)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("%s %dx%d", h.Format, h.Width, h.Height), true
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 160 {
		return string(b[:157]) + "..."
	}
	return string(b)
}

package cmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// storeReplayGolden is OpenClaw's replay of one store session, as the
// runtime loads it before a model call, for every conformance target
// (testdata/stores/<store>/golden/replay/, made by testdata/stores/make.sh).
type storeReplayGolden struct {
	SessionKey         string `json:"sessionKey"`
	View               string `json:"view"` // "bounded" or "full"
	ContextTokenBudget int64  `json:"contextTokenBudget"`
	Truncated          bool   `json:"truncated"`
	Targets            map[string]struct {
		Provider string `json:"provider"`
		ModelAPI string `json:"modelApi"`
		ModelID  string `json:"modelId"`
		Messages []any  `json:"messages"`
		Error    *struct {
			Name, Message string
		} `json:"error"`
	} `json:"targets"`
}

// TestStoreReplayMatchesOpenClaw runs `replay --session` on every store
// session with an OpenClaw replay golden, for every conformance target,
// and compares the final messages (or the refusal) with OpenClaw's.
func TestStoreReplayMatchesOpenClaw(t *testing.T) {
	targets := conformanceTargetNames(t)
	paths := sessiontest.Glob(t, filepath.Join("testdata", "stores", "*", "golden", "replay", "*.json*"))
	truncated := false
	for _, path := range paths {
		g := readStoreReplayGolden(t, path)
		truncated = truncated || g.Truncated
		state := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(path))), "state")
		for _, name := range targets {
			target, ok := g.Targets[name]
			if !ok {
				t.Errorf("%s: no target %s", path, name)
				continue
			}
			t.Run(filepath.Base(path)+"/"+name, func(t *testing.T) {
				args := []string{"replay", "--format", "json", "--session", g.SessionKey, "--provider", target.Provider,
					"--model-api", target.ModelAPI, "--model-id", target.ModelID}
				switch {
				case g.View == "full":
					args = append(args, "--full")
				case g.ContextTokenBudget != 200_000: // the default is left to replay
					args = append(args, "--context-tokens", strconv.FormatInt(g.ContextTokenBudget, 10))
				}
				var out, errOut bytes.Buffer
				code := run(context.Background(), append(args, state), streams{In: strings.NewReader(""), Out: &out, Err: &errOut}, frozenEnv)
				var got struct {
					Messages []any `json:"messages"`
					Error    *struct {
						Name, Message string
					} `json:"error"`
				}
				if err := json.Unmarshal(out.Bytes(), &got); err != nil {
					t.Fatalf("exit %d, output not JSON: %v\n%s", code, err, errOut.String())
				}
				if target.Error != nil {
					if code != exitFindings || got.Error == nil || *got.Error != *target.Error {
						t.Fatalf("want OpenClaw's refusal %+v, got exit %d, error %+v", *target.Error, code, got.Error)
					}
					return
				}
				if code != exitOK {
					t.Fatalf("exit %d: %s", code, errOut.String())
				}
				if where := firstMessageDiff(target.Messages, got.Messages); where != "" {
					t.Errorf("%d messages, OpenClaw %d; first difference at %s", len(got.Messages), len(target.Messages), where)
				}
			})
		}
	}
	if !truncated {
		t.Error("no golden has a bounded view that truncates the session")
	}
}

// conformanceTargetNames are the target names of targets.txt.
func conformanceTargetNames(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "conformance", "targets.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) >= 4 && !strings.HasPrefix(fields[0], "#") {
			names = append(names, strings.TrimSuffix(fields[0], ":"))
		}
	}
	if err := sc.Err(); err != nil || len(names) == 0 {
		t.Fatalf("targets.txt: %v, %d targets", err, len(names))
	}
	return names
}

// readStoreReplayGolden reads a golden, compressed with zstd when its name
// ends in .zst.
func readStoreReplayGolden(t *testing.T, path string) storeReplayGolden {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(path, ".zst") {
		dec, err := zstd.NewReader(nil, zstd.WithDecoderMaxWindow(1<<27))
		if err != nil {
			t.Fatal(err)
		}
		defer dec.Close()
		if data, err = dec.DecodeAll(data, nil); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	var g storeReplayGolden
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if g.SessionKey == "" || len(g.Targets) == 0 {
		t.Fatalf("%s: no session key or no targets", path)
	}
	return g
}

// firstMessageDiff is the path of the first difference between OpenClaw's
// messages and ours ("" when they are equal), both read as JSON.
func firstMessageDiff(want, got []any) string {
	for i := 0; i < len(want) && i < len(got); i++ {
		if !reflect.DeepEqual(want[i], got[i]) {
			w, _ := json.Marshal(want[i])
			g, _ := json.Marshal(got[i])
			return fmt.Sprintf("messages[%d]: want %.300s, got %.300s", i, w, g)
		}
	}
	if len(want) != len(got) {
		return "messages (length)"
	}
	return ""
}

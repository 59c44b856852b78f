package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// storesDir holds the stores OpenClaw made (see testdata/stores/README.md).
const storesDir = "../../testdata/stores"

// golden is the part of OpenClaw's store listing the tests compare.
type golden struct {
	Agents []struct {
		AgentID  string `json:"agentId"`
		Database string `json:"database"`
		Sessions []struct {
			SessionKey      string  `json:"sessionKey"`
			SessionID       string  `json:"sessionId"`
			Events          int64   `json:"events"`
			MaxSeq          int64   `json:"maxSeq"`
			TranscriptBytes int64   `json:"transcriptBytes"`
			UpdatedAt       int64   `json:"updatedAt"`
			Label           *string `json:"label"`
			DisplayName     *string `json:"displayName"`
		} `json:"sessions"`
		Transcripts []struct {
			SessionID       string `json:"sessionId"`
			SessionKey      string `json:"sessionKey"`
			Current         bool   `json:"current"`
			Events          int64  `json:"events"`
			TranscriptBytes int64  `json:"transcriptBytes"`
			UpdatedAt       int64  `json:"updatedAt"`
		} `json:"transcripts"`
		Storage struct {
			SchemaMeta []struct {
				Role          string `json:"role"`
				SchemaVersion int64  `json:"schema_version"`
				AgentID       string `json:"agent_id"`
				AppVersion    string `json:"app_version"`
			} `json:"schemaMeta"`
			ZstdRows int `json:"zstdRows"`
		} `json:"storage"`
	} `json:"agents"`
}

// committedStores lists the stores under testdata/stores with their
// OpenClaw listing, failing when there are none.
func committedStores(t *testing.T) map[string]golden {
	t.Helper()
	out := map[string]golden{}
	lists, err := filepath.Glob(filepath.Join(storesDir, "*", "golden", "list.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range lists {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var g golden
		if err := json.Unmarshal(data, &g); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if len(g.Agents) == 0 {
			t.Fatalf("%s lists no agent", p)
		}
		out[filepath.Base(filepath.Dir(filepath.Dir(p)))] = g
	}
	if len(out) == 0 {
		t.Fatalf("no store under %s", storesDir)
	}
	return out
}

// copyState copies a committed store's state directory into a new temp
// directory, keeping modes and times, and returns the copy's path.
func copyState(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join(storesDir, name, "state")
	dst := filepath.Join(t.TempDir(), "state")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(to, data, 0o644); err != nil {
			return err
		}
		old := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
		return os.Chtimes(to, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// writer opens a read-write connection to a test copy, as OpenClaw would.
func writer(t *testing.T, path string) *sql.DB {
	t.Helper()
	w, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxOpenConns(1)
	t.Cleanup(func() { w.Close() })
	return w
}

func open(t *testing.T, path string) *DB {
	t.Helper()
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

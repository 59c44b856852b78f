package store

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// DatabaseName is the agent database's file name, in
// <state>/agents/<agent>/agent/.
const DatabaseName = "openclaw-agent.sqlite"

// AgentDatabase is one agent's database in a state directory.
type AgentDatabase struct {
	AgentID string
	Path    string
}

// AgentDatabases lists the agent databases of the state directory
// stateDir (<state>/agents/*/agent/openclaw-agent.sqlite), by agent id. A
// state directory without agents has none; an unreadable one is an error.
func AgentDatabases(stateDir string) ([]AgentDatabase, error) {
	entries, err := os.ReadDir(filepath.Join(stateDir, "agents"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: listing agents: %w", err)
	}
	var out []AgentDatabase
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		p := filepath.Join(stateDir, "agents", e.Name(), "agent", DatabaseName)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			out = append(out, AgentDatabase{AgentID: e.Name(), Path: p})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].AgentID < out[j].AgentID })
	return out, nil
}

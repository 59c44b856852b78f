package hygiene

import (
	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// This file is step 2 of the replay (docs/replay.md): the model-change
// test of OpenClaw's sanitizeSessionHistory over the
// state readModelSnapshotState reads from the branch. OpenClaw then appends
// a new snapshot entry to the session; replay never writes anything.

const ruleModelSwitch = "model-snapshot/switch"

// ApplyModelSnapshot sets r.ModelSwitched and r.ModelSwitchAt from the
// branch's model-snapshot state: last is the data of the last
// "model-snapshot" custom entry on the branch (nil when there is none);
// switchAt, when hasSwitch, is the timestamp of the last switch recorded
// between snapshots. When last names another model than r.Target, the
// switch is now (the replay itself switches models); otherwise it is the
// recorded switch, if any. Without a snapshot, or with an empty target,
// there is no switch.
func ApplyModelSnapshot(r *Run, last *jsonl.Value, switchAt float64, hasSwitch bool) {
	r.ModelSwitched, r.ModelSwitchAt = false, 0
	t := r.Target
	if (t.Provider == "" && t.ModelAPI == "" && t.ModelID == "") || last == nil {
		return
	}
	if !session.SnapshotNames(last, t.Provider, t.ModelAPI, t.ModelID) {
		r.ModelSwitched, r.ModelSwitchAt = true, r.NowMillis()
		r.Record(ruleModelSwitch, nil, "session last replayed for %s %s %s, not the target: earlier reasoning counts as another model's",
			snapshotField(last, "provider"), snapshotField(last, "modelApi"), snapshotField(last, "modelId"))
		return
	}
	if hasSwitch {
		r.ModelSwitched, r.ModelSwitchAt = true, int64(switchAt)
	}
}

func snapshotField(data *jsonl.Value, key string) string {
	if s, ok := data.GetStr(key); ok && s != "" {
		return s
	}
	return "-"
}

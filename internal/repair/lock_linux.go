package repair

import (
	"bytes"
	"os"
	"strconv"
)

// processStartTime reads field 22 (starttime, clock ticks since boot) of
// /proc/<pid>/stat, as OpenClaw's getProcessStartTime does. The command name
// (field 2) is parenthesised and may contain spaces and parentheses, so the
// fields are counted from its last ')'.
func processStartTime(pid int) (uint64, bool) {
	if pid <= 0 {
		return 0, false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 || end+2 > len(stat) {
		return 0, false
	}
	fields := bytes.Split(stat[end+2:], []byte{' '})
	const starttimeIndex = 22 - 3 // fields after the name start at field 3
	if len(fields) <= starttimeIndex {
		return 0, false
	}
	st, err := strconv.ParseUint(string(fields[starttimeIndex]), 10, 64)
	return st, err == nil
}

// isZombie reports whether /proc/<pid>/status says the process has exited
// but has not been reaped (state Z), which OpenClaw counts as dead.
func isZombie(pid int) bool {
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false
	}
	for line := range bytes.Lines(status) {
		if rest, ok := bytes.CutPrefix(line, []byte("State:")); ok {
			state := bytes.TrimLeft(rest, " \t")
			return len(state) > 0 && state[0] == 'Z'
		}
	}
	return false
}

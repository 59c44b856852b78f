//go:build !linux

package repair

// processStartTime is unknown outside Linux (OpenClaw records none there),
// so recycled pids cannot be told apart from their first owner.
func processStartTime(int) (uint64, bool) { return 0, false }

// isZombie is only detectable through /proc on Linux.
func isZombie(int) bool { return false }

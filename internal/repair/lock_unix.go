//go:build unix

package repair

import (
	"errors"
	"syscall"
)

// pidAlive reports whether process pid exists and is not a zombie. Signal 0
// probes existence. EPERM (the process belongs to another user) counts as
// alive: Node's process.kill throws there, so OpenClaw would call such a
// lock's owner dead, but refusing to touch a file another user's live
// process may be writing is the safe reading.
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	return !isZombie(pid)
}

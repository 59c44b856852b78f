package repair

import (
	"errors"
	"syscall"
)

// processQueryLimitedInformation is PROCESS_QUERY_LIMITED_INFORMATION, the
// least access that lets GetExitCodeProcess run.
const processQueryLimitedInformation = 0x1000

// stillActive is STILL_ACTIVE, the exit code of a running process.
const stillActive = 259

// pidAlive reports whether process pid is running. Access denied means the
// process exists (owned by someone else), which counts as alive.
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	h, err := syscall.OpenProcess(processQueryLimitedInformation, false, uint32(pid))
	if errors.Is(err, syscall.ERROR_ACCESS_DENIED) {
		return true
	}
	if err != nil {
		return false
	}
	defer syscall.CloseHandle(h)
	var code uint32
	if err := syscall.GetExitCodeProcess(h, &code); err != nil {
		return true
	}
	return code == stillActive
}

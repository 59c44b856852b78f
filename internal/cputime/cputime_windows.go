//go:build windows

package cputime

import (
	"syscall"
	"time"
)

// Process is the process's user plus system CPU time so far.
func Process() time.Duration {
	var creation, exit, kernel, user syscall.Filetime
	h, err := syscall.GetCurrentProcess()
	if err != nil {
		return 0
	}
	if err := syscall.GetProcessTimes(h, &creation, &exit, &kernel, &user); err != nil {
		return 0
	}
	return hundredNanos(kernel) + hundredNanos(user)
}

// hundredNanos is a span the system counts in 100 ns units.
func hundredNanos(f syscall.Filetime) time.Duration {
	return time.Duration(uint64(f.HighDateTime)<<32|uint64(f.LowDateTime)) * 100
}

//go:build !unix && !windows

package cputime

import "time"

// Process is 0: this system offers no process CPU clock.
func Process() time.Duration { return 0 }

package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestProcessAdvances: busy work moves the clock forward, and never back.
func TestProcessAdvances(t *testing.T) {
	if runtime.GOOS != "windows" && !isUnix() {
		t.Skip("no process CPU clock on " + runtime.GOOS)
	}
	start := Process()
	deadline := time.Now().Add(30 * time.Second)
	x := 0
	for Process()-start < 20*time.Millisecond {
		for i := range 1 << 20 {
			x += i * i
		}
		if time.Now().After(deadline) {
			t.Fatalf("CPU clock did not advance: %v after 30 s of work (%d)", Process()-start, x)
		}
	}
	if Process() < start {
		t.Fatal("CPU clock went back")
	}
}

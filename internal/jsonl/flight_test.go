package jsonl

import (
	"testing"
	"time"
)

// TestFlight: a reader waits only while the flight holds its budget or more
// and the reader itself has something in flight; a release wakes every
// waiting reader; a closed stop ends a wait.
func TestFlight(t *testing.T) {
	f := NewFlight(10)
	a, b := f.Share(), f.Share()
	stop := make(chan struct{})
	if !a.Wait(stop) {
		t.Fatal("an empty flight made a reader wait")
	}
	a.Hold(6)
	b.Hold(6) // 12 >= 10
	if !waitsFor(a, stop, 50*time.Millisecond) {
		t.Fatal("a reader holding bytes of a full flight did not wait")
	}
	c := f.Share()
	if !c.Wait(stop) {
		t.Fatal("a reader with nothing in flight waited")
	}
	done := make(chan bool, 2)
	go func() { done <- a.Wait(stop) }()
	go func() { done <- b.Wait(stop) }()
	time.Sleep(20 * time.Millisecond)
	a.Release(6) // 6 < 10: both may go on
	for range 2 {
		select {
		case ok := <-done:
			if !ok {
				t.Fatal("a wait ended without its stop being closed")
			}
		case <-time.After(30 * time.Second):
			t.Fatal("a release did not wake every waiting reader")
		}
	}
	a.Hold(6)
	go func() { done <- a.Wait(stop) }()
	close(stop)
	select {
	case ok := <-done:
		if ok {
			t.Fatal("a wait ended by stop reported room")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("closing stop did not end a wait")
	}
}

// waitsFor reports whether s.Wait is still waiting after d; a wait left
// waiting ends when stop is closed.
func waitsFor(s *FlightShare, stop chan struct{}, d time.Duration) bool {
	done := make(chan struct{})
	go func() { s.Wait(stop); close(done) }()
	select {
	case <-done:
		return false
	case <-time.After(d):
		return true
	}
}

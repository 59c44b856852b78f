package jsonl

import "sync"

// Flight bounds the bytes that reading goroutines have handed on and
// their consumer not yet given back: the buffers of batches read ahead. A
// count of batches alone bounds them where a batch is a fraction of a
// MiB; but long lines (events of a few MiB: pasted files, images) grow
// each batch to a line, and the seven batches a two-lane store export
// can hold would then hold seven such lines. With a
// Flight a reader waits, before it reads another batch, while the batches
// in flight hold the budget or more: the readers of a Flight hold at most
// the budget plus one batch each (a batch holds at least one line). A
// reader with nothing in flight never waits, so readers whose batches are
// taken by turns (the lanes of a store export) cannot wait for each
// other.
type Flight struct {
	mu      sync.Mutex
	held    int
	budget  int
	changed chan struct{} // closed (and replaced) when bytes are given back
}

// NewFlight is a Flight of budget bytes.
func NewFlight(budget int) *Flight {
	return &Flight{budget: budget, changed: make(chan struct{})}
}

// FlightShare is one reader's part of a Flight.
type FlightShare struct {
	f    *Flight
	held int // under f.mu
}

// Share is a new reader's part of f.
func (f *Flight) Share() *FlightShare { return &FlightShare{f: f} }

// Wait returns true once the Flight's batches hold less than its budget or
// this reader has none in flight; false when stop is closed first.
func (s *FlightShare) Wait(stop <-chan struct{}) bool {
	f := s.f
	for {
		f.mu.Lock()
		ok, changed := f.held < f.budget || s.held == 0, f.changed
		f.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-changed:
		case <-stop:
			return false
		}
	}
}

// Hold counts n bytes this reader handed on.
func (s *FlightShare) Hold(n int) {
	s.f.mu.Lock()
	s.held += n
	s.f.held += n
	s.f.mu.Unlock()
}

// Release gives back n bytes of this reader's, taken by the consumer, and
// wakes the readers waiting.
func (s *FlightShare) Release(n int) {
	if n == 0 {
		return
	}
	f := s.f
	f.mu.Lock()
	s.held -= n
	f.held -= n
	close(f.changed)
	f.changed = make(chan struct{})
	f.mu.Unlock()
}

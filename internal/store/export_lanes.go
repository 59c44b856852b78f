package store

import (
	"context"
	"errors"
	"runtime"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// An export of a session read from the b-trees runs in two lanes when
// two cores can run them: reading the rows (one pread per table leaf) and
// proving them canonical then both run on two cores, where one reading
// goroutine would bound the export's wall time. The session's index
// leaves are dealt out in runs of laneRunLeaves leaves, by turns to the
// two lanes (see [leafSplit]); each lane is a goroutine with its own
// index walk, its own row lookups (their descents and interior pages),
// its own zstd decoder and canonical scanner, and it reads and proves the
// rows of its own runs only, in batches, each run's last batch marked.
// The export's goroutine takes the batches run by run, in seq order (the
// lane of run 0 first, then the other's run 1, ...), numbers their lines
// and writes them. So the two lanes' rows, taken in that order, are the
// rows one walk reads, and the first end or error met in that order is
// the one a single walk meets first.
//
// What a lane does not handle (errBTree) ends the lanes: every row before
// it has been written by then, and the driver reads the rest after the
// highest seq written, on one reading goroutine as without lanes. A row
// that cannot be read stops the export there, as one walk stops.

// laneRunLeaves is how many consecutive index leaves a lane takes at a
// time (about 1,200 rows of a session like the bench's, two to three
// batches): long enough that the table leaves a run shares with the next
// one (read by both lanes) are few, short enough that both lanes start
// at once. A variable so that tests can give a lane a run per leaf.
var laneRunLeaves = 16

// exportLanes decides when an export runs in two lanes: lanesAuto when
// GOMAXPROCS allows two goroutines to run at once; tests force them on
// or off.
var exportLanes = lanesAuto

const (
	lanesAuto = iota
	lanesOn
	lanesOff
)

// useLanes reports whether rows are read in two lanes: an export (not a
// view, no index check beside it) of rows read from the b-trees, with two
// cores to run them.
func useLanes(rows *Rows) bool {
	if rows.fast == nil || rows.index != nil || rows.lineOf != nil || exportLanes == lanesOff {
		return false
	}
	return exportLanes == lanesOn || runtime.GOMAXPROCS(0) >= 2
}

// lanes are the two lanes of an export and what their batches have
// told the export's goroutine so far.
type lanes struct {
	pipes [2]*rowPipe
	run   int // the run whose batches come next
	// lines counts the rows received, maxSeq is the highest seq among
	// them (read: there is one).
	lines  int
	maxSeq int64
	read   bool
}

// startLanes starts the two lanes of rows' export. rows itself is not
// read unless the lanes hand the rest to the driver.
func startLanes(rows *Rows) *lanes {
	l := &lanes{}
	flight := jsonl.NewFlight(exportFlight)
	for lane := range l.pipes {
		l.pipes[lane] = startRowPipe(rows.db.laneRows(rows.ctx, rows.sessionID, lane), true, false, flight)
	}
	return l
}

// laneRows are the rows of one lane of sessionID's export: a walk of the
// events' b-trees with a pager of its own that reads the index leaves of
// the lane's runs only.
func (s *DB) laneRows(ctx context.Context, sessionID string, lane int) *Rows {
	w := walkOn(s.fast.pager.lane(), s.fast.events, sessionID)
	w.idx.split = &leafSplit{lane: lane, runLeaves: laneRunLeaves, run: lane}
	return &Rows{ctx: ctx, db: s, sessionID: sessionID, fast: w, lane: true}
}

// next is the channel the next batch comes from: the current run's lane.
func (l *lanes) next() chan *rowBatch { return l.pipes[l.run%2].full }

// took numbers the rows of a batch just received (their lines in the
// export, which a lane cannot know) and the row that stopped a lane, and
// moves to the next run after a run's last batch.
func (l *lanes) took(b *rowBatch) {
	for i := range b.evs {
		e := &b.evs[i]
		l.lines++
		e.line = l.lines
		if !l.read || e.seq > l.maxSeq {
			l.maxSeq, l.read = e.seq, true
		}
	}
	var re *RowError
	if errors.As(b.err, &re) {
		re.Line = l.lines + 1
	}
	if b.runEnd {
		l.run++
	}
}

// stop ends both lanes and waits for them.
func (l *lanes) stop() {
	for _, p := range l.pipes {
		p.stop()
	}
	for _, p := range l.pipes {
		<-p.done
	}
}

// handOver ends the lanes after one met what the fast path does not
// handle, and hands the rest of the rows to the driver, read on one
// goroutine as without lanes: those after the highest seq the lanes gave
// (all of them written by now), numbered on from the lines written.
func (r *ExportReader) handOver() error {
	l := r.lanes
	l.stop()
	r.lanes, r.cur = nil, nil
	rows := r.rows
	rows.read, rows.lastSeq, rows.ev.Line = l.read, l.maxSeq, l.lines
	if err := rows.toDriver(); err != nil {
		return err
	}
	r.pipe = startRowPipe(rows, false, false, jsonl.NewFlight(exportFlight))
	return nil
}

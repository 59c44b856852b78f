// Package store reads the SQLite transcript store of OpenClaw 2026.9
// (`<state>/agents/<agent>/agent/openclaw-agent.sqlite`, schema version 23
// in 2026.9.6) without changing it, and yields a session as the JSONL text
// OpenClaw's own export writes, so that everything built for JSONL files
// reads a store session unchanged.
//
// Guarantees:
//
//   - Read-only. [Open] never writes a database page, never checkpoints,
//     never writes the -shm and never creates a -wal or -shm file that was
//     not there. When a -wal file exists it opens the database with
//     SQLite's mode=ro and readonly_shm=1 (and query_only); with no -wal,
//     or an empty -wal without its -shm, it opens it with immutable=1 (no
//     locks, no side files): then no connection has the database open, as
//     in a copied backup or a read-only directory. A -wal holding frames
//     without its -shm is refused ([ErrWALWithoutIndex]): reading it would
//     create the -shm. docs/store.md lists what each open mode touches.
//   - One snapshot. A [DB] holds one read transaction, with SQLite's shared
//     read lock, from [Open] to [DB.Close]: every listing and every export
//     made through it sees the database as it was at one instant, even
//     while OpenClaw appends to it.
//   - Export fidelity. [DB.Export] and [DB.Reader] write each event of a
//     session in seq order as JSON.stringify(JSON.parse(storedText)), one
//     per line, each line ending in "\n" (nothing for a session without
//     events): byte for byte what OpenClaw 2026.9.6 exports. OpenClaw
//     itself writes canonical text, so this is normally the stored text.
//   - Checked rows. A zstd row must decode, pass its frame checksum, have
//     exactly event_utf8_bytes bytes and be strict UTF-8; every row's text
//     must parse as JSON. A row that fails is a *[RowError] naming the
//     database, the session, the seq and the line of the export, with its
//     [Fault]. Plain event_json text is read as OpenClaw reads it: invalid
//     UTF-8 in it becomes U+FFFD rather than an error.
//   - The runtime's view. [DB.View] picks the rows OpenClaw 2026.9.6's
//     runtime loads before a model call (the newest part of the active
//     branch within a byte and event budget, plus the latest compaction),
//     and [DB.ViewReader] yields them as export lines, linked to one
//     another as OpenClaw links them in memory.
//   - Bounded memory. Rows are streamed: memory grows with the largest
//     event, never with the session (the index checks keep at most 1,000
//     faults of each kind per session). An export reads its rows on a
//     goroutine of its own, or on two (lanes, taking runs of the
//     session's index leaves by turns), a few batches of 256 KiB ahead of
//     the text it yields (at most two waiting per reading goroutine; a
//     batch that held a large event gives its memory back once written);
//     a [DB] must not be used while one of its exports is open.
//   - Direct reads. When SQLite itself reads only the main database file
//     (no -wal content), the ordered walks (events, identity rows, active
//     events) and the counts read the b-trees of that file directly, with
//     pread and without the SQL engine; anything unexpected hands the rest
//     to the driver, which decides (docs/store.md).
//   - Copied rows. A row already in the form JSON.stringify writes (as
//     OpenClaw writes every row) is proven so by one scan and copied; only
//     other rows are parsed and written again.
//   - Index checks. [DB.CheckedReader] walks transcript_event_identities
//     and session_transcript_active_events beside the events, all in seq
//     order (merge joins), while it exports: each event's id and parentId
//     against its identity row, and index rows naming a seq that holds no
//     event ([ExportReader.IndexFaults]; [DB.IndexFaults] finds the latter
//     alone). [DB.NodeFaults] finds session_nodes rows naming a session
//     with no session_windows row.
//   - Rows read once. [DB.CheckedLines] is CheckedReader for a line pass
//     that judges the rows itself (check --session): a row of one line and
//     at most a sixth of the long-line size is handed on as stored,
//     unproven, its seq and identity row queued beside it
//     ([StoredLines]); the pass judges its export's line
//     ([StoredLines.Export]) where that could be judged otherwise,
//     compares each event's id and parentId from its own scan
//     ([StoredLines.Entry]) and names the row JSON.parse rejects
//     ([StoredLines.Reject]). The lines judged, the row faults and the
//     index faults are CheckedReader's.
//
// It does not:
//
//   - read sessions moved to cold storage (session_transcript_cold_archives
//     and agents/<agent>/sessions/cold/); they have no transcript rows and
//     export as empty ([Window.Cold] marks them);
//   - check the index tables beyond the rows above (positions, message
//     positions, the full-text index), or migrate an older schema: a
//     database without transcript tables (schema version 1) is refused with
//     a *[SchemaError]; [DB.View] trusts the index tables;
//   - render or print anything: callers decide what to show.
//
// It imports only package jsonl, the SQLite driver (modernc.org/sqlite,
// pure Go) and the zstd decoder.
package store

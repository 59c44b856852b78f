// Package session models OpenClaw session transcripts: the header, the entry
// envelope and entry types, message roles and content blocks, the
// id/parentId tree, the active leaf and branch, and the context messages
// built from the branch, as OpenClaw's session loader does
// (docs/session-format.md in this repository summarises the format).
//
// It reads values parsed by package jsonl and never writes files.
package session

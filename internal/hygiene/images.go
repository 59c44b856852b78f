package hygiene

// PLACEHOLDER owned by the images (M) helper: this file is replaced wholesale by the real rule.

import "github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"

// sanitizeImageBlocks replaces each image block in place by its sanitized
// form or a text placeholder (OpenClaw replay-rules 3.11).
func sanitizeImageBlocks(r *Run, blocks []*jsonl.Value) {}

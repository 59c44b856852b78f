#!/usr/bin/env bash
# Regenerates everything in docs/ (and README.md) that is generated from the
# code, in dependency order: the check catalogue (docs/checks.md), the man
# pages and completion scripts (docs/man, docs/completions), then the output
# shown in the console blocks of README.md and docs/*.md, from real runs.
# Review the diff before committing: a changed example output is a changed
# behaviour.
set -euo pipefail
cd "$(dirname "$0")/.."
go test ./internal/check -run TestCatalogueDoc -count=1 -update
go test ./cmd -run TestGeneratedDocs -count=1 -update
go test . -run TestDocExamples -count=1 -update

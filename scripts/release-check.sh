#!/usr/bin/env bash
# Validates the release configuration (.goreleaser.yaml) with goreleaser v2,
# pinned and run through the Go module proxy, and checks that the files the
# archives carry are generated and current. Not part of .ci/run: building
# goreleaser takes several minutes on a cold module cache.
#
# To build release archives locally without publishing:
#   go run github.com/goreleaser/goreleaser/v2@v2.15.1 release --snapshot --clean
set -euo pipefail
cd "$(dirname "$0")/.."
go test ./cmd -run TestGeneratedDocs -count=1
go run github.com/goreleaser/goreleaser/v2@v2.15.1 check

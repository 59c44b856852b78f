// Command openclaw-doctor checks, repairs and replays OpenClaw session
// transcripts. All work happens in package cmd.
package main

import (
	"os"

	"github.com/openclaw-doctor/openclaw-doctor/cmd"
)

func main() { os.Exit(cmd.Main()) }

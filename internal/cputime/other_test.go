//go:build !unix

package cputime

func isUnix() bool { return false }

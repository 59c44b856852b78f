// Package cputime reads the process's CPU time for the benchmarks, which
// report it beside wall time: on a shared, busy machine the CPU a run used
// moves far less than the time it took.
//
// It guarantees user plus system time of every thread of the process, the
// garbage collector's included, where the system offers a process clock
// (Unix and Windows); elsewhere Process reports 0, and the benchmarks'
// CPU figures with it. It is for measurements, not for the commands.
package cputime

package main

// pprof.go: OFFICE_PPROF=DIR profiles a long-running office (the server, the
// UI) for test/bench and for anyone chasing a slowdown.

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
)

// pprofEnv names the directory profiles are written to; unset: none.
const pprofEnv = "OFFICE_PPROF"

// startProfiles starts a CPU profile into DIR/office-PID.cpu.pprof when
// $OFFICE_PPROF=DIR is set, and returns the function that stops it and writes
// the heap profile DIR/office-PID.heap.pprof. Profiling problems are reported
// on stderr and never stop the command.
func startProfiles(getenv func(string) string, stderr *os.File) func() {
	dir := getenv(pprofEnv)
	if dir == "" {
		return func() {}
	}
	base := filepath.Join(dir, fmt.Sprintf("office-%d", os.Getpid()))
	cpu, err := os.Create(base + ".cpu.pprof")
	if err != nil {
		fmt.Fprintf(stderr, "office: %s: %v\n", pprofEnv, err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		fmt.Fprintf(stderr, "office: %s: %v\n", pprofEnv, err)
		cpu.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		cpu.Close()
		heap, err := os.Create(base + ".heap.pprof")
		if err != nil {
			fmt.Fprintf(stderr, "office: %s: %v\n", pprofEnv, err)
			return
		}
		defer heap.Close()
		runtime.GC()
		if err := pprof.WriteHeapProfile(heap); err != nil {
			fmt.Fprintf(stderr, "office: %s: %v\n", pprofEnv, err)
		}
	}
}

package main

// pprof.go: OFFICE_PPROF=DIR profiles a long-running office (the server, the
// UI) for test/bench and for anyone chasing a slowdown.

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"syscall"
)

// pprofEnv names the directory profiles are written to; unset: none.
const pprofEnv = "OFFICE_PPROF"

// startProfiles starts a CPU profile into DIR/office-PID.cpu.pprof when
// $OFFICE_PPROF=DIR is set, and returns the function that stops it and writes
// the heap profile DIR/office-PID.heap.pprof. SIGUSR1 writes the heap
// profile of that moment (the office running) to
// DIR/office-PID.live.heap.pprof. Profiling problems are reported on stderr
// and never stop the command.
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
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	go func() {
		for range usr1 {
			writeHeap(base+".live.heap.pprof", stderr)
		}
	}()
	return func() {
		signal.Stop(usr1)
		pprof.StopCPUProfile()
		cpu.Close()
		writeHeap(base+".heap.pprof", stderr)
	}
}

// writeHeap writes the heap profile (after a GC) to path.
func writeHeap(path string, stderr *os.File) {
	heap, err := os.Create(path)
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

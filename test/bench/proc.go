package main

// proc.go reads CPU time and resident memory of processes from /proc.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTick is USER_HZ, the unit of utime and stime in /proc/PID/stat (100
// on every Linux this runs on).
const clockTick = 100

// cpuTicks is pid's user+system time in clock ticks; 0 when it is gone.
func cpuTicks(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 > len(s) {
		return 0
	}
	f := strings.Fields(s[i+2:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return u + st
}

// rssKB is pid's resident set in KiB; 0 when it is gone.
func rssKB(pid int) int64 { return statusKB(pid, "VmRSS:") }

// anonKB is the anonymous part of pid's resident set in KiB (its heap and
// stacks: not the pages of its executable, which every process running the
// same binary shares).
func anonKB(pid int) int64 { return statusKB(pid, "RssAnon:") }

// statusKB is the field of /proc/PID/status in KiB; 0 when pid is gone.
func statusKB(pid int, field string) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// byExe lists the processes running the executable exe (an absolute path):
// office's server and client, whichever process runs them.
func byExe(exe string) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, d := range ents {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if p, err := os.Readlink(filepath.Join("/proc", d.Name(), "exe")); err == nil && p == exe {
			pids = append(pids, pid)
		}
	}
	return pids
}

// byExeArg is the processes of byExe(exe) with arg among their arguments:
// one office's processes while others of the same binary run.
func byExeArg(exe, arg string) []int {
	var pids []int
	for _, pid := range byExe(exe) {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if err != nil {
			continue
		}
		if slices.Contains(strings.Split(string(b), "\x00"), arg) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// usage is the CPU and memory of a set of processes over a window.
type usage struct {
	cpu   float64 // percent of one core
	rssKB int64   // summed at the end of the window
	procs int
	// perPid is each process's CPU, percent of one core.
	perPid map[int]float64
	// perRSS is each process's RSS in KiB at the end of the window,
	// perAnon its anonymous part.
	perRSS, perAnon map[int]int64
	uiPid           int // the attached UI's process (attached office cases)
	// outBps is what an attached client wrote to its outer terminal in
	// the window, bytes a second (attached cases only).
	outBps float64
}

func (u usage) String() string {
	return fmt.Sprintf("%.2f %% CPU, %d KiB RSS in %d process(es)", u.cpu, u.rssKB, u.procs)
}

// measure samples the processes pids() returns over window. The set is read
// at the start and at the end; a process's ticks count when it is in both.
func measure(pids func() []int, window time.Duration) usage {
	p0 := pids()
	t0 := map[int]int64{}
	for _, p := range p0 {
		t0[p] = cpuTicks(p)
	}
	start := time.Now()
	time.Sleep(window) // the measurement window itself
	el := time.Since(start)
	var ticks, rss int64
	p1 := pids()
	per := map[int]float64{}
	perRSS, perAnon := map[int]int64{}, map[int]int64{}
	pct := func(t int64) float64 { return float64(t) / clockTick / el.Seconds() * 100 }
	for _, p := range p1 {
		if v, ok := t0[p]; ok {
			d := cpuTicks(p) - v
			ticks += d
			per[p] = pct(d)
		}
		r := rssKB(p)
		perRSS[p], perAnon[p] = r, anonKB(p)
		rss += r
	}
	return usage{cpu: pct(ticks), rssKB: rss, procs: len(p1), perPid: per, perRSS: perRSS, perAnon: perAnon}
}

// liveHeap asks office's processes for a heap profile of this moment
// (SIGUSR1, with -pprof only).
func (e *env) liveHeap(pids []int) {
	if e.profile == "" {
		return
	}
	for _, p := range pids {
		_ = syscall.Kill(p, syscall.SIGUSR1)
	}
	time.Sleep(500 * time.Millisecond) // the profiles being written
}

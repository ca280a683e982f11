package main

// stream.go: throughput of a generated Ink-like stream.

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"office/test/inkstream"
)

// streamCase is one run of the stream in a pane: its command waits for the
// go file, stamps start and end in ns, then sleeps.
type streamCase struct {
	dir, data, gate, start, end string
}

func newStreamCase(dir, data string) streamCase {
	return streamCase{dir: dir, data: data, gate: filepath.Join(dir, "go"), start: filepath.Join(dir, "start"), end: filepath.Join(dir, "end")}
}

func (s streamCase) argv() []string {
	sh := fmt.Sprintf(`while [ ! -e %[1]s ]; do sleep 0.02; done; date +%%s%%N > %[2]s; cat %[3]s; date +%%s%%N > %[4]s; exec sleep 100000`, s.gate, s.start, s.data, s.end)
	return []string{"/bin/sh", "-c", sh}
}

// run opens the gate and waits for the stream to end; it returns the time
// the stream took and the CPU seconds pids spent from the gate until the
// end was stamped and the output had settled.
func (s streamCase) run(pids func() []int, settle func()) (elapsed time.Duration, cpu float64, err error) {
	p0 := pids()
	t0 := map[int]int64{}
	for _, p := range p0 {
		t0[p] = cpuTicks(p)
	}
	if err := os.WriteFile(s.gate, nil, 0o600); err != nil {
		return 0, 0, err
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, err := os.Stat(s.end); err == nil {
			break
		}
		if time.Now().After(deadline) {
			return 0, 0, fmt.Errorf("the stream did not end in 2 minutes")
		}
		time.Sleep(10 * time.Millisecond) // polling a file another process writes
	}
	// The shell creates the end stamp before it writes it: on a loaded
	// machine the file can be empty for a while.
	a, err1 := readNs(s.start)
	b, err2 := readNs(s.end)
	for stampBy := time.Now().Add(5 * time.Second); err2 != nil && time.Now().Before(stampBy); {
		time.Sleep(20 * time.Millisecond) // polling a file another process writes
		b, err2 = readNs(s.end)
	}
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("stream stamps: %v %v", err1, err2)
	}
	settle()
	var ticks int64
	for _, p := range pids() {
		if v, ok := t0[p]; ok {
			ticks += cpuTicks(p) - v
		}
	}
	return time.Duration(b - a), float64(ticks) / clockTick, nil
}

// streamTag names a stream's runs after its file (ink.stream: ink).
func streamTag(data string) string {
	return strings.TrimSuffix(filepath.Base(data), filepath.Ext(data))
}

func readNs(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}

type streamRow struct {
	secs, cpu float64
}

// streamRuns are one system's runs in one mode, in order.
type streamRuns []streamRow

// best is the fastest run (the one least disturbed by whatever else the
// machine runs), or a missing row.
func (r streamRuns) best() streamRow {
	b := streamRow{-1, -1}
	for _, x := range r {
		if b.secs < 0 || x.secs < b.secs {
			b = x
		}
	}
	return b
}

// median is the median of the runs' times and, separately, of their CPU.
func (r streamRuns) median() streamRow {
	if len(r) == 0 {
		return streamRow{-1, -1}
	}
	secs, cpu := make([]float64, len(r)), make([]float64, len(r))
	for i, x := range r {
		secs[i], cpu[i] = x.secs, x.cpu
	}
	return streamRow{median(secs), median(cpu)}
}

func median(v []float64) float64 {
	sort.Float64s(v)
	if n := len(v); n%2 == 1 {
		return v[n/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// pairedRatio is the median of office's time over tmux's in the same
// repetition (run back to back, so under about the same load), or -1.
func pairedRatio(office, tmux streamRuns) float64 {
	var r []float64
	for i := range office {
		if i < len(tmux) && tmux[i].secs > 0 {
			r = append(r, office[i].secs/tmux[i].secs)
		}
	}
	if len(r) == 0 {
		return -1
	}
	return median(r)
}

func (e *env) stream(mb, reps int) error {
	data := filepath.Join(e.dir, "ink.stream")
	if err := os.WriteFile(data, inkstream.Generate(mb<<20), 0o600); err != nil {
		return err
	}
	return e.streamData(data, fmt.Sprintf("%d MB Ink-like stream", mb), reps)
}

// streamData runs the stream in file data in office and tmux, reps times
// each, and prints the table; title names the stream.
func (e *env) streamData(data, title string, reps int) error {
	fmt.Printf("## %s in one pane at %d×%d, %d runs each (s of wall time for the program to write it; CPU s of office's / tmux's processes)\n\n", title, cols, rows, reps)
	fmt.Println("Each repetition runs office and tmux back to back, in alternating order (which one goes first")
	fmt.Println("changes with the repetition, so neither always meets the load the other left behind); the")
	fmt.Println("paired ratio is the median over repetitions of office's time over tmux's in the same one.")
	fmt.Println()
	res := map[string]streamRuns{}
	for rep := 0; rep < reps; rep++ {
		for _, attached := range []bool{false, true} {
			mode := "headless"
			if attached {
				mode = "attached"
			}
			order := []func() error{
				func() error {
					r, err := e.streamOffice(data, mode, rep)
					res["office "+mode] = append(res["office "+mode], r)
					return err
				},
			}
			if e.tmux != "" {
				tm := func() error {
					r, err := e.streamTmux(data, mode, rep)
					res["tmux "+mode] = append(res["tmux "+mode], r)
					return err
				}
				if rep%2 == 1 {
					order = append([]func() error{tm}, order...)
				} else {
					order = append(order, tm)
				}
			}
			for _, run := range order {
				if err := run(); err != nil {
					return err
				}
			}
		}
	}
	fmt.Println("| mode | tmux s best / median | office s best / median | office/tmux best (target headless ≤ 1.25x) | paired office/tmux median | tmux CPU s median | office CPU s median | CPU office/tmux |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, mode := range []string{"headless", "attached"} {
		t, o := res["tmux "+mode], res["office "+mode]
		tb, ob, tm, om := t.best(), o.best(), t.median(), o.median()
		fmt.Printf("| %s | %s / %s | %s / %s | %s | %s | %s | %s | %s |\n", mode,
			num("%.2f", tb.secs), num("%.2f", tm.secs), num("%.2f", ob.secs), num("%.2f", om.secs),
			ratio(ob.secs, tb.secs), num("%.2fx", pairedRatio(o, t)),
			num("%.2f", tm.cpu), num("%.2f", om.cpu), ratio(om.cpu, tm.cpu))
	}
	fmt.Println()
	for _, key := range []string{"office headless", "tmux headless", "office attached", "tmux attached"} {
		if r := res[key]; len(r) > 0 {
			fmt.Printf("%s runs (s):", key)
			for _, x := range r {
				fmt.Printf(" %.2f", x.secs)
			}
			fmt.Println()
		}
	}
	fmt.Println()
	return nil
}

// streamOffice runs the stream once in office (headless: the server only;
// attached: with its UI in an outer terminal).
func (e *env) streamOffice(data, mode string, rep int) (streamRow, error) {
	name := fmt.Sprintf("%s-office-%s-%d", streamTag(data), mode, rep)
	dir := mkdir(e.dir, name)
	sc := newStreamCase(dir, data)
	o, err := e.newOffice(name, []agent{{name: "stream", argv: sc.argv()}})
	if err != nil {
		return streamRow{-1, -1}, err
	}
	defer o.close()
	if mode == "attached" {
		if err := o.startUI(); err != nil {
			return streamRow{-1, -1}, fmt.Errorf("office %s: %w", mode, err)
		}
		if err := o.ui.waitFor("stream", 20*time.Second); err != nil {
			return streamRow{-1, -1}, fmt.Errorf("office %s: %w", mode, err)
		}
		o.ui.discard()
	} else if err := o.startServe(); err != nil {
		return streamRow{-1, -1}, fmt.Errorf("office %s: %w", mode, err)
	}
	time.Sleep(time.Second) // the office up and its agent waiting at the gate
	el, cpu, err := sc.run(o.pids, func() { time.Sleep(300 * time.Millisecond) })
	if err != nil {
		return streamRow{-1, -1}, fmt.Errorf("office %s: %w", mode, err)
	}
	return streamRow{el.Seconds(), cpu}, nil
}

// streamTmux runs the stream once in tmux (headless: a detached session;
// attached: with a client in an outer terminal).
func (e *env) streamTmux(data, mode string, rep int) (streamRow, error) {
	name := fmt.Sprintf("%s-tmux-%s-%d", streamTag(data), mode, rep)
	dir := mkdir(e.dir, name)
	sc := newStreamCase(dir, data)
	t, err := e.newTmux(name, []agent{{name: "stream", argv: sc.argv()}})
	if err != nil {
		return streamRow{-1, -1}, err
	}
	defer t.close()
	if mode == "attached" {
		if err := t.attach(); err != nil {
			return streamRow{-1, -1}, fmt.Errorf("tmux %s: %w", mode, err)
		}
		t.client.drain(300*time.Millisecond, 3*time.Second)
		t.client.discard()
	}
	time.Sleep(time.Second)
	el, cpu, err := sc.run(t.pids, func() { time.Sleep(300 * time.Millisecond) })
	if err != nil {
		return streamRow{-1, -1}, fmt.Errorf("tmux %s: %w", mode, err)
	}
	return streamRow{el.Seconds(), cpu}, nil
}

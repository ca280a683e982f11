package main

// many.go: an office of many idle agents (500 by default): the server's idle
// CPU and memory, how long `office status` takes, and how long a new UI
// takes to show its first page, beside tmux with as many panes.

import (
	"fmt"
	"os/exec"
	"time"
)

// statusRuns is how many times `office status` (and tmux's list-panes) is
// timed; the median is shown.
const statusRuns = 5

// manySettle is how long the agents are left once all are ready before the
// idle window: 500 agents' boot work (their status judges' boot windows,
// the first collection and heap release after the boot's output) takes
// 10–15 s on a 2-core machine to die down.
const manySettle = 15 * time.Second

// manyResult is one system's figures (negative: not measured).
type manyResult struct {
	idle          usage
	base          int64 // RSS KiB of the same system with one agent
	status, frame spans
}

// timed runs argv n times and returns each run's wall time.
func timed(n int, env []string, argv ...string) (spans, error) {
	var s spans
	for range n {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = env
		t0 := time.Now()
		out, err := cmd.CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("%v: %v: %s", argv, err, out)
		}
		s = append(s, time.Since(t0))
	}
	return s, nil
}

// manyOffice measures office with n agents, and its server with one.
func (e *env) manyOffice(n int) (r manyResult, err error) {
	// The baseline: one agent, headless.
	{
		as := e.fakeAgents(mkdir(e.dir, "many1-office-agents"), "a", 1)
		o, err := e.newOffice("many1-office", as)
		if err != nil {
			return r, err
		}
		err = o.startServe()
		if err == nil {
			err = waitLogged(as, "ready", 60*time.Second)
		}
		if err == nil {
			time.Sleep(settleIdle)
			r.base = measure(o.pids, time.Second).rssKB
		}
		o.close()
		if err != nil {
			return r, err
		}
	}
	as := e.fakeAgents(mkdir(e.dir, "many-office-agents"), "a", n)
	o, err := e.newOffice("many-office", as)
	if err != nil {
		return r, err
	}
	defer o.close()
	if err := o.startServe(); err != nil {
		return r, err
	}
	if err := waitLogged(as, "ready", 600*time.Second); err != nil {
		return r, err
	}
	time.Sleep(manySettle)
	r.idle = measure(o.pids, e.window)
	if r.status, err = timed(statusRuns, o.env(), append([]string{o.bin}, o.args("status")...)...); err != nil {
		return r, err
	}
	for range 3 {
		t0 := time.Now()
		if err := o.startUI(); err != nil {
			return r, err
		}
		at, err := framed(o.ui, 9, 30*time.Second)
		if err != nil {
			return r, err
		}
		r.frame = append(r.frame, at.Sub(t0))
		o.ui.close()
		o.ui = nil
	}
	return r, nil
}

// manyTmux measures tmux with n agents (nine tiled in the first window, a
// window each for the rest), and its server with one.
func (e *env) manyTmux(n int) (r manyResult, err error) {
	{
		as := e.fakeAgents(mkdir(e.dir, "many1-tmux-agents"), "a", 1)
		t, err := e.newTmux("many1-tmux", as)
		if err != nil {
			return r, err
		}
		err = waitLogged(as, "ready", 60*time.Second)
		if err == nil {
			time.Sleep(settleIdle)
			r.base = measure(t.pids, time.Second).rssKB
		}
		t.close()
		if err != nil {
			return r, err
		}
	}
	as := e.fakeAgents(mkdir(e.dir, "many-tmux-agents"), "a", n)
	t, err := e.newTmux("many-tmux", as)
	if err != nil {
		return r, err
	}
	defer t.close()
	if err := waitLogged(as, "ready", 600*time.Second); err != nil {
		return r, err
	}
	time.Sleep(manySettle)
	r.idle = measure(t.pids, e.window)
	if r.status, err = timed(statusRuns, e.baseEnv(t.dir), e.tmux, "-L", t.sock, "list-panes", "-a"); err != nil {
		return r, err
	}
	for range 3 {
		t0 := time.Now()
		if err := t.attach(); err != nil {
			return r, err
		}
		at, err := framed(t.client, min(n, 9), 30*time.Second)
		if err != nil {
			return r, err
		}
		r.frame = append(r.frame, at.Sub(t0))
		t.client.close()
		t.client = nil
	}
	return r, nil
}

// many measures n idle agents in office and in tmux.
func (e *env) many(n int) error {
	fmt.Printf("## %d idle fake agents at %d×%d (CPU: %% of one core over %s; the agents' own processes excluded)\n\n", n, cols, rows, e.window)
	of, err := e.manyOffice(n)
	if err != nil {
		return fmt.Errorf("office: %w", err)
	}
	tm := manyResult{idle: skipped, base: -1}
	if e.tmux != "" {
		if tm, err = e.manyTmux(n); err != nil {
			return fmt.Errorf("tmux: %w", err)
		}
	}
	perAgent := func(r manyResult) float64 {
		if r.base < 0 || r.idle.rssKB < 0 {
			return -1
		}
		return float64(r.idle.rssKB-r.base) / float64(n-1)
	}
	fmt.Println("| measure | tmux | office | office/tmux | target |")
	fmt.Println("|---|---|---|---|---|")
	fmt.Printf("| idle CPU, %% of a core | %s | %s | — | ≤ 1 %% |\n", num("%.2f", tm.idle.cpu), num("%.2f", of.idle.cpu))
	fmt.Printf("| server RSS, MiB | %s | %s | %s | |\n", num("%.1f", float64(tm.idle.rssKB)/1024), num("%.1f", float64(of.idle.rssKB)/1024), ratio(float64(of.idle.rssKB), float64(tm.idle.rssKB)))
	fmt.Printf("| memory per agent (RSS slope 1→%d), KiB | %s | %s | %s | ≤ 160 KiB |\n", n, num("%.0f", perAgent(tm)), num("%.0f", perAgent(of)), ratio(perAgent(of), perAgent(tm)))
	fmt.Printf("| `office status` / `tmux list-panes -a`, ms, best / median of %d | %s / %s | %s / %s | %s | ≤ 50 ms |\n", statusRuns,
		num("%.1f", tm.status.ms(spanBest)), num("%.1f", tm.status.ms(spanMedian)), num("%.1f", of.status.ms(spanBest)), num("%.1f", of.status.ms(spanMedian)),
		ratio(of.status.ms(spanMedian), tm.status.ms(spanMedian)))
	fmt.Printf("| a new client to its first frame (9 panes), ms, best / median of 3 | %s / %s | %s / %s | %s | ≤ 150 ms |\n",
		num("%.1f", tm.frame.ms(spanBest)), num("%.1f", tm.frame.ms(spanMedian)), num("%.1f", of.frame.ms(spanBest)), num("%.1f", of.frame.ms(spanMedian)),
		ratio(of.frame.ms(spanMedian), tm.frame.ms(spanMedian)))
	fmt.Println()
	return nil
}

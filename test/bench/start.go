package main

// start.go: how long office takes to start its first agent, and to show a
// running server's panes in a new UI, beside tmux.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"office/pool"
)

// banner is the fake agent's first transcript line, drawn in every pane of
// it; a frame shows a pane once the banner's start is on screen.
const banner = "fakeagent (test"

// agentStarted returns the time the fake agent logging to log wrote its
// "start" event (its own clock, at the top of its main), waiting up to d for
// it.
func agentStarted(log string, d time.Duration) (time.Time, error) {
	end := time.Now().Add(d)
	for {
		if f, err := os.Open(log); err == nil {
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				var ev struct {
					Event string    `json:"event"`
					Time  time.Time `json:"time"`
				}
				if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Event == "start" {
					f.Close()
					return ev.Time, nil
				}
			}
			f.Close()
		}
		if time.Now().After(end) {
			return time.Time{}, fmt.Errorf("%s: no start event in %s", log, d)
		}
		time.Sleep(2 * time.Millisecond) // polling a file another process writes; the time read is the agent's own
	}
}

// framed waits until the outer terminal t, parsed by a real screen, shows
// the banner in at least n panes, and returns when it first did.
func framed(t *term, n int, d time.Duration) (time.Time, error) {
	scr := pool.NewScreen(cols, rows, nil)
	end := time.After(d)
	for {
		select {
		case b := <-t.out:
			scr.Feed(b)
			if strings.Count(scr.Text(), banner) >= n {
				return time.Now(), nil
			}
		case <-t.done:
			return time.Time{}, fmt.Errorf("%s exited before %d panes showed", t.cmd.Path, n)
		case <-end:
			return time.Time{}, fmt.Errorf("%d panes not shown in %s:\n%s", n, d, scr.Text())
		}
	}
}

// spans are one measure's samples; best and median in ms.
type spans []time.Duration

func (s spans) ms(pick func(spans) time.Duration) float64 {
	if len(s) == 0 {
		return -1
	}
	return float64(pick(s).Microseconds()) / 1000
}

func spanBest(s spans) time.Duration { return slices.Min(s) }

func spanMedian(s spans) time.Duration {
	c := slices.Clone(s)
	slices.Sort(c)
	return c[len(c)/2]
}

// startOffice measures one office: `office serve` on a fresh state directory
// to the first agent's process, the same again on the state it left (a
// restart), and `office` against that running server to its first frame.
func (e *env) startOffice(i int) (fresh, again, attach time.Duration, err error) {
	name := fmt.Sprintf("start%d-office", i)
	as := e.fakeAgents(mkdir(e.dir, name+"-agents"), "a", 1)
	o, err := e.newOffice(name, as)
	if err != nil {
		return 0, 0, 0, err
	}
	defer o.close()
	serve := func() (time.Duration, error) {
		_ = os.Remove(as[0].log)
		t0 := time.Now()
		if err := o.startServe(); err != nil {
			return 0, err
		}
		at, err := agentStarted(as[0].log, 20*time.Second)
		if err != nil {
			return 0, err
		}
		return at.Sub(t0), waitLogged(as, "ready", 20*time.Second)
	}
	if fresh, err = serve(); err != nil {
		return
	}
	o.stopServe()
	if again, err = serve(); err != nil {
		return
	}
	t0 := time.Now()
	if err = o.startUI(); err != nil {
		return
	}
	at, err := framed(o.ui, 1, 10*time.Second)
	return fresh, again, at.Sub(t0), err
}

// startTmux measures one tmux: a new server with the agent to the agent's
// process, and `tmux attach` to its first frame.
func (e *env) startTmux(i int) (start, attach time.Duration, err error) {
	name := fmt.Sprintf("start%d-tmux", i)
	as := e.fakeAgents(mkdir(e.dir, name+"-agents"), "a", 1)
	t0 := time.Now()
	t, err := e.newTmux(name, as)
	if err != nil {
		return 0, 0, err
	}
	defer t.close()
	at, err := agentStarted(as[0].log, 20*time.Second)
	if err != nil {
		return 0, 0, err
	}
	if err := waitLogged(as, "ready", 20*time.Second); err != nil {
		return 0, 0, err
	}
	t1 := time.Now()
	if err := t.attach(); err != nil {
		return 0, 0, err
	}
	ft, err := framed(t.client, 1, 10*time.Second)
	return at.Sub(t0), ft.Sub(t1), err
}

// start runs reps of each, alternating office and tmux.
func (e *env) start(reps int) error {
	fmt.Printf("## start: one fake agent at %d×%d, %d runs each (ms; best / median)\n\n", cols, rows, reps)
	var fresh, again, attach, tStart, tAttach spans
	for i := range reps {
		f, a, u, err := e.startOffice(i)
		if err != nil {
			return fmt.Errorf("office: %w", err)
		}
		fresh, again, attach = append(fresh, f), append(again, a), append(attach, u)
		if e.tmux != "" {
			s, u, err := e.startTmux(i)
			if err != nil {
				return fmt.Errorf("tmux: %w", err)
			}
			tStart, tAttach = append(tStart, s), append(tAttach, u)
		}
	}
	row := func(what string, t, o spans, target string) {
		fmt.Printf("| %s | %s / %s | %s / %s | %s | %s |\n", what, num("%.1f", t.ms(spanBest)), num("%.1f", t.ms(spanMedian)),
			num("%.1f", o.ms(spanBest)), num("%.1f", o.ms(spanMedian)), ratio(o.ms(spanMedian), t.ms(spanMedian)), target)
	}
	fmt.Println("| measure | tmux | office | office/tmux (median) | target |")
	fmt.Println("|---|---|---|---|---|")
	row("server started to the first agent's process, fresh state", tStart, fresh, "≤ 40 ms")
	row("the same, on the state a stopped server left (a restart)", tStart, again, "≤ 40 ms")
	row("client started against the running server to its first frame", tAttach, attach, "≤ 150 ms")
	fmt.Println()
	return nil
}

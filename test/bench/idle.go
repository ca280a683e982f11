package main

// idle.go: CPU and memory of idle agents, and of eight busy ones.

import (
	"fmt"
	"os"
	"time"
)

const settleIdle = 3 * time.Second // after the agents are drawn: boot work done

// pair is office's and tmux's usage in one case (tmux's cpu < 0: skipped).
type pair struct {
	office, tmux usage
}

var skipped = usage{cpu: -1, rssKB: -1, outBps: -1}

// scenario measures the agents headless and then with a client attached,
// for office and tmux. prepare runs once the agents are ready (busy: it
// starts their turns), for each system with a function that types or sends.
//
// withClient is office's server with a client of this process attached
// (the server's share of an attached UI); perClient is what each further
// such client adds to the server's RSS (KiB, over extraClients of them).
func (e *env) scenario(name string, as func(dir string) []agent, prepare func(o *officeRun, t *tmuxRun, as []agent) error) (headless, attached pair, withClient usage, perClient float64, err error) {
	headless.tmux, attached.tmux = skipped, skipped
	// office
	{
		dir := mkdir(e.dir, name+"-office")
		agents := as(dir)
		o, err := e.newOffice(name+"-office", agents)
		if err != nil {
			return headless, attached, withClient, perClient, err
		}
		err = func() error {
			if err := o.startServe(); err != nil {
				return err
			}
			if err := waitLogged(agents, "ready", 120*time.Second); err != nil {
				return err
			}
			if prepare != nil {
				if err := prepare(o, nil, agents); err != nil {
					return err
				}
			}
			time.Sleep(settleIdle)
			headless.office = measure(o.pids, e.window)
			e.liveHeap(o.pids())
			c, err := o.wireClient(agents)
			if err != nil {
				return err
			}
			time.Sleep(settleIdle)
			withClient = measure(o.pids, e.window)
			if perClient, err = o.furtherClients(agents, withClient.rssKB); err != nil {
				c.Close()
				return err
			}
			c.Close()
			restarted, err := o.attachUI(func() {
				for _, a := range agents {
					_ = os.WriteFile(a.log, nil, 0o600)
				}
			})
			if err != nil {
				return err
			}
			if restarted {
				// This office's UI holds the engine: the agents started again.
				if err := waitLogged(agents, "ready", 120*time.Second); err != nil {
					return err
				}
				if prepare != nil {
					if err := prepare(o, nil, agents); err != nil {
						return err
					}
				}
			}
			o.ui.discard()
			time.Sleep(settleIdle)
			b0 := o.ui.read.Load()
			attached.office = measure(o.pids, e.window)
			attached.office.uiPid = o.ui.cmd.Process.Pid
			attached.office.outBps = float64(o.ui.read.Load()-b0) / e.window.Seconds()
			return nil
		}()
		o.close()
		if err != nil {
			return headless, attached, withClient, perClient, fmt.Errorf("office: %w", err)
		}
	}
	if e.tmux == "" {
		return headless, attached, withClient, perClient, nil
	}
	dir := mkdir(e.dir, name+"-tmux")
	agents := as(dir)
	t, err := e.newTmux(name+"-tmux", agents)
	if err != nil {
		return headless, attached, withClient, perClient, err
	}
	defer t.close()
	if err := waitLogged(agents, "ready", 120*time.Second); err != nil {
		return headless, attached, withClient, perClient, fmt.Errorf("tmux: %w", err)
	}
	if prepare != nil {
		if err := prepare(nil, t, agents); err != nil {
			return headless, attached, withClient, perClient, fmt.Errorf("tmux: %w", err)
		}
	}
	time.Sleep(settleIdle)
	headless.tmux = measure(t.pids, e.window)
	if err := t.attach(); err != nil {
		return headless, attached, withClient, perClient, err
	}
	t.client.discard()
	time.Sleep(settleIdle)
	b0 := t.client.read.Load()
	attached.tmux = measure(t.pids, e.window)
	attached.tmux.uiPid = t.client.cmd.Process.Pid
	attached.tmux.outBps = float64(t.client.read.Load()-b0) / e.window.Seconds()
	return headless, attached, withClient, perClient, nil
}

func (e *env) idle(counts []int) error {
	fmt.Printf("## idle fake agents at %d×%d (CPU: %% of one core over %s; RSS of office's / tmux's own processes, agents excluded)\n\n", cols, rows, e.window)
	type res struct {
		n                  int
		headless, attached pair
		server             usage
		perClient          float64
	}
	var all []res
	for _, n := range counts {
		h, a, w, pc, err := e.scenario(fmt.Sprintf("idle%d", n), func(dir string) []agent { return e.fakeAgents(dir, "a", n) }, nil)
		if err != nil {
			return fmt.Errorf("%d agents: %w", n, err)
		}
		all = append(all, res{n, h, a, w, pc})
	}
	fmt.Println("| agents | mode | tmux CPU % | office CPU % | tmux RSS MiB | office RSS MiB | RSS office/tmux | UI output B/s tmux / office |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, r := range all {
		for _, m := range []struct {
			name string
			p    pair
		}{{"headless", r.headless}, {"server + a wire client (9 shown)", pair{r.server, skipped}}, {"attached UI (9 shown)", r.attached}} {
			out := "—"
			if m.p.office.outBps >= 0 && m.name == "attached UI (9 shown)" {
				out = num("%.0f", m.p.tmux.outBps) + " / " + num("%.0f", m.p.office.outBps)
			}
			fmt.Printf("| %d | %s | %s | %s | %s | %s | %s | %s |\n", r.n, m.name, num("%.2f", m.p.tmux.cpu), num("%.2f", m.p.office.cpu),
				num("%.1f", float64(m.p.tmux.rssKB)/1024), num("%.1f", float64(m.p.office.rssKB)/1024), ratio(float64(m.p.office.rssKB), float64(m.p.tmux.rssKB)), out)
		}
	}
	if len(all) >= 2 {
		first, last := all[0], all[len(all)-1]
		slope := func(a, b int64) float64 {
			if a < 0 || b < 0 {
				return -1
			}
			return float64(b-a) / float64(last.n-first.n)
		}
		so := slope(first.headless.office.rssKB, last.headless.office.rssKB)
		st := slope(first.headless.tmux.rssKB, last.headless.tmux.rssKB)
		fmt.Printf("\nmemory per agent (headless RSS slope %d→%d): tmux %s KiB, office %s KiB (target ≤ 300 KB), office/tmux %s\n",
			first.n, last.n, num("%.0f", st), num("%.0f", so), ratio(so, st))
		fmt.Printf("client attached showing 9 of %d: office's server +%.2f %% of a core, office's server and UI +%.2f %% over headless (target ≤ 1 %%), tmux %s\n",
			last.n, last.server.cpu-last.headless.office.cpu, last.attached.office.cpu-last.headless.office.cpu, func() string {
				if last.attached.tmux.cpu < 0 {
					return "—"
				}
				return fmt.Sprintf("+%.2f %%", last.attached.tmux.cpu-last.headless.tmux.cpu)
			}())
	}
	fmt.Println()
	fmt.Println("| agents | the UI's process alone, RSS MiB: tmux's client / office's (target ≤ 15 MiB with 100) | its anonymous part (heap, stacks), MiB: tmux / office | each further client (9 shown) adds to the server, KiB (target ≤ 1 MiB plus its panes) |")
	fmt.Println("|---|---|---|---|")
	for _, r := range all {
		uiKB := func(u usage, per func(usage) map[int]int64) float64 {
			if u.uiPid == 0 || per(u) == nil {
				return -1
			}
			return float64(per(u)[u.uiPid]) / 1024
		}
		rss := func(u usage) map[int]int64 { return u.perRSS }
		anon := func(u usage) map[int]int64 { return u.perAnon }
		fmt.Printf("| %d | %s / %s | %s / %s | %s |\n", r.n, num("%.1f", uiKB(r.attached.tmux, rss)), num("%.1f", uiKB(r.attached.office, rss)),
			num("%.1f", uiKB(r.attached.tmux, anon)), num("%.1f", uiKB(r.attached.office, anon)), num("%.0f", r.perClient))
	}
	fmt.Println()
	return nil
}

func (e *env) busy() error {
	fmt.Printf("## 8 fake agents busy (spinner, title every 100 ms) at %d×%d (CPU %% of one core over %s)\n\n", cols, rows, e.window)
	agents := func(dir string) []agent { return e.fakeAgents(dir, "s", 8, "--busy", "1h") }
	prepare := func(o *officeRun, t *tmuxRun, as []agent) error {
		for i, a := range as {
			if o != nil {
				if err := o.send(a.name, "spin for an hour"); err != nil {
					return err
				}
			} else {
				pane := fmt.Sprintf("b:0.%d", i)
				if out, err := t.cmd("send-keys", "-t", pane, "-l", "spin for an hour"); err != nil {
					return fmt.Errorf("send-keys: %v: %s", err, out)
				}
				if out, err := t.cmd("send-keys", "-t", pane, "Enter"); err != nil {
					return fmt.Errorf("send-keys: %v: %s", err, out)
				}
			}
		}
		return waitLogged(as, "prompt", 60*time.Second)
	}
	h, a, w, _, err := e.scenario("busy", agents, prepare)
	if err != nil {
		return err
	}
	fmt.Println("| mode | tmux CPU % | office CPU % | tmux/office (target ≥ 5x) |")
	fmt.Println("|---|---|---|---|")
	fmt.Printf("| headless | %s | %s | %s |\n", num("%.2f", h.tmux.cpu), num("%.2f", h.office.cpu), ratio(h.tmux.cpu, h.office.cpu))
	fmt.Printf("| server + a wire client (8 shown) | — | %s | — |\n", num("%.2f", w.cpu))
	fmt.Printf("| attached UI (8 shown) | %s | %s | %s |\n", num("%.2f", a.tmux.cpu), num("%.2f", a.office.cpu), ratio(a.tmux.cpu, a.office.cpu))
	if a.office.uiPid > 0 {
		ui := a.office.perPid[a.office.uiPid]
		fmt.Printf("\noffice attached: the UI's process %.2f %%, the server's %.2f %%\n", ui, a.office.cpu-ui)
	}
	fmt.Println()
	return nil
}

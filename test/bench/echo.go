package main

// echo.go: keystroke echo latency.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"
)

const (
	echoKey   = 'z'  // in nothing else the fake agent or the chrome draws
	clearKey  = 0x15 // Ctrl-U: the fake agent clears its input
	echoQuiet = 30 * time.Millisecond
	warmup    = 10
)

// termKey types echoKey once into t and times the write to the first read
// that carries the key back (key), then, as soon as it is back, clears the
// input and times that write to the first read after it (again: a second
// key typed right after the first's echo).
func termKey(t *term) (key, again time.Duration, err error) {
	t.drain(echoQuiet, time.Second)
	start := time.Now()
	if _, err := t.f.Write([]byte{echoKey}); err != nil {
		return 0, 0, err
	}
	timeout := time.After(3 * time.Second)
wait:
	for {
		select {
		case b := <-t.out:
			if bytes.IndexByte(b, echoKey) >= 0 {
				break wait
			}
		case <-timeout:
			return 0, 0, errors.New("no echo in 3 s")
		case <-t.done:
			return 0, 0, errors.New("the program exited")
		}
	}
	key = time.Since(start)
	start = time.Now()
	if _, err := t.f.Write([]byte{clearKey}); err != nil {
		return 0, 0, err
	}
	// The clear's redraw comes before the next key: on a loaded machine
	// the agent could otherwise read the clear and the next key at once,
	// find its line unchanged and echo nothing.
	select {
	case <-t.out:
	case <-time.After(3 * time.Second):
		return 0, 0, errors.New("the clear drew nothing in 3 s")
	case <-t.done:
		return 0, 0, errors.New("the program exited")
	}
	return key, time.Since(start), nil
}

// echoPath is one way a key travels to the fake agent and back.
type echoPath struct {
	name  string
	key   func() (key, again time.Duration, err error) // one key and the one right after it, timed
	close func()
	ds    []time.Duration // key
	again []time.Duration // the key right after
}

// interleave types n keys (after warm-up keys) into every path in turns,
// one key per path per round, the first path of a round rotating: every
// path sees the same moments of the machine, so a drift in its load moves
// them all alike and the differences between them hold.
func interleave(paths []*echoPath, n int) error {
	for i := 0; i < n+warmup; i++ {
		for j := range paths {
			p := paths[(i+j)%len(paths)]
			d, again, err := p.key()
			if err != nil {
				return fmt.Errorf("%s: key %d: %w", p.name, i, err)
			}
			if i >= warmup {
				p.ds = append(p.ds, d)
				p.again = append(p.again, again)
			}
		}
	}
	return nil
}

// pct is the p-th percentile (0..100) of sorted ds in ms.
func pct(ds []time.Duration, p float64) float64 {
	if len(ds) == 0 {
		return -1
	}
	i := int(float64(len(ds)-1) * p / 100)
	return float64(ds[i].Microseconds()) / 1000
}

type echoRow struct {
	name          string
	p50, p95, p99 float64
}

func row(name string, ds []time.Duration) echoRow {
	slices.Sort(ds)
	return echoRow{name, pct(ds, 50), pct(ds, 95), pct(ds, 99)}
}

func (e *env) echo() error {
	fmt.Printf("## keystroke echo, fake agent at %d×%d, %d keys each, the paths in turns (ms from writing the key to reading its echo)\n\n", cols, rows, e.samples)
	var paths []*echoPath
	defer func() {
		for _, p := range paths {
			p.close()
		}
	}()
	// The floor: the fake agent in a PTY of this program.
	{
		as := e.fakeAgents(mkdir(e.dir, "echo-pty"), "echo", 1)
		t, err := startTerm(e.baseEnv(e.dir), as[0].argv...)
		if err != nil {
			return err
		}
		paths = append(paths, &echoPath{name: "fake agent in a PTY (floor)", key: func() (time.Duration, time.Duration, error) { return termKey(t) }, close: t.close})
		if err := waitLogged(as, "ready", 20*time.Second); err != nil {
			return err
		}
	}
	var tmuxPath *echoPath
	if e.tmux != "" {
		as := e.fakeAgents(mkdir(e.dir, "echo-tmux"), "echo", 1)
		t, err := e.newTmux("echo-tmux", as)
		if err != nil {
			return err
		}
		tmuxPath = &echoPath{name: "tmux, attached in an outer PTY", close: t.close}
		paths = append(paths, tmuxPath)
		if err := waitLogged(as, "ready", 20*time.Second); err != nil {
			return err
		}
		if err := t.attach(); err != nil {
			return err
		}
		t.client.drain(300*time.Millisecond, 5*time.Second)
		tmuxPath.key = func() (time.Duration, time.Duration, error) { return termKey(t.client) }
	}
	{
		as := e.fakeAgents(mkdir(e.dir, "echo-server"), "echo", 1)
		o, err := e.newOffice("echo-server", as)
		if err != nil {
			return err
		}
		p := &echoPath{name: "office server, a client in this process (socket, screen updates)", close: o.close}
		paths = append(paths, p)
		if err := o.startServe(); err != nil {
			return err
		}
		if err := waitLogged(as, "ready", 20*time.Second); err != nil {
			return err
		}
		c, err := o.wireClient(as)
		if err != nil {
			return err
		}
		p.close = func() { c.Close(); o.close() }
		w := newWireKeys(c, as[0].name)
		p.key = w.key
	}
	uiPath := func(name, title, bin string) (*echoPath, error) {
		as := e.fakeAgents(mkdir(e.dir, name), "echo", 1)
		o, err := e.newOffice(name, as)
		if err != nil {
			return nil, err
		}
		o.bin = bin
		p := &echoPath{name: title, close: o.close}
		paths = append(paths, p)
		if err := o.startUI(); err != nil {
			return nil, err
		}
		if err := waitLogged(as, "ready", 20*time.Second); err != nil {
			return nil, err
		}
		o.ui.drain(300*time.Millisecond, 5*time.Second)
		p.key = func() (time.Duration, time.Duration, error) { return termKey(o.ui) }
		return p, nil
	}
	officePath, err := uiPath("echo-office", "office UI in an outer PTY", e.office)
	if err != nil {
		return err
	}
	var vsPath *echoPath
	if e.vs != "" {
		if vsPath, err = uiPath("echo-vs", "office UI, the -vs build", e.vs); err != nil {
			return err
		}
	}
	if err := interleave(paths, e.samples); err != nil {
		return err
	}
	table := func(target string, ds func(*echoPath) []time.Duration) {
		fmt.Println("| path | p50 | p95 | p99 |")
		fmt.Println("|---|---|---|---|")
		rows := map[*echoPath]echoRow{}
		for _, p := range paths {
			r := row(p.name, ds(p))
			rows[p] = r
			fmt.Printf("| %s | %s | %s | %s |\n", r.name, num("%.2f", r.p50), num("%.2f", r.p95), num("%.2f", r.p99))
		}
		diff := func(name string, a, b echoRow) {
			fmt.Printf("| %s | %+.2f | %+.2f | %+.2f |\n", name, a.p50-b.p50, a.p95-b.p95, a.p99-b.p99)
		}
		if tmuxPath != nil {
			diff("office − tmux"+target, rows[officePath], rows[tmuxPath])
		}
		if vsPath != nil {
			diff("office − the -vs build", rows[officePath], rows[vsPath])
		}
		fmt.Println()
	}
	table(" (target ≤ +0.5 / — / ≤ +1 ms)", func(p *echoPath) []time.Duration { return p.ds })
	fmt.Printf("A second key (Ctrl-U) typed as soon as the first's echo is read, ms from writing it to the first output after it:\n\n")
	table("", func(p *echoPath) []time.Duration { return p.again })
	return nil
}

// mkdir makes dir/name and returns it.
func mkdir(dir, name string) string {
	p := dir + "/" + name
	_ = os.MkdirAll(p, 0o700)
	return p
}

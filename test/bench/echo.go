package main

// echo.go: keystroke echo latency.

import (
	"bytes"
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

// latencies types echoKey n times into t (after warm-up keys), each time
// timing the write to the first read that carries the key back, then clears
// the input and waits for the output to go quiet.
func latencies(t *term, n int) ([]time.Duration, error) {
	var ds []time.Duration
	for i := 0; i < n+warmup; i++ {
		t.drain(echoQuiet, time.Second)
		start := time.Now()
		if _, err := t.f.Write([]byte{echoKey}); err != nil {
			return nil, err
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
				return nil, fmt.Errorf("key %d: no echo in 3 s", i)
			case <-t.done:
				return nil, fmt.Errorf("key %d: the program exited", i)
			}
		}
		if i >= warmup {
			ds = append(ds, time.Since(start))
		}
		if _, err := t.f.Write([]byte{clearKey}); err != nil {
			return nil, err
		}
		// The clear's redraw comes before the next key: on a loaded
		// machine the agent could otherwise read the clear and the next
		// key at once, find its line unchanged and echo nothing.
		select {
		case <-t.out:
		case <-time.After(3 * time.Second):
			return nil, fmt.Errorf("key %d: the clear drew nothing in 3 s", i)
		case <-t.done:
			return nil, fmt.Errorf("key %d: the program exited", i)
		}
	}
	return ds, nil
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
	fmt.Printf("## keystroke echo, fake agent at %d×%d, %d keys each (ms from writing the key to reading its echo)\n\n", cols, rows, e.samples)
	missing := echoRow{p50: -1, p95: -1, p99: -1}
	var direct, tm, of echoRow
	// The floor: the fake agent in a PTY of this program.
	{
		as := e.fakeAgents(mkdir(e.dir, "echo-pty"), "echo", 1)
		t, err := startTerm(e.baseEnv(e.dir), as[0].argv...)
		if err != nil {
			return err
		}
		if err := waitLogged(as, "ready", 20*time.Second); err != nil {
			t.close()
			return err
		}
		ds, err := latencies(t, e.samples)
		t.close()
		if err != nil {
			return fmt.Errorf("direct PTY: %w", err)
		}
		direct = row("fake agent in a PTY (floor)", ds)
	}
	tm = missing
	if e.tmux != "" {
		as := e.fakeAgents(mkdir(e.dir, "echo-tmux"), "echo", 1)
		t, err := e.newTmux("echo-tmux", as)
		if err != nil {
			return err
		}
		err = func() error {
			if err := waitLogged(as, "ready", 20*time.Second); err != nil {
				return err
			}
			if err := t.attach(); err != nil {
				return err
			}
			t.client.drain(300*time.Millisecond, 5*time.Second)
			ds, err := latencies(t.client, e.samples)
			if err != nil {
				return fmt.Errorf("tmux: %w", err)
			}
			tm = row("", ds)
			return nil
		}()
		t.close()
		if err != nil {
			return err
		}
	}
	sv := missing
	{
		as := e.fakeAgents(mkdir(e.dir, "echo-server"), "echo", 1)
		o, err := e.newOffice("echo-server", as)
		if err != nil {
			return err
		}
		err = func() error {
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
			defer c.Close()
			ds, err := wireLatencies(c, as[0].name, e.samples)
			if err != nil {
				return fmt.Errorf("office server: %w", err)
			}
			sv = row("", ds)
			return nil
		}()
		o.close()
		if err != nil {
			return err
		}
	}
	{
		as := e.fakeAgents(mkdir(e.dir, "echo-office"), "echo", 1)
		o, err := e.newOffice("echo-office", as)
		if err != nil {
			return err
		}
		err = func() error {
			if err := o.startUI(); err != nil {
				return err
			}
			if err := waitLogged(as, "ready", 20*time.Second); err != nil {
				return err
			}
			o.ui.drain(300*time.Millisecond, 5*time.Second)
			ds, err := latencies(o.ui, e.samples)
			if err != nil {
				return fmt.Errorf("office: %w", err)
			}
			of = row("", ds)
			return nil
		}()
		o.close()
		if err != nil {
			return err
		}
	}
	fmt.Println("| path | p50 | p95 | p99 |")
	fmt.Println("|---|---|---|---|")
	fmt.Printf("| %s | %s | %s | %s |\n", direct.name, num("%.2f", direct.p50), num("%.2f", direct.p95), num("%.2f", direct.p99))
	fmt.Printf("| tmux, attached in an outer PTY | %s | %s | %s |\n", num("%.2f", tm.p50), num("%.2f", tm.p95), num("%.2f", tm.p99))
	fmt.Printf("| office server, a client in this process (socket, screen updates) | %s | %s | %s |\n", num("%.2f", sv.p50), num("%.2f", sv.p95), num("%.2f", sv.p99))
	fmt.Printf("| office UI in an outer PTY | %s | %s | %s |\n", num("%.2f", of.p50), num("%.2f", of.p95), num("%.2f", of.p99))
	if tm.p50 >= 0 {
		fmt.Printf("| office − tmux (target ≤ 5 / — / ≤ 10 ms) | %+.2f | %+.2f | %+.2f |\n", of.p50-tm.p50, of.p95-tm.p95, of.p99-tm.p99)
	}
	fmt.Println()
	return nil
}

// mkdir makes dir/name and returns it.
func mkdir(dir, name string) string {
	p := dir + "/" + name
	_ = os.MkdirAll(p, 0o700)
	return p
}

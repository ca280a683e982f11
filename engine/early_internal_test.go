package engine

import (
	"path/filepath"
	"sync"
	"testing"

	"office/configs"
	"office/pool"
)

// Events held while Open runs are never dropped when they cannot be read
// again: a flood of screen and status changes (kept as one flag per agent)
// does not push out an agent's usage limit, turn end, exit, boot overdue
// or model switch, which are handed on in order once the engine is ready.
func TestEarlyEventsKeepWhatCannotBeReadAgain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := "brief = false\n\n[[agent]]\nname = \"dev\"\nprofile = \"claude\"\ncommand = [\"sh\", \"-c\", \"exec sleep 600\"]\n"
	c, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []pool.Event
	e, err := Open(Options{Config: c, StateDir: filepath.Join(dir, "state"), HostEnv: []string{"PATH=/usr/bin:/bin"},
		OnTerminal: func(ev pool.Event) {
			if ev.Agent != "dev" {
				mu.Lock()
				got = append(got, ev)
				mu.Unlock()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	// The early window again, for agents that are not dev (nothing else
	// emits for them): more changes than any cap, then the events that
	// carry what no terminal state says.
	e.terms.events.open.Store(false)
	const flood = 10000
	agents := []string{"a1", "a2", "a3"}
	for i := range flood {
		for _, a := range agents {
			e.agentEvent(pool.Event{Agent: a, Kind: []pool.EventKind{pool.EventOutput, pool.EventStatus, pool.EventGate}[i%3]})
		}
	}
	kept := []pool.EventKind{pool.EventTurnStart, pool.EventLimit, pool.EventModelSwitch, pool.EventBootOverdue, pool.EventTurnEnd, pool.EventExit}
	for _, k := range kept {
		for _, a := range agents {
			e.agentEvent(pool.Event{Agent: a, Kind: k})
		}
	}
	mu.Lock()
	n := len(got)
	mu.Unlock()
	if n != 0 {
		t.Fatalf("%d events handed on before the engine was ready", n)
	}
	e.openEvents()
	mu.Lock()
	defer mu.Unlock()
	for _, a := range agents {
		var order []pool.EventKind
		per := map[pool.EventKind]int{}
		for _, ev := range got {
			if ev.Agent == a {
				per[ev.Kind]++
				if k := ev.Kind; k != pool.EventOutput && k != pool.EventStatus && k != pool.EventGate {
					order = append(order, ev.Kind)
				}
			}
		}
		if len(order) != len(kept) {
			t.Errorf("%s: kept events handed on %v, want %v", a, order, kept)
		} else {
			for i := range kept {
				if order[i] != kept[i] {
					t.Errorf("%s: kept events handed on %v, want %v", a, order, kept)
					break
				}
			}
		}
		for _, k := range []pool.EventKind{pool.EventOutput, pool.EventStatus, pool.EventGate} {
			if per[k] != 1 {
				t.Errorf("%s: %d events of kind %d handed on, want one", a, per[k], k)
			}
		}
	}
}

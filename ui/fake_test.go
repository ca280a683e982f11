package ui

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"office/automation"
	"office/pool"
	"office/queue"
)

// fakeTerm is a terminal backed by a real pool.Screen, with its state set by
// the test and its input recorded.
type fakeTerm struct {
	scr *pool.Screen

	mu      sync.Mutex
	status  automation.Status
	exited  bool
	code    int
	draft   string
	picker  bool
	input   []byte
	resizes [][2]int
	escs    int
}

func newFakeTerm(cols, rows int, output string) *fakeTerm {
	t := &fakeTerm{scr: pool.NewScreen(cols, rows, nil), status: automation.StatusIdle}
	t.scr.Feed([]byte(output))
	return t
}

func (t *fakeTerm) Generation() uint64          { return t.scr.Generation() }
func (t *fakeTerm) Snapshot(dst *pool.Snapshot) { t.scr.Snapshot(dst) }
func (t *fakeTerm) Size() (int, int)            { return t.scr.Size() }
func (t *fakeTerm) Modes() pool.Modes           { return t.scr.Modes() }

func (t *fakeTerm) Resize(c, r int) error {
	t.scr.Resize(c, r)
	t.mu.Lock()
	t.resizes = append(t.resizes, [2]int{c, r})
	t.mu.Unlock()
	return nil
}

func (t *fakeTerm) Status() automation.Status {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.status
}

func (t *fakeTerm) Exited() (bool, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.exited, t.code
}

func (t *fakeTerm) HasDraft() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.draft != ""
}

func (t *fakeTerm) AutomationState() automation.State {
	t.mu.Lock()
	defer t.mu.Unlock()
	return automation.State{Exited: t.exited, PickerLatched: t.picker, Dirty: t.draft != ""}
}

func (t *fakeTerm) Input(p []byte) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.input = append(t.input, p...)
	return nil
}

func (t *fakeTerm) ClosePicker(context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.escs++
	t.picker = false
	return nil
}

func (t *fakeTerm) RecoverPrompt(context.Context) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	d := t.draft
	t.draft = ""
	return d, nil
}

func (t *fakeTerm) got() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.input)
}

func (t *fakeTerm) set(f func(t *fakeTerm)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f(t)
}

// fakeSource is an office of fake terminals over a real store.
type fakeSource struct {
	store *queue.Store

	mu      sync.Mutex
	members []member
	holds   map[string]string
	wakes   int
}

func newFakeSource(t testing.TB, members ...member) *fakeSource {
	t.Helper()
	var st *queue.Store
	if len(members) > 0 {
		var err error
		st, err = queue.Open(filepath.Join(t.TempDir(), "q.db"), queue.Options{Now: func() time.Time { return testClock.Add(-90 * time.Second) }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		names := make([]string, len(members))
		for i, m := range members {
			names[i] = m.Name
		}
		if err := st.EnsureAgents(context.Background(), names); err != nil {
			t.Fatal(err)
		}
	}
	return &fakeSource{store: st, members: members, holds: map[string]string{}}
}

func (s *fakeSource) Members() []member {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]member(nil), s.members...)
}

func (s *fakeSource) Holds() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]string, len(s.holds))
	for k, v := range s.holds {
		out[k] = v
	}
	return out
}

func (s *fakeSource) setHold(agent, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.holds[agent] = reason
}

func (s *fakeSource) Store() *queue.Store { return s.store }

func (s *fakeSource) Wake() {
	s.mu.Lock()
	s.wakes++
	s.mu.Unlock()
}

// testClock is the fixed time of golden frames.
var testClock = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

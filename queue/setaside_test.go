package queue

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// holdTyped enqueues text for agent, types it (Attempt, Writing) and holds
// it as the drain does when the agent drew nothing after it, returning the
// message as the drain then reads it at its queue's head.
func holdTyped(t testing.TB, s *Store, agent, text string) Message {
	t.Helper()
	ctx := context.Background()
	id := mustEnqueue(t, s, agent, text, EnqueueOptions{})
	if _, err := s.Attempt(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := s.Writing(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := s.Hold(ctx, id, "the agent showed nothing"); err != nil {
		t.Fatal(err)
	}
	m, err := s.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// setAsideEvents counts the events that say message id was set aside.
func setAsideEvents(t testing.TB, s *Store, id int64) int {
	t.Helper()
	evs, err := s.Events(context.Background(), 0, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range evs {
		if e.MsgID == id && e.Kind == EventInterrupted && strings.Contains(e.Detail, "set aside") {
			n++
		}
	}
	return n
}

// TestSetAsideHeldRacesRemoveAndRelease: the drain sets aside a held message
// (its agent was restarted) while the person removes or releases it from
// another process (`office queue rm` / `release`, a Store of its own on the
// same file). Whatever the order, SetAsideHeld succeeds exactly when it set
// the message aside (one "set aside" event, before the removal or release),
// and otherwise says ErrNotFound: the drain notifies "set aside" only on
// success, so a message removed or released first is never reported set
// aside.
func TestSetAsideHeldRacesRemoveAndRelease(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queue.db")
	engine := openAt(t, path, Options{}, "a")
	cli := openAt(t, path, Options{})
	ctx := context.Background()
	var won, lost int
	for i := range 40 {
		m := holdTyped(t, engine, "a", "typed, nothing drawn")
		var asideErr, personErr error
		var wg sync.WaitGroup
		start := make(chan struct{})
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			asideErr = engine.SetAsideHeld(ctx, m, "restarted")
		}()
		go func() {
			defer wg.Done()
			<-start
			if i%2 == 0 {
				personErr = cli.Remove(ctx, m.ID, "person")
			} else {
				personErr = cli.Release(ctx, m.ID)
			}
		}()
		close(start)
		wg.Wait()
		if personErr != nil {
			t.Fatalf("round %d: the person's remove/release: %v", i, personErr)
		}
		n := setAsideEvents(t, engine, m.ID)
		switch {
		case asideErr == nil && n == 1:
			won++
		case errors.Is(asideErr, ErrNotFound) && n == 0:
			lost++
		default:
			t.Fatalf("round %d (%s): SetAsideHeld said %v, %d set-aside events: a success must be one set-aside, a message changed first ErrNotFound and none",
				i, map[bool]string{true: "remove", false: "release"}[i%2 == 0], asideErr, n)
		}
		if i%2 == 1 {
			// Released: whichever came first, release is the last word.
			got, err := engine.Get(ctx, m.ID)
			if err != nil || got.Interrupted || got.SetAside {
				t.Fatalf("round %d: released message %+v, %v: want queued, neither held nor set aside", i, got, err)
			}
			if err := engine.Remove(ctx, m.ID, "cleanup"); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("set aside first %d times, removed/released first %d times", won, lost)
}

// TestSetAsideHeldOnlyTheHoldItRead: SetAsideHeld acts on the state its
// caller read and decided on, never on a later one: a message released and
// typed and held again since (a new Writing stamp: the drain's decision that
// the process it was typed into has ended was about the earlier typing) is
// left held, ErrNotFound; so is one never typed. Nothing is logged for
// either.
func TestSetAsideHeldOnlyTheHoldItRead(t *testing.T) {
	s := open(t, Options{}, "a")
	ctx := context.Background()
	first := holdTyped(t, s, "a", "typed, nothing drawn")
	if err := s.Release(ctx, first.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Attempt(ctx, first.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Writing(ctx, first.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Hold(ctx, first.ID, "the agent showed nothing again"); err != nil {
		t.Fatal(err)
	}
	again, err := s.Get(ctx, first.ID)
	if err != nil || again.Writing.Equal(first.Writing) {
		t.Fatalf("typed again: %+v, %v; want a new Writing stamp", again, err)
	}
	if err := s.SetAsideHeld(ctx, first, "restarted"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("SetAsideHeld of the earlier hold: %v, want ErrNotFound", err)
	}
	if m, _ := s.Get(ctx, first.ID); m.SetAside || !m.Interrupted {
		t.Fatalf("after SetAsideHeld of the earlier hold: %+v, want still held, not set aside", m)
	}
	if h, ok, _ := s.Head(ctx, "a"); !ok || h.ID != first.ID {
		t.Fatalf("head %+v, want the message held again", h)
	}
	if n := setAsideEvents(t, s, first.ID); n != 0 {
		t.Fatalf("%d set-aside events, want none", n)
	}
	// The hold as read now is set aside.
	if err := s.SetAsideHeld(ctx, again, "restarted"); err != nil {
		t.Fatal(err)
	}
	if n := setAsideEvents(t, s, first.ID); n != 1 {
		t.Fatalf("%d set-aside events, want one", n)
	}
	untyped := mustEnqueue(t, s, "a", "never typed", EnqueueOptions{})
	if err := s.Hold(ctx, untyped, "x"); err != nil {
		t.Fatal(err)
	}
	m, _ := s.Get(ctx, untyped)
	if err := s.SetAsideHeld(ctx, m, "restarted"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("SetAsideHeld of a message never typed: %v, want ErrNotFound", err)
	}
}

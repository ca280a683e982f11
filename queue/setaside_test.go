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
	id := typedUpTo(t, s, agent, text, false)
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

// typedInFlight enqueues text for agent and leaves it as a stop of the
// office leaves a message it was typing: attempted, written, its Enter
// begun, never settled.
func typedInFlight(t testing.TB, s *Store, agent, text string) int64 {
	t.Helper()
	return typedUpTo(t, s, agent, text, true)
}

// typedUpTo enqueues text for agent and takes it through the drain's
// durable steps: attempted, writing begun and, with entering, its Enter
// begun.
func typedUpTo(t testing.TB, s *Store, agent, text string, entering bool) int64 {
	t.Helper()
	ctx := context.Background()
	id := mustEnqueue(t, s, agent, text, EnqueueOptions{})
	if _, err := s.Attempt(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := s.Writing(ctx, id); err != nil {
		t.Fatal(err)
	}
	if entering {
		if err := s.Entering(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

// TestRecoveryLeavesWhatThePersonChangedMeanwhile: while recovery judges the
// deliveries the last stop interrupted (reading the CLIs' records, outside
// any transaction), the person removes one and releases another from
// another process (`office queue rm` / `release`, a Store of its own on the
// same file). Each is left as the person left it and not returned, so the
// engine tells no one they were set aside; the one nobody touched is set
// aside and returned.
func TestRecoveryLeavesWhatThePersonChangedMeanwhile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queue.db")
	engine := openAt(t, path, Options{}, "a", "b", "c")
	cli := openAt(t, path, Options{})
	ctx := context.Background()
	removed := typedInFlight(t, engine, "a", "removed meanwhile")
	// Held (the agent drew nothing after it): a message still in flight is
	// not released (ErrInFlight), a held one is.
	released := typedInFlight(t, engine, "b", "released meanwhile")
	if err := engine.Hold(ctx, released, "drew nothing"); err != nil {
		t.Fatal(err)
	}
	untouched := typedInFlight(t, engine, "c", "untouched")
	got, err := engine.RecoverInterrupted(ctx, func(m Message) Verdict {
		switch m.ID {
		case removed:
			if err := cli.Remove(ctx, m.ID, "person"); err != nil {
				t.Error(err)
			}
		case released:
			if err := cli.Release(ctx, m.ID); err != nil {
				t.Error(err)
			}
		}
		return Verdict{Settle: SettleAside, Evidence: "no record"}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != untouched {
		t.Fatalf("recovered %+v: want only message %d (the others changed while judged)", got, untouched)
	}
	if _, err := engine.Get(ctx, removed); !errors.Is(err, ErrNotFound) {
		t.Fatalf("removed message: %v, want gone", err)
	}
	if m, err := engine.Get(ctx, released); err != nil || m.SetAside || m.Interrupted || !m.Manual {
		t.Fatalf("released message %+v, %v: want as released (manual, neither held nor set aside)", m, err)
	}
	if h, ok, _ := engine.Head(ctx, "b"); !ok || h.ID != released {
		t.Fatalf("b's head %+v: want the released message", h)
	}
	if m, _ := engine.Get(ctx, untouched); !m.SetAside {
		t.Fatalf("untouched message %+v: want set aside", m)
	}
	for _, id := range []int64{removed, released} {
		if n := setAsideEvents(t, engine, id); n != 0 {
			t.Fatalf("message %d: %d set-aside events, want none", id, n)
		}
	}
}

// TestSetAsideAMessageInFlight: the drain sets aside a message it was
// typing (its agent exited during the submit check, no evidence settles it):
// Head skips it, the queue behind it goes on, a stop does not settle it
// again, and the person's release puts it back at the head. One not in
// flight, or removed, is ErrNotFound and nothing is written.
func TestSetAsideAMessageInFlight(t *testing.T) {
	s := open(t, Options{}, "a")
	ctx := context.Background()
	id := typedInFlight(t, s, "a", "typed, then the agent exited")
	behind := mustEnqueue(t, s, "a", "behind it", EnqueueOptions{})
	if err := s.SetAside(ctx, id, "no evidence"); err != nil {
		t.Fatal(err)
	}
	if m, _ := s.Get(ctx, id); !m.SetAside || !m.Interrupted || m.Evidence != "no evidence" {
		t.Fatalf("after SetAside: %+v, want set aside with its evidence", m)
	}
	if h, ok, _ := s.Head(ctx, "a"); !ok || h.ID != behind {
		t.Fatalf("head %+v, want the message behind it", h)
	}
	if n := setAsideEvents(t, s, id); n != 1 {
		t.Fatalf("%d set-aside events, want one", n)
	}
	if err := s.SetAside(ctx, id, "again"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("SetAside of a message set aside: %v, want ErrNotFound", err)
	}
	if got, err := s.RecoverInterrupted(ctx, nil); err != nil || len(got) != 0 {
		t.Fatalf("RecoverInterrupted settled %+v, %v: a message set aside waits for the person", got, err)
	}
	if err := s.Release(ctx, id); err != nil {
		t.Fatal(err)
	}
	if h, ok, _ := s.Head(ctx, "a"); !ok || h.ID != id || h.SetAside {
		t.Fatalf("head %+v after release, want the released message", h)
	}
	if err := s.SetAside(ctx, behind, "never typed"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("SetAside of a message not in flight: %v, want ErrNotFound", err)
	}
	if err := s.Remove(ctx, id, "rm"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetAside(ctx, id, "gone"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("SetAside of a removed message: %v, want ErrNotFound", err)
	}
}

// TestAReleaseWhileRecoveryJudgesIsRefused: the person releases again,
// while recovery judges it, a message already released (manual) and being
// typed when the office stopped. It is in flight, so the release is refused
// (ErrInFlight: it would change none of the fields recovery read and be
// undone as recovery settles it); recovery settles it, and the person can
// release it then.
func TestAReleaseWhileRecoveryJudgesIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queue.db")
	engine := openAt(t, path, Options{}, "a")
	cli := openAt(t, path, Options{})
	ctx := context.Background()
	id := mustEnqueue(t, engine, "a", "released twice", EnqueueOptions{})
	if err := engine.Release(ctx, id); err != nil {
		t.Fatal(err)
	}
	for _, step := range []func(context.Context, int64) error{func(ctx context.Context, id int64) error { _, err := engine.Attempt(ctx, id); return err },
		engine.Writing, engine.Entering} {
		if err := step(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	got, err := engine.RecoverInterrupted(ctx, func(m Message) Verdict {
		if !m.Manual {
			t.Errorf("message %+v: want released before the stop", m)
		}
		if err := cli.Release(ctx, m.ID); !errors.Is(err, ErrInFlight) {
			t.Errorf("release while judged: %v, want ErrInFlight", err)
		}
		return Verdict{Settle: SettleAside, Evidence: "no record"}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != id {
		t.Fatalf("recovered %+v: want %d set aside", got, id)
	}
	if m, err := engine.Get(ctx, id); err != nil || !m.SetAside {
		t.Fatalf("message %+v, %v: want set aside", m, err)
	}
	if err := cli.Release(ctx, id); err != nil {
		t.Fatalf("release once settled: %v", err)
	}
	if m, err := engine.Get(ctx, id); err != nil || m.SetAside || m.Interrupted || !m.Manual {
		t.Fatalf("message %+v, %v: want as released (manual, neither held nor set aside)", m, err)
	}
}

// TestOpenUpgradesAStoreWithoutPersonRev: a store file of schema 6 (before
// the person's change count) with a message in it opens upgraded; the
// message counts no change yet, and a release counts one.
func TestOpenUpgradesAStoreWithoutPersonRev(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queue.db")
	ctx := context.Background()
	s := openAt(t, path, Options{}, "a")
	id := mustEnqueue(t, s, "a", "from schema 6", EnqueueOptions{})
	if _, err := s.DB().Exec(`ALTER TABLE messages DROP COLUMN person_rev`); err != nil {
		t.Fatal(err)
	}
	// Nor the events' state of schema 8.
	if _, err := s.DB().Exec(`ALTER TABLE events DROP COLUMN state`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().Exec(`PRAGMA user_version = 6`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openAt(t, path, Options{})
	var uv int
	if err := s.DB().QueryRow(`PRAGMA user_version`).Scan(&uv); err != nil || uv != SchemaVersion() {
		t.Fatalf("user_version %d, %v; want %d", uv, err, SchemaVersion())
	}
	if m, err := s.Get(ctx, id); err != nil || m.Text != "from schema 6" || m.PersonRev != 0 {
		t.Fatalf("message after the upgrade %+v, %v", m, err)
	}
	if err := s.Release(ctx, id); err != nil {
		t.Fatal(err)
	}
	if m, err := s.Get(ctx, id); err != nil || m.PersonRev != 1 {
		t.Fatalf("released message %+v, %v: want one change of the person", m, err)
	}
}

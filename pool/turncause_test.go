package pool_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"office/automation"
	"office/pool"
)

// Each turn event carries the causes of its Enters, as the writer of each
// Enter said them: the drain's PressEnter names the message, the person's
// Enter is the person's, and a plain write of "\r" is no submit at all.
func TestTurnEventsCarryTheirCause(t *testing.T) {
	t.Parallel()
	events := make(chan pool.Event, 64)
	term, err := pool.Start(pool.Options{Name: "fake", Argv: []string{fakeAgentBin, "--busy", "200ms"},
		Env: testEnv(), Cols: 120, Rows: 40, Behavior: claudeLike,
		Notify: func(e pool.Event) {
			if e.Kind == pool.EventTurnStart || e.Kind == pool.EventTurnEnd {
				events <- e
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	waitFor(t, 15*time.Second, "idle", func() bool { return term.Ready(time.Now()) && term.Status() == automation.StatusIdle })
	next := func(want pool.EventKind, causes ...automation.TurnCause) {
		t.Helper()
		select {
		case e := <-events:
			if e.Kind != want || !reflect.DeepEqual(e.Turn.Causes, causes) {
				t.Fatalf("event %v with causes %+v, want %v with %+v", e.Kind, e.Turn.Causes, want, causes)
			}
		case <-time.After(15 * time.Second):
			t.Fatalf("no event %v", want)
		}
	}
	ctx := context.Background()
	if err := term.Write(ctx, []byte("from the queue")); err != nil {
		t.Fatal(err)
	}
	if err := term.PressEnter(ctx, automation.DeliveryEnter(7)); err != nil {
		t.Fatal(err)
	}
	next(pool.EventTurnStart, automation.DeliveryEnter(7))
	next(pool.EventTurnEnd, automation.DeliveryEnter(7))
	waitFor(t, 5*time.Second, "idle", func() bool { return term.Status() == automation.StatusIdle })

	if err := term.Write(ctx, []byte("\r")); err != nil { // not a submit office says it made
		t.Fatal(err)
	}
	input(t, term, "mine\r")
	next(pool.EventTurnStart, automation.PersonEnter())
	next(pool.EventTurnEnd, automation.PersonEnter())
}

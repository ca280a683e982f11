package automation

import (
	"reflect"
	"testing"
	"time"
)

// turnStep is one input to the turn machine in a table row: an Enter with
// its cause, an observed raw status, or the process exiting, at a time since
// the row's start.
type turnStep struct {
	at     time.Duration
	enter  *TurnCause
	status Status
	// definitive: the status comes from a definitive signal
	// (Judgment.Definitive)
	definitive bool
	exited     bool
	// what the step must report
	want    TurnEventKind
	holding bool // Holding just after the step
}

func enter(at time.Duration, c TurnCause, want TurnEventKind, holding bool) turnStep {
	return turnStep{at: at, enter: &c, want: want, holding: holding}
}

func observe(at time.Duration, s Status, want TurnEventKind, holding bool) turnStep {
	return turnStep{at: at, status: s, want: want, holding: holding}
}

// observeDefinitive is observe of a status a definitive signal decided.
func observeDefinitive(at time.Duration, s Status, want TurnEventKind, holding bool) turnStep {
	return turnStep{at: at, status: s, definitive: true, want: want, holding: holding}
}

func TestTurnMachine(t *testing.T) {
	const s = time.Second
	person, d7, d9, hook := PersonEnter(), DeliveryEnter(7), DeliveryEnter(9), HookPrompt()
	rows := []struct {
		name  string
		steps []turnStep
		// causes of the last event that is not TurnNone
		causes []TurnCause
	}{
		{"the person's turn holds busy until the agent shows busy, then ends at busy -> idle", []turnStep{
			enter(0, person, TurnStarted, true),
			observe(100*time.Millisecond, StatusIdle, TurnNone, true),
			observe(1*s, StatusBusy, TurnNone, false),
			observe(2*s, StatusBusy, TurnNone, false),
			observe(3*s, StatusIdle, TurnEnded, false),
		}, []TurnCause{person}},
		{"a delivery's turn does not hold: the drain must see the agent's own signals", []turnStep{
			enter(0, d7, TurnStarted, false),
			observe(500*time.Millisecond, StatusIdle, TurnNone, false),
			observe(1*s, StatusBusy, TurnNone, false),
			observe(2*s, StatusIdle, TurnEnded, false),
		}, []TurnCause{d7}},
		{"busy never seen: the turn ends when idle 10 s after the Enter, and holds until then", []turnStep{
			enter(0, person, TurnStarted, true),
			observe(9*s, StatusIdle, TurnNone, true),
			observe(9999*time.Millisecond, StatusIdle, TurnNone, true),
			observe(10*s, StatusIdle, TurnEnded, false),
		}, []TurnCause{person}},
		{"a turn that ends on a usage-limit banner ends at busy -> usage limit", []turnStep{
			enter(0, d7, TurnStarted, false),
			observe(1*s, StatusBusy, TurnNone, false),
			observe(2*s, StatusLimited, TurnEnded, false),
		}, []TurnCause{d7}},
		{"a dialog counts as busy seen", []turnStep{
			enter(0, d7, TurnStarted, false),
			observe(1*s, StatusWaiting, TurnNone, false),
			observe(5*s, StatusIdle, TurnEnded, false),
		}, []TurnCause{d7}},
		{"starting and exited statuses neither end nor count as busy", []turnStep{
			enter(0, d7, TurnStarted, false),
			observe(1*s, StatusStarting, TurnNone, false),
			observe(2*s, StatusIdle, TurnNone, false),
			observe(10*s, StatusIdle, TurnEnded, false),
		}, []TurnCause{d7}},
		{"an Enter during a turn joins it and the grace counts from the latest Enter", []turnStep{
			enter(0, d7, TurnStarted, false),
			observe(1*s, StatusBusy, TurnNone, false),
			enter(2*s, person, TurnJoined, true),
			observe(2500*time.Millisecond, StatusIdle, TurnNone, true), // busy not seen since the join
			observe(11*s, StatusIdle, TurnNone, true),
			observe(12*s, StatusIdle, TurnEnded, false),
		}, []TurnCause{d7, person}},
		{"the second Enter of one delivery is one cause", []turnStep{
			enter(0, d7, TurnStarted, false),
			enter(2*s, d7, TurnJoined, false),
			observe(3*s, StatusBusy, TurnNone, false),
			observe(4*s, StatusIdle, TurnEnded, false),
		}, []TurnCause{d7}},
		{"two deliveries in one turn", []turnStep{
			enter(0, d7, TurnStarted, false),
			observe(1*s, StatusBusy, TurnNone, false),
			enter(2*s, d9, TurnJoined, false),
			observe(3*s, StatusBusy, TurnNone, false),
			observe(4*s, StatusIdle, TurnEnded, false),
		}, []TurnCause{d7, d9}},
		{"idle with no turn open reports nothing, and a new turn starts afresh", []turnStep{
			observe(0, StatusIdle, TurnNone, false),
			enter(1*s, hook, TurnStarted, false),
			observe(2*s, StatusBusy, TurnNone, false),
			observe(3*s, StatusIdle, TurnEnded, false),
			observe(4*s, StatusIdle, TurnNone, false),
			observe(5*s, StatusBusy, TurnNone, false),
			enter(6*s, person, TurnStarted, true),
			observe(7*s, StatusBusy, TurnNone, false),
			observe(8*s, StatusIdle, TurnEnded, false),
		}, []TurnCause{person}},
		{"a definitive idle ends the person's turn within the grace, busy never seen (a shell back at its prompt after true)", []turnStep{
			enter(0, person, TurnStarted, true),
			observe(10*time.Millisecond, StatusIdle, TurnNone, true), // the shell has not drawn its prompt yet
			observeDefinitive(20*time.Millisecond, StatusIdle, TurnEnded, false),
		}, []TurnCause{person}},
		{"a definitive idle ends a delivery's turn within the grace", []turnStep{
			enter(0, d7, TurnStarted, false),
			observeDefinitive(50*time.Millisecond, StatusIdle, TurnEnded, false),
		}, []TurnCause{d7}},
		{"a definitive idle after busy ends the turn as any idle does", []turnStep{
			enter(0, person, TurnStarted, true),
			observeDefinitive(1*s, StatusBusy, TurnNone, false),
			observeDefinitive(2*s, StatusIdle, TurnEnded, false),
		}, []TurnCause{person}},
		{"an idle that is not definitive still waits out the grace", []turnStep{
			enter(0, d7, TurnStarted, false),
			observe(50*time.Millisecond, StatusIdle, TurnNone, false),
			observe(9*s, StatusIdle, TurnNone, false),
			observe(10*s, StatusIdle, TurnEnded, false),
		}, []TurnCause{d7}},
		{"an exit ends the open turn", []turnStep{
			enter(0, d7, TurnStarted, false),
			{at: 1 * s, exited: true, want: TurnEnded},
			{at: 2 * s, exited: true, want: TurnNone},
		}, []TurnCause{d7}},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
			var m Turn
			var last TurnEvent
			var started time.Time
			for i, st := range r.steps {
				now := t0.Add(st.at)
				var ev TurnEvent
				switch {
				case st.enter != nil:
					ev = m.Enter(*st.enter, now)
				case st.exited:
					ev, _ = m.Exited(now)
				default:
					var ended bool
					ev, ended = m.Observe(st.status, st.definitive, now)
					if ended != (ev.Kind == TurnEnded) {
						t.Fatalf("step %d: ended=%v with event %v", i, ended, ev.Kind)
					}
				}
				if ev.Kind != st.want {
					t.Fatalf("step %d (%v): event %v, want %v", i, st.at, ev.Kind, st.want)
				}
				if got := m.Holding(now); got != st.holding {
					t.Fatalf("step %d (%v): Holding = %v, want %v", i, st.at, got, st.holding)
				}
				if ev.Kind == TurnStarted {
					started = now
				}
				if ev.Kind != TurnNone {
					if !ev.At.Equal(now) || !ev.Start.Equal(started) {
						t.Fatalf("step %d: event at %v start %v, want %v and %v", i, ev.At, ev.Start, now, started)
					}
					last = ev
				}
				if (ev.Kind == TurnEnded && m.Open()) || ((ev.Kind == TurnStarted || ev.Kind == TurnJoined) && !m.Open()) {
					t.Fatalf("step %d: Open = %v after %v", i, m.Open(), ev.Kind)
				}
			}
			if !reflect.DeepEqual(last.Causes, r.causes) {
				t.Fatalf("causes %+v, want %+v", last.Causes, r.causes)
			}
		})
	}
}

func TestTurnEventDeliveredListsDeliveriesOnly(t *testing.T) {
	ev := TurnEvent{Causes: []TurnCause{PersonEnter(), DeliveryEnter(3), HookPrompt(), DeliveryEnter(5)}}
	if got := ev.Delivered(); !reflect.DeepEqual(got, []int64{3, 5}) {
		t.Fatalf("Delivered = %v, want [3 5]", got)
	}
	if got := (TurnEvent{Causes: []TurnCause{PersonEnter()}}).Delivered(); got != nil {
		t.Fatalf("Delivered of the person's turn = %v, want none", got)
	}
}

func TestTurnCausesAreBounded(t *testing.T) {
	var m Turn
	t0 := time.Unix(0, 0)
	for i := range 100 {
		m.Enter(DeliveryEnter(int64(i+1)), t0.Add(time.Duration(i)*time.Millisecond))
	}
	ev, _ := m.Exited(t0.Add(time.Second))
	if len(ev.Causes) != maxTurnCauses || ev.Causes[0] != DeliveryEnter(1) || ev.Causes[maxTurnCauses-1] != DeliveryEnter(100) {
		t.Fatalf("causes %v: want %d, the first and the newest kept", ev.Causes, maxTurnCauses)
	}
}

func TestTurnNamesForLogs(t *testing.T) {
	for k, want := range map[CauseKind]string{CausePerson: "person", CauseDelivery: "delivery", CauseHook: "hook", 0: "unknown"} {
		if k.String() != want {
			t.Errorf("%d: %q, want %q", k, k.String(), want)
		}
	}
	for k, want := range map[TurnEventKind]string{TurnNone: "none", TurnStarted: "started", TurnJoined: "joined", TurnEnded: "ended"} {
		if k.String() != want {
			t.Errorf("%d: %q, want %q", k, k.String(), want)
		}
	}
}

func TestTurnDeadlines(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	var m Turn
	if _, ok := m.GraceEnd(); ok {
		t.Fatal("a deadline with no turn")
	}
	m.Enter(DeliveryEnter(1), t0)
	if at, ok := m.GraceEnd(); !ok || !at.Equal(t0.Add(TurnGrace)) {
		t.Fatalf("GraceEnd %v %v, want %v", at, ok, t0.Add(TurnGrace))
	}
	if _, _, ok := m.HoldWindow(); ok {
		t.Fatal("a delivery's turn holds")
	}
	m.Enter(PersonEnter(), t0.Add(time.Second))
	since, until, ok := m.HoldWindow()
	if !ok || !since.Equal(t0.Add(time.Second)) || !until.Equal(t0.Add(time.Second+TurnGrace)) {
		t.Fatalf("HoldWindow %v %v %v", since, until, ok)
	}
	if m.Holding(t0) || !m.Holding(t0.Add(time.Second)) || m.Holding(until) {
		t.Fatal("Holding is not the window")
	}
	m.Observe(StatusBusy, false, t0.Add(2*time.Second))
	if _, ok := m.GraceEnd(); ok {
		t.Fatal("a deadline after busy was seen: the turn ends at busy -> idle")
	}
	if _, _, ok := m.HoldWindow(); ok {
		t.Fatal("a hold after busy was seen")
	}
}

// TestTurnGraceIsAParameter: a Turn with another Grace (the office file's
// turn_grace) holds the person's turn, and ends one that never showed busy,
// at that grace instead of TurnGrace's 10 s, for every turn it runs.
func TestTurnGraceIsAParameter(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	const grace = 3 * time.Second
	for _, tc := range []struct {
		name  string
		grace time.Duration
		want  time.Duration // when the turn ends and the hold stops
	}{
		{"3s", grace, grace},
		{"zero is TurnGrace", 0, TurnGrace},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := Turn{Grace: tc.grace}
			for turn, start := range []time.Time{t0, t0.Add(time.Minute)} { // the grace outlives a turn
				m.Enter(PersonEnter(), start)
				if at, ok := m.GraceEnd(); !ok || !at.Equal(start.Add(tc.want)) {
					t.Fatalf("turn %d: GraceEnd %v %v, want %v", turn, at, ok, start.Add(tc.want))
				}
				if _, until, ok := m.HoldWindow(); !ok || !until.Equal(start.Add(tc.want)) {
					t.Fatalf("turn %d: hold until %v %v, want %v", turn, until, ok, start.Add(tc.want))
				}
				before := start.Add(tc.want - time.Nanosecond)
				if !m.Holding(before) {
					t.Fatalf("turn %d: not holding just before the grace", turn)
				}
				if _, ended := m.Observe(StatusIdle, false, before); ended {
					t.Fatalf("turn %d: ended before the grace", turn)
				}
				if ev, ended := m.Observe(StatusIdle, false, start.Add(tc.want)); !ended || ev.Kind != TurnEnded {
					t.Fatalf("turn %d: not ended at the grace: %v %v", turn, ev.Kind, ended)
				}
			}
			if m.Grace != tc.grace {
				t.Fatalf("Grace %v after two turns, want %v", m.Grace, tc.grace)
			}
		})
	}
}

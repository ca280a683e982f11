package inbox

import (
	"strings"
	"testing"
	"time"
)

func (e *env) notices(to string) []string {
	e.t.Helper()
	var out []string
	for _, it := range e.items(to, StatePending, StateLeased, StateDelivered) {
		if it.Kind == KindNotification {
			out = append(out, it.Body)
		}
	}
	return out
}

func TestStallGivesOneNoticePerStall(t *testing.T) {
	e := newEnv(t)
	t0 := e.clock.Now()
	obs := StallObservation{Agent: "a", Parent: "b", Desc: "reviewer", Busy: true, LastActivity: t0}
	for _, d := range []time.Duration{time.Minute, 5 * time.Minute, 6 * time.Minute, 7 * time.Minute, 20 * time.Minute} {
		if _, err := e.svc.ObserveStall(e.ctx, obs, t0.Add(d)); err != nil {
			t.Fatal(err)
		}
	}
	n := e.notices("b")
	if len(n) != 1 || !strings.Contains(n[0], `Background sub-session "reviewer" (actor_id: a) appears stalled (no activity for 360s).`) {
		t.Fatalf("notices %q", n)
	}
	// Activity ends the stall; a later stall is a new one.
	obs.LastActivity = t0.Add(21 * time.Minute)
	e.svc.ObserveStall(e.ctx, obs, t0.Add(22*time.Minute))
	e.svc.ObserveStall(e.ctx, obs, t0.Add(28*time.Minute))
	if n := e.notices("b"); len(n) != 2 {
		t.Fatalf("second stall: %d notices", len(n))
	}
	// Idle is not news.
	idle := StallObservation{Agent: "c", Parent: "b", Busy: false, LastActivity: t0}
	e.svc.ObserveStall(e.ctx, idle, t0.Add(time.Hour))
	if n := e.notices("b"); len(n) != 2 {
		t.Fatal("idle agent reported")
	}
}

func TestStallAcrossARestartGivesOneNotice(t *testing.T) {
	e := newEnv(t)
	t0 := e.clock.Now()
	obs := StallObservation{Agent: "a", Parent: "b", Desc: "a", Busy: true, LastActivity: t0}
	noticed, err := e.svc.ObserveStall(e.ctx, obs, t0.Add(7*time.Minute))
	if err != nil || !noticed {
		t.Fatal(noticed, err)
	}
	e.restart()
	// The new engine seeds the agent's last activity from the remembered stall.
	since, ok, err := e.svc.StallSince(e.ctx, "a")
	if err != nil || !ok || !since.Equal(t0) {
		t.Fatalf("remembered stall: %v %v %v", since, ok, err)
	}
	obs.LastActivity = since
	for _, d := range []time.Duration{8 * time.Minute, 15 * time.Minute} {
		if noticed, _ := e.svc.ObserveStall(e.ctx, obs, t0.Add(d)); noticed {
			t.Fatal("the same stall noticed again after a restart")
		}
	}
	if n := e.notices("b"); len(n) != 1 {
		t.Fatalf("%d notices, want 1", len(n))
	}
}

func TestReportIsTakenOnceForTheTurnItBelongsTo(t *testing.T) {
	e := newEnv(t)
	start := e.clock.Now()
	if err := e.svc.SetReport(e.ctx, "a", "bogus", ""); err == nil {
		t.Fatal("bogus status accepted")
	}
	if err := e.svc.SetReport(e.ctx, "a", ReportBlocked, "need the API key"); err != nil {
		t.Fatal(err)
	}
	r, ok, err := e.svc.TakeReport(e.ctx, "a", start)
	if err != nil || !ok || r.Status != ReportBlocked || r.Summary != "need the API key" {
		t.Fatalf("%+v %v %v", r, ok, err)
	}
	if _, ok, _ := e.svc.TakeReport(e.ctx, "a", start); ok {
		t.Fatal("taken twice")
	}
	// A report older than the turn does not count.
	e.svc.SetReport(e.ctx, "a", ReportSuccess, "")
	if _, ok, _ := e.svc.TakeReport(e.ctx, "a", e.clock.Advance(time.Second)); ok {
		t.Fatal("stale report used")
	}
}

func TestNotifyParentAndForwardPermission(t *testing.T) {
	e := newEnv(t)
	if id, err := e.svc.NotifyParent(e.ctx, "", Notice{Kind: NoticeCompleted, Agent: "a"}, ""); err != nil || id != "" {
		t.Fatal("no parent: nothing should be sent")
	}
	if _, err := e.svc.NotifyParent(e.ctx, "b", Notice{Kind: NoticeFailed, Desc: "builder", Agent: "a", Error: "exit 2"}, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.ForwardPermission(e.ctx, "", "a", "Do you want to proceed?\n❯ 1. Yes\n  2. No", []string{"1. Yes", "2. No"}, ""); err != nil {
		t.Fatal(err)
	}
	if n := e.notices("b"); len(n) != 1 || !strings.HasPrefix(n[0], `Background sub-session "builder" (actor_id: a) failed.`) {
		t.Fatalf("%q", n)
	}
	p := e.items(Person)
	if len(p) != 1 || !containsAll(p[0].Body, "<permission-request", "office approve a OPTION", "2. No") {
		t.Fatalf("person: %+v", p)
	}
}

func TestLastLinesIsBounded(t *testing.T) {
	screen := "a\n\n b \nc\nd\n" + strings.Repeat("é", 400) + "\n\n"
	if got := LastLines(screen, 3, 1000); got != "c\nd\n"+strings.Repeat("é", 400) {
		t.Fatalf("%q", got)
	}
	got := LastLines(screen, 3, 101)
	if len(got) > 104 || !strings.HasPrefix(got, "…") || strings.ContainsRune(got, '\uFFFD') {
		t.Fatalf("%q", got)
	}
}

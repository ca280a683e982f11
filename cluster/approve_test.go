package cluster_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"office/cluster"
	"office/inbox"
)

// dialogs answers approvals on a test host as an engine would: the option
// is "typed" while the dialog is open, and every call is recorded.
type dialogs struct {
	mu    sync.Mutex
	open  bool
	calls []string // agent option by
}

func (d *dialogs) approve(_ context.Context, agent, option, by string, _ time.Time) cluster.ApprovalOutcome {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.calls = append(d.calls, agent+" "+option+" "+by)
	switch {
	case option == "9":
		return cluster.ApprovalOutcome{Outcome: cluster.OutcomeRefused, Detail: `no option "9" on the dialog`}
	case !d.open:
		return cluster.ApprovalOutcome{Outcome: cluster.OutcomeGone, Detail: "no dialog is waiting"}
	}
	d.open = false
	return cluster.ApprovalOutcome{Outcome: cluster.OutcomeTyped, Option: option}
}

func (d *dialogs) made() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.calls...)
}

// TestFloorApprovalCrossesOnce: `office approve` on a of a dialog of an
// agent of b reaches b's engine once (a redelivery answers nothing more),
// the approver reads the outcome (typed, gone, refused); with b down the
// approval waits in a's outbox, the approver is told it is stored, and the
// outcome comes as a notice once b is back.
func TestFloorApprovalCrossesOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two clustered NATS servers and restarts one (about 15 s): not under -short")
	}
	ctx := context.Background()
	d := &dialogs{open: true}
	hs := floor(t, map[string][]string{"a": {"lead"}, "b": {"child"}}, "a", "b")
	a, b := hs[0], hs[1]
	b.approve = d.approve
	a.start(t)
	b.start(t)
	eventually(t, 20*time.Second, "each host knows the other's agents", func() (bool, error) {
		_, errA := cluster.Lookup(ctx, a.store, "child")
		_, errB := cluster.Lookup(ctx, b.store, "lead")
		return errA == nil && errB == nil, nil
	})

	approve := func(wait time.Duration, option, by string) cluster.Approval {
		t.Helper()
		wctx, cancel := context.WithTimeout(ctx, wait)
		defer cancel()
		ap, err := a.node.Approve(wctx, "child", option, by)
		if err != nil {
			t.Fatalf("approve child %s: %v", option, err)
		}
		return ap
	}
	ap := approve(15*time.Second, "1", "lead")
	if ap.Outcome != cluster.OutcomeTyped || ap.Option != "1" || ap.Host != "b" || ap.ID == "" {
		t.Fatalf("the first approval: %+v, want option 1 typed on b", ap)
	}
	if got := d.made(); len(got) != 1 || got[0] != "child 1 lead@a" {
		t.Fatalf("b's engine was asked %q, want once for lead@a", got)
	}
	// A redelivery of the same approval (a lost ack) answers nothing more.
	again, err := b.node.Apply(ctx, cluster.Item{ID: ap.ID, Kind: cluster.KindApprove, From: "lead", FromHost: "a", To: "child", ToHost: "b", Text: "1"})
	if err != nil || again {
		t.Fatalf("the approval again on b: stored %v, %v; want nothing", again, err)
	}
	if ap := approve(15*time.Second, "1", "lead"); ap.Outcome != cluster.OutcomeGone || !strings.Contains(ap.Detail, "no dialog") {
		t.Fatalf("an approval after the dialog closed: %+v, want gone", ap)
	}
	if ap := approve(15*time.Second, "9", ""); ap.Outcome != cluster.OutcomeRefused || !strings.Contains(ap.Detail, `"9"`) {
		t.Fatalf("an approval of no option: %+v, want refused", ap)
	}
	if _, err := a.node.Approve(ctx, "nobody-anywhere", "1", ""); !errors.Is(err, cluster.ErrNotOnFloor) {
		t.Fatalf("an approval of a name no host has: %v, want ErrNotOnFloor", err)
	}
	if got := notices(t, a, "lead"); len(got) != 0 {
		t.Fatalf("lead was told %q although it read every outcome", got)
	}

	// b down: the approval is stored; its outcome is a notice to the
	// person once b is back.
	b.stop()
	d.mu.Lock()
	d.open = true
	d.mu.Unlock()
	if ap := approve(time.Second, "2", ""); ap.Outcome != cluster.OutcomeStored {
		t.Fatalf("an approval with b down: %+v, want stored", ap)
	}
	if n := pending(t, a, "b"); n != 1 {
		t.Fatalf("%d items wait on a for b, want the approval", n)
	}
	b.start(t)
	eventually(t, 30*time.Second, "the outcome told to the person on a", func() (bool, error) {
		return len(notices(t, a, inbox.Person)) == 1, nil
	})
	if got := notices(t, a, inbox.Person); !strings.Contains(got[0], "option 2 typed") || !strings.Contains(got[0], "on host b") {
		t.Fatalf("the person's notice: %q", got)
	}
	if got := d.made(); len(got) != 4 {
		t.Fatalf("b's engine was asked %q, want each approval once", got)
	}
}

// TestFloorApprovalCutByRestartNeverTyped: an approval b took in but had
// not typed when its server stopped is not typed after the restart (its
// agents restarted, the dialog is gone): the approver on a, who stopped
// waiting, is told so once.
func TestFloorApprovalCutByRestartNeverTyped(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two clustered NATS servers and restarts one (about 15 s): not under -short")
	}
	ctx := context.Background()
	hs := floor(t, map[string][]string{"a": {"lead"}, "b": {"child"}}, "a", "b")
	a, b := hs[0], hs[1]
	var mu sync.Mutex
	asked := 0
	took := make(chan struct{}, 1)
	// b's engine is slow: the server stops while the drain waits for its
	// pass.
	b.approve = func(actx context.Context, agent, option, by string, _ time.Time) cluster.ApprovalOutcome {
		mu.Lock()
		asked++
		mu.Unlock()
		took <- struct{}{}
		<-actx.Done()
		return cluster.ApprovalOutcome{Outcome: cluster.OutcomeRefused, Detail: actx.Err().Error()}
	}
	a.start(t)
	b.start(t)
	eventually(t, 20*time.Second, "each host knows the other's agents", func() (bool, error) {
		_, errA := cluster.Lookup(ctx, a.store, "child")
		_, errB := cluster.Lookup(ctx, b.store, "lead")
		return errA == nil && errB == nil, nil
	})
	wctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	ap, err := a.node.Approve(wctx, "child", "1", "lead")
	cancel()
	if err != nil || ap.Outcome != cluster.OutcomeStored {
		t.Fatalf("approve with b slow: %+v, %v; want stored", ap, err)
	}
	select {
	case <-took:
	case <-time.After(30 * time.Second):
		t.Fatal("b's engine never got the approval")
	}
	b.stop()
	b.start(t)
	eventually(t, 30*time.Second, "lead told the approval was not typed", func() (bool, error) {
		return len(notices(t, a, "lead")) == 1, nil
	})
	if got := notices(t, a, "lead")[0]; !strings.Contains(got, "not typed") || !strings.Contains(got, "restarted") {
		t.Fatalf("lead's notice: %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if asked != 1 {
		t.Fatalf("b's engine was asked %d times, want once (never again after the restart)", asked)
	}
}

package engine

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"office/automation"
	"office/configs"
	"office/inbox"
	"office/pool"
)

// The parent hears about a turn that began with an inbox delivery, and not
// about the person's own turn, even right after an inbox attempt that was
// abandoned (the old 15 s guess took that Enter for the delivery's).
func TestParentNoticeFollowsTheTurnsCauseNotAGuess(t *testing.T) {
	dir := t.TempDir()
	src := "brief = false\n\n" +
		"[[agent]]\nname = \"lead\"\ncommand = [\"sh\", \"-c\", \"exec sleep 600\"]\n\n" +
		"[[agent]]\nname = \"dev\"\nparent = \"lead\"\ncommand = [\"sh\", \"-c\", \"exec sleep 600\"]\n"
	c, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(Options{Config: c, StateDir: filepath.Join(dir, "state"), HostEnv: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	notices := func() int {
		its, err := e.inbox.svc.Items(ctx, "lead", inbox.StatePending)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, it := range its {
			if it.Kind == inbox.KindNotification {
				n++
			}
		}
		return n
	}
	delivery := func(k inbox.DeliveryEventKind, id int64) {
		e.handleInboxEvent(ctx, ibEvent{kind: ibDelivery, agent: "dev", delivery: inbox.DeliveryEvent{Kind: k, Agent: "dev", MsgID: id}})
	}
	turnEnd := func(c automation.TurnCause) {
		var m automation.Turn
		t0 := time.Now()
		m.Enter(c, t0)
		m.Observe(automation.StatusBusy, false, t0.Add(time.Second))
		ev, ended := m.Observe(automation.StatusIdle, false, t0.Add(2*time.Second))
		if !ended {
			t.Fatal("the turn did not end")
		}
		e.handleInboxEvent(ctx, ibEvent{kind: ibTerminal, agent: "dev", pool: pool.Event{Agent: "dev", Kind: pool.EventTurnEnd, Turn: ev}})
	}

	delivery(inbox.DeliveryAttempted, 41)
	delivery(inbox.DeliveryUnattempted, 41)
	turnEnd(automation.PersonEnter())
	if n := notices(); n != 0 {
		t.Fatalf("%d notices to the parent about the person's own turn", n)
	}
	delivery(inbox.DeliveryAttempted, 42)
	delivery(inbox.DeliveryAcked, 42)
	turnEnd(automation.DeliveryEnter(42))
	if n := notices(); n != 1 {
		t.Fatalf("%d notices to the parent about the inbox turn, want 1", n)
	}
}

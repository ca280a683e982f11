package inbox

import (
	"testing"

	"office/queue"
)

func TestMailStateTransitionTable(t *testing.T) {
	all := []MailState{MailQueued, MailClaimed, MailWorking, MailDone, MailFailed, MailCancelled}
	allowed := map[[2]MailState]bool{
		{MailQueued, MailClaimed}: true, {MailQueued, MailFailed}: true, {MailQueued, MailCancelled}: true,
		{MailClaimed, MailWorking}: true, {MailClaimed, MailQueued}: true, {MailClaimed, MailFailed}: true, {MailClaimed, MailCancelled}: true,
		{MailWorking, MailDone}: true, {MailWorking, MailFailed}: true,
	}
	for _, from := range all {
		for _, to := range all {
			if got := from.CanMove(to); got != allowed[[2]MailState{from, to}] {
				t.Errorf("%s -> %s: CanMove %v", from, to, got)
			}
		}
	}
	for _, s := range all {
		final := s == MailDone || s == MailFailed || s == MailCancelled
		if s.Final() != final {
			t.Errorf("%s: Final %v", s, s.Final())
		}
		if got, ok := ParseMailState(string(s)); !ok || got != s {
			t.Errorf("ParseMailState(%q) = %q, %v", s, got, ok)
		}
	}
	if got, ok := ParseMailState("WORKING"); !ok || got != MailWorking {
		t.Errorf("ParseMailState is not case-insensitive: %q %v", got, ok)
	}
	if _, ok := ParseMailState("lost"); ok || MailState("lost").Final() || ValidMailState("lost") {
		t.Error("an unknown state was accepted")
	}
}

func TestMailMoveOutsideTheTableWritesNothing(t *testing.T) {
	e := newEnv(t)
	id := e.mail(MailRequestArgs{To: "a", From: "b", Title: "t", Text: "x"})
	e.deliverAll("a") // queued -> claimed -> working
	err := e.store.Update(e.ctx, func(tx *queue.Tx) error {
		m, err := getMail(tx.Context(), tx.SQL(), id)
		if err != nil {
			return err
		}
		_, err = e.svc.setMailState(tx, m, MailQueued, "back")
		return err
	})
	if err == nil {
		t.Fatal("working -> queued was allowed")
	}
	if st, _ := e.mailState(id); st != MailWorking {
		t.Fatalf("state %s after a refused move, want working", st)
	}
}

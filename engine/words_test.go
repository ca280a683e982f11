package engine_test

import (
	"slices"
	"testing"

	"office/automation"
	"office/drain"
	"office/inbox"
	"office/wire"
)

// TestWireWordsAreTheProducers holds wire's vocabulary (wire/words.go) to
// the words the server's parts produce: a status, hold or mail state one
// side renames fails here, not in a client comparing against it.
func TestWireWordsAreTheProducers(t *testing.T) {
	t.Parallel()
	var statuses []string
	for _, s := range []automation.Status{automation.StatusStarting, automation.StatusIdle, automation.StatusBusy,
		automation.StatusWaiting, automation.StatusExited, automation.StatusLimited} {
		statuses = append(statuses, s.String())
	}
	if !slices.Equal(statuses, wire.Statuses) {
		t.Errorf("automation's statuses %q, wire.Statuses %q", statuses, wire.Statuses)
	}
	var holds []string
	for _, h := range []drain.Hold{drain.HoldBusy, drain.HoldWaiting, drain.HoldExited, drain.HoldPicker, drain.HoldDraft,
		drain.HoldSettling, drain.HoldPaused, drain.HoldBooting, drain.HoldCoolingDown, drain.HoldNoPasteMode,
		drain.HoldUnknownAgent, drain.HoldInterrupted} {
		holds = append(holds, string(h))
	}
	if !slices.Equal(holds, wire.Holds) {
		t.Errorf("drain's holds %q, wire.Holds %q", holds, wire.Holds)
	}
	var mail []string
	for _, m := range []inbox.MailState{inbox.MailQueued, inbox.MailClaimed, inbox.MailWorking, inbox.MailDone,
		inbox.MailFailed, inbox.MailCancelled} {
		mail = append(mail, string(m))
	}
	if !slices.Equal(mail, wire.MailStates) {
		t.Errorf("inbox's mail states %q, wire.MailStates %q", mail, wire.MailStates)
	}
}

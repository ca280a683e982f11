package engine

import (
	"fmt"
	"testing"

	"office/cluster"
	"office/drain"
	"office/queue"
)

// The outcome an approver of another host reads says what happened on the
// agent's host, without that host's prefixes (the approver's host says
// `approve "AGENT" on host H` itself).
func TestApprovalOutcomeForAnotherHost(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err  error
		want cluster.ApprovalOutcome
	}{
		{fmt.Errorf("engine: approve %q: %w", "helper", ErrNoDialog), cluster.ApprovalOutcome{Outcome: cluster.OutcomeGone, Detail: "no dialog is waiting"}},
		{fmt.Errorf("drain: approve %q: %w (the agent is idle); nothing was typed", "helper", drain.ErrDialogGone),
			cluster.ApprovalOutcome{Outcome: cluster.OutcomeGone, Detail: "the dialog is no longer open (the agent is idle); nothing was typed"}},
		{fmt.Errorf("engine: approve %q: no option %q on the dialog", "helper", "9"), cluster.ApprovalOutcome{Outcome: cluster.OutcomeRefused, Detail: `no option "9" on the dialog`}},
		{fmt.Errorf("engine: approve: %w %q", queue.ErrUnknownAgent, "helper"), cluster.ApprovalOutcome{Outcome: cluster.OutcomeRefused, Detail: queue.ErrUnknownAgent.Error() + ` "helper"`}},
	} {
		if got := outcomeOf("helper", "", c.err); got != c.want {
			t.Errorf("outcome of %v = %+v, want %+v", c.err, got, c.want)
		}
	}
	if got := outcomeOf("helper", "1", nil); got != (cluster.ApprovalOutcome{Outcome: cluster.OutcomeTyped, Option: "1"}) {
		t.Errorf("outcome of a typed approval = %+v", got)
	}
}

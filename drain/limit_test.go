package drain_test

import (
	"testing"

	"office/automation"
	"office/drain"
)

// TestUsageLimitHolds: a usage-limited agent's message waits, untyped and
// with no attempt counted, held "usage limit"; an exit still says exited.
func TestUsageLimitHolds(t *testing.T) {
	t.Run("limited", func(t *testing.T) {
		checkHeld(t, func(a *fakeAgent) { a.status = automation.StatusLimited }, drain.HoldUsageLimit)
	})
	t.Run("exited beats limited", func(t *testing.T) {
		checkHeld(t, func(a *fakeAgent) { a.status, a.block = automation.StatusLimited, automation.BlockExited }, drain.HoldExited)
	})
	if drain.HoldUsageLimit != "usage limit" || automation.StatusLimited.String() != string(drain.HoldUsageLimit) {
		t.Errorf("hold word %q, status word %q", drain.HoldUsageLimit, automation.StatusLimited)
	}
}

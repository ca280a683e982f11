package drain

// The usage-limit hold (docs/limits.md): an agent whose account is out of
// quota (automation.StatusLimited, decided by the judge from the engine's
// account hold) has its queued messages and inbox deliveries wait, with no
// attempt counted, until the hold ends.

import "office/automation"

// HoldUsageLimit: the agent's account hit a usage limit; the message waits
// for the reset (or `office resume AGENT`).
const HoldUsageLimit Hold = "usage limit"

// limitHold is gate (2)'s word for a usage-limited agent: HoldUsageLimit
// for automation.StatusLimited, else HoldNone.
func limitHold(s automation.Status) Hold {
	if s == automation.StatusLimited {
		return HoldUsageLimit
	}
	return HoldNone
}

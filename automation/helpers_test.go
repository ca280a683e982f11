package automation

import "time"

// t0 is the fixed origin of every test clock.
var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

// at returns t0 + d.
func at(d time.Duration) time.Time { return t0.Add(d) }

package pool

import (
	"testing"
	"time"
)

// TestLagPostponesUpToItsBound: a wake for the monitor moves with each
// burst's end, but never past judgeLagMax after it was first set.
func TestLagPostponesUpToItsBound(t *testing.T) {
	t.Parallel()
	since := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC).UnixNano()
	for _, c := range []struct {
		after time.Duration // from since to the burst's end
		want  bool
	}{
		{0, true},
		{judgeLag / 2, true},
		{judgeLagMax - judgeLag, true}, // judged exactly at the bound
		{judgeLagMax - judgeLag + time.Nanosecond, false}, // one past it: left to fire
		{judgeLagMax, false},
		{time.Hour, false},
	} {
		if got := lagPostpones(since, since+int64(c.after)); got != c.want {
			t.Errorf("a wake set %v before a burst ended: postponed %v, want %v", c.after, got, c.want)
		}
	}
}

package pool_test

import (
	"testing"
	"time"

	"office/automation"
	"office/pool"
)

// TestBootGraceFromBehavior: a CLI whose ready markers never show becomes
// ready when Behavior.BootGrace has passed since spawn (the office file's
// boot_grace), and at automation.BootGrace when the behavior sets none.
func TestBootGraceFromBehavior(t *testing.T) {
	t.Parallel()
	start := func(grace time.Duration) *pool.Terminal {
		term, err := pool.Start(pool.Options{Name: "silent", Argv: []string{"sleep", "60"}, Env: testEnv(),
			Behavior: pool.Behavior{ReadyMarkers: []string{"never shown"}, BootGrace: grace}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { term.Close() })
		return term
	}
	short, def := start(3*time.Second), start(0)
	for _, tc := range []struct {
		term  *pool.Terminal
		after time.Duration
		want  bool
	}{
		{short, 3*time.Second - time.Millisecond, false},
		{short, 3 * time.Second, true},
		{def, 3 * time.Second, false},
		{def, automation.BootGrace - time.Millisecond, false},
		{def, automation.BootGrace, true},
	} {
		if got := tc.term.Ready(tc.term.Spawned().Add(tc.after)); got != tc.want {
			t.Errorf("Ready %v after spawn = %v, want %v", tc.after, got, tc.want)
		}
	}
}

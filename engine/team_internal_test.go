package engine

import (
	"slices"
	"testing"

	"office/configs"
)

// The team's book: its lock is free and its bound the office's at start,
// and a name left out for the bound is told once a run.
func TestTeamBook(t *testing.T) {
	t.Parallel()
	tm := newTeam()
	if tm.max != configs.MaxAgents || cap(tm.start) != 1 || len(tm.start) != 0 {
		t.Fatalf("new team: max %d, lock cap %d len %d; want %d, a free one-slot lock", tm.max, cap(tm.start), len(tm.start), configs.MaxAgents)
	}
	if got := tm.unseen([]string{"a", "b"}); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("first over the bound: %v, want a b", got)
	}
	if got := tm.unseen([]string{"b", "c"}); !slices.Equal(got, []string{"c"}) {
		t.Errorf("again: %v, want only c (b was told)", got)
	}
	if got := tm.unseen(nil); got != nil {
		t.Errorf("none over: %v", got)
	}
}

package engine

import (
	"reflect"
	"testing"
)

func TestDialogOptionsReadsNumberedChoices(t *testing.T) {
	t.Parallel()
	screen := "  Do you want to proceed?\n  ❯ 1. Yes\n    2. No, and tell Claude what to do\n\n  Esc to cancel\n  3 files changed"
	got := dialogOptions(screen)
	want := []dialogOption{{"1", "Yes"}, {"2", "No, and tell Claude what to do"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

func TestActivityHashIgnoresSpinnersAndTimers(t *testing.T) {
	t.Parallel()
	a := activityHash("✻ Working… (12s · esc to interrupt)\n● reply: x")
	b := activityHash("✳ Working… (13s · esc to interrupt)\n● reply: x")
	c := activityHash("⠂ Working… (13s · esc to interrupt)\n● reply: y")
	if a != b {
		t.Fatal("a spinner frame or a timer counted as activity")
	}
	if a == c {
		t.Fatal("new text did not count as activity")
	}
}

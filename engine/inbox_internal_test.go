package engine

import (
	"reflect"
	"testing"
	"time"
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

func TestDialogBookKnowsANewDialogFromTheSameOne(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	var b dialogBook
	a := "❯ first\n  Do you want to proceed?\n  ❯ 1. Yes\n    2. No"
	moved := "❯ first\n  Do you want to proceed?\n    1. Yes\n  ❯ 2. No"
	other := "❯ second\n  Do you want to proceed?\n  ❯ 1. Yes\n    2. No"
	if d, isNew := b.opened("x", a, t0); !isNew || len(d.options) != 2 {
		t.Fatalf("first dialog: new %v, options %+v", isNew, d.options)
	}
	if _, isNew := b.opened("x", moved, t0.Add(time.Second)); isNew {
		t.Fatal("moving the highlight made a new dialog (it would be forwarded twice)")
	}
	if _, isNew := b.opened("x", other, t0.Add(2*time.Second)); !isNew {
		t.Fatal("another dialog was taken for the one forwarded")
	}
	b.closed("x")
	if _, ok := b.get("x"); ok {
		t.Fatal("a closed dialog is still recorded")
	}
}

func TestOptionNumber(t *testing.T) {
	opts := []dialogOption{{"1", "Yes"}, {"2", "Yes, and don't ask again"}, {"3", "No"}}
	for option, want := range map[string]string{
		"1": "1", "3": "3", "4": "", "-1": "", "": "",
		"yes": "1", "No": "3", "yes, and": "2", "maybe": "",
	} {
		if got := optionNumber(option, opts); got != want {
			t.Errorf("optionNumber(%q) = %q, want %q", option, got, want)
		}
	}
	if got := optionNumber("2", nil); got != "2" {
		t.Errorf("a number with no options read = %q, want it as is", got)
	}
}

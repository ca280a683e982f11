package engine

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestDialogOptionsReadsNumberedChoices(t *testing.T) {
	t.Parallel()
	screen := "  Do you want to proceed?\n  ❯ 1. Yes\n    2. No, and tell Claude what to do\n\n  Esc to cancel\n  3 files changed"
	got := dialogOptions(screen)
	want := []dialogOption{{Num: "1", Label: "Yes", Pos: 1, Selected: true}, {Num: "2", Label: "No, and tell Claude what to do", Pos: 2}}
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
	opts := []dialogOption{{Num: "1", Label: "Yes", Pos: 1}, {Num: "2", Label: "Yes, and don't ask again", Pos: 2}, {Num: "3", Label: "No", Pos: 3}}
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

// Claude Code 2.1.332's trust dialog: unnumbered, the safe option first and
// under the pointer. Answered by label or position, the approval names the
// option's place and label (the drain moves the pointer there from where the
// live screen shows it), never a move from where it was when read.
func TestUnnumberedOptionsAnsweredByLabelOrPosition(t *testing.T) {
	t.Parallel()
	screen := " Accessing workspace:\n\n /tmp/proj\n\n Quick safety check: Is this a project you created or one you trust?\n\n" +
		" ❯ No, exit\n   Yes, I trust this folder\n\n Enter to confirm · Esc to cancel"
	opts := dialogOptions(screen)
	want := []dialogOption{{Label: "No, exit", Pos: 1, Selected: true}, {Label: "Yes, I trust this folder", Pos: 2}}
	if !reflect.DeepEqual(opts, want) {
		t.Fatalf("options %+v, want %+v", opts, want)
	}
	for option, target := range map[string]int{"yes": 2, "Yes, I trust": 2, "2": 2, "no": 1, "1": 1} {
		ap, num := answerFor(option, opts)
		if num == "" || ap.Target != target || ap.Label != opts[target-1].Label || ap.Keys != "" {
			t.Errorf("answerFor(%q) = %+v %q, want option %d by its label", option, ap, num, target)
		}
	}
	if _, num := answerFor("3", opts); num != "" {
		t.Errorf("a third option on a two-option dialog resolved to %q", num)
	}
	// The pointer on the second option: "no" is still option 1, not a move.
	up := strings.Replace(strings.Replace(screen, " ❯ No, exit", "   No, exit", 1), "   Yes, I trust", " ❯ Yes, I trust", 1)
	if ap, _ := answerFor("no", dialogOptions(up)); ap.Target != 1 || ap.Label != "No, exit" {
		t.Errorf("from the second option: %+v, want option 1", ap)
	}
}

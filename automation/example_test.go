package automation_test

import (
	"fmt"
	"time"

	"office/automation"
)

// A draft the person typed holds automation for 30 minutes after their last
// keystroke, then queued messages may be typed after it.
func ExampleBlockReason_draft() {
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	var tr automation.Tracker
	tr.Feed([]byte("half a thought"), t0)

	for _, d := range []time.Duration{time.Millisecond, 10 * time.Minute, 30 * time.Minute} {
		fmt.Printf("after %v: %q\n", d, automation.BlockReason(tr.State(), t0.Add(d)))
	}
	// Output:
	// after 1ms: "your draft"
	// after 10m0s: "your draft"
	// after 30m0s: ""
}

// Only a bare interactive command latches the picker.
func ExampleOpensInteractiveUI() {
	for _, in := range []string{"/model", " /provider ", "/model sonnet", "/permissions allow", "/compact", "implement this"} {
		fmt.Printf("%-20q %v\n", in, automation.OpensInteractiveUI(in, nil))
	}
	// Output:
	// "/model"             true
	// " /provider "        true
	// "/model sonnet"      false
	// "/permissions allow" false
	// "/compact"           false
	// "implement this"     false
}

// Submitting /model latches the picker; arrow keys inside it change nothing;
// a lone Esc releases it and automation waits out a 500 ms settling block.
func ExampleTracker_picker() {
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	var tr automation.Tracker
	show := func(label string, now time.Time) {
		fmt.Printf("%-10s %q\n", label, automation.BlockReason(tr.State(), now))
	}

	fmt.Println(tr.Feed([]byte("/model\r"), t0))
	show("latched", t0.Add(time.Second))
	tr.Feed([]byte("\x1b[B"), t0.Add(2*time.Second)) // arrow down in the menu
	show("arrow", t0.Add(2*time.Second))
	tr.Feed([]byte("\x1b"), t0.Add(3*time.Second)) // the person closes it
	show("released", t0.Add(3*time.Second))
	show("+500ms", t0.Add(3*time.Second+automation.PickerCloseSettle))
	// Output:
	// [/model]
	// latched    "picker open"
	// arrow      "picker open"
	// released   "settling"
	// +500ms     ""
}

// The screen clears a phantom draft once the echo grace has passed, and text
// office did not type on the prompt row (a recalled prompt) becomes the
// person's draft once it has been there for the echo grace.
func ExampleTracker_ObservePrompt() {
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	var tr automation.Tracker
	tr.Feed([]byte("abc"), t0)

	tr.ObservePrompt("│ > │", true, t0.Add(500*time.Millisecond))
	fmt.Println("within the echo grace:", tr.State().Dirty)
	tr.ObservePrompt("│ > │", true, t0.Add(time.Second))
	fmt.Println("after the echo grace:", tr.State().Dirty)
	tr.ObservePrompt("recalled prompt", true, t0.Add(time.Minute))
	fmt.Println("recalled text first seen:", tr.State().Dirty)
	tr.ObservePrompt("recalled prompt", true, t0.Add(time.Minute+time.Second))
	fmt.Println("recalled text a second later:", tr.State().Dirty, tr.Draft())
	// Output:
	// within the echo grace: true
	// after the echo grace: false
	// recalled text first seen: false
	// recalled text a second later: true recalled prompt
}

// A block stamped with a zero time never goes stale; others expire after
// StaleAfter, or the window given (the office file's stale).
func ExampleIsStale() {
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	fmt.Println(automation.IsStale(t0, t0.Add(29*time.Minute), 0))
	fmt.Println(automation.IsStale(t0, t0.Add(automation.StaleAfter), 0))
	fmt.Println(automation.IsStale(time.Time{}, t0.Add(1000*time.Hour), 0))
	fmt.Println(automation.IsStale(t0, t0.Add(10*time.Minute), 10*time.Minute))
	// Output:
	// false
	// true
	// false
	// true
}

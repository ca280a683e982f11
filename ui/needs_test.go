package ui

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestNeedsListOpensCountsAndJumps: the status line counts what waits on
// the person; prefix ! lists it oldest first with the dialog's options;
// Enter on an item focuses its agent's pane.
func TestNeedsListOpensCountsAndJumps(t *testing.T) {
	h := newHarness(t, "a", "b", "c")
	h.size(120, 30)
	h.o.mu.Lock()
	h.o.floor.Needs = []Need{
		{Agent: "c", Reason: "failed", Since: testClock.Add(-3 * time.Minute), Excerpt: "exited with status 3"},
		{Agent: "b", Reason: "dialog", Since: testClock.Add(-20 * time.Second), Excerpt: "Do you want to proceed?", Options: []string{"1. Yes", "2. No"}},
	}
	h.o.mu.Unlock()
	h.changed()
	if _, right, _ := h.m.statusLine(); !strings.Contains(right, "2 need you (Ctrl-] !)") {
		t.Fatalf("status line %q: want the count", right)
	}
	h.keys("\x1d!")
	text := h.text()
	for _, want := range []string{"need you (2)", "3m  c failed: exited with status 3", "20s  b dialog: Do you want to proceed?", "1. Yes  2. No"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the list lacks %q:\n%s", want, text)
		}
	}
	if strings.Index(text, "c failed") > strings.Index(text, "b dialog") {
		t.Fatal("not oldest first")
	}
	h.keys("j\r")
	if h.m.overlay != overlayNone || h.m.focused().info.Name != "b" {
		t.Fatalf("after Enter on b's item: overlay %v, focus %s", h.m.overlay, h.m.focused().info.Name)
	}
	if got := h.o.got("b"); got != "" {
		t.Fatalf("the list's keys reached the agent: %q", got)
	}
}

// approvingOffice is a fake office that can answer dialogs.
type approvingOffice struct {
	*fakeOffice
	answers []string
}

func (o *approvingOffice) Approve(_ context.Context, agent, option string) (string, error) {
	o.answers = append(o.answers, agent+"="+option)
	return option, nil
}

// TestNeedsListAnswersADialogWithItsOptionNumber: a digit on a dialog's
// item answers it through the office's approve path, not by typing into
// the pane; on another item it only closes the list, as any other key.
func TestNeedsListAnswersADialogWithItsOptionNumber(t *testing.T) {
	h := newHarness(t, "a", "b")
	o := &approvingOffice{fakeOffice: h.o}
	h.m.office = o
	h.size(120, 30)
	h.o.mu.Lock()
	h.o.floor.Needs = []Need{
		{Agent: "a", Reason: "failed", Since: testClock.Add(-time.Minute)},
		{Agent: "b", Reason: "dialog", Since: testClock, Options: []string{"1. Yes", "2. No"}},
	}
	h.o.mu.Unlock()
	h.changed()
	h.keys("\x1d!2")
	if len(o.answers) != 0 || h.m.overlay != overlayNone {
		t.Fatalf("a digit on a failed agent's item: answers %v, overlay %v; want none, the list closed", o.answers, h.m.overlay)
	}
	h.keys("\x1d!j2")
	if len(o.answers) != 1 || o.answers[0] != "b=2" {
		t.Fatalf("answers %v, want b=2", o.answers)
	}
	if got := h.o.got("b"); got != "" {
		t.Fatalf("the digit was typed into the pane: %q", got)
	}
	if !strings.Contains(h.m.flash, "answered b's dialog with 2") {
		t.Fatalf("flash %q", h.m.flash)
	}
}

// TestNeedsListReleasesAUsageLimitHold: r on a usage-limit item ends that
// agent's account hold through the office's limit release (not by typing
// into the pane) and the status line names the agents it set going; on an
// item of another reason it releases nothing and says why; a failed
// release is said.
func TestNeedsListReleasesAUsageLimitHold(t *testing.T) {
	h := newHarness(t, "a", "b", "c")
	h.size(120, 30)
	h.o.mu.Lock()
	h.o.floor.Needs = []Need{
		{Agent: "a", Reason: "dialog", Since: testClock.Add(-time.Minute), Options: []string{"1. Yes", "2. No"}},
		{Agent: "b", Reason: "usage limit", Since: testClock, Excerpt: "resets 5pm"},
	}
	h.o.held = map[string][]string{"b": {"b", "c"}}
	h.o.mu.Unlock()
	h.changed()
	h.keys("\x1d!")
	if text := h.text(); !strings.Contains(text, "r resume a usage limit now") {
		t.Fatalf("the list does not name its key:\n%s", text)
	}
	h.keys("r")
	if len(h.o.limits) != 0 {
		t.Fatalf("r on a dialog's item released %v", h.o.limits)
	}
	if !strings.Contains(h.m.flash, "a waits on: dialog") || h.m.overlay != overlayNeeds {
		t.Fatalf("r on a dialog's item: flash %q, overlay %v; want it said, the list open", h.m.flash, h.m.overlay)
	}
	h.keys("jr")
	if !slices.Equal(h.o.limits, []string{"b"}) {
		t.Fatalf("released %v, want b's account", h.o.limits)
	}
	if h.m.overlay != overlayNone || !strings.Contains(h.m.flash, "usage-limit hold ended early: b, c resume") {
		t.Fatalf("after r: overlay %v, flash %q", h.m.overlay, h.m.flash)
	}
	if got := h.o.got("b"); got != "" {
		t.Fatalf("the key was typed into the pane: %q", got)
	}
	h.o.mu.Lock()
	h.o.limitErr = errors.New("unknown agent \"b\"")
	h.o.mu.Unlock()
	h.keys("\x1d!jr")
	if !strings.Contains(h.m.flash, `resume b: unknown agent "b"`) {
		t.Fatalf("a failed release: flash %q", h.m.flash)
	}
}

// TestFloorResumeReleasesEveryUsageLimitHold: the floor's resume key does
// what `office resume --all` does: delivery resumes and every account's
// usage-limit hold ends (a release naming no agent); pausing releases none.
func TestFloorResumeReleasesEveryUsageLimitHold(t *testing.T) {
	h := newHarness(t, "a", "b")
	h.size(120, 30)
	h.o.mu.Lock()
	h.o.held = map[string][]string{"": {"a", "b"}}
	h.o.mu.Unlock()
	h.keys("\x1dp")
	if !h.o.Floor().Paused || len(h.o.limits) != 0 {
		t.Fatalf("after pausing: paused %v, released %v; want paused, none", h.o.Floor().Paused, h.o.limits)
	}
	h.keys("\x1dp")
	if h.o.Floor().Paused || !slices.Equal(h.o.limits, []string{""}) {
		t.Fatalf("after resuming: paused %v, released %v; want resumed, every account", h.o.Floor().Paused, h.o.limits)
	}
	if !strings.Contains(h.m.flash, "delivery resumed; usage-limit hold ended early: a, b resume") {
		t.Fatalf("flash %q", h.m.flash)
	}
}

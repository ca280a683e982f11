package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"office/automation"
	"office/cluster"
	"office/engine"
	"office/queue"
)

// permissionAnswers returns the fake agent's answers to its dialogs.
func permissionAnswers(t *testing.T, logPath string) []string {
	t.Helper()
	b, _ := os.ReadFile(logPath)
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		var l struct{ Event, Answer string }
		if json.Unmarshal([]byte(line), &l) == nil && l.Event == "permission" {
			out = append(out, l.Answer)
		}
	}
	return out
}

func TestApproveTypesIntoTheOpenDialogOnlyAndNothingAfterItClosed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := fakeConfig(t, dir, 1, "--permission", "--busy", "100ms", "--hook-evidence")
	e := open(t, c, filepath.Join(dir, "state"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)
	logPath := filepath.Join(dir, "a0.jsonl")
	a, _ := e.Agent("a0")
	waiting := func() bool { return a.Term.Status() == automation.StatusWaiting }
	idle := func() bool { return a.Term.Status() == automation.StatusIdle }

	if _, err := e.Store().Enqueue(ctx, "a0", "first", queue.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	e.Wake()
	waitCond(t, 30*time.Second, "the dialog for the first prompt", waiting)
	actx, acancel := context.WithTimeout(ctx, 4*time.Second)
	num, err := e.Approve(actx, "a0", "yes", "")
	acancel()
	if err != nil || num != "1" {
		t.Fatalf("Approve = %q, %v; want option 1 typed", num, err)
	}
	waitCond(t, 10*time.Second, "the answer", func() bool { return len(permissionAnswers(t, logPath)) == 1 })
	waitCond(t, 10*time.Second, "idle after the turn", idle)

	// The next dialog is answered by the person in the pane: approving it
	// afterwards types nothing, and the message after is not prefixed.
	if _, err := e.Store().Enqueue(ctx, "a0", "second", queue.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	e.Wake()
	waitCond(t, 30*time.Second, "the dialog for the second prompt", waiting)
	if err := a.Term.Input([]byte("2")); err != nil {
		t.Fatal(err)
	}
	waitCond(t, 10*time.Second, "the person's answer", func() bool { return len(permissionAnswers(t, logPath)) == 2 })
	waitCond(t, 10*time.Second, "idle after the person's answer", idle)
	actx, acancel = context.WithTimeout(ctx, 4*time.Second)
	_, err = e.Approve(actx, "a0", "1", "")
	acancel()
	if !errors.Is(err, engine.ErrNoDialog) {
		t.Fatalf("Approve after the dialog closed = %v, want ErrNoDialog", err)
	}
	if _, err := e.Store().Enqueue(ctx, "a0", "third", queue.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	e.Wake()
	waitCond(t, 30*time.Second, "the third prompt", func() bool { return len(promptsIn(t, logPath)) == 3 })
	if got := promptsIn(t, logPath); got[2] != "third" {
		t.Fatalf("prompts %q: the third is not typed as it is", got)
	}
	if got := permissionAnswers(t, logPath); len(got) != 2 || got[0] != "yes" || got[1] != "no" {
		t.Fatalf("answers %q, want [yes no]", got)
	}
}

// TestApprovalFromAnotherHostOnlyForTheDialogItSaw: an approval made on
// another host of the floor is typed only when the dialog open now was
// forwarded before it was made and the agent has not restarted since; a
// delayed one (the other host or the route was down meanwhile) types
// nothing into a dialog its approver never saw.
func TestApprovalFromAnotherHostOnlyForTheDialogItSaw(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := fakeConfig(t, dir, 1, "--permission", "--busy", "100ms", "--hook-evidence")
	e := open(t, c, filepath.Join(dir, "state"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)
	logPath := filepath.Join(dir, "a0.jsonl")
	a, _ := e.Agent("a0")
	approve := func(made time.Time) cluster.ApprovalOutcome {
		actx, acancel := context.WithTimeout(ctx, 4*time.Second)
		defer acancel()
		return e.ApproveForFloor(actx, "a0", "1", "lead@b", made)
	}

	if _, err := e.Store().Enqueue(ctx, "a0", "first", queue.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	e.Wake()
	waitCond(t, 30*time.Second, "the dialog forwarded", func() bool {
		_, ok := e.DialogSeen("a0")
		return ok && a.Term.Status() == automation.StatusWaiting
	})
	seen, _ := e.DialogSeen("a0")
	for _, c := range []struct {
		made time.Time
		why  string
	}{
		{a.Term.Spawned().Add(-time.Second), "restarted"},
		{seen.Add(-time.Millisecond), "appeared after the approval"},
	} {
		if out := approve(c.made); out.Outcome != cluster.OutcomeGone || !strings.Contains(out.Detail, c.why) {
			t.Fatalf("an approval made at %v: %+v, want gone (%s)", c.made, out, c.why)
		}
	}
	if got := permissionAnswers(t, logPath); len(got) != 0 {
		t.Fatalf("answers typed for approvals made before the dialog: %q", got)
	}
	if out := approve(time.Now()); out.Outcome != cluster.OutcomeTyped || out.Option != "1" {
		t.Fatalf("an approval made after the dialog was forwarded: %+v, want option 1 typed", out)
	}
	waitCond(t, 10*time.Second, "the answer", func() bool { return len(permissionAnswers(t, logPath)) == 1 })
}

// TestApproveRefusesATranscriptShapeOnTheIdlePrompt: a past prompt of
// numbered lines (`❯ 1. fix foo` / `  2. fix bar` in the transcript) draws
// the shape of a dialog above the empty prompt. The next message is typed
// (the screen gate does not hold it as an unknown screen), and an approval
// finds no dialog: "1" typed there would be submitted as a prompt.
func TestApproveRefusesATranscriptShapeOnTheIdlePrompt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := fakeConfig(t, dir, 1, "--busy", "100ms", "--hook-evidence")
	e := open(t, c, filepath.Join(dir, "state"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)
	logPath := filepath.Join(dir, "a0.jsonl")
	a, _ := e.Agent("a0")

	if _, err := e.Store().Enqueue(ctx, "a0", "1. fix foo\n2. fix bar", queue.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	e.Wake()
	waitCond(t, 30*time.Second, "the numbered prompt", func() bool { return len(promptsIn(t, logPath)) == 1 })
	waitCond(t, 10*time.Second, "its rows in the transcript, idle", func() bool {
		return a.Term.Status() == automation.StatusIdle && strings.Contains(a.Term.Text(), "❯ 1. fix foo")
	})
	if _, err := e.Store().Enqueue(ctx, "a0", "after", queue.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	e.Wake()
	waitCond(t, 30*time.Second, "the next message, not held", func() bool { return len(promptsIn(t, logPath)) == 2 })
	// Its turn over, not merely idle: right after the prompt the status can
	// still read idle from before the turn's busy, which then shows.
	waitCond(t, 10*time.Second, "idle after it, its turn over", func() bool {
		return a.Term.Status() == automation.StatusIdle && !a.Term.TurnOpen()
	})
	actx, acancel := context.WithTimeout(ctx, 4*time.Second)
	_, err := e.Approve(actx, "a0", "1", "")
	acancel()
	if !errors.Is(err, engine.ErrNoDialog) {
		t.Fatalf("Approve on the idle prompt = %v, want ErrNoDialog", err)
	}
	if got := promptsIn(t, logPath); len(got) != 2 || got[1] != "after" {
		t.Fatalf("prompts %q, want the two messages only", got)
	}
}

package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"office/client"
	"office/configs"
	"office/engine"
	"office/inbox"
	"office/queue"
	"office/wire"
)

// needsConfig is an office of a fake Claude that asks before every turn
// (a0, no parent), a child of it, and "crash", which exits 3 (restart
// never) until the file ok exists in dir.
func needsConfig(t *testing.T, dir string) *configs.Config {
	t.Helper()
	fake := tomlList([]string{fakeAgentBin, "--log", filepath.Join(dir, "a0.jsonl"), "--permission", "--busy", "100ms", "--hook-evidence"})
	child := tomlList([]string{fakeAgentBin, "--log", filepath.Join(dir, "kid.jsonl"), "--busy", "100ms", "--hook-evidence"})
	crash := tomlList([]string{"sh", "-c", fmt.Sprintf("[ -e %q ] && exec sleep 600; exit 3", filepath.Join(dir, "ok"))})
	src := fmt.Sprintf("brief = false\n\n[[agent]]\nname = \"a0\"\nprofile = \"claude\"\ncommand = %s\n\n"+
		"[[agent]]\nname = \"kid\"\nparent = \"a0\"\nprofile = \"claude\"\ncommand = %s\n\n"+
		"[[agent]]\nname = \"crash\"\ncommand = %s\nrestart = \"never\"\n", fake, child, crash)
	c, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// needsOf returns the list's items as "agent:reason", oldest first.
func needsOf(t *testing.T, e *engine.Engine) []string {
	t.Helper()
	ns, err := e.Needs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range ns {
		out = append(out, n.Agent+":"+n.Reason)
	}
	return out
}

func hasNeed(t *testing.T, e *engine.Engine, want string) bool {
	for _, n := range needsOf(t, e) {
		if n == want {
			return true
		}
	}
	return false
}

// TestNeedsListOrdersByAgeAndEmptiesAsEachIsAnswered runs a real engine on
// a real store: a failed agent, a dialog, a request mail to the person and
// a message held for the person are listed oldest first, each with what
// the person needs, and each leaves the list as it is answered (restart,
// approve, reply, release); the turn the approval let finish is listed
// (its agent has no parent) until a new turn starts. A client sees each
// change as a needs event.
func TestNeedsListOrdersByAgeAndEmptiesAsEachIsAnswered(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	e := open(t, needsConfig(t, dir), state)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)
	dctx, dcancel := context.WithTimeout(ctx, 10*time.Second)
	defer dcancel()
	conn, err := client.Dial(dctx, client.Local(state), client.Options{Client: "needs test", Events: true})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	events := make(chan wire.Event, 256)
	go func() {
		for ev := range conn.Events() {
			if ev.Type == wire.EventNeeds {
				events <- ev
			}
		}
	}()
	sawEvent := func(kind, agent, reason string) {
		t.Helper()
		deadline := time.After(20 * time.Second)
		for {
			select {
			case ev := <-events:
				if ev.Kind == kind && ev.Agent == agent && ev.Detail == reason {
					return
				}
			case <-deadline:
				t.Fatalf("no needs event %s %s %s", kind, agent, reason)
			}
		}
	}

	waitCond(t, 20*time.Second, "crash listed as failed", func() bool { return hasNeed(t, e, "crash:failed") })
	if _, err := e.Store().Enqueue(ctx, "a0", "first", queue.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	e.Wake()
	waitCond(t, 30*time.Second, "a0's dialog listed", func() bool { return hasNeed(t, e, "a0:dialog") })
	sawEvent(wire.NeedAdded, "a0", wire.NeedDialog)
	reqID, err := e.Inbox().SendMail(ctx, inbox.MailRequestArgs{To: inbox.Person, From: "kid", Title: "which db?", Text: "postgres or sqlite", Request: true})
	if err != nil {
		t.Fatal(err)
	}
	heldID, err := e.Store().Enqueue(ctx, "crash", "run the migration", queue.EnqueueOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Store().DB().ExecContext(ctx, `UPDATE messages SET interrupted = 1, set_aside = 1 WHERE id = ?`, heldID); err != nil {
		t.Fatal(err)
	}
	want := "crash:failed a0:dialog kid:request crash:held message"
	waitCond(t, 10*time.Second, "four needs, oldest first", func() bool { return strings.Join(needsOf(t, e), " ") == want })
	ns, _ := e.Needs(ctx)
	if d := ns[1]; !strings.Contains(d.Excerpt, "Do you want to proceed?") || len(d.Options) < 2 || d.Options[0] != "1. Yes" {
		t.Fatalf("the dialog's need %+v: want its question and options", d)
	}
	if r := ns[2]; r.Ref != reqID || !strings.Contains(r.Excerpt, "postgres or sqlite") {
		t.Fatalf("the request's need %+v", r)
	}
	var fromCall []wire.Need
	if err := engine.Call(ctx, state, engine.Request{Op: "needs"}, &fromCall); err != nil || len(fromCall) != 4 || fromCall[3].Ref != fmt.Sprint(heldID) {
		t.Fatalf("the needs call: %+v, %v", fromCall, err)
	}
	waitCond(t, 10*time.Second, "the state carries the list", func() bool { return len(conn.State().Needs) == 4 })

	// Each answer takes its item off the list.
	actx, acancel := context.WithTimeout(ctx, 5*time.Second)
	_, err = e.Approve(actx, "a0", "1", "")
	acancel()
	if err != nil {
		t.Fatal(err)
	}
	waitCond(t, 20*time.Second, "the approved turn listed as done", func() bool { return hasNeed(t, e, "a0:turn done") && !hasNeed(t, e, "a0:dialog") })
	sawEvent(wire.NeedCleared, "a0", wire.NeedDialog)
	if _, err := e.Inbox().Reply(ctx, inbox.Person, reqID, "sqlite"); err != nil {
		t.Fatal(err)
	}
	waitCond(t, 10*time.Second, "the request answered", func() bool { return !hasNeed(t, e, "kid:request") })
	sawEvent(wire.NeedCleared, "kid", wire.NeedRequest)
	if err := e.Store().Release(ctx, heldID); err != nil {
		t.Fatal(err)
	}
	waitCond(t, 10*time.Second, "the held message released", func() bool { return !hasNeed(t, e, "crash:held message") })
	if err := os.WriteFile(filepath.Join(dir, "ok"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := e.RestartAgent("crash"); err != nil {
		t.Fatal(err)
	}
	waitCond(t, 10*time.Second, "crash restarted", func() bool { return !hasNeed(t, e, "crash:failed") })
	sawEvent(wire.NeedCleared, "crash", wire.NeedFailed)
	// A new turn (the person's next message) ends the finished turn's item.
	if _, err := e.Store().Enqueue(ctx, "a0", "second", queue.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	e.Wake()
	waitCond(t, 30*time.Second, "the next turn's dialog instead", func() bool {
		n := needsOf(t, e)
		return len(n) == 1 && n[0] == "a0:dialog"
	})
}

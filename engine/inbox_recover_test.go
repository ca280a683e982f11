package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"office/drain"
	"office/inbox"
	"office/queue"
	"office/records"
)

// An inbox delivery a stop interrupted while it was being typed: when the
// CLI's records show its batch received (Claude's prompt hook recorded it,
// since writing began), its items are delivered and not typed again, and
// its mail settles as at a turn end (the stop ended the process that took
// it). One whose batch the records do not show is typed again whole, as
// before (its items carry ids the agent can skip).
func TestInterruptedInboxBatchTheRecordsShowIsNotTypedAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir, state, s := storeBeforeOpen(t, "a0", "a1")
	svc, err := inbox.Open(ctx, s, inbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ds := inbox.DrainStore{Store: s, Svc: svc}
	mail := map[string]string{}
	texts := map[string]string{}
	for _, a := range []string{"a0", "a1"} {
		id, err := svc.SendMail(ctx, inbox.MailRequestArgs{To: a, Title: "fyi", Text: "the build of " + a + " is green"})
		if err != nil {
			t.Fatal(err)
		}
		mail[a] = id
		if _, _, err := svc.Send(ctx, inbox.Message{To: a, Body: "and a note for " + a}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.Schedule(ctx); err != nil {
		t.Fatal(err)
	}
	msgs, err := s.List(ctx, "")
	if err != nil || len(msgs) != 2 {
		t.Fatalf("deliveries %+v, %v: want one per agent", msgs, err)
	}
	for _, m := range msgs {
		got, err := ds.Attempt(ctx, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		texts[m.Agent] = got.Text
		if err := s.Writing(ctx, m.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.Entering(ctx, m.ID); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	// a0's CLI recorded the batch as its prompt (the hook log office keeps);
	// a1's recorded nothing.
	adir := filepath.Join(state, "agents", "a0")
	if err := os.MkdirAll(adir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := records.AppendHook(filepath.Join(adir, records.HookLogFile), records.HookRecord{Event: records.HookPromptSubmit,
		At: time.Now(), Prompt: drain.Sanitize(texts["a0"], true)}); err != nil {
		t.Fatal(err)
	}

	e := open(t, fakeConfig(t, dir, 2, "--busy", "10ms", "--hook-evidence"), state)
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go e.Run(rctx)
	waitCond(t, 30*time.Second, "a1's batch typed again", func() bool {
		for _, p := range promptsIn(t, filepath.Join(dir, "a1.jsonl")) {
			if strings.Contains(p, "and a note for a1") {
				return true
			}
		}
		return false
	})
	// a1's delivery went through the drain after a0's could have: a0's
	// queue is empty and its items delivered, its mail done, and nothing
	// of the batch reached a0 again.
	waitCond(t, 30*time.Second, "a1's mail settled", func() bool {
		m, _, err := e.Inbox().GetMail(ctx, mail["a1"])
		return err == nil && m.State == inbox.MailDone
	})
	for _, p := range promptsIn(t, filepath.Join(dir, "a0.jsonl")) {
		if strings.Contains(p, "a note for a0") {
			t.Fatalf("a0's batch, received before the stop, was typed again: %q", p)
		}
	}
	if its, err := e.Inbox().Items(ctx, "a0"); err != nil || len(its) != 0 {
		t.Fatalf("a0's undelivered items %+v, %v: want none", its, err)
	}
	if ms, err := e.Store().List(ctx, "a0"); err != nil || len(ms) != 0 {
		t.Fatalf("a0's queue %+v, %v: want empty", ms, err)
	}
	if m, _, err := e.Inbox().GetMail(ctx, mail["a0"]); err != nil || m.State != inbox.MailDone {
		t.Fatalf("a0's mail %+v, %v: want done", m, err)
	}
}

// A delivery handed over at a turn's end (Attempt, then Handing) that a stop
// interrupted before the drain confirmed it: when the CLI's transcript shows
// it handed over, start-up recovery settles it delivered (an inbox batch's
// items delivered, its mail settled), never delivered again; a hand-over is
// no typed prompt, so the typed evidence alone missed it.
func TestInterruptedHandOverTheRecordsShowIsNotDeliveredAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir, state, s := storeBeforeOpen(t, "a0", "a1")
	svc, err := inbox.Open(ctx, s, inbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ds := inbox.DrainStore{Store: s, Svc: svc}
	// a0: an inbox delivery of a1's mail; a1: a plain message.
	mail, err := svc.SendMail(ctx, inbox.MailRequestArgs{To: "a0", From: "a1", Title: "fyi", Text: "the build of a0 is green"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Schedule(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Enqueue(ctx, "a1", "a journal note for a1", queue.EnqueueOptions{Source: inbox.SourceJournal}); err != nil {
		t.Fatal(err)
	}
	msgs, err := s.List(ctx, "")
	if err != nil || len(msgs) != 2 {
		t.Fatalf("queued %+v, %v: want one message per agent", msgs, err)
	}
	ids := map[string]int64{}
	for _, m := range msgs {
		got, err := ds.Attempt(ctx, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Handing(ctx, m.ID, "stop hook"); err != nil {
			t.Fatal(err)
		}
		ids[m.Agent] = m.ID
		// The CLI took it through its Stop hook: Claude's transcript line
		// for a hook's block, found through the hook log's transcript_path
		// of the session the last run started it in.
		adir := filepath.Join(state, "agents", m.Agent)
		if err := os.MkdirAll(adir, 0o700); err != nil {
			t.Fatal(err)
		}
		session := "0000000" + fmt.Sprint(m.ID) + "-0000-4000-8000-000000000000"
		launch, _ := json.Marshal(map[string]any{"session_id": session, "launched": true})
		if err := os.WriteFile(filepath.Join(adir, "launch.json"), launch, 0o600); err != nil {
			t.Fatal(err)
		}
		transcript := filepath.Join(dir, m.Agent+"-transcript.jsonl")
		line, _ := json.Marshal(map[string]any{"type": "user", "isMeta": true, "rowSource": "hook", "hookText": true,
			"message":   map[string]any{"role": "user", "content": "Stop hook feedback:\n" + drain.Sanitize(got.Text, true)},
			"timestamp": time.Now().UTC().Format("2006-01-02T15:04:05.000Z")})
		if err := os.WriteFile(transcript, append(line, '\n'), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := records.AppendHook(filepath.Join(adir, records.HookLogFile), records.HookRecord{Event: records.HookStop,
			At: time.Now(), Session: session, Transcript: transcript}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()

	e := open(t, fakeConfig(t, dir, 2, "--busy", "10ms", "--hook-evidence"), state) // recovery runs here
	for _, a := range []string{"a0", "a1"} {
		if ms, err := e.Store().List(ctx, a); err != nil || len(ms) != 0 {
			t.Errorf("%s's queue after recovery %+v, %v: want empty (delivered, not to be delivered again)", a, ms, err)
		}
	}
	evs, err := e.Store().Events(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for a, id := range ids {
		var settled []string
		for _, ev := range evs {
			if ev.MsgID == id && (ev.Kind == queue.EventDelivered || ev.Kind == queue.EventInterrupted) {
				settled = append(settled, ev.Kind+": "+ev.Detail)
			}
		}
		if len(settled) != 1 || !strings.HasPrefix(settled[0], queue.EventDelivered) || !strings.Contains(settled[0], records.SourceTranscript) {
			t.Errorf("%s's message %d settled %q, want delivered on the transcript", a, id, settled)
		}
	}
	if its, err := e.Inbox().Items(ctx, "a0"); err != nil || len(its) != 0 {
		t.Errorf("a0's undelivered items %+v, %v: want none", its, err)
	}
	if m, _, err := e.Inbox().GetMail(ctx, mail); err != nil || m.State != inbox.MailDone {
		t.Errorf("a0's mail %+v, %v: want done", m, err)
	}
}

package engine_test

// A CLI under load writes its record of a prompt late, after evidence_wait
// (the real Gemini CLI did): the delivery is held typed, not confirmed, and
// the record that comes while it waits settles it delivered (docs/evidence.md).
// The fake agent writes its record only once the test saw the hold
// (--hook-gate), so a loaded machine cannot make it come in time.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"office/configs"
	"office/engine"
	"office/inbox"
	"office/queue"
)

// lateRecordOffice opens an office of one agent, a0, a fake Claude whose
// hook records each prompt only once gate exists. Its first prompt after a
// start: the hook log is not yet seen to record this process, so a missing
// record holds it (typed, not confirmed) rather than counting a failed
// attempt. evidence_wait is 2 s: the record the test releases at the hold
// comes well inside the twelve seconds the held message's records are read.
func lateRecordOffice(t *testing.T) (e *engine.Engine, log, gate string) {
	dir := t.TempDir()
	log, gate = filepath.Join(dir, "a0.jsonl"), filepath.Join(dir, "record-now")
	src := fmt.Sprintf("brief = false\nevidence_wait = \"2s\"\n\n[[agent]]\nname = \"a0\"\nprofile = \"claude\"\ncommand = %s\n",
		tomlList([]string{fakeAgentBin, "--log", log, "--busy", "10ms", "--hook-evidence", "--hook-gate", gate}))
	c, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return open(t, c, filepath.Join(dir, "state")), log, gate
}

func TestARecordAfterEvidenceWaitSettlesTheHeldDelivery(t *testing.T) {
	t.Parallel()
	e, log, gate := lateRecordOffice(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)
	first, err := e.Store().Enqueue(ctx, "a0", "recorded late", queue.EnqueueOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Store().Enqueue(ctx, "a0", "queued behind", queue.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	e.Wake()
	waitCond(t, 30*time.Second, "the first message held, typed not confirmed", func() bool {
		m, err := e.Store().Get(ctx, first)
		return err == nil && m.Interrupted && strings.Contains(m.Evidence, "not confirmed")
	})
	if err := os.WriteFile(gate, nil, 0o600); err != nil { // the record comes now
		t.Fatal(err)
	}
	waitCond(t, 30*time.Second, "both messages delivered", func() bool { return len(promptsIn(t, log)) == 2 })
	if p := promptsIn(t, log); p[0] != "recorded late" || p[1] != "queued behind" {
		t.Fatalf("prompts %q, want each once, in order", p)
	}
	evs, err := e.Store().Events(ctx, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var note string
	for _, ev := range evs {
		if ev.MsgID == first && ev.Kind == queue.EventDelivered {
			note = ev.Detail
		}
	}
	if !strings.HasPrefix(note, "verified; evidence=hook") || !strings.Contains(note, "recorded after it was held") {
		t.Fatalf("the held message's delivered note %q, want its late record as the evidence", note)
	}
}

// An inbox delivery held typed, not confirmed, whose record then comes:
// its items are delivered and its mail, working from then on, settles as
// at the end of the turn its Enter began (which settled without it while
// it was held), not at its deadline.
func TestALateRecordOfAnInboxDeliverySettlesItsMail(t *testing.T) {
	t.Parallel()
	e, _, gate := lateRecordOffice(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	id, err := e.Inbox().SendMail(ctx, inbox.MailRequestArgs{To: "a0", From: inbox.Person, Title: "fyi", Text: "the build is green"})
	if err != nil {
		t.Fatal(err)
	}
	go e.Run(ctx)
	waitCond(t, 30*time.Second, "the inbox delivery held, typed not confirmed", func() bool {
		ms, err := e.Store().List(ctx, "a0")
		return err == nil && len(ms) == 1 && ms[0].Kind == queue.KindInbox && ms[0].Interrupted && strings.Contains(ms[0].Evidence, "not confirmed")
	})
	if m, _, err := e.Inbox().GetMail(ctx, id); err != nil || m.State == inbox.MailWorking || m.State == inbox.MailDone {
		t.Fatalf("mail %+v, %v while its delivery is held: want it not yet working", m, err)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil { // the record comes now
		t.Fatal(err)
	}
	waitCond(t, 30*time.Second, "the mail settled", func() bool {
		m, _, err := e.Inbox().GetMail(ctx, id)
		return err == nil && m.State == inbox.MailDone
	})
	if its, err := e.Inbox().Items(ctx, "a0"); err != nil || len(its) != 0 {
		t.Fatalf("a0's undelivered items %+v, %v: want none", its, err)
	}
}

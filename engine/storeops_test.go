package engine_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"office/cluster"
	"office/engine"
	"office/inbox"
	"office/queue"
	"office/wire"
)

// TestStoreOpsAreTheServersOps pins the one body of "pause", "resume" and
// "queue.list": the store-only commands call engine.SetPause and
// engine.QueueListing on the store; the server's ops give the same flags and
// the same labels for the same store.
func TestStoreOpsAreTheServersOps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	e := open(t, fakeConfig(t, dir, 2), state)
	flags := func(s *queue.Store) (bool, []string) {
		t.Helper()
		floor, err := s.FloorPaused(ctx)
		if err != nil {
			t.Fatal(err)
		}
		agents, err := s.PausedAgents(ctx)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(agents)
		return floor, agents
	}
	s, err := queue.Open(filepath.Join(state, engine.StoreFile), queue.Options{Existing: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	steps := []struct {
		agent  string
		paused bool
		floor  bool
		agents []string
	}{
		{"a1", true, false, []string{"a1"}},
		{"", true, true, []string{"a1"}},
		{"a1", false, true, nil},
		{"a0", true, true, []string{"a0"}},
		{"", false, false, nil},
	}
	for i, st := range steps {
		// Odd steps through the server's op, even ones as a command does.
		if i%2 == 0 {
			if err := engine.SetPause(ctx, s, st.agent, st.paused); err != nil {
				t.Fatal(err)
			}
		} else {
			op := wire.OpResume
			if st.paused {
				op = wire.OpPause
			}
			if _, err := engine.Do(ctx, state, op, st.agent, wire.None{}); err != nil {
				t.Fatal(err)
			}
		}
		if floor, agents := flags(s); floor != st.floor || !slices.Equal(agents, st.agents) {
			t.Fatalf("step %d (%q paused=%v): floor %v agents %v, want %v %v", i, st.agent, st.paused, floor, agents, st.floor, st.agents)
		}
		if i == 0 {
			// Queued once a1 is paused: nothing types it until the last
			// step resumes everything.
			if _, err := s.Enqueue(ctx, "a1", "held by the pause", queue.EnqueueOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if !st.floor && !slices.Contains(st.agents, "a1") {
			continue // the drain may be typing it now: no fixed listing
		}
		msgs, labels, err := engine.QueueListing(ctx, s, "", e.Holds(), true)
		if err != nil {
			t.Fatal(err)
		}
		served, err := engine.Do(ctx, state, wire.OpQueueList, "", wire.QueueListArgs{})
		if err != nil {
			t.Fatal(err)
		}
		if len(served) != len(msgs) || len(msgs) != 1 {
			t.Fatalf("step %d: the server lists %d messages, the store %d", i, len(served), len(msgs))
		}
		for j := range msgs {
			if served[j].ID != msgs[j].ID || served[j].Held != labels[j] {
				t.Errorf("step %d: the server says %d %q, the store listing %d %q", i, served[j].ID, served[j].Held, msgs[j].ID, labels[j])
			}
		}
	}
}

// TestStoreQueueEditsAreTheServersOps pins the one body of "queue.rm" and
// "queue.clear": removals alternate between engine.RemoveQueued and
// engine.ClearQueue on the store (as `office queue rm|clear` does) and the
// server's ops, with the same effect and, for what is refused, the same
// words.
func TestStoreQueueEditsAreTheServersOps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	state, s, svc := storeBeside(t)
	// The floor paused: the drain types none of them, so each stays
	// queued until removed.
	if err := engine.SetPause(ctx, s, "", true); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for i, agent := range []string{"a1", "a1", "a1", "a0", "a0", "a1"} {
		id, err := engine.Enqueue(ctx, s, agent, fmt.Sprintf("message %d", i), queue.EnqueueOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	queued := func() []int64 {
		t.Helper()
		msgs, err := s.List(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, m := range msgs {
			out = append(out, m.ID)
		}
		slices.Sort(out) // List goes agent by agent
		return out
	}
	// rm: ids[0] by the store's body, ids[1] by the server's op.
	m, err := engine.RemoveQueued(ctx, s, svc, ids[0])
	if err != nil || m.ID != ids[0] || m.Text != "message 0" {
		t.Fatalf("RemoveQueued(%d) = %d %q, %v: want the message as it went", ids[0], m.ID, m.Text, err)
	}
	if _, err := engine.Do(ctx, state, wire.OpQueueRemove, "", wire.IDArgs{ID: ids[1]}); err != nil {
		t.Fatal(err)
	}
	if got, want := queued(), ids[2:]; !slices.Equal(got, want) {
		t.Fatalf("after rm of %d (store) and %d (server): queued %v, want %v", ids[0], ids[1], got, want)
	}
	for _, id := range ids[:2] {
		f, err := engine.Do(ctx, state, wire.OpMessage, "", wire.IDArgs{ID: id})
		if err != nil || f.State != wire.FateRemoved {
			t.Errorf("message %d: fate %q, %v; want %q", id, f.State, err, wire.FateRemoved)
		}
	}
	// A message that is not queued: the same refusal both ways.
	_, serr := engine.RemoveQueued(ctx, s, svc, ids[0])
	_, oerr := engine.Do(ctx, state, wire.OpQueueRemove, "", wire.IDArgs{ID: ids[0]})
	if !errors.Is(serr, queue.ErrNotFound) || oerr == nil || !strings.HasSuffix(oerr.Error(), serr.Error()) {
		t.Errorf("rm of a removed message: the store says %v, the server %v: want not found, in the same words", serr, oerr)
	}
	// clear: a0 by the store's body, a1 by the server's op.
	gone, n, err := engine.ClearQueue(ctx, s, "a0")
	if err != nil || n != 2 || len(gone) != 2 || gone[0].ID != ids[3] || gone[1].ID != ids[4] {
		t.Fatalf("ClearQueue(a0) = %d gone %v, %v; want 2: %v", n, gone, err, ids[3:5])
	}
	if got, want := queued(), []int64{ids[2], ids[5]}; !slices.Equal(got, want) {
		t.Fatalf("after clear a0: queued %v, want %v", got, want)
	}
	cleared, err := engine.Do(ctx, state, wire.OpQueueClear, "a1", wire.None{})
	if err != nil || cleared.Cleared != 2 {
		t.Fatalf("queue.clear a1: %+v, %v; want 2 cleared", cleared, err)
	}
	if got := queued(); len(got) != 0 {
		t.Fatalf("after clear a1: queued %v, want none", got)
	}
	// A cleared message's fate is removed too, whichever way it went.
	for _, id := range ids[2:] {
		f, err := engine.Do(ctx, state, wire.OpMessage, "", wire.IDArgs{ID: id})
		if err != nil || f.State != wire.FateRemoved {
			t.Errorf("cleared message %d: fate %q, %v; want %q", id, f.State, err, wire.FateRemoved)
		}
	}
	// An agent the office has not: the same refusal both ways.
	_, _, serr = engine.ClearQueue(ctx, s, "nobody")
	_, oerr = engine.Do(ctx, state, wire.OpQueueClear, "nobody", wire.None{})
	if !errors.Is(serr, queue.ErrUnknownAgent) || oerr == nil || !strings.HasSuffix(oerr.Error(), serr.Error()) {
		t.Errorf("clear of an unknown agent: the store says %v, the server %v: want unknown agent, in the same words", serr, oerr)
	}
}

// TestStoreMailOpsAreTheServersOps pins the one body of "mail.list",
// "mail.show", "inbox.person" and "mail.reply": what `office mail ls`,
// `mail show`, `inbox --person` and `mail reply` read and do on the store
// (engine.MailListing, ShowMail, InboxItems, ReplyMail) is what the
// server's ops answer, the replies alternating between the two.
func TestStoreMailOpsAreTheServersOps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	state, s, svc := storeBeside(t)
	// Two requests of a0 to the person (the person's inbox holds them;
	// no agent's prompt is typed into).
	var reqs []string
	for i := range 2 {
		id, err := svc.SendMail(ctx, inbox.MailRequestArgs{From: "a0", To: inbox.Person, Title: fmt.Sprintf("question %d", i),
			Text: fmt.Sprintf("what of %d?", i), Request: true})
		if err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, id)
	}
	same := func(step string, wantMail int) []inbox.Item {
		t.Helper()
		ms, err := engine.MailListing(ctx, svc, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != wantMail {
			t.Fatalf("%s: %d mail, want %d", step, len(ms), wantMail)
		}
		listed, err := engine.Do(ctx, state, wire.OpMailList, "", wire.MailListArgs{})
		if err != nil {
			t.Fatal(err)
		}
		if len(listed.Mail) != len(ms) || listed.Total != len(ms) {
			t.Fatalf("%s: the server lists %d of %d mail, the store %d", step, len(listed.Mail), listed.Total, len(ms))
		}
		for i, m := range ms {
			if w := listed.Mail[i]; w.ID != m.ID || w.State != string(m.State) || w.Title != m.Title || w.InReplyTo != m.InReplyTo {
				t.Errorf("%s: the server lists %s %s %q, the store %s %s %q", step, w.ID, w.State, w.Title, m.ID, m.State, m.Title)
			}
			shown, err := engine.ShowMail(ctx, svc, m.ID)
			if err != nil {
				t.Fatal(err)
			}
			served, err := engine.Do(ctx, state, wire.OpMailShow, "", wire.MailIDArgs{ID: m.ID})
			if err != nil {
				t.Fatal(err)
			}
			if served.Text != shown.Text || served.Purged != shown.Purged || served.Mail.State != string(shown.Mail.State) ||
				len(served.Timeline) != len(shown.Timeline) {
				t.Errorf("%s: mail %s: the server shows %q %s (%d steps), the store %q %s (%d steps)", step, m.ID,
					served.Text, served.Mail.State, len(served.Timeline), shown.Text, shown.Mail.State, len(shown.Timeline))
			}
		}
		its, err := engine.InboxItems(ctx, svc, inbox.Person, false)
		if err != nil {
			t.Fatal(err)
		}
		served, err := engine.Do(ctx, state, wire.OpPersonInbox, "", wire.None{})
		if err != nil {
			t.Fatal(err)
		}
		if len(served) != len(its) {
			t.Fatalf("%s: the server's person inbox has %d items, the store's %d", step, len(served), len(its))
		}
		for i, it := range its {
			if served[i].ID != it.ID || served[i].Body != it.Body {
				t.Errorf("%s: the server's item %s %q, the store's %s %q", step, served[i].ID, served[i].Body, it.ID, it.Body)
			}
		}
		return its
	}
	if its := same("before the replies", 2); len(its) != 2 {
		t.Fatalf("the person's inbox holds %d items, want the 2 requests", len(its))
	}
	// reqs[0] answered on the store, reqs[1] by the server's op.
	r, err := engine.ReplyMail(ctx, s, svc, inbox.Person, reqs[0], "this of 0")
	if err != nil || r.ID == "" || r.Host != "" {
		t.Fatalf("ReplyMail(%s) = %+v, %v: want a reply stored here", reqs[0], r, err)
	}
	rr, err := engine.Do(ctx, state, wire.OpMailReply, "", wire.MailReplyArgs{ID: reqs[1], Text: "this of 1"})
	if err != nil || rr.ID == "" {
		t.Fatalf("mail.reply %s: %+v, %v", reqs[1], rr, err)
	}
	same("after the replies", 4)
	for i, rid := range []string{r.ID, rr.ID} {
		shown, err := engine.ShowMail(ctx, svc, rid)
		if err != nil || shown.Mail.InReplyTo != reqs[i] || shown.Text != fmt.Sprintf("this of %d", i) || shown.Mail.Sender != inbox.Person {
			t.Errorf("reply %d: %+v, %v; want the person's answer to %s", i, shown.Mail, err, reqs[i])
		}
	}
	// Refusals in the same words both ways: a state that is not one, an
	// unknown mail.
	_, serr := engine.MailListing(ctx, svc, "lost")
	_, oerr := engine.Do(ctx, state, wire.OpMailList, "", wire.MailListArgs{State: "lost"})
	if !errors.Is(serr, engine.ErrBadInput) || oerr == nil || !strings.HasSuffix(oerr.Error(), serr.Error()) {
		t.Errorf("mail list of state lost: the store says %v, the server %v: want bad input, in the same words", serr, oerr)
	}
	_, serr = engine.ReplyMail(ctx, s, svc, inbox.Person, "nosuchmail", "x")
	_, oerr = engine.Do(ctx, state, wire.OpMailReply, "", wire.MailReplyArgs{ID: "nosuchmail", Text: "x"})
	if !errors.Is(serr, inbox.ErrNotFound) || oerr == nil || !strings.HasSuffix(oerr.Error(), serr.Error()) {
		t.Errorf("reply to no mail: the store says %v, the server %v: want not found, in the same words", serr, oerr)
	}
}

// TestStoreOnlyMailBodies pins the one body of the mail commands no client
// calls over the socket (`office mail send`, `mail cancel`, `inbox show`,
// `report`): engine.SendMail keys a send as the command did (a second send
// with the key stores nothing and names the first, another text with the
// key is a conflict), SendMailElsewhere stashes mail for another host with
// this host's envelope of it in one transaction, CancelMail cancels,
// InboxItem reads the item whole, and Report records an agent's outcome
// and refuses the person's.
func TestStoreOnlyMailBodies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, s, svc := storeBeside(t)
	if err := cluster.Migrate(ctx, s); err != nil {
		t.Fatal(err)
	}
	req := inbox.MailRequestArgs{From: "a0", To: inbox.Person, Title: "a question", Text: "what of it?", Request: true}
	first, err := engine.SendMail(ctx, s, svc, req, "k1")
	if err != nil || first.ID == "" || first.Prev != "" {
		t.Fatalf("SendMail = %+v, %v: want a new id", first, err)
	}
	again, err := engine.SendMail(ctx, s, svc, req, "k1")
	if err != nil || again.ID != "" || again.Prev != first.ID {
		t.Fatalf("SendMail again with key k1 = %+v, %v: want nothing stored, Prev %s", again, err, first.ID)
	}
	other := req
	other.Text = "another text"
	if k, err := engine.SendMail(ctx, s, svc, other, "k1"); !errors.Is(err, queue.ErrKeyConflict) {
		t.Fatalf("SendMail of another text with key k1 = %+v, %v: want a key conflict", k, err)
	}
	if ms, err := engine.MailListing(ctx, svc, ""); err != nil || len(ms) != 1 {
		t.Fatalf("mail after the keyed sends: %d, %v; want the one", len(ms), err)
	}
	it, err := engine.InboxItem(ctx, svc, first.ID)
	if err != nil || it.ID != first.ID || it.Body != req.Text || it.Receiver != inbox.Person {
		t.Fatalf("InboxItem(%s) = %+v, %v: want the mail's item to the person", first.ID, it, err)
	}
	if _, err := engine.InboxItem(ctx, svc, "nosuchitem"); !errors.Is(err, inbox.ErrNotFound) {
		t.Fatalf("InboxItem of no item: %v, want not found", err)
	}
	c, err := engine.CancelMail(ctx, svc, "a0", first.ID)
	if err != nil || c.Host != "" {
		t.Fatalf("CancelMail(%s) = %+v, %v: want cancelled here", first.ID, c, err)
	}
	if shown, err := engine.ShowMail(ctx, svc, first.ID); err != nil || shown.Mail.State != inbox.MailCancelled {
		t.Fatalf("mail %s after the cancel: %+v, %v; want cancelled", first.ID, shown.Mail, err)
	}
	if _, err := engine.CancelMail(ctx, svc, "a1", first.ID); err == nil {
		t.Fatal("a1 cancelled a0's cancelled mail: want a refusal")
	}
	// Mail for an agent of host h2: one outbox item and this host's
	// envelope of it, with the item's id.
	far := inbox.MailRequestArgs{From: "a0", To: "b0", Title: "over there", Text: "for b0"}
	fit := cluster.Item{Kind: cluster.KindMail, From: "a0", FromHost: "h1", To: "b0", ToHost: "h2", Text: far.Text, Title: far.Title}
	sent, err := engine.SendMailElsewhere(ctx, s, svc, fit, far, "k2")
	if err != nil || sent.ID == "" {
		t.Fatalf("SendMailElsewhere = %+v, %v", sent, err)
	}
	if p, err := cluster.Pending(ctx, s); err != nil || p["h2"] != 1 {
		t.Fatalf("outbox after SendMailElsewhere: %v, %v; want 1 for h2", p, err)
	}
	if shown, err := engine.ShowMail(ctx, svc, sent.ID); err != nil || shown.Mail.Receiver != "b0" {
		t.Fatalf("this host's envelope of %s: %+v, %v", sent.ID, shown.Mail, err)
	}
	if k, err := engine.SendMailElsewhere(ctx, s, svc, fit, far, "k2"); err != nil || k.Prev != sent.ID {
		t.Fatalf("SendMailElsewhere again with key k2 = %+v, %v; want Prev %s", k, err, sent.ID)
	}
	if p, _ := cluster.Pending(ctx, s); p["h2"] != 1 {
		t.Fatalf("outbox after the keyed second stash: %v; want still 1 for h2", p)
	}
	if err := engine.Report(ctx, svc, "a0", "partial", "half of it"); err != nil {
		t.Fatalf("Report of a0: %v", err)
	}
	if err := engine.Report(ctx, svc, inbox.Person, "success", ""); !errors.Is(err, inbox.ErrNotAllowed) {
		t.Fatalf("Report of the person: %v, want not allowed", err)
	}
	if err := engine.Report(ctx, svc, "a0", "fine", ""); !errors.Is(err, inbox.ErrNotAllowed) {
		t.Fatalf("Report of outcome fine: %v, want not allowed", err)
	}
}

// storeBeside starts an office of two fake agents and opens, beside its
// server, the office's store and the inbox on it as a store-only command
// does; state is the office's state directory. The store closes before
// the office at the test's end.
func storeBeside(t *testing.T) (state string, s *queue.Store, svc *inbox.Service) {
	t.Helper()
	dir := t.TempDir()
	state = filepath.Join(dir, "state")
	open(t, fakeConfig(t, dir, 2), state)
	s, err := queue.Open(filepath.Join(state, engine.StoreFile), queue.Options{Existing: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	svc, err = inbox.Open(context.Background(), s, inbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return state, s, svc
}

package engine

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"office/inbox"
	"office/queue"
	"office/wire"
)

// channelStore is a real store with the inbox on it, for channelTakes.
func channelStore(t *testing.T, agents ...string) (*Engine, *queue.Store, *inbox.Service) {
	t.Helper()
	ctx := context.Background()
	s, err := queue.Open(filepath.Join(t.TempDir(), StoreFile), queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.EnsureAgents(ctx, agents); err != nil {
		t.Fatal(err)
	}
	svc, err := inbox.Open(ctx, s, inbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &Engine{inbox: &inboxLayer{svc: svc}}, s, svc
}

// inboxDelivery schedules agent's inbox delivery and returns it.
func inboxDelivery(t *testing.T, s *queue.Store, svc *inbox.Service, agent string) queue.Message {
	t.Helper()
	ctx := context.Background()
	if _, err := svc.Schedule(ctx); err != nil {
		t.Fatal(err)
	}
	ms, err := s.List(ctx, agent)
	if err != nil || len(ms) != 1 || ms[0].Kind != queue.KindInbox {
		t.Fatalf("%s's queue %+v, %v: want one inbox delivery", agent, ms, err)
	}
	return ms[0]
}

// A typed attempt that was abandoned (or failed, not dropped) leaves its
// batch leased to the delivery, none of it pending: the person's item in it
// is still the person's words, and the delivery is typed, never handed
// over.
func TestChannelTakesLooksAtTheLeasedBatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, s, svc := channelStore(t, "a")
	ds := inbox.DrainStore{Store: s, Svc: svc}
	if _, _, err := svc.Send(ctx, inbox.Message{To: "a", From: inbox.Person, Body: "stop the deploy"}); err != nil {
		t.Fatal(err)
	}
	m := inboxDelivery(t, s, svc, "a")
	if ok, err := e.channelTakes(ctx, m); err != nil || ok {
		t.Fatalf("channelTakes with the person's item pending = %v, %v; want false", ok, err)
	}
	stamped, err := ds.Attempt(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Unattempt(ctx, m.ID, "the agent got busy"); err != nil {
		t.Fatal(err)
	}
	if its, err := svc.Items(ctx, "a", inbox.StatePending); err != nil || len(its) != 0 {
		t.Fatalf("pending items %+v, %v: want none (the batch stays leased)", its, err)
	}
	if ok, err := e.channelTakes(ctx, stamped); err != nil || ok {
		t.Errorf("channelTakes with the person's item leased to the delivery = %v, %v; want false", ok, err)
	}
}

// Whose words may take the channel, per queue source: an allowlist. The
// person's own words, however they came (office send, a client's enqueue,
// the web page, a send from another host) and anything not named are
// typed; an inbox delivery of agents' mail and office's notices, and a
// journal's continuation, may be handed over.
func TestChannelTakesOnlyWhatIsAllowed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		// queue arranges agent a's message and returns it.
		queue func(t *testing.T, s *queue.Store, svc *inbox.Service) queue.Message
		want  bool
	}{
		{name: "office send", queue: plain("send"), want: false},
		{name: "a client's enqueue (the composer)", queue: plain("client"), want: false},
		{name: "the web page", queue: plain("web"), want: false},
		{name: "a send from another host", queue: plain("host h2"), want: false},
		{name: "the opening brief", queue: plain("brief"), want: false},
		{name: "a source no one named", queue: plain("something new"), want: false},
		{name: "no source", queue: plain(""), want: false},
		{name: "a journal's continuation", queue: plain(inbox.SourceJournal), want: true},
		{name: "inbox: mail from an agent", want: true, queue: func(t *testing.T, s *queue.Store, svc *inbox.Service) queue.Message {
			if _, err := svc.SendMail(ctx, inbox.MailRequestArgs{To: "a", From: "b", Title: "fyi", Text: "the build is green"}); err != nil {
				t.Fatal(err)
			}
			return inboxDelivery(t, s, svc, "a")
		}},
		{name: "inbox: a notice from office about a child", want: true, queue: func(t *testing.T, s *queue.Store, svc *inbox.Service) queue.Message {
			if _, err := svc.NotifyParent(ctx, "a", inbox.Notice{Agent: "b", Desc: "b", Kind: inbox.NoticeCancelled}, ""); err != nil {
				t.Fatal(err)
			}
			if _, _, err := svc.Send(ctx, inbox.Message{To: "a", Body: "office itself speaking"}); err != nil {
				t.Fatal(err)
			}
			return inboxDelivery(t, s, svc, "a")
		}},
		{name: "inbox: an agent's mail and the person's", want: false, queue: func(t *testing.T, s *queue.Store, svc *inbox.Service) queue.Message {
			if _, err := svc.SendMail(ctx, inbox.MailRequestArgs{To: "a", From: "b", Title: "fyi", Text: "the build is green"}); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.SendMail(ctx, inbox.MailRequestArgs{To: "a", Title: "approve", Text: "yes, ship it"}); err != nil {
				t.Fatal(err)
			}
			return inboxDelivery(t, s, svc, "a")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, s, svc := channelStore(t, "a", "b")
			m := tc.queue(t, s, svc)
			if got, err := e.channelTakes(ctx, m); err != nil || got != tc.want {
				t.Errorf("channelTakes(source %q, kind %q) = %v, %v; want %v", m.Source, m.Kind, got, err, tc.want)
			}
		})
	}
}

// plain queues a plain message to a from source.
func plain(source string) func(t *testing.T, s *queue.Store, svc *inbox.Service) queue.Message {
	return func(t *testing.T, s *queue.Store, _ *inbox.Service) queue.Message {
		t.Helper()
		id, err := s.Enqueue(context.Background(), "a", "words from "+source, queue.EnqueueOptions{Source: source})
		if err != nil {
			t.Fatal(err)
		}
		m, err := s.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
}

// A client's enqueue may not claim a source office makes itself, which the
// channel trusts.
func TestEnqueueRefusesOfficesOwnSources(t *testing.T) {
	t.Parallel()
	for _, src := range reservedSources {
		_, err := (&Engine{}).opEnqueue(context.Background(), Request{}, wire.EnqueueArgs{Agent: "a", Text: "hi", Source: src})
		if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), src) {
			t.Errorf("enqueue with source %q: %v, want bad input naming it", src, err)
		}
	}
}

package engine

import (
	"testing"

	"office/inbox"
	"office/queue"
	"office/wire"
)

// The server reads an item sent's detail once (inbox.SentDetail, beside
// the format that writes it) and sends its parts as fields; a detail of
// another shape travels whole as the text.
func TestStoreEventSplitsAnItemSent(t *testing.T) {
	t.Parallel()
	ev := storeEvent(queue.Event{Seq: 7, Agent: "lead", Kind: inbox.EventInboxSent, Detail: "notification 01HX from planner: done: all good"})
	if ev.Type != wire.EventStore || ev.Item != inbox.KindNotification || ev.From != "planner" || ev.Text != "done: all good" {
		t.Fatalf("event %+v, want item notification from planner, text \"done: all good\"", ev)
	}
	ev = storeEvent(queue.Event{Seq: 8, Agent: "lead", Kind: inbox.EventInboxSent, Detail: "oddly shaped"})
	if ev.Item != "oddly" || ev.From != "" || ev.Text != "oddly shaped" {
		t.Fatalf("odd detail: %+v", ev)
	}
}

// A delivery's and a mail's state on the stream is the row's typed state
// (queue.Event.State), whatever its detail says; only a row written before
// the store kept one (State "") is read from its words
// (legacyDeliveryVerified, legacyMailState), as every row was before.
func TestStoreEventStateIsTheRowsTypedState(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		row  queue.Event
		typ  string
		want string
	}{
		{"confirmed", queue.Event{Kind: queue.EventDelivered, Detail: "handed over (hook); evidence=hook", State: queue.StateConfirmed},
			wire.EventDelivery, wire.DeliveryVerified},
		{"unconfirmed, though the words say verified", queue.Event{Kind: queue.EventDelivered, Detail: "verified", State: queue.StateUnconfirmed},
			wire.EventDelivery, wire.DeliverySubmitted},
		{"old row, verified", queue.Event{Kind: queue.EventDelivered, Detail: "verified (Enter 2); evidence=screen"},
			wire.EventDelivery, wire.DeliveryVerified},
		{"old row, received", queue.Event{Kind: queue.EventDelivered, Detail: "received (the screen did not show the submit); evidence=hook"},
			wire.EventDelivery, wire.DeliveryVerified},
		{"old row, unverified", queue.Event{Kind: queue.EventDelivered, Detail: "unverified"},
			wire.EventDelivery, wire.DeliverySubmitted},
		{"old row, settled at a start", queue.Event{Kind: queue.EventDelivered, Detail: "after a restart: received, evidence=hook"},
			wire.EventDelivery, wire.DeliverySubmitted},
		{"mail state", queue.Event{Kind: inbox.EventMailState, Detail: "mail 01HX claimed -> working", State: string(inbox.MailDone)},
			wire.EventMail, string(inbox.MailDone)},
		{"old mail row", queue.Event{Kind: inbox.EventMailState, Detail: "mail 01HX working -> failed (deadline)"},
			wire.EventMail, "failed"},
		{"old mail row of another shape", queue.Event{Kind: inbox.EventMailState, Detail: "moved"},
			wire.EventMail, ""},
	} {
		ev := storeEvent(tc.row)
		if ev.Type != tc.typ || ev.State != tc.want {
			t.Errorf("%s: %q (state %q) reads as %s %q, want %s %q", tc.name, tc.row.Detail, tc.row.State, ev.Type, ev.State, tc.typ, tc.want)
		}
	}
}

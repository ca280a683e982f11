package remote

import (
	"testing"

	"office/inbox"
	"office/wire"
)

// An item sent is told from the event's fields (wire.Event.Item, From,
// Text), not from its detail's prose: a detail that says otherwise is not
// read.
func TestStoreNoticeReadsFieldsNotProse(t *testing.T) {
	t.Parallel()
	ev := wire.Event{Type: wire.EventStore, Kind: inbox.EventInboxSent, Agent: inbox.Person,
		Item: inbox.KindNotification, From: "planner", Text: "done: all good",
		Detail: "request 01X from someone-else: other words"}
	n, ok := storeNotice(ev)
	if !ok || n.Agent != "planner" || n.Kind != inbox.KindNotification || n.Text != "done: all good" {
		t.Fatalf("notice %+v (%v), want planner's notification \"done: all good\"", n, ok)
	}
	ev.Agent = "lead"
	if n, ok := storeNotice(ev); !ok || n.Text != "done: all good (to lead)" {
		t.Fatalf("notice to lead %+v (%v)", n, ok)
	}
}

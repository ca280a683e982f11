package inbox_test

import (
	"fmt"
	"time"

	"office/inbox"
)

// A delivery batch: a text item from the person and a request mail, in send
// order, each with its id so a repeat can be skipped.
func ExampleRenderBatch() {
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	req := &inbox.Mail{ID: "01JDMAIL", Sender: "lead", Receiver: "dev", Type: inbox.MailRequest, Title: "Review"}
	fmt.Println(inbox.RenderBatch([]inbox.Item{
		{ID: "01JDTEXT", Sender: inbox.Person, Kind: inbox.KindText, Body: "Run the linter too.", Created: at},
		{ID: req.ID, Sender: "lead", Kind: inbox.KindMail, Body: "Look at parser.go.", Created: at, Mail: req},
	}))
	// Output:
	// [office] 2 new inbox items, oldest first (if you have already seen an id, ignore that item):
	//
	// <inbox from="person" sent_at="2026-11-29T10:00:00.000Z" id="01JDTEXT">
	// Run the linter too.
	// </inbox>
	//
	// <inbox from="lead" sent_at="2026-11-29T10:00:00.000Z" id="01JDMAIL" type="request" title="Review">
	// You have mail that needs a reply.
	//
	// From: lead
	// Title: Review
	// Text: Look at parser.go.
	//
	// Handle it, then reply to the sender with exactly this command (your reply replaces YOUR REPLY):
	// office mail reply 01JDMAIL "YOUR REPLY"
	// </inbox>
}

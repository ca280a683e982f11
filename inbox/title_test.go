package inbox

import (
	"errors"
	"strings"
	"testing"

	"office/configs"
)

// A mail title past MailTitleBytes (a 120 KB title was accepted and typed
// twice into the prompt) is refused with ErrTooLarge, nothing written; a
// title at the bound is kept whole; a reply's "Re: " title of such a title
// is cut to the bound, not refused; the option changes the bound.
func TestMailTitleBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	limit := configs.Defaults().MailTitleBytes
	if _, err := e.svc.SendMail(e.ctx, MailRequestArgs{To: "b", From: "a", Title: strings.Repeat("t", limit+1), Text: "x"}); !errors.Is(err, ErrTooLarge) ||
		!strings.Contains(err.Error(), "mail_title_bytes") {
		t.Fatalf("a title of %d bytes: %v, want ErrTooLarge naming mail_title_bytes", limit+1, err)
	}
	if ms, err := e.svc.ListMail(e.ctx, ""); err != nil || len(ms) != 0 {
		t.Fatalf("the refused mail was stored: %v %v", ms, err)
	}
	// At the bound, with a multi-byte rune at its end.
	title := strings.Repeat("t", limit-3) + "界"
	id := e.mail(MailRequestArgs{To: "b", From: "a", Title: title, Text: "question", Request: true})
	if m, _, err := e.svc.GetMail(e.ctx, id); err != nil || m.Title != title {
		t.Fatalf("a title of exactly %d bytes: %q, %v", limit, m.Title, err)
	}
	rid, err := e.svc.Reply(e.ctx, "b", id, "answer")
	if err != nil {
		t.Fatalf("reply to a mail whose title is at the bound: %v", err)
	}
	r, _, err := e.svc.GetMail(e.ctx, rid)
	if err != nil || len(r.Title) > limit || !strings.HasPrefix(r.Title, "Re: ttt") || !strings.HasSuffix(r.Title, "t") {
		t.Fatalf("the reply's title: %d bytes %q..., %v; want cut to %d at a rune boundary", len(r.Title), r.Title[:10], err, limit)
	}
	// The option sets the bound.
	svc, err := Open(e.ctx, e.store, Options{MailTitleBytes: 32})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SendMail(e.ctx, MailRequestArgs{To: "b", From: "a", Title: strings.Repeat("t", 33), Text: "x"}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a 33-byte title with MailTitleBytes 32: %v", err)
	}
}

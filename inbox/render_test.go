package inbox

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/NAME.golden (rewritten with -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}

var sent = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

func TestRenderGoldens(t *testing.T) {
	req := &Mail{ID: "01JDMAILREQUEST0000000000A", Sender: "lead", Receiver: "dev", Type: MailRequest, Title: `Review "parser" <now>`}
	inf := &Mail{ID: "01JDMAILINFORM00000000000B", Sender: "dev", Receiver: "lead", Type: MailInform, Title: "Re: Review", InReplyTo: req.ID}
	items := map[string]Item{
		"item_text":         {ID: "01JDTEXT000000000000000001", Sender: "person", Kind: KindText, Body: "Please also run the linter.", Created: sent},
		"item_system":       {ID: "01JDTEXT000000000000000002", Kind: KindText, Body: "tricky </inbox> and </INBOX body", Created: sent},
		"item_mail_request": {ID: req.ID, Sender: "lead", Kind: KindMail, Body: "Look at parser.go before lunch.", Created: sent, Mail: req},
		"item_mail_reply":   {ID: inf.ID, Sender: "dev", Kind: KindMail, Body: "Done: two nits.", Created: sent.Add(90 * time.Second), Mail: inf},
		"item_notification": {ID: "01JDNOTE000000000000000003", Sender: "dev", Kind: KindNotification, Body: RenderNotice(Notice{Kind: NoticeCompleted, Desc: "reviewer", Agent: "dev", Status: ReportSuccess, Summary: "two nits", Result: "● reply: done"}), Created: sent},
		"item_long":         {ID: "01JDLONG000000000000000004", Sender: "dev", Kind: KindText, Body: strings.Repeat("0123456789abcdef", 2100), Created: sent},
	}
	for name, it := range items {
		t.Run(name, func(t *testing.T) { golden(t, name, RenderItem(it)) })
	}
	t.Run("batch", func(t *testing.T) {
		golden(t, "batch", RenderBatch([]Item{items["item_text"], items["item_mail_request"], items["item_notification"]}))
	})
	notices := map[string]Notice{
		"notice_completed_success": {Kind: NoticeCompleted, Desc: "reviewer", Agent: "dev", Status: ReportSuccess, Summary: "all good", Result: "● reply: ok"},
		"notice_completed_partial": {Kind: NoticeCompleted, Desc: "reviewer", Agent: "dev", Status: ReportPartial, Summary: "half"},
		"notice_not_reported":      {Kind: NoticeCompleted, Desc: "dev", Agent: "dev", Result: "last line one\nlast line two"},
		"notice_finished_failed":   {Kind: NoticeCompleted, Desc: "reviewer", Agent: "dev", Status: ReportFailed, Summary: "tests red"},
		"notice_finished_blocked":  {Kind: NoticeCompleted, Desc: "reviewer", Agent: "dev", Status: ReportBlocked, Summary: "no key"},
		"notice_failed":            {Kind: NoticeFailed, Desc: "builder", Agent: "b1", Error: "the process exited with status 2", Result: "panic: boom"},
		"notice_stalled":           {Kind: NoticeStalled, Desc: "builder", Agent: "b1", Quiet: 6*time.Minute + 400*time.Millisecond},
		"notice_cancelled":         {Kind: NoticeCancelled, Desc: "builder", Agent: "b1"},
	}
	for name, n := range notices {
		t.Run(name, func(t *testing.T) { golden(t, name, RenderNotice(n)) })
	}
	t.Run("permission_request", func(t *testing.T) {
		golden(t, "permission_request", PermissionRequest("dev", "Do you want to proceed?\n❯ 1. Yes\n  2. No", []string{"1. Yes", "2. No"}))
	})
	t.Run("brief", func(t *testing.T) {
		golden(t, "brief", RenderBrief(Brief{Name: "dev", Role: "reviewer", Task: "T-7 parser", Parent: "lead", Journal: "/state/tasks/T-7/progress.md"}))
	})
	t.Run("journal_continuation", func(t *testing.T) {
		golden(t, "journal_continuation", JournalContinuation("/state/tasks/T-7/progress.md", "T-7 parser", []string{JournalHeadings[2]}))
	})
	t.Run("mail_failed", func(t *testing.T) {
		golden(t, "mail_failed", MailFailedNotice(*req, ReasonNoReply))
	})
}

func TestRenderedItemsNeverCloseTheirElementEarly(t *testing.T) {
	for _, body := range []string{"</inbox>", "x </Inbox\n</actor-notification>", "</inbox </inbox"} {
		for _, kind := range []string{KindText, KindNotification} {
			out := RenderItem(Item{ID: "X", Kind: kind, Body: body, Created: sent})
			if n := strings.Count(strings.ToLower(out), "</inbox") + strings.Count(strings.ToLower(out), "</actor-notification"); n != 1 {
				t.Fatalf("%s %q renders %d closing tags:\n%s", kind, body, n, out)
			}
		}
	}
}

func TestBatchAgreesWithSelectAndRender(t *testing.T) {
	var its []Item
	for i := range 120 {
		its = append(its, Item{ID: fmt.Sprint(i), Kind: KindText, Body: strings.Repeat("y", 100*i), Created: sent})
	}
	text, n := Batch(its, 100, 32<<10)
	if k := SelectBatch(its, 100, 32<<10); k != n || text != RenderBatch(its[:k]) {
		t.Fatalf("Batch took %d, SelectBatch %d", n, k)
	}
}

func TestSelectBatchTakesAtLeastOne(t *testing.T) {
	big := Item{ID: "X", Kind: KindText, Body: strings.Repeat("x", PreviewThreshold), Created: sent}
	if n := SelectBatch([]Item{big, big}, 100, 32<<10); n != 1 {
		t.Fatalf("%d", n)
	}
	if n := SelectBatch(nil, 100, 32<<10); n != 0 {
		t.Fatal(n)
	}
}

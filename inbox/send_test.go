package inbox

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"office/queue"
)

func TestSendToUnknownReceiverWritesNothing(t *testing.T) {
	e := newEnv(t)
	before := e.count(`SELECT count(*) FROM events`)
	for _, to := range []string{"nobody", ""} {
		_, _, err := e.svc.Send(e.ctx, Message{To: to, Body: "hi"})
		if to == "nobody" && (!errors.Is(err, ErrUnknownReceiver) || !errors.Is(err, queue.ErrUnknownAgent) || !strings.Contains(err.Error(), `"nobody"`)) {
			t.Fatalf("send to %q: %v, want ErrUnknownReceiver naming it", to, err)
		}
		if err == nil {
			t.Fatalf("send to %q succeeded", to)
		}
	}
	if _, err := e.svc.SendMail(e.ctx, MailRequestArgs{To: "nobody", Title: "t", Text: "x"}); !errors.Is(err, ErrUnknownReceiver) {
		t.Fatalf("mail to nobody: %v", err)
	}
	if n := e.count(`SELECT count(*) FROM inbox_items`) + e.count(`SELECT count(*) FROM mail`); n != 0 {
		t.Fatalf("%d rows written", n)
	}
	if after := e.count(`SELECT count(*) FROM events`); after != before {
		t.Fatalf("events written: %d -> %d", before, after)
	}
}

func TestSendToRemovedAgentIsRefused(t *testing.T) {
	e := newEnv(t)
	if err := e.store.RemoveAgent(e.ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.svc.Send(e.ctx, Message{To: "c", Body: "hi"}); !errors.Is(err, ErrUnknownReceiver) {
		t.Fatalf("send to removed: %v", err)
	}
}

func TestBlankBodyIsRejectedAtSend(t *testing.T) {
	e := newEnv(t)
	for _, body := range []string{"", "   ", "\n\t\n", "\x00\x00", "\u0085\u009b"} {
		if _, _, err := e.svc.Send(e.ctx, Message{To: "a", Body: body}); !errors.Is(err, ErrBlankBody) || !errors.Is(err, queue.ErrBlank) {
			t.Fatalf("body %q: %v", body, err)
		}
	}
	if _, err := e.svc.SendMail(e.ctx, MailRequestArgs{To: "a", Title: "t", Text: " "}); !errors.Is(err, ErrBlankBody) {
		t.Fatalf("blank mail: %v", err)
	}
	if _, err := e.svc.SendMail(e.ctx, MailRequestArgs{To: "a", Title: " ", Text: "x"}); !errors.Is(err, ErrBlankBody) {
		t.Fatalf("blank title: %v", err)
	}
	if n := e.count(`SELECT count(*) FROM inbox_items`); n != 0 {
		t.Fatalf("%d items written", n)
	}
}

func TestHugeBodyIsStoredWholeAndDeliveredAsPreview(t *testing.T) {
	e := newEnv(t)
	body := strings.Repeat("é", 20*1024) // 40 KiB, 2-byte runes
	id := e.send("a", "b", body)
	it, err := e.svc.GetItem(e.ctx, id)
	if err != nil || it.Body != body {
		t.Fatalf("stored body differs (%v)", err)
	}
	text := e.deliverAll("a")
	if len(text) > PreviewBytes+1024 {
		t.Fatalf("delivered %d bytes, want a preview", len(text))
	}
	if !containsAll(text, "office inbox show "+id, fmt.Sprintf("%d bytes in all", len(body))) {
		t.Fatalf("preview lacks the show command:\n%s", text[len(text)-300:])
	}
	if !strings.Contains(text, strings.Repeat("é", 1000)) || strings.ContainsRune(text, '\uFFFD') {
		t.Fatal("preview cut a rune")
	}
	if _, _, err := e.svc.Send(e.ctx, Message{To: "a", Body: strings.Repeat("x", MaxBodyBytes+1)}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the limit: %v", err)
	}
}

func TestInvalidUTF8BecomesReplacementCharacters(t *testing.T) {
	e := newEnv(t)
	id := e.send("a", "b", "ok \xff\xfe bad 中文")
	it, err := e.svc.GetItem(e.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if it.Body != "ok \uFFFD bad 中文" {
		t.Fatalf("body %q", it.Body)
	}
	mid := e.mail(MailRequestArgs{To: "a", From: "b", Title: "t\xff", Text: "x\xc3"})
	m, _, _ := e.svc.GetMail(e.ctx, mid)
	if m.Title != "t\uFFFD" {
		t.Fatalf("title %q", m.Title)
	}
}

func TestDedupeKeyReturnsTheExistingID(t *testing.T) {
	e := newEnv(t)
	id1, existed, err := e.svc.Send(e.ctx, Message{To: "a", Body: "one", DedupeKey: "k"})
	if err != nil || existed {
		t.Fatal(err, existed)
	}
	id2, existed, err := e.svc.Send(e.ctx, Message{To: "a", Body: "two", DedupeKey: "k"})
	if err != nil || !existed || id2 != id1 {
		t.Fatalf("second send: %q %v %v, want %q existed", id2, existed, err, id1)
	}
	if n := e.count(`SELECT count(*) FROM inbox_items`); n != 1 {
		t.Fatalf("%d items", n)
	}
}

func TestSendReturnsOnlyAfterCommit(t *testing.T) {
	e := newEnv(t)
	id := e.send("a", "", "durable")
	e.restart()
	if it, err := e.svc.GetItem(e.ctx, id); err != nil || it.State != StatePending {
		t.Fatalf("after reopen: %+v %v", it, err)
	}
}

func TestSixteenConcurrentSendersLoseNothingAndKeepSeqOrder(t *testing.T) {
	e := newEnv(t)
	// Each sender has its own handle, as separate processes would.
	const senders, each = 16, 10
	var wg sync.WaitGroup
	errs := make(chan error, senders)
	for s := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := queue.Open(e.path, queue.Options{})
			if err != nil {
				errs <- err
				return
			}
			defer st.Close()
			svc, err := Open(e.ctx, st, Options{})
			if err != nil {
				errs <- err
				return
			}
			for i := range each {
				if _, _, err := svc.Send(e.ctx, Message{To: "a", From: fmt.Sprintf("s%02d", s), Body: fmt.Sprintf("s%02d-%03d", s, i)}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	its := e.items("a")
	if len(its) != senders*each {
		t.Fatalf("%d items, want %d", len(its), senders*each)
	}
	ids := map[string]bool{}
	last := map[string]int{}
	for i, it := range its {
		if ids[it.ID] {
			t.Fatalf("duplicate id %s", it.ID)
		}
		ids[it.ID] = true
		if i > 0 && it.Seq <= its[i-1].Seq {
			t.Fatal("items not in seq order")
		}
		var s, n int
		fmt.Sscanf(it.Body, "s%02d-%03d", &s, &n)
		if prev, ok := last[it.Sender]; ok && n != prev+1 {
			t.Fatalf("sender %s: %d after %d (per-sender order lost)", it.Sender, n, prev)
		}
		last[it.Sender] = n
	}
	// Delivered in seq order across two batches (100 + 60).
	var got []string
	for range 2 {
		text := e.deliverAll("a")
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, "s") && len(line) == 7 {
				got = append(got, line)
			}
		}
	}
	if len(got) != senders*each {
		t.Fatalf("delivered %d, want %d", len(got), senders*each)
	}
	want := make([]string, 0, len(its))
	for _, it := range its {
		want = append(want, it.Body)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatal("delivery order is not send (seq) order")
	}
	sort.Strings(got)
}

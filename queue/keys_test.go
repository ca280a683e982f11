package queue

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestEnqueueWithKeyStoresOnce(t *testing.T) {
	s := open(t, Options{}, "a", "b")
	ctx := context.Background()
	id := mustEnqueue(t, s, "a", "hello", EnqueueOptions{Key: "k1"})
	before := rev(t, s)
	_, err := s.Enqueue(ctx, "a", "  hello \n", EnqueueOptions{Key: "k1"})
	var used *KeyUsedError
	if !errors.As(err, &used) || !errors.Is(err, ErrKeyUsed) || used.ExistingID != strconv.FormatInt(id, 10) {
		t.Fatalf("second send: err %v, want *KeyUsedError with id %d", err, id)
	}
	if got := texts(t, s, "a"); len(got) != 1 {
		t.Fatalf("queue after retry = %q, want one message", got)
	}
	if rev(t, s) != before {
		t.Fatalf("a retried send changed the store")
	}
	// The key outlives the message: a retry after delivery still finds it.
	if err := s.Remove(ctx, id, "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Enqueue(ctx, "a", "hello", EnqueueOptions{Key: "k1"}); !errors.Is(err, ErrKeyUsed) {
		t.Fatalf("retry after the message left the queue: %v", err)
	}
	// Another receiver or text under the same key is refused.
	for _, c := range []struct{ agent, text string }{{"b", "hello"}, {"a", "other"}} {
		if _, err := s.Enqueue(ctx, c.agent, c.text, EnqueueOptions{Key: "k1"}); !errors.Is(err, ErrKeyConflict) || !strings.Contains(err.Error(), strconv.FormatInt(id, 10)) {
			t.Fatalf("%s/%s under a used key: %v, want ErrKeyConflict naming %d", c.agent, c.text, err, id)
		}
	}
	if got := texts(t, s, "b"); len(got) != 0 {
		t.Fatalf("conflicting send stored %q", got)
	}
	// A send refused for another reason does not use up the key.
	if _, err := s.Enqueue(ctx, "nobody", "x", EnqueueOptions{Key: "k2"}); !errors.Is(err, ErrUnknownAgent) {
		t.Fatalf("unknown agent: %v", err)
	}
	mustEnqueue(t, s, "a", "x", EnqueueOptions{Key: "k2"})
}

func TestEnqueueKeyConcurrentSendersStoreOne(t *testing.T) {
	path := t.TempDir() + "/q.db"
	first := openAt(t, path, Options{}, "a")
	var wg sync.WaitGroup
	ids := make([]string, 8)
	errs := make([]error, 8)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := first
			if i%2 == 1 { // half through handles of their own, as processes would
				s = openAt(t, path, Options{})
			}
			id, err := s.Enqueue(context.Background(), "a", "same", EnqueueOptions{Key: "once"})
			var used *KeyUsedError
			switch {
			case err == nil:
				ids[i] = strconv.FormatInt(id, 10)
			case errors.As(err, &used):
				ids[i] = used.ExistingID
			default:
				errs[i] = err
			}
		}()
	}
	wg.Wait()
	for i := range ids {
		if errs[i] != nil {
			t.Fatalf("sender %d: %v", i, errs[i])
		}
		if ids[i] != ids[0] {
			t.Fatalf("senders got different ids: %q", ids)
		}
	}
	if got := texts(t, first, "a"); len(got) != 1 {
		t.Fatalf("stored %d messages, want 1", len(got))
	}
}

func TestCheckKey(t *testing.T) {
	for _, k := range []string{"", "  ", strings.Repeat("k", MaxKeyLen+1), "a\x00b", "bad\xff", "new\nline"} {
		if err := CheckKey(k); !errors.Is(err, ErrBadKey) {
			t.Errorf("CheckKey(%q) = %v, want ErrBadKey", k, err)
		}
	}
	for _, k := range []string{"k", "deploy-2026-12-01#3", "键", strings.Repeat("k", MaxKeyLen)} {
		if err := CheckKey(k); err != nil {
			t.Errorf("CheckKey(%q) = %v", k, err)
		}
	}
	s := open(t, Options{}, "a")
	if _, err := s.Enqueue(context.Background(), "a", "x", EnqueueOptions{Key: "a\tb"}); !errors.Is(err, ErrBadKey) {
		t.Fatalf("Enqueue with a bad key: %v", err)
	}
}

func TestFingerprintSeparatesParts(t *testing.T) {
	if again := Fingerprint("a"); Fingerprint("ab", "c") == Fingerprint("a", "bc") || Fingerprint("a") != again {
		t.Fatal("fingerprint must digest the parts, not their concatenation")
	}
}

func TestEnqueueBodyBackstop(t *testing.T) {
	s := open(t, Options{}, "a")
	ctx := context.Background()
	if _, err := s.Enqueue(ctx, "a", strings.Repeat("x", MaxBody+1), EnqueueOptions{}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over MaxBody: %v", err)
	}
	_, err := s.Enqueue(ctx, "a", "bad \xff text", EnqueueOptions{})
	if !errors.Is(err, ErrInvalidUTF8) || !strings.Contains(err.Error(), "byte offset 4") {
		t.Fatalf("invalid UTF-8: %v, want ErrInvalidUTF8 at byte offset 4", err)
	}
	if got := texts(t, s, "a"); len(got) != 0 {
		t.Fatalf("refused bodies stored %q", got)
	}
	mustEnqueue(t, s, "a", strings.Repeat("é", MaxBody/2), EnqueueOptions{})
}

func TestInvalidUTF8At(t *testing.T) {
	for s, want := range map[string]int{"": -1, "ok": -1, "中文": -1, "\xff": 0, "ab\xc3": 2, "中\xe4\xb8": 3, "a\xed\xa0\x80": 1} {
		if got := InvalidUTF8At(s); got != want {
			t.Errorf("InvalidUTF8At(%q) = %d, want %d", s, got, want)
		}
	}
}

package queue

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// open opens a store in a fresh temp dir with agents registered.
func open(t testing.TB, opts Options, agents ...string) *Store {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "state", "queue.db"), opts, agents...)
}

func openAt(t testing.TB, path string, opts Options, agents ...string) *Store {
	t.Helper()
	s, err := Open(path, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	if len(agents) > 0 {
		if err := s.EnsureAgents(context.Background(), agents); err != nil {
			t.Fatalf("EnsureAgents: %v", err)
		}
	}
	return s
}

func mustEnqueue(t testing.TB, s *Store, agent, text string, opt EnqueueOptions) int64 {
	t.Helper()
	id, err := s.Enqueue(context.Background(), agent, text, opt)
	if err != nil {
		t.Fatalf("Enqueue(%q, %q): %v", agent, text, err)
	}
	return id
}

func texts(t testing.TB, s *Store, agent string) []string {
	t.Helper()
	ms, err := s.List(context.Background(), agent)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	out := []string{}
	for _, m := range ms {
		out = append(out, m.Text)
	}
	return out
}

func eventKinds(t testing.TB, s *Store, after int64) []string {
	t.Helper()
	evs, err := s.Events(context.Background(), after, 0)
	if err != nil {
		t.Fatalf("Events: %v", err)
	}
	out := []string{}
	for _, e := range evs {
		out = append(out, e.Kind)
	}
	return out
}

func lastSeq(t testing.TB, s *Store) int64 {
	t.Helper()
	evs, err := s.Events(context.Background(), 0, 0)
	if err != nil {
		t.Fatalf("Events: %v", err)
	}
	if len(evs) == 0 {
		return 0
	}
	return evs[len(evs)-1].Seq
}

func rev(t testing.TB, s *Store) int64 {
	t.Helper()
	v, err := s.DataVersion(context.Background())
	if err != nil {
		t.Fatalf("DataVersion: %v", err)
	}
	return v
}

func TestOpenCreatesFileAndSetsPragmas(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	path := filepath.Join(dir, "queue.db")
	s := openAt(t, path, Options{})
	if s.Path() != path {
		t.Errorf("Path = %q, want %q", s.Path(), path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, want 0600", fi.Mode().Perm())
	}
	di, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if di.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v, want 0700", di.Mode().Perm())
	}
	ctx := context.Background()
	check := func(pragma string, want any) {
		t.Helper()
		var got any
		if err := s.DB().QueryRowContext(ctx, "PRAGMA "+pragma).Scan(&got); err != nil {
			t.Fatalf("PRAGMA %s: %v", pragma, err)
		}
		if g, ok := got.(string); ok {
			got = strings.ToLower(g)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("PRAGMA %s = %v (%T), want %v", pragma, got, got, want)
		}
	}
	check("journal_mode", "wal")
	check("synchronous", int64(2))
	check("busy_timeout", int64(10000))
	check("foreign_keys", int64(1))
	check("user_version", int64(SchemaVersion()))
	if !strings.HasPrefix(dsn("/x/a b?c#d%e", BusyTimeout), "file:///x/a%20b%3Fc%23d%25e?") {
		t.Errorf("dsn does not escape the path: %s", dsn("/x/a b?c#d%e", BusyTimeout))
	}
}

func TestOpenOddPathAndReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "we?ird #dir%", "q.db")
	s := openAt(t, path, Options{}, "a")
	id := mustEnqueue(t, s, "a", "hi", EnqueueOptions{})
	s.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("file not at the literal path: %v", err)
	}
	s2 := openAt(t, path, Options{})
	m, err := s2.Get(context.Background(), id)
	if err != nil || m.Text != "hi" {
		t.Fatalf("after reopen Get = %+v, %v", m, err)
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.db")
	s := openAt(t, path, Options{})
	if _, err := s.DB().Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err := Open(path, Options{})
	if !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("Open on newer schema: %v, want ErrSchemaTooNew", err)
	}
}

func TestEnqueueTrims(t *testing.T) {
	s := open(t, Options{}, "a")
	id := mustEnqueue(t, s, "a", "  \n\thello world \n ", EnqueueOptions{Source: "send"})
	m, err := s.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if m.Text != "hello world" {
		t.Errorf("Text = %q, want trimmed", m.Text)
	}
	if m.Agent != "a" || m.Source != "send" || m.Manual || m.Kind != KindPlain || m.Attempts != 0 || !m.LastAttempt.IsZero() {
		t.Errorf("unexpected message %+v", m)
	}
	if m.Created.IsZero() {
		t.Error("Created not set")
	}
}

func TestEnqueueBlankWritesNothing(t *testing.T) {
	s := open(t, Options{}, "a")
	before, seq := rev(t, s), lastSeq(t, s)
	for _, txt := range []string{"", " ", "\n\t \r\n"} {
		_, err := s.Enqueue(context.Background(), "a", txt, EnqueueOptions{})
		if !errors.Is(err, ErrBlank) {
			t.Errorf("Enqueue(%q) = %v, want ErrBlank", txt, err)
		}
	}
	if got := texts(t, s, ""); len(got) != 0 {
		t.Errorf("queue has %q after blank enqueues", got)
	}
	if k := eventKinds(t, s, seq); len(k) != 0 {
		t.Errorf("events written: %v", k)
	}
	if rev(t, s) != before {
		t.Error("revision bumped by a refused enqueue")
	}
}

func TestEnqueueUnknownOrRemovedAgent(t *testing.T) {
	s := open(t, Options{}, "a", "gone")
	ctx := context.Background()
	_, err := s.Enqueue(ctx, "ghost", "hi", EnqueueOptions{})
	if !errors.Is(err, ErrUnknownAgent) || !strings.Contains(err.Error(), `"ghost"`) {
		t.Errorf("Enqueue to absent agent = %v, want ErrUnknownAgent naming it", err)
	}
	if err := s.RemoveAgent(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	_, err = s.Enqueue(ctx, "gone", "hi", EnqueueOptions{})
	if !errors.Is(err, ErrUnknownAgent) || !strings.Contains(err.Error(), `"gone"`) {
		t.Errorf("Enqueue to removed agent = %v, want ErrUnknownAgent naming it", err)
	}
	if got := texts(t, s, ""); len(got) != 0 {
		t.Errorf("queue has %q", got)
	}
}

func TestCompactionDedupe(t *testing.T) {
	s := open(t, Options{}, "a", "b")
	ctx := context.Background()
	first := mustEnqueue(t, s, "a", "/compact", EnqueueOptions{})
	mustEnqueue(t, s, "a", "hello", EnqueueOptions{})

	for _, txt := range []string{"/compact now", "  /COMPACT", "/compress", "/Compress keep the plan"} {
		_, err := s.Enqueue(ctx, "a", txt, EnqueueOptions{})
		var dup *DuplicateError
		if !errors.As(err, &dup) {
			t.Fatalf("Enqueue(%q) = %v, want *DuplicateError", txt, err)
		}
		if !errors.Is(err, ErrDuplicate) {
			t.Errorf("errors.Is(%v, ErrDuplicate) = false", err)
		}
		if dup.ExistingID != first || dup.Agent != "a" || dup.Kind != DupCompaction {
			t.Errorf("dup = %+v, want existing %d for a", dup, first)
		}
		if !strings.Contains(err.Error(), "compaction") || !strings.Contains(err.Error(), `"a"`) {
			t.Errorf("error text %q does not name it", err)
		}
	}
	// Not a compaction: the verb must be the first token.
	mustEnqueue(t, s, "a", "please /compact later", EnqueueOptions{})
	mustEnqueue(t, s, "a", "/compactify", EnqueueOptions{})
	// Other agents are independent.
	mustEnqueue(t, s, "b", "/compress", EnqueueOptions{})

	if got := len(texts(t, s, "a")); got != 4 {
		t.Errorf("a has %d messages, want 4", got)
	}
	// After delivery a new one is accepted.
	if err := s.Delivered(ctx, first, "ok", StateUnconfirmed); err != nil {
		t.Fatal(err)
	}
	mustEnqueue(t, s, "a", "/compress", EnqueueOptions{})
	if _, err := s.Enqueue(ctx, "a", "/compact", EnqueueOptions{}); !errors.Is(err, ErrDuplicate) {
		t.Errorf("second compaction after re-enqueue: %v", err)
	}
}

// TestSetAsideCompactionDoesNotBlockANewOne: a compaction set aside at
// recovery (typed when the office stopped, no evidence either way) waits for
// the person, not for the drain, so it is not the agent's pending compaction:
// a new one is accepted. Releasing the old one while the new one is pending
// is refused (one compaction is enough); removing it, or after the new one
// was delivered, it is released as any message.
func TestSetAsideCompactionDoesNotBlockANewOne(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "q.db")
	s := openAt(t, path, Options{}, "a")
	old := mustEnqueue(t, s, "a", "/compact", EnqueueOptions{})
	if _, err := s.Attempt(ctx, old); err != nil {
		t.Fatal(err)
	}
	if err := s.Writing(ctx, old); err != nil {
		t.Fatal(err)
	}
	if err := s.Entering(ctx, old); err != nil {
		t.Fatal(err)
	}
	s.Close() // the office stopped while typing it
	s = openAt(t, path, Options{}, "a")
	got, err := s.RecoverInterrupted(ctx, nil)
	if err != nil || len(got) != 1 || got[0].Verdict.Settle != SettleAside {
		t.Fatalf("recovery %+v, %v; want the compaction set aside", got, err)
	}

	fresh, err := s.Enqueue(ctx, "a", "/compact", EnqueueOptions{})
	if err != nil {
		t.Fatalf("a new compaction beside one set aside: %v", err)
	}
	// The new one is the pending one now.
	if _, err := s.Enqueue(ctx, "a", "/compress", EnqueueOptions{}); !errors.As(err, new(*DuplicateError)) || err.(*DuplicateError).ExistingID != fresh {
		t.Fatalf("a third compaction: %v, want a duplicate of %d", err, fresh)
	}
	err = s.Release(ctx, old)
	if !errors.Is(err, ErrDuplicate) || !strings.Contains(err.Error(), fmt.Sprint(fresh)) || strings.Count(err.Error(), "queue:") != 1 {
		t.Fatalf("releasing the set-aside compaction beside a pending one: %v", err)
	}
	if m, err := s.Get(ctx, old); err != nil || !m.SetAside {
		t.Fatalf("the refused release changed it: %+v, %v", m, err)
	}
	if err := s.Delivered(ctx, fresh, "test", StateUnconfirmed); err != nil {
		t.Fatal(err)
	}
	if err := s.Release(ctx, old); err != nil {
		t.Fatalf("release once no other compaction is pending: %v", err)
	}
	if _, err := s.Enqueue(ctx, "a", "/compact", EnqueueOptions{}); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("the released compaction is pending again, a new one must be refused: %v", err)
	}
}

func TestCompactVerbsOption(t *testing.T) {
	s := open(t, Options{CompactVerbs: []string{"/Summarize"}}, "a")
	mustEnqueue(t, s, "a", "/compact", EnqueueOptions{})
	mustEnqueue(t, s, "a", "/compact", EnqueueOptions{})
	mustEnqueue(t, s, "a", "/summarize", EnqueueOptions{})
	if _, err := s.Enqueue(context.Background(), "a", "/SUMMARIZE now", EnqueueOptions{}); !errors.Is(err, ErrDuplicate) {
		t.Errorf("custom verb not deduped: %v", err)
	}
	if !s.IsCompaction("/summarize x") || s.IsCompaction("/compact") {
		t.Error("IsCompaction disagrees with the option")
	}
}

func TestInboxDedupe(t *testing.T) {
	s := open(t, Options{}, "a", "b")
	ctx := context.Background()
	first := mustEnqueue(t, s, "a", "inbox delivery", EnqueueOptions{Kind: KindInbox, Precondition: "inbox pending", Source: "inbox"})
	mustEnqueue(t, s, "a", "plain", EnqueueOptions{})
	_, err := s.Enqueue(ctx, "a", "another inbox delivery", EnqueueOptions{Kind: KindInbox})
	var dup *DuplicateError
	if !errors.As(err, &dup) || dup.ExistingID != first || dup.Kind != DupInbox || !errors.Is(err, ErrDuplicate) {
		t.Fatalf("second inbox = %v (%+v), want duplicate of %d", err, dup, first)
	}
	mustEnqueue(t, s, "b", "b's inbox", EnqueueOptions{Kind: KindInbox})
	m, _ := s.Get(ctx, first)
	if m.Kind != KindInbox || m.Precondition != "inbox pending" {
		t.Errorf("kind/precondition not stored: %+v", m)
	}
	if err := s.Drop(ctx, first, "nothing pending"); err != nil {
		t.Fatal(err)
	}
	mustEnqueue(t, s, "a", "inbox again", EnqueueOptions{Kind: KindInbox})
}

func TestReleaseMovesToFront(t *testing.T) {
	s := open(t, Options{}, "a", "b")
	ctx := context.Background()
	ids := map[string]int64{}
	for _, x := range []string{"m1", "m2", "m3", "m4"} {
		ids[x] = mustEnqueue(t, s, "a", x, EnqueueOptions{})
	}
	mustEnqueue(t, s, "b", "other", EnqueueOptions{})
	seq := lastSeq(t, s)

	if err := s.Release(ctx, ids["m3"]); err != nil {
		t.Fatal(err)
	}
	if got, want := texts(t, s, "a"), []string{"m3", "m1", "m2", "m4"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after release m3: %v, want %v", got, want)
	}
	m, _ := s.Get(ctx, ids["m3"])
	if !m.Manual {
		t.Error("released message not manual")
	}
	if m, _ := s.Get(ctx, ids["m1"]); m.Manual {
		t.Error("other message became manual")
	}
	if err := s.Release(ctx, ids["m4"]); err != nil {
		t.Fatal(err)
	}
	if got, want := texts(t, s, "a"), []string{"m4", "m3", "m1", "m2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after release m4: %v, want %v", got, want)
	}
	// Releasing the head keeps it there.
	if err := s.Release(ctx, ids["m4"]); err != nil {
		t.Fatal(err)
	}
	if got, want := texts(t, s, "a"), []string{"m4", "m3", "m1", "m2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after re-release: %v, want %v", got, want)
	}
	h, ok, err := s.Head(ctx, "a")
	if err != nil || !ok || h.ID != ids["m4"] {
		t.Errorf("Head = %+v %v %v", h, ok, err)
	}
	// New messages still go to the back.
	mustEnqueue(t, s, "a", "m5", EnqueueOptions{})
	if got, want := texts(t, s, "a"), []string{"m4", "m3", "m1", "m2", "m5"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after m5: %v, want %v", got, want)
	}
	if got := texts(t, s, "b"); !reflect.DeepEqual(got, []string{"other"}) {
		t.Errorf("b changed: %v", got)
	}
	evs, _ := s.Events(ctx, seq, 0)
	if len(evs) < 1 || evs[0].Kind != EventReleased || evs[0].MsgID != ids["m3"] || evs[0].Agent != "a" {
		t.Errorf("release event: %+v", evs)
	}
	if err := s.Release(ctx, 9999); !errors.Is(err, ErrNotFound) {
		t.Errorf("Release(missing) = %v, want ErrNotFound", err)
	}
}

// A message being typed is not released: its attempt settles next
// (delivered, set aside, a failed attempt) and would undo the release
// silently. Once the attempt settled, it is.
func TestReleaseRefusesAMessageInFlight(t *testing.T) {
	s := open(t, Options{}, "a")
	ctx := context.Background()
	first := mustEnqueue(t, s, "a", "first", EnqueueOptions{})
	id := mustEnqueue(t, s, "a", "typed now", EnqueueOptions{})
	if _, err := s.Attempt(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := s.Writing(ctx, id); err != nil {
		t.Fatal(err)
	}
	seq := lastSeq(t, s)
	err := s.Release(ctx, id)
	if !errors.Is(err, ErrInFlight) || !strings.Contains(err.Error(), fmt.Sprintf("release message %d: being typed now; try again when it settles", id)) {
		t.Fatalf("Release(in flight) = %v, want ErrInFlight naming the message", err)
	}
	if m, _ := s.Get(ctx, id); m.Manual {
		t.Error("refused release marked the message manual")
	}
	if got, want := texts(t, s, "a"), []string{"first", "typed now"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after a refused release: %v, want %v", got, want)
	}
	if evs, _ := s.Events(ctx, seq, 0); len(evs) != 0 {
		t.Errorf("a refused release logged %+v", evs)
	}
	if err := s.SetAside(ctx, id, "no evidence"); err != nil {
		t.Fatal(err)
	}
	if err := s.Release(ctx, id); err != nil {
		t.Fatalf("Release once set aside = %v", err)
	}
	if got, want := texts(t, s, "a"), []string{"typed now", "first"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after release: %v, want %v", got, want)
	}
	_ = first
}

func TestRemoveAndClear(t *testing.T) {
	s := open(t, Options{}, "a", "b")
	ctx := context.Background()
	m1 := mustEnqueue(t, s, "a", "m1", EnqueueOptions{})
	m2 := mustEnqueue(t, s, "a", "m2", EnqueueOptions{})
	m3 := mustEnqueue(t, s, "a", "m3", EnqueueOptions{})
	mustEnqueue(t, s, "b", "keep", EnqueueOptions{})
	seq := lastSeq(t, s)

	if err := s.Remove(ctx, m2, "deleted in the queue panel"); err != nil {
		t.Fatal(err)
	}
	if got := texts(t, s, "a"); !reflect.DeepEqual(got, []string{"m1", "m3"}) {
		t.Errorf("after remove: %v", got)
	}
	if err := s.Remove(ctx, m2, "again"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Remove = %v, want ErrNotFound", err)
	}
	if err := s.Release(ctx, m3); err != nil {
		t.Fatal(err)
	}
	n, err := s.Clear(ctx, "a")
	if err != nil || n != 2 {
		t.Fatalf("Clear = %d, %v; want 2", n, err)
	}
	if got := texts(t, s, "a"); len(got) != 0 {
		t.Errorf("a after clear: %v", got)
	}
	if got := texts(t, s, "b"); !reflect.DeepEqual(got, []string{"keep"}) {
		t.Errorf("b after clearing a: %v", got)
	}
	evs, _ := s.Events(ctx, seq, 0)
	var got []string
	var clearedIDs []int64
	for _, e := range evs {
		got = append(got, e.Kind)
		if e.Kind == EventCleared {
			clearedIDs = append(clearedIDs, e.MsgID)
		}
	}
	if want := []string{"removed", "released", "cleared", "cleared"}; !reflect.DeepEqual(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	if evs[0].Detail != "deleted in the queue panel" || evs[0].MsgID != m2 {
		t.Errorf("removed event %+v", evs[0])
	}
	if !reflect.DeepEqual(clearedIDs, []int64{m3, m1}) {
		t.Errorf("cleared ids %v, want delivery order %v", clearedIDs, []int64{m3, m1})
	}
	if n, err := s.Clear(ctx, "a"); err != nil || n != 0 {
		t.Errorf("Clear empty = %d, %v", n, err)
	}
	if _, err := s.Clear(ctx, "ghost"); !errors.Is(err, ErrUnknownAgent) {
		t.Errorf("Clear ghost = %v", err)
	}
	if _, err := s.Clear(ctx, ""); !errors.Is(err, ErrBlank) {
		t.Errorf("Clear \"\" = %v", err)
	}
}

func TestDeliveredDeletesAndLogs(t *testing.T) {
	c := newClock()
	s := open(t, Options{Now: c.Now}, "a")
	ctx := context.Background()
	id := mustEnqueue(t, s, "a", "do the thing", EnqueueOptions{})
	c.Advance(time.Second)
	if _, err := s.Attempt(ctx, id); err != nil {
		t.Fatal(err)
	}
	m, _ := s.Get(ctx, id)
	if !m.LastAttempt.Equal(c.Now()) || m.Attempts != 0 {
		t.Errorf("after Attempt: last=%v attempts=%d", m.LastAttempt, m.Attempts)
	}
	if err := s.Delivered(ctx, id, "submitted, prompt cleared", StateUnconfirmed); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, id); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get after Delivered = %v, want ErrNotFound", err)
	}
	if err := s.Delivered(ctx, id, "again", StateUnconfirmed); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Delivered = %v, want ErrNotFound", err)
	}
	if _, err := s.Attempt(ctx, id); !errors.Is(err, ErrNotFound) {
		t.Errorf("Attempt on delivered = %v, want ErrNotFound", err)
	}
	evs, _ := s.Events(ctx, 0, 0)
	last := evs[len(evs)-1]
	if last.Kind != EventDelivered || last.MsgID != id || last.Agent != "a" || last.Detail != "submitted, prompt cleared" || !last.At.Equal(c.Now()) {
		t.Errorf("last event %+v", last)
	}
	if got := eventKinds(t, s, 0); !reflect.DeepEqual(got, []string{"agent_added", "enqueued", "attempt", "delivered"}) {
		t.Errorf("events %v", got)
	}
	if ag, _ := s.PendingAgents(ctx); len(ag) != 0 {
		t.Errorf("PendingAgents = %v", ag)
	}
}

func TestAttemptFailedDropsOnThird(t *testing.T) {
	s := open(t, Options{}, "a")
	ctx := context.Background()
	id := mustEnqueue(t, s, "a", "x", EnqueueOptions{})
	other := mustEnqueue(t, s, "a", "y", EnqueueOptions{})
	seq := lastSeq(t, s)
	for i := 1; i <= 2; i++ {
		dropped, n, err := s.AttemptFailed(ctx, id, "write: EIO", 3)
		if err != nil || dropped || n != i {
			t.Fatalf("failure %d: dropped=%v n=%d err=%v", i, dropped, n, err)
		}
		m, err := s.Get(ctx, id)
		if err != nil || m.Attempts != i || m.LastError != "write: EIO" {
			t.Fatalf("after failure %d: %+v %v", i, m, err)
		}
		if h, _, _ := s.Head(ctx, "a"); h.ID != id {
			t.Errorf("failed message left the head")
		}
	}
	dropped, n, err := s.AttemptFailed(ctx, id, "typed, not submitted", 3)
	if err != nil || !dropped || n != 3 {
		t.Fatalf("third failure: dropped=%v n=%d err=%v", dropped, n, err)
	}
	if _, err := s.Get(ctx, id); !errors.Is(err, ErrNotFound) {
		t.Errorf("dropped message still there: %v", err)
	}
	if h, _, _ := s.Head(ctx, "a"); h.ID != other {
		t.Errorf("head after drop = %d, want %d", h.ID, other)
	}
	evs, _ := s.Events(ctx, seq, 0)
	var kinds []string
	for _, e := range evs {
		kinds = append(kinds, e.Kind)
	}
	if want := []string{"attempt_failed", "attempt_failed", "dropped"}; !reflect.DeepEqual(kinds, want) {
		t.Fatalf("events %v, want %v", kinds, want)
	}
	if d := evs[2].Detail; !strings.Contains(d, "3 failed attempts") || !strings.Contains(d, "typed, not submitted") || evs[2].MsgID != id {
		t.Errorf("dropped event %+v", evs[2])
	}
	if _, _, err := s.AttemptFailed(ctx, id, "x", 3); !errors.Is(err, ErrNotFound) {
		t.Errorf("AttemptFailed on dropped = %v", err)
	}
	// The budget is the caller's (the max_attempts setting): none is an
	// error, and nothing is counted.
	id2 := mustEnqueue(t, s, "a", "z", EnqueueOptions{})
	if _, _, err := s.AttemptFailed(ctx, id2, "e", 0); err == nil {
		t.Error("a budget of 0 was accepted")
	}
	if dropped, n, err := s.AttemptFailed(ctx, id2, "e", 1); err != nil || !dropped || n != 1 {
		t.Errorf("after a refused budget: dropped %v at attempt %d (%v), want dropped at 1", dropped, n, err)
	}
}

func TestPauseFlagsPersistAndFloorIsSeparate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.db")
	ctx := context.Background()
	s := openAt(t, path, Options{}, "a", "b")
	seq := lastSeq(t, s)
	if err := s.SetPaused(ctx, "a", true); err != nil {
		t.Fatal(err)
	}
	if err := s.SetFloorPaused(ctx, true); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPaused(ctx, "ghost", true); !errors.Is(err, ErrUnknownAgent) {
		t.Errorf("SetPaused(ghost) = %v", err)
	}
	if _, _, err := s.Paused(ctx, "ghost"); !errors.Is(err, ErrUnknownAgent) {
		t.Errorf("Paused(ghost) = %v", err)
	}
	s.Close()

	s = openAt(t, path, Options{})
	check := func(agent string, wantA, wantF bool) {
		t.Helper()
		a, f, err := s.Paused(ctx, agent)
		if err != nil || a != wantA || f != wantF {
			t.Errorf("Paused(%s) = %v, %v, %v; want %v, %v", agent, a, f, err, wantA, wantF)
		}
	}
	check("a", true, true)
	check("b", false, true)
	// The floor covers agents added later.
	if err := s.AddAgent(ctx, AgentRecord{Name: "c", Spec: `{"command":"sh"}`}); err != nil {
		t.Fatal(err)
	}
	check("c", false, true)
	// Per-agent resume does not touch the floor.
	if err := s.SetPaused(ctx, "a", false); err != nil {
		t.Fatal(err)
	}
	check("a", false, true)
	// Floor resume does not touch agents.
	if err := s.SetPaused(ctx, "b", true); err != nil {
		t.Fatal(err)
	}
	if err := s.SetFloorPaused(ctx, false); err != nil {
		t.Fatal(err)
	}
	check("b", true, false)
	if p, _ := s.PausedAgents(ctx); !reflect.DeepEqual(p, []string{"b"}) {
		t.Errorf("PausedAgents = %v", p)
	}
	// ResumeAll clears both.
	if err := s.SetFloorPaused(ctx, true); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPaused(ctx, "c", true); err != nil {
		t.Fatal(err)
	}
	if err := s.ResumeAll(ctx); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a", "b", "c"} {
		check(n, false, false)
	}
	if f, _ := s.FloorPaused(ctx); f {
		t.Error("floor still paused")
	}
	evs, _ := s.Events(ctx, seq, 0)
	var got []string
	for _, e := range evs {
		who := e.Agent
		if who == "" {
			who = e.Detail
		}
		got = append(got, e.Kind+":"+who)
	}
	want := []string{
		"paused:a", "paused:floor", // first process
		"agent_added:c", "resumed:a", "paused:b", "resumed:floor",
		"paused:floor", "paused:c", "resumed:floor", "resumed:b", "resumed:c",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events\n got %v\nwant %v", got, want)
	}
	// Setting a flag to its value writes nothing.
	r := rev(t, s)
	if err := s.SetPaused(ctx, "a", false); err != nil {
		t.Fatal(err)
	}
	if err := s.SetFloorPaused(ctx, false); err != nil {
		t.Fatal(err)
	}
	if rev(t, s) != r {
		t.Error("no-op pause changes bumped the revision")
	}
}

func TestEventsInOrder(t *testing.T) {
	c := newClock()
	s := open(t, Options{Now: c.Now}, "a")
	ctx := context.Background()
	a := mustEnqueue(t, s, "a", "one", EnqueueOptions{Source: "send"})
	c.Advance(time.Millisecond)
	b := mustEnqueue(t, s, "a", "two", EnqueueOptions{Source: "composer", Manual: true})
	c.Advance(time.Millisecond)
	if err := s.Release(ctx, b); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Attempt(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := s.Delivered(ctx, b, "", StateUnconfirmed); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.AttemptFailed(ctx, a, "pty closed", 3); err != nil {
		t.Fatal(err)
	}
	if err := s.Drop(ctx, a, "precondition failed"); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendEvent(ctx, Event{Agent: "a", Kind: "notice", Detail: "stalled"}); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendEvent(ctx, Event{Agent: "a"}); !errors.Is(err, ErrBlank) {
		t.Errorf("AppendEvent without kind = %v", err)
	}
	evs, err := s.Events(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		kind string
		id   int64
	}
	var got []row
	for i, e := range evs {
		got = append(got, row{e.Kind, e.MsgID})
		if i > 0 && (e.Seq <= evs[i-1].Seq || e.At.Before(evs[i-1].At)) {
			t.Errorf("event %d out of order: %+v after %+v", i, e, evs[i-1])
		}
	}
	want := []row{{"agent_added", 0}, {"enqueued", a}, {"enqueued", b}, {"released", b}, {"attempt", b},
		{"delivered", b}, {"attempt_failed", a}, {"dropped", a}, {"notice", 0}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events\n got %v\nwant %v", got, want)
	}
	if d := evs[1].Detail; d != "[send] one" {
		t.Errorf("enqueued detail %q", d)
	}
	if d := evs[2].Detail; d != "[composer manual] two" {
		t.Errorf("enqueued detail %q", d)
	}
	// Paging.
	page, _ := s.Events(ctx, evs[2].Seq, 2)
	if len(page) != 2 || page[0].Seq != evs[3].Seq || page[1].Seq != evs[4].Seq {
		t.Errorf("page = %+v", page)
	}
}

func TestAgentsRegistry(t *testing.T) {
	s := open(t, Options{})
	ctx := context.Background()
	if err := s.EnsureAgents(ctx, []string{"b", "a", "b"}); err != nil {
		t.Fatal(err)
	}
	if err := s.EnsureAgents(ctx, []string{"a", ""}); !errors.Is(err, ErrBlank) {
		t.Errorf("EnsureAgents with blank = %v", err)
	}
	if err := s.AddAgent(ctx, AgentRecord{Name: "a"}); !errors.Is(err, ErrAgentExists) {
		t.Errorf("AddAgent(in use) = %v", err)
	}
	if err := s.AddAgent(ctx, AgentRecord{Name: "helper", Spec: `{"command":"bash"}`, Paused: true}); err != nil {
		t.Fatal(err)
	}
	mustEnqueue(t, s, "helper", "left behind", EnqueueOptions{})
	if err := s.RemoveAgent(ctx, "helper"); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveAgent(ctx, "helper"); !errors.Is(err, ErrUnknownAgent) {
		t.Errorf("second RemoveAgent = %v", err)
	}
	if err := s.RemoveAgent(ctx, "ghost"); !errors.Is(err, ErrUnknownAgent) {
		t.Errorf("RemoveAgent(ghost) = %v", err)
	}
	// Its queue stays.
	if got := texts(t, s, "helper"); !reflect.DeepEqual(got, []string{"left behind"}) {
		t.Errorf("removed agent's queue: %v", got)
	}
	if p, _ := s.PendingAgents(ctx); !reflect.DeepEqual(p, []string{"helper"}) {
		t.Errorf("PendingAgents = %v", p)
	}
	// EnsureAgents leaves removed agents removed.
	if err := s.EnsureAgents(ctx, []string{"helper"}); err != nil {
		t.Fatal(err)
	}
	h, err := s.Agent(ctx, "helper")
	if err != nil || !h.Removed || !h.Paused || h.Spec != `{"command":"bash"}` || h.Added.IsZero() {
		t.Errorf("Agent(helper) = %+v, %v", h, err)
	}
	if _, err := s.Agent(ctx, "ghost"); !errors.Is(err, ErrUnknownAgent) {
		t.Errorf("Agent(ghost) = %v", err)
	}
	list, err := s.ListAgents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range list {
		names = append(names, a.Name)
	}
	if !reflect.DeepEqual(names, []string{"a", "b", "helper"}) {
		t.Errorf("ListAgents = %v", names)
	}
	// A removed name can be taken again.
	if err := s.AddAgent(ctx, AgentRecord{Name: "helper", Spec: `{"command":"zsh"}`}); err != nil {
		t.Fatal(err)
	}
	h, _ = s.Agent(ctx, "helper")
	if h.Removed || h.Paused || h.Spec != `{"command":"zsh"}` {
		t.Errorf("revived = %+v", h)
	}
	if got := eventKinds(t, s, 0); !reflect.DeepEqual(got, []string{"agent_added", "agent_added", "agent_added", "enqueued", "agent_removed", "agent_added"}) {
		t.Errorf("events %v", got)
	}
}

func TestHolds(t *testing.T) {
	c := newClock()
	s := open(t, Options{Now: c.Now}, "a")
	ctx := context.Background()
	if err := s.SetHold(ctx, "a", "busy"); err != nil {
		t.Fatal(err)
	}
	t0 := c.Now()
	r := rev(t, s)
	c.Advance(time.Second)
	if err := s.SetHold(ctx, "a", "busy"); err != nil {
		t.Fatal(err)
	}
	if rev(t, s) != r {
		t.Error("same hold bumped the revision")
	}
	hs, err := s.Holds(ctx)
	if err != nil || len(hs) != 1 || hs["a"].Reason != "busy" || !hs["a"].At.Equal(t0) {
		t.Fatalf("Holds = %+v, %v", hs, err)
	}
	if err := s.SetHold(ctx, "a", "your draft"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetHold(ctx, "b", "exited"); err != nil {
		t.Fatal(err)
	}
	hs, _ = s.Holds(ctx)
	if hs["a"].Reason != "your draft" || !hs["a"].At.Equal(c.Now()) || hs["b"].Reason != "exited" {
		t.Errorf("Holds = %+v", hs)
	}
	if rev(t, s) == r {
		t.Error("changed hold did not bump the revision")
	}
	if err := s.SetHold(ctx, "a", ""); err != nil {
		t.Fatal(err)
	}
	hs, _ = s.Holds(ctx)
	if _, ok := hs["a"]; ok || len(hs) != 1 {
		t.Errorf("after clear: %+v", hs)
	}
	if err := s.ClearHolds(ctx); err != nil {
		t.Fatal(err)
	}
	if hs, _ = s.Holds(ctx); len(hs) != 0 {
		t.Errorf("after ClearHolds: %+v", hs)
	}
	if k := eventKinds(t, s, 0); !reflect.DeepEqual(k, []string{"agent_added"}) {
		t.Errorf("holds wrote events: %v", k)
	}
}

func TestDataVersionAcrossHandles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.db")
	s1 := openAt(t, path, Options{}, "a")
	s2 := openAt(t, path, Options{})
	ctx := context.Background()
	v0 := rev(t, s1)
	if rev(t, s2) != v0 {
		t.Fatal("handles disagree")
	}
	id := mustEnqueue(t, s2, "a", "x", EnqueueOptions{})
	v1 := rev(t, s1)
	if v1 <= v0 {
		t.Errorf("revision did not move after another handle wrote: %d -> %d", v0, v1)
	}
	if err := s1.Release(ctx, id); err != nil {
		t.Fatal(err)
	}
	if v2 := rev(t, s1); v2 <= v1 {
		t.Errorf("revision did not move after own write: %d -> %d", v1, v2)
	}
	v := rev(t, s1)
	if _, err := s1.Enqueue(ctx, "a", " ", EnqueueOptions{}); err == nil {
		t.Fatal("blank accepted")
	}
	if err := s1.Delivered(ctx, 12345, "", StateUnconfirmed); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	if rev(t, s1) != v {
		t.Error("failed writes bumped the revision")
	}
}

func TestUpdateIsAtomic(t *testing.T) {
	s := open(t, Options{}, "a")
	ctx := context.Background()
	boom := errors.New("boom")
	err := s.Update(ctx, func(tx *Tx) error {
		if _, err := tx.Enqueue("a", "one", EnqueueOptions{}); err != nil {
			return err
		}
		if _, err := tx.SQL().Exec(`CREATE TABLE scratch (x)`); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update = %v", err)
	}
	if got := texts(t, s, "a"); len(got) != 0 {
		t.Errorf("rolled-back enqueue visible: %v", got)
	}
	// A committed Update sees its own changes and commits them together.
	var id int64
	err = s.Update(ctx, func(tx *Tx) error {
		var err error
		if id, err = tx.Enqueue("a", "two", EnqueueOptions{Kind: KindInbox}); err != nil {
			return err
		}
		if _, err := tx.Attempt(id); err != nil {
			return err
		}
		if h, ok, err := tx.Head("a"); err != nil || !ok || h.ID != id {
			return errors.New("head not visible in tx")
		}
		return tx.AppendEvent(Event{Agent: "a", MsgID: id, Kind: "inbox_leased", Detail: "3 items"})
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := eventKinds(t, s, 0); !reflect.DeepEqual(got, []string{"agent_added", "enqueued", "attempt", "inbox_leased"}) {
		t.Errorf("events %v", got)
	}
}

func TestMigrateComponent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.db")
	s := openAt(t, path, Options{})
	ctx := context.Background()
	steps := []string{
		`CREATE TABLE inbox_items (id TEXT PRIMARY KEY, body TEXT NOT NULL)`,
		`ALTER TABLE inbox_items ADD COLUMN sender TEXT NOT NULL DEFAULT ''; CREATE INDEX inbox_sender ON inbox_items(sender)`,
	}
	if err := s.Migrate(ctx, "inbox", steps[:1]); err != nil {
		t.Fatal(err)
	}
	if err := s.Migrate(ctx, "inbox", steps); err != nil {
		t.Fatal(err)
	}
	if err := s.Migrate(ctx, "inbox", steps); err != nil {
		t.Fatalf("re-running migrations: %v", err)
	}
	if _, err := s.DB().Exec(`INSERT INTO inbox_items (id, body, sender) VALUES ('x', 'y', 'z')`); err != nil {
		t.Fatalf("migrated table unusable: %v", err)
	}
	if err := s.Migrate(ctx, "inbox", steps[:1]); !errors.Is(err, ErrSchemaTooNew) {
		t.Errorf("older binary = %v, want ErrSchemaTooNew", err)
	}
	var uv int
	s.DB().QueryRow(`PRAGMA user_version`).Scan(&uv)
	if uv != SchemaVersion() {
		t.Errorf("component migration touched user_version: %d", uv)
	}
}

func TestContextCanceled(t *testing.T) {
	s := open(t, Options{}, "a")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Enqueue(ctx, "a", "x", EnqueueOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Enqueue with canceled ctx = %v", err)
	}
	if got := texts(t, s, "a"); len(got) != 0 {
		t.Errorf("written anyway: %v", got)
	}
}

func TestListAllAndCounts(t *testing.T) {
	s := open(t, Options{}, "a", "b")
	ctx := context.Background()
	mustEnqueue(t, s, "b", "b1", EnqueueOptions{})
	mustEnqueue(t, s, "a", "a1", EnqueueOptions{})
	b2 := mustEnqueue(t, s, "b", "b2", EnqueueOptions{})
	if err := s.Release(ctx, b2); err != nil {
		t.Fatal(err)
	}
	if got := texts(t, s, ""); !reflect.DeepEqual(got, []string{"a1", "b2", "b1"}) {
		t.Errorf("List(\"\") = %v", got)
	}
	c, err := s.Counts(ctx)
	if err != nil || !reflect.DeepEqual(c, map[string]int{"a": 1, "b": 2}) {
		t.Errorf("Counts = %v, %v", c, err)
	}
	if p, _ := s.PendingAgents(ctx); !reflect.DeepEqual(p, []string{"a", "b"}) {
		t.Errorf("PendingAgents = %v", p)
	}
	if _, ok, err := s.Head(ctx, "nobody"); ok || err != nil {
		t.Errorf("Head(nobody) = %v, %v", ok, err)
	}
}

func TestPreview(t *testing.T) {
	long := strings.Repeat("é", 100)
	cases := map[string]string{
		"short":          "short",
		"two\nlines":     "two…",
		"trailing\n  \n": "trailing",
		long:             strings.Repeat("é", 80) + "…",
		"中文消息\n第二行":      "中文消息…",
	}
	for in, want := range cases {
		if got := preview(in); got != want {
			t.Errorf("preview(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAttemptReturnsTheTextSetInItsTransaction(t *testing.T) {
	ctx := context.Background()
	s := open(t, Options{}, "a")
	id, err := s.Enqueue(ctx, "a", "placeholder", EnqueueOptions{Kind: KindInbox})
	if err != nil {
		t.Fatal(err)
	}
	var m Message
	err = s.Update(ctx, func(tx *Tx) error {
		if err := tx.SetText(id, "  rendered batch  "); err != nil {
			return err
		}
		var err error
		m, err = tx.Attempt(id)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if m.Text != "rendered batch" || m.LastAttempt.IsZero() {
		t.Fatalf("attempted message %+v", m)
	}
	err = s.Update(ctx, func(tx *Tx) error { return tx.SetText(id, "   ") })
	if !errors.Is(err, ErrBlank) {
		t.Fatalf("blank SetText: %v", err)
	}
	if got, _ := s.Get(ctx, id); got.Text != "rendered batch" {
		t.Fatalf("a failed SetText changed the text to %q", got.Text)
	}
}

func TestRecoverInterruptedSettlesFromEvidence(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "q.db")
	s := openAt(t, path, Options{}, "a", "b")
	typed, _ := s.Enqueue(ctx, "a", "typed when we crashed", EnqueueOptions{})
	seen, _ := s.Enqueue(ctx, "a", "typed and recorded by the CLI", EnqueueOptions{})
	stamped, _ := s.Enqueue(ctx, "a", "stamped, nothing written", EnqueueOptions{})
	noEnter, _ := s.Enqueue(ctx, "a", "typed, no Enter yet", EnqueueOptions{})
	inbox, _ := s.Enqueue(ctx, "a", "inbox batch", EnqueueOptions{Kind: KindInbox})
	failed, _ := s.Enqueue(ctx, "a", "failed cleanly", EnqueueOptions{})
	untouched, _ := s.Enqueue(ctx, "a", "never attempted", EnqueueOptions{})
	inboxSeen, _ := s.Enqueue(ctx, "b", "inbox batch the CLI recorded", EnqueueOptions{Kind: KindInbox})
	for _, id := range []int64{typed, seen, stamped, noEnter, inbox, failed, inboxSeen} {
		if _, err := s.Attempt(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []int64{typed, seen, noEnter, inbox, inboxSeen} {
		if err := s.Writing(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []int64{typed, seen, inbox, inboxSeen} {
		if err := s.Entering(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := s.AttemptFailed(ctx, failed, "write error", 3); err != nil {
		t.Fatal(err)
	}
	s.Close() // the "crash": typed, seen, stamped, noEnter and inbox were in flight

	s = openAt(t, path, Options{}, "a", "b")
	var judged []int64
	got, err := s.RecoverInterrupted(ctx, func(m Message) Verdict {
		judged = append(judged, m.ID)
		if m.Writing.IsZero() {
			t.Errorf("judge asked about %d, which never began writing", m.ID)
		}
		if m.ID == seen || m.ID == inboxSeen {
			return Verdict{Settle: SettleDelivered, Evidence: "hook"}
		}
		return Verdict{Settle: SettleAside, Evidence: "no record of it"}
	})
	if err != nil || len(got) != 6 {
		t.Fatalf("RecoverInterrupted = %+v, %v; want 6", got, err)
	}
	// Typed messages need evidence; an inbox batch the records do not show
	// is delivered again (never set aside), one they show is received.
	if fmt.Sprint(judged) != fmt.Sprint([]int64{typed, seen, noEnter, inbox, inboxSeen}) {
		t.Fatalf("judged %v; want every typed message judged", judged)
	}
	for _, id := range []int64{seen, inboxSeen} {
		if _, err := s.Get(ctx, id); !errors.Is(err, ErrNotFound) {
			t.Fatalf("message %d, which the CLI recorded, is still queued: %v", id, err)
		}
	}
	if m, _ := s.Get(ctx, inbox); m.Evidence != EvidenceInboxRetry {
		t.Errorf("the inbox batch the records do not show: evidence %q, want %q", m.Evidence, EvidenceInboxRetry)
	}
	want := map[int64][2]bool{typed: {true, true}, stamped: {false, false}, noEnter: {false, false}, inbox: {false, false}, failed: {false, false}, untouched: {false, false}}
	for id, w := range want {
		m, err := s.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if m.Interrupted != w[0] || m.SetAside != w[1] {
			t.Errorf("message %d (%q): Interrupted %v SetAside %v, want %v", id, m.Text, m.Interrupted, m.SetAside, w)
		}
	}
	if m, _ := s.Get(ctx, typed); m.Evidence != "no record of it" {
		t.Errorf("evidence %q", m.Evidence)
	}
	if m, _ := s.Get(ctx, stamped); m.Evidence != EvidenceNotTyped {
		t.Errorf("evidence %q", m.Evidence)
	}
	if m, _ := s.Get(ctx, noEnter); m.Evidence != EvidenceNotSubmitted || !m.Writing.IsZero() || !m.Entered.IsZero() {
		t.Errorf("the message typed without its Enter: %+v", m)
	}
	// The set-aside message does not block the queue.
	h, ok, _ := s.Head(ctx, "a")
	if !ok || h.ID != stamped {
		t.Fatalf("head %+v, want %d (the set-aside %d skipped)", h, stamped, typed)
	}
	if again, _ := s.RecoverInterrupted(ctx, nil); len(again) != 0 {
		t.Fatalf("a second recovery found %d", len(again))
	}
	for _, id := range []int64{stamped, noEnter, inbox, failed, untouched} {
		if err := s.Delivered(ctx, id, "test", StateUnconfirmed); err != nil {
			t.Fatal(err)
		}
	}
	if p, _ := s.PendingAgents(ctx); len(p) != 0 {
		t.Fatalf("pending %v: only a set-aside message is left", p)
	}
	if err := s.Release(ctx, typed); err != nil {
		t.Fatal(err)
	}
	if m, _ := s.Get(ctx, typed); m.Interrupted || m.SetAside || !m.Manual {
		t.Fatalf("after release: %+v", m)
	}
	if h, ok, _ := s.Head(ctx, "a"); !ok || h.ID != typed {
		t.Fatalf("released message not at the head: %+v", h)
	}
	evs, _ := s.Events(ctx, 0, 0)
	kinds := map[string]int{}
	for _, e := range evs {
		if e.MsgID == seen || e.MsgID == typed || e.MsgID == stamped || e.MsgID == noEnter || e.MsgID == inbox {
			kinds[e.Kind]++
			if e.Kind == EventDelivered && e.MsgID == seen && !strings.Contains(e.Detail, "evidence=hook") {
				t.Errorf("delivered event does not say which evidence decided: %q", e.Detail)
			}
		}
	}
	if kinds[EventInterrupted] != 4 {
		t.Fatalf("%d interrupted events, want 4 (%v)", kinds[EventInterrupted], kinds)
	}
}

// TestHoldKeepsTheMessageAtItsAgentsHead: a message held at run time (the
// agent drew nothing after it was typed) is interrupted but not set aside: it
// stays its agent's head, so nothing behind it is delivered; it records why
// (its evidence, what `office queue` shows) and release clears both.
func TestHoldKeepsTheMessageAtItsAgentsHead(t *testing.T) {
	s := open(t, Options{}, "a")
	ctx := context.Background()
	held := mustEnqueue(t, s, "a", "typed, nothing drawn", EnqueueOptions{})
	mustEnqueue(t, s, "a", "behind it", EnqueueOptions{})
	if _, err := s.Attempt(ctx, held); err != nil {
		t.Fatal(err)
	}
	if err := s.Hold(ctx, held, "the agent showed nothing"); err != nil {
		t.Fatal(err)
	}
	h, ok, err := s.Head(ctx, "a")
	if err != nil || !ok || h.ID != held || !h.Interrupted || h.SetAside || h.Evidence != "the agent showed nothing" {
		t.Fatalf("head %+v, %v; want the held message, interrupted with its reason, not set aside", h, err)
	}
	if err := s.Hold(ctx, 999, "x"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Hold of a missing message: %v", err)
	}
	if err := s.Release(ctx, held); err != nil {
		t.Fatal(err)
	}
	if m, _ := s.Get(ctx, held); m.Interrupted || m.Evidence != "" || !m.Manual {
		t.Fatalf("after release: %+v", m)
	}
	// Held again, then the agent's process ends: set aside, and the
	// message behind it is the head.
	if err := s.Writing(ctx, held); err != nil {
		t.Fatal(err)
	}
	released, err := s.Get(ctx, held)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetAsideHeld(ctx, released, "restarted"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("SetAsideHeld of a message not held: %v", err)
	}
	if err := s.Hold(ctx, held, "the agent showed nothing"); err != nil {
		t.Fatal(err)
	}
	read, err := s.Get(ctx, held)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetAsideHeld(ctx, read, "restarted"); err != nil {
		t.Fatal(err)
	}
	if m, _ := s.Get(ctx, held); !m.SetAside || !m.Interrupted || m.Evidence != "restarted" {
		t.Fatalf("after SetAsideHeld: %+v", m)
	}
	if h, ok, _ := s.Head(ctx, "a"); !ok || h.Text != "behind it" {
		t.Fatalf("head %+v, want the message behind the one set aside", h)
	}
	if err := s.SetAsideHeld(ctx, read, "again"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("SetAsideHeld twice: %v", err)
	}
}

// TestRecoverySettlesMessagesHeldAtRunTime: a message held because its agent
// drew nothing after it held the queue only while that agent's process might
// still read it; the stop ended that process, so the next start settles it
// from evidence like one in flight: recorded by the CLI, delivered; else set
// aside, and the queue behind it goes on.
func TestRecoverySettlesMessagesHeldAtRunTime(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "q.db")
	s := openAt(t, path, Options{}, "a", "b")
	hold := func(agent, text string) int64 {
		id := typedInFlight(t, s, agent, text)
		if err := s.Hold(ctx, id, "the agent showed nothing"); err != nil {
			t.Fatal(err)
		}
		return id
	}
	unseen := hold("a", "never recorded")
	behind := mustEnqueue(t, s, "a", "behind it", EnqueueOptions{})
	seen := hold("b", "recorded later")
	s.Close()

	s = openAt(t, path, Options{}, "a", "b")
	got, err := s.RecoverInterrupted(ctx, func(m Message) Verdict {
		if !m.Interrupted {
			t.Errorf("the judge got %d without Interrupted: it cannot tell a held message", m.ID)
		}
		if m.ID == seen {
			return Verdict{Settle: SettleDelivered, Evidence: "hook"}
		}
		return Verdict{Settle: SettleAside, Evidence: "no record of it"}
	})
	if err != nil || len(got) != 2 {
		t.Fatalf("RecoverInterrupted = %+v, %v; want both held messages", got, err)
	}
	if _, err := s.Get(ctx, seen); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the held message the CLI recorded is still queued: %v", err)
	}
	if m, err := s.Get(ctx, unseen); err != nil || !m.SetAside || !m.Interrupted || m.Evidence != "no record of it" {
		t.Fatalf("the held message with no record: %+v, %v; want set aside", m, err)
	}
	if h, ok, _ := s.Head(ctx, "a"); !ok || h.ID != behind {
		t.Fatalf("a's head %+v, want %d: the set-aside message still holds the queue", h, behind)
	}
	evs, _ := s.Events(ctx, 0, 0)
	var details []string
	for _, e := range evs {
		if e.MsgID == unseen && e.Kind == EventInterrupted {
			details = append(details, e.Detail)
		}
	}
	if len(details) != 2 || !strings.Contains(details[1], "held (the agent drew nothing after it), then the office stopped") {
		t.Fatalf("interrupted events of the held message: %q", details)
	}
	if again, _ := s.RecoverInterrupted(ctx, nil); len(again) != 0 {
		t.Fatalf("a second recovery found %d", len(again))
	}
}

func TestRecoverInterruptedWithoutJudgeSetsTypedAside(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "q.db")
	s := openAt(t, path, Options{}, "a")
	id := typedInFlight(t, s, "a", "typed")
	s.Close()
	s = openAt(t, path, Options{}, "a")
	got, err := s.RecoverInterrupted(ctx, nil)
	if err != nil || len(got) != 1 || got[0].ID != id || got[0].Verdict.Settle != SettleAside || got[0].Verdict.Evidence != EvidenceUnknown {
		t.Fatalf("%+v %v", got, err)
	}
	if err := s.Writing(ctx, 999); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Writing of a missing message: %v", err)
	}
	if err := s.Entering(ctx, 999); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Entering of a missing message: %v", err)
	}
}

func TestUnattemptedMessageIsNotInterruptedByALaterStop(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "q.db")
	s := openAt(t, path, Options{}, "a")
	id, _ := s.Enqueue(ctx, "a", "never typed", EnqueueOptions{})
	if _, err := s.Attempt(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := s.Unattempt(ctx, id, ""); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openAt(t, path, Options{}, "a")
	if got, err := s.RecoverInterrupted(ctx, nil); err != nil || len(got) != 0 {
		t.Fatalf("RecoverInterrupted = %+v, %v; want none", got, err)
	}
	if m, _ := s.Get(ctx, id); m.Interrupted {
		t.Fatal("an abandoned attempt was marked interrupted")
	}
	if err := s.Unattempt(ctx, 999, ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Unattempt of a missing message: %v", err)
	}
}

// Handing is a hand-over's durable claim: only for a message Attempt
// stamped (in flight), it records writing and entered at once (a stop
// after it leaves the message to recovery as one whose Enter began) and a
// "handed" event naming the channel.
func TestHandingMarksAnAttemptHandedOver(t *testing.T) {
	s := open(t, Options{}, "a")
	ctx := context.Background()
	id := mustEnqueue(t, s, "a", "mail", EnqueueOptions{})
	if err := s.Handing(ctx, id, "stop hook"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Handing before Attempt = %v, want ErrNotFound", err)
	}
	if _, err := s.Attempt(ctx, id); err != nil {
		t.Fatal(err)
	}
	seq := lastSeq(t, s)
	if err := s.Handing(ctx, id, "stop hook"); err != nil {
		t.Fatal(err)
	}
	m, err := s.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if m.Writing.IsZero() || m.Entered.IsZero() {
		t.Errorf("after Handing: writing %v, entered %v; want both stamped", m.Writing, m.Entered)
	}
	evs, _ := s.Events(ctx, seq, 0)
	if len(evs) != 1 || evs[0].Kind != EventHanded || evs[0].Detail != "stop hook" || evs[0].MsgID != id {
		t.Errorf("events %+v, want one handed naming the channel", evs)
	}
	if err := s.Handing(ctx, 999, "stop hook"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Handing(999) = %v, want ErrNotFound", err)
	}
}

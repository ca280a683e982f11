package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"office/engine"
	"office/queue"
)

// `office queue release` of a message in flight is refused, with what to do,
// exit 1 (nothing wrong with the request: try again later), and nothing
// changes. With no server running it is one the last stop left in flight:
// the next start settles it.
func TestQueueReleaseOfAMessageBeingTypedSaysTryAgain(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	if r := o.cmd("", "send", "a1", "hello"); r.code != 0 {
		t.Fatalf("send: exit %d, %q", r.code, r.stderr)
	}
	ctx := context.Background()
	s, err := queue.Open(filepath.Join(o.state, engine.StoreFile), queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ms, err := s.List(ctx, "a1")
	if err != nil || len(ms) != 1 {
		t.Fatalf("queued %+v, %v", ms, err)
	}
	id := ms[0].ID
	if _, err := s.Attempt(ctx, id); err != nil {
		t.Fatal(err)
	}
	r := o.cmd("", "queue", "release", fmt.Sprint(id))
	want := fmt.Sprintf("queue release %d: the office stopped while typing message %d; the next start settles it", id, id)
	if r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Fatalf("release of a message in flight: exit %d, %q; want 1 saying %q", r.code, r.stderr, want)
	}
	if p := doubledPrefix(strings.TrimSpace(r.stderr)); p != "" {
		t.Fatalf("%q says %q twice", r.stderr, p)
	}
	if m, err := s.Get(ctx, id); err != nil || m.Manual {
		t.Fatalf("message %+v, %v: a refused release changed it", m, err)
	}
}

package inbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"office/queue"
)

func TestJournalCheckContinuesThreeTimesThenTellsTheParent(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	path := JournalPath(dir, "T-1/../x")
	if filepath.Dir(filepath.Dir(path)) != filepath.Join(dir, "tasks") {
		t.Fatalf("unsafe path %s", path)
	}
	c := JournalCheck{Agent: "a", Task: "T-1", Path: path, Parent: "b", Desc: "worker"}
	for try := 1; try <= 3; try++ {
		v, err := e.svc.CheckJournal(e.ctx, c, e.clock.Now())
		if err != nil || !v.Continued || v.Try != try {
			t.Fatalf("try %d: %+v %v", try, v, err)
		}
	}
	msgs, _ := e.store.List(e.ctx, "a")
	if len(msgs) != 3 || !strings.HasPrefix(msgs[0].Text, "Before terminating, write the task progress journal to: "+path) {
		t.Fatalf("continuations: %d %+v", len(msgs), msgs)
	}
	if !containsAll(msgs[0].Text, JournalHeadings[0], JournalHeadings[4]) || msgs[0].Kind != queue.KindPlain {
		t.Fatal("template missing")
	}
	v, err := e.svc.CheckJournal(e.ctx, c, e.clock.Now())
	if err != nil || !v.GaveUp {
		t.Fatalf("fourth: %+v %v", v, err)
	}
	if v, _ := e.svc.CheckJournal(e.ctx, c, e.clock.Now()); v.GaveUp || v.Continued {
		t.Fatal("kept going after giving up")
	}
	if n := e.items("b"); len(n) != 1 || !strings.Contains(n[0].Body, "without a complete progress journal") {
		t.Fatalf("parent: %+v", n)
	}
	if msgs, _ := e.store.List(e.ctx, "a"); len(msgs) != 3 {
		t.Fatal("more than three continuations")
	}
}

func TestJournalThatPassesIsStamped(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(t.TempDir(), "tasks", "t", "progress.md")
	os.MkdirAll(filepath.Dir(path), 0o700)
	body := strings.Join(JournalHeadings[:], "\n\ntext\n\n") + "\n"
	os.WriteFile(path, []byte(body), 0o600)
	c := JournalCheck{Agent: "a", Task: "t", Path: path}
	// Missing one heading first: a continuation.
	os.WriteFile(path, []byte(strings.Replace(body, "## §3", "## 3", 1)), 0o600)
	if v, _ := e.svc.CheckJournal(e.ctx, c, e.clock.Now()); !v.Continued {
		t.Fatal("missing §3 passed")
	}
	os.WriteFile(path, []byte(body), 0o600)
	v, err := e.svc.CheckJournal(e.ctx, c, e.clock.Now())
	if err != nil || !v.Passed {
		t.Fatalf("%+v %v", v, err)
	}
	got, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(got), "---\nwritten-at: 2026-11-29T10:00:00Z\n---\n## §1") {
		t.Fatalf("stamp:\n%s", got)
	}
	// A second pass replaces the stamp, keeping other front matter.
	os.WriteFile(path, []byte("---\nauthor: a\nwritten-at: old\n---\n"+body), 0o600)
	e.svc.CheckJournal(e.ctx, c, e.clock.Advance(3600e9))
	got, _ = os.ReadFile(path)
	if !strings.HasPrefix(string(got), "---\nauthor: a\nwritten-at: 2026-11-29T11:00:00Z\n---\n") {
		t.Fatalf("restamp:\n%s", got)
	}
}

package engine

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"office/configs"
	"office/records"
)

// A record of the text dated before the agent's current process started
// (the process a restart replaced took it) is evidence the text arrived,
// but does not prove that the records record the current process's prompts.
func TestAnOldProcessesRecordDoesNotProveTheNewOne(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := "brief = false\n\n[[agent]]\nname = \"dev\"\nprofile = \"claude\"\ncommand = [\"sh\", \"-c\", \"exec sleep 600\"]\n"
	c, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, "state")
	e, err := Open(Options{Config: c, StateDir: state, HostEnv: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)
	deadline := time.Now().Add(30 * time.Second)
	var spawned time.Time
	for {
		if a, ok := e.Agent("dev"); ok && a.Term != nil {
			spawned = a.Term.Spawned()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the agent never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	log, err := HookLogPath(state, "dev")
	if err != nil {
		t.Fatal(err)
	}
	old := spawned.Add(-time.Minute)
	if err := records.AppendHook(log, records.HookRecord{Event: records.HookPromptSubmit, At: old, Prompt: "hello"}); err != nil {
		t.Fatal(err)
	}
	v := newEvidence(e)
	if src, ok, err := v.Received(ctx, "dev", "hello", old.Add(-time.Second)); err != nil || !ok {
		t.Fatalf("Received = %q, %v, %v: want the old record found", src, ok, err)
	}
	if keeps, proven := v.Keeps("dev"); !keeps || proven {
		t.Fatalf("Keeps = %v, %v after a record of the old process: want keeps, not proven", keeps, proven)
	}
	if err := records.AppendHook(log, records.HookRecord{Event: records.HookPromptSubmit, At: time.Now(), Prompt: "again"}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := v.Received(ctx, "dev", "again", spawned); !ok {
		t.Fatal("the new process's record not found")
	}
	if keeps, proven := v.Keeps("dev"); !keeps || !proven {
		t.Fatalf("Keeps = %v, %v after a record of this process: want proven", keeps, proven)
	}
}

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

// A text typed before the agent's current process started (a restart
// replaced the one typed into) and missing from the records says nothing
// when its CLI keeps a record per session (Codex): the new process may
// have started another, so Received answers errRecordsMoved, not "not
// there"; with Claude's hook log, which spans its sessions, "not there"
// stands.
func TestARestartIntoAnotherSessionLeavesTheRecordsUnread(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		profile string
		moved   bool
	}{{"codex", true}, {"claude", false}} {
		dir := t.TempDir()
		src := "brief = false\n\n[[agent]]\nname = \"dev\"\nprofile = \"" + tc.profile + "\"\ncommand = [\"sh\", \"-c\", \"exec sleep 600\"]\n"
		c, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		e, err := Open(Options{Config: c, StateDir: filepath.Join(dir, "state"), HostEnv: []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "CODEX_HOME=" + filepath.Join(dir, "codex")}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		go e.Run(ctx)
		var spawned time.Time
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if a, ok := e.Agent("dev"); ok && a.Term != nil {
				spawned = a.Term.Spawned()
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the agent never started")
			}
		}
		v := newEvidence(e)
		_, ok, err := v.Received(ctx, "dev", "hello", spawned.Add(-time.Second))
		if ok || (err == errRecordsMoved) != tc.moved {
			t.Errorf("%s: Received of a text typed before this process = %v, %v; want moved %v", tc.profile, ok, err, tc.moved)
		}
		if _, ok, err := v.Received(ctx, "dev", "hello", spawned.Add(time.Second)); ok || err != nil {
			t.Errorf("%s: Received of a text typed into this process = %v, %v; want not found, no error", tc.profile, ok, err)
		}
		cancel()
		e.Close()
	}
}

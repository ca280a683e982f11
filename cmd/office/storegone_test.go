package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"office/configs"
	"office/engine"
)

// A send to a running office whose store was deleted (before the office's
// watcher noticed) fails, and leaves no new empty store behind: the
// command expected the office's store and must not make one.
func TestSendDoesNotRecreateADeletedStore(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	cfg, err := configs.Load(o.config)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(engine.Options{Config: cfg, StateDir: o.state, HostEnv: []string{"PATH=/usr/bin:/bin"}, WatchEvery: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)
	store := filepath.Join(o.state, engine.StoreFile)
	for _, suffix := range []string{"", "-wal", "-shm"} {
		_ = os.Remove(store + suffix)
	}
	r := o.exec(nil, "--state", o.state, "send", "a1", "hi")
	if r.code == 0 {
		t.Fatalf("send with the store deleted: exit 0, %q", r.stdout)
	}
	if _, err := os.Lstat(store); !os.IsNotExist(err) {
		t.Fatalf("send with the store deleted left %s (%v); stderr %q", store, err, r.stderr)
	}
	t.Logf("exit %d: %s", r.code, r.stderr)
}

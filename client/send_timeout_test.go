package client_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"office/client"
	"office/configs"
	"office/engine"
)

// TestSendTimeoutFreesAConnectionHeldByAStuckAgent: an agent that reads
// nothing fills its input; the server then stops reading the connection
// that types into it. With SendTimeout the typist's write fails within it
// (and the connection closes) instead of hanging, and another connection's
// calls go on.
func TestSendTimeoutFreesAConnectionHeldByAStuckAgent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	cfg := "brief = false\n[[agent]]\nname = \"stuck\"\ncommand = [\"sh\", \"-c\", \"stty raw -echo; exec sleep 1000\"]\n"
	c, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(engine.Options{Config: c, StateDir: state, HostEnv: []string{"PATH=/usr/bin:/bin", "HOME=" + dir}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	go e.Run(ctx)
	t.Cleanup(func() { cancel(); e.Close() })
	var keys *client.Conn
	for keys == nil {
		keys, err = client.Dial(ctx, client.Local(state), client.Options{Client: "keys", SendTimeout: time.Second})
		if err != nil && ctx.Err() != nil {
			t.Fatal(err)
		}
	}
	defer keys.Close()
	other, err := client.Dial(ctx, client.Local(state), client.Options{Client: "other"})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	paste := bytes.Repeat([]byte("k"), 900<<10)
	failed := make(chan error, 1)
	go func() {
		for i := 0; i < 20; i++ {
			if err := keys.Input("stuck", paste); err != nil {
				failed <- err
				return
			}
		}
		failed <- nil
	}()
	select {
	case err := <-failed:
		if err == nil {
			t.Fatal("20 pastes of 900 KiB into an agent that reads nothing all went through")
		}
		t.Logf("the stuck write: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("a write to a server that stopped reading hung past SendTimeout")
	}
	select {
	case <-keys.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the connection whose write timed out is still open")
	}
	if _, err := other.Queue(ctx, ""); err != nil {
		t.Fatalf("a call on another connection: %v", err)
	}
}

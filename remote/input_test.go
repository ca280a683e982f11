package remote_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"office/client"
	"office/configs"
	"office/engine"
	"office/remote"
	"office/ui"
)

// TestKeysArriveInOrderWrittenNowOrQueued: the person's keys are written on
// the caller's goroutine while the stream takes them and queued when it
// does not (a paste larger than the socket's buffer); either way the agent
// reads every byte once, in the order typed.
func TestKeysArriveInOrderWrittenNowOrQueued(t *testing.T) {
	t.Parallel()
	var typed [][]byte
	total := 0
	for i := range 400 {
		k := fmt.Appendf(nil, "k%03d ", i)
		if i%100 == 50 {
			k = bytes.Repeat([]byte{'p' + byte(i/100)}, 300<<10) // a paste: more than the socket holds
		}
		typed = append(typed, k)
		total += len(k)
	}
	dir := t.TempDir()
	state, out := filepath.Join(dir, "state"), filepath.Join(dir, "typed")
	cfg := fmt.Sprintf("brief = false\n[[agent]]\nname = \"rec\"\ncommand = [\"sh\", \"-c\", %q]\n",
		fmt.Sprintf("stty raw -echo; echo ready; head -c %d > %s; echo all read", total, out))
	c, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(engine.Options{Config: c, StateDir: state, HostEnv: []string{"PATH=/usr/bin:/bin", "HOME=" + dir}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go e.Run(ctx)
	t.Cleanup(func() { cancel(); e.Close() })
	_, r := open(t, client.Local(state), remote.Options{})
	w := watch(r)
	var snap ui.Screen
	w.until(t, "the recorder ready", func() bool {
		r.Screen("rec", &snap, nil)
		return strings.Contains(snap.Text(), "ready")
	})
	for i, k := range typed {
		if err := r.Input("rec", k); err != nil {
			t.Fatalf("key %d: %v", i, err)
		}
	}
	w.until(t, "every byte read", func() bool {
		r.Screen("rec", &snap, nil)
		return strings.Contains(snap.Text(), "all read")
	})
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := bytes.Join(typed, nil); !bytes.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Fatalf("the agent read %d bytes, %d typed; first difference at %d: %.40q, want %.40q",
			len(got), len(want), i, got[i:], want[i:])
	}
}

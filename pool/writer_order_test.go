package pool_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"office/pool"
)

// The person's keys reach the agent in the order typed, byte for byte, when
// the PTY takes only part of a key's bytes at once (the rest queued ahead
// of the keys after it) and while automated writes and the screen's own
// replies share the queue. The child reads nothing until its PTY has filled.
func TestKeysStayInOrderPastAFullPTY(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "got")
	term, err := pool.Start(pool.Options{Name: "slow", Env: testEnv(),
		Argv: []string{"sh", "-c", "stty raw -echo; echo ready; sleep 0.5; exec cat >" + out}})
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	waitFor(t, 5*time.Second, "raw mode", func() bool { return strings.Contains(term.Text(), "ready") })
	var want bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i := 0; want.Len() < 256<<10; i++ {
		// Keys of uneven lengths, so some straddle what the PTY takes.
		key := []byte(fmt.Sprintf("<%d:%s>", i, strings.Repeat("k", i%997)))
		if i%50 == 49 {
			if err := term.Write(ctx, []byte("[w]")); err != nil {
				t.Fatal(err)
			}
			want.WriteString("[w]")
		}
		if err := term.InputContext(ctx, key); err != nil {
			t.Fatal(err)
		}
		want.Write(key)
	}
	waitFor(t, 20*time.Second, "every byte read by the child", func() bool {
		st, err := os.Stat(out)
		return err == nil && st.Size() >= int64(want.Len())
	})
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		i := 0
		for i < len(got) && i < want.Len() && got[i] == want.Bytes()[i] {
			i++
		}
		t.Fatalf("the child read %d bytes, want %d; they first differ at byte %d: got %q, want %q",
			len(got), want.Len(), i, got[i:min(i+40, len(got))], want.Bytes()[i:min(i+40, want.Len())])
	}
}

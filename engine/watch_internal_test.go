package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"office/configs"
)

// A removed socket is made again by the next check, and answers; so is one
// replaced by a plain file.
func TestRemovedSocketIsMadeAgain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte("brief = false\n[[agent]]\nname = \"c\"\ncommand = [\"cat\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, "state")
	e, err := Open(Options{Config: c, StateDir: state, HostEnv: []string{"PATH=/usr/bin:/bin", "HOME=" + dir}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	sock := filepath.Join(state, SocketFile)
	status := func() error {
		var st []AgentStatus
		return Call(context.Background(), state, Request{Op: "status"}, &st)
	}
	if err := status(); err != nil {
		t.Fatal(err)
	}
	for _, replace := range []func() error{
		func() error { return os.Remove(sock) },
		func() error {
			if err := os.Remove(sock); err != nil {
				return err
			}
			return os.WriteFile(sock, nil, 0o600)
		},
	} {
		if err := replace(); err != nil {
			t.Fatal(err)
		}
		if err := status(); err == nil {
			t.Fatal("status answered with the socket gone")
		}
		if err := e.checkState(); err != nil {
			t.Fatalf("check: %v", err)
		}
		if err := status(); err != nil {
			t.Fatalf("status after the socket was made again: %v", err)
		}
		after, err := os.Lstat(sock)
		if err != nil {
			t.Fatal(err)
		}
		if after.Mode()&os.ModeSocket == 0 || after.Mode().Perm() != 0o600 {
			t.Errorf("socket after the check: %v, want a 0600 socket", after.Mode())
		}
	}
	// A check with the socket in place leaves the listener as it is.
	ln := e.ln
	if err := e.checkState(); err != nil {
		t.Fatal(err)
	}
	if e.ln != ln {
		t.Error("a check replaced a socket that was fine")
	}
}

package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	officeclient "office/client"
	"office/configs"
)

// A removed socket is made again by the next check, and answers; so is one
// replaced by a plain file. The one socket, ClientSocketFile, both ways it
// is used: a command's one call (Call) and a client's session.
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
	status := func() error {
		var st []AgentStatus
		return Call(context.Background(), state, Request{Op: "status"}, &st)
	}
	hello := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		conn, err := officeclient.Dial(ctx, officeclient.Local(state), officeclient.Options{Client: "socket-check"})
		if err != nil {
			return err
		}
		conn.Close()
		return nil
	}
	for _, sc := range []struct {
		file    string
		answers func() error
	}{{ClientSocketFile, status}, {ClientSocketFile, hello}} {
		sock := filepath.Join(state, sc.file)
		if err := sc.answers(); err != nil {
			t.Fatalf("%s: %v", sc.file, err)
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
			if err := sc.answers(); err == nil {
				t.Fatalf("%s answered with the socket gone", sc.file)
			}
			if err := e.checkState(); err != nil {
				t.Fatalf("check: %v", err)
			}
			if err := sc.answers(); err != nil {
				t.Fatalf("%s after the socket was made again: %v", sc.file, err)
			}
			after, err := os.Lstat(sock)
			if err != nil {
				t.Fatal(err)
			}
			if after.Mode()&os.ModeSocket == 0 || after.Mode().Perm() != 0o600 {
				t.Errorf("%s after the check: %v, want a 0600 socket", sc.file, after.Mode())
			}
		}
	}
}

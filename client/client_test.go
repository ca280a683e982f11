package client_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"office/client"
	"office/configs"
	"office/engine"
	"office/pool"
	"office/test/testbin"
)

var officeBin, fakeBin string

func TestMain(m *testing.M) {
	testbin.Main(func(bins map[string]string) int {
		officeBin, fakeBin = bins["office"], bins["fakeagent"]
		return m.Run()
	}, "office/cmd/office", "office/test/fakeagent")
}

// startOffice runs an engine of one fake agent "a" on a state directory
// whose name needs quoting in a shell.
func startOffice(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	state := filepath.Join(dir, "st ate's")
	cfg := fmt.Sprintf("brief = false\n[[agent]]\nname = \"a\"\nprofile = \"claude\"\ncommand = [%q]\n", fakeBin)
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
	return state
}

// TestSSHTransportThroughARemoteShell runs the ssh transport with a
// stand-in for ssh that hands the remote command line to a real shell, as
// sshd does: the far side's `office attach --stdio --state DIR` (DIR quoted)
// bridges to the server.
func TestSSHTransportThroughARemoteShell(t *testing.T) {
	state := startOffice(t)
	fakeSSH := []string{"sh", "-c", `shift; eval "$1"`, "ssh"}
	tr := client.SSH(fakeSSH, "far-host", officeBin, state)
	if !strings.Contains(tr.String(), "far-host") {
		t.Fatalf("transport %q does not name its host", tr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, tr, client.Options{Client: "test", Screens: true})
	if err != nil {
		t.Fatal(err)
	}
	if c.Welcome().State != state {
		t.Fatalf("welcome from state %q, want %q", c.Welcome().State, state)
	}
	var snap pool.Snapshot
	for !c.Screen("a", &snap) || !strings.Contains(snap.Text(), "? for shortcuts") {
		select {
		case <-c.Changed():
		case <-ctx.Done():
			t.Fatalf("no prompt of a through the transport; screen:\n%s", snap.Text())
		}
	}
	var st []engine.AgentStatus
	if err := c.Call(ctx, "status", "", nil, &st); err != nil || len(st) != 1 || st[0].Name != "a" {
		t.Fatalf("status call: %+v %v", st, err)
	}
	var ce *client.CallError
	if _, err := c.Queue(ctx, "nobody"); err != nil && !errors.As(err, &ce) {
		t.Fatalf("a call's error is not a CallError: %v", err)
	}
	c.Close()
	select {
	case <-c.Done():
	default:
		t.Fatal("Close returned before the connection ended")
	}
}

func TestDialWithoutServer(t *testing.T) {
	_, err := client.Dial(context.Background(), client.Local(t.TempDir()), client.Options{})
	if !errors.Is(err, client.ErrNoServer) {
		t.Fatalf("dial with no server: %v, want ErrNoServer", err)
	}
	// ssh that fails: its stderr is the error.
	tr := client.SSH([]string{"sh", "-c", `echo "ssh: connect to host far-host port 22: Connection refused" >&2; exit 255`, "ssh"}, "far-host", "", "")
	_, err = client.Dial(context.Background(), tr, client.Options{})
	if err == nil || !strings.Contains(err.Error(), "Connection refused") {
		t.Fatalf("dial through a failing ssh: %v, want ssh's own message", err)
	}
}

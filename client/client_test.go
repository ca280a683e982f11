package client_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"office/client"
	"office/configs"
	"office/engine"
	"office/pool"
	"office/test/sshd"
	"office/test/testbin"
	"office/wire"
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
	t.Parallel()
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

// TestSSHTransportThroughARealSSHD: the ssh transport with the system's ssh
// through a real sshd on loopback reaches the server on a state directory
// whose name needs quoting, as `office attach --ssh` does.
func TestSSHTransportThroughARealSSHD(t *testing.T) {
	t.Parallel()
	sd := sshd.Start(t)
	state := startOffice(t)
	tr := client.SSH(client.SSHCommand(sd.Command), sd.Host, officeBin, state)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, tr, client.Options{Client: "test", Screens: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Welcome().State != state {
		t.Fatalf("welcome from state %q, want %q", c.Welcome().State, state)
	}
	var st []engine.AgentStatus
	if err := c.Call(ctx, "status", "", nil, &st); err != nil || len(st) != 1 || st[0].Name != "a" {
		t.Fatalf("status call through sshd: %+v %v", st, err)
	}
}

func TestDialWithoutServer(t *testing.T) {
	t.Parallel()
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

// attachPids returns the pids of `office attach` processes serving state.
func attachPids(state string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if len(args) > 2 && args[1] == "attach" && strings.Contains(string(b), state) {
			out = append(out, pid)
		}
	}
	return out
}

// TestSessionReconnectsAfterTheFarSideDies kills the far side's `office
// attach` under a Session: it dials again, sends its subscription and view
// again and resumes (a subscribing client gets no screen it did not name).
func TestSessionReconnectsAfterTheFarSideDies(t *testing.T) {
	t.Parallel()
	state := startOffice(t)
	tr := client.SSH([]string{"sh", "-c", `shift; eval "exec $1"`, "ssh"}, "far-host", officeBin, state)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := client.Open(ctx, tr, client.Options{Client: "session", Screens: true, Subscribe: true, Events: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Subscribe([]string{"a"}); err != nil {
		t.Fatal(err)
	}
	changed := make(chan client.Change, 256)
	stop := s.Watch(func(ch client.Change) {
		select {
		case changed <- ch:
		default:
		}
	})
	defer stop()
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for !cond() {
			select {
			case <-changed:
			case <-time.After(100 * time.Millisecond):
			case <-ctx.Done():
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	if err := s.SetView("a", map[string]wire.Size{"a": {Cols: 77, Rows: 21}}, true); err != nil {
		t.Fatal(err)
	}
	size := func() (int, int) {
		var snap pool.Snapshot
		if !s.Conn().Screen("a", &snap) {
			return 0, 0
		}
		return snap.Cols, snap.Rows
	}
	waitFor("a at 77x21", func() bool { c, r := size(); return c == 77 && r == 21 })
	first := s.Conn()
	pids := attachPids(state)
	if len(pids) != 1 {
		t.Fatalf("attach processes %v, want one", pids)
	}
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor("a new connection", func() bool { return s.Conn() != first })
	waitFor("a's screen on the new connection", func() bool { c, r := size(); return c == 77 && r == 21 })
	select {
	case <-s.Done():
		t.Fatalf("session ended: %v", s.Err())
	default:
	}
	if _, err := s.Conn().Queue(ctx, ""); err != nil {
		t.Fatalf("a call on the new connection: %v", err)
	}
	// Unsubscribed: the copy goes at once, the roster and state stay.
	if err := s.Subscribe(nil); err != nil {
		t.Fatal(err)
	}
	if c, _ := size(); c != 0 {
		t.Fatal("the screen of an agent no longer subscribed to is still held")
	}
	// The roster stays (waited for: under load the session may have
	// redialled once more, and a new connection has its roster once its
	// welcome is read).
	waitFor("the roster kept after unsubscribing", func() bool { return len(s.Conn().Roster()) == 1 })
}

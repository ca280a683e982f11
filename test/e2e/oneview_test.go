package e2e

// oneview_test.go is issue 14's "one view" end to end: one `office attach`
// under tmux shows the agents of two servers (two state directories; one
// reached through a real sshd on loopback) in one grid.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOneViewOfTwoServers: pane titles carry the host (sh@a, sh@b); keys
// typed into b's pane reach b's agent and not a's; killing a's server marks
// its pane unreachable while b's keeps taking keys; a started again comes
// back in the same window.
func TestOneViewOfTwoServers(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: two servers, an sshd and an ssh session (about 10 s)")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed (CI installs it: .ci/run)")
	}
	t.Parallel()
	sd := startSSHD(t)
	a, b := newOffice(t), newOffice(t)
	a.addAgent("sh", "shell", "bash", "--norc", "--noprofile")
	b.addAgent("sh", "shell", "bash", "--norc", "--noprofile")
	t.Cleanup(a.stopServer)
	t.Cleanup(b.stopServer)
	a.must("start")
	view := filepath.Join(a.dir, "view.toml")
	body := fmt.Sprintf("[hosts.a]\nstate = %q\nconfig = %q\n\n[hosts.b]\nssh = %q\nstate = %q\nconfig = %q\noffice = %q\n",
		a.state, a.config, sd.host, b.state, b.config, officeBin)
	if err := os.WriteFile(view, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	tm := &tmux{t: t, socket: filepath.Join(a.dir, "tmux.sock")}
	t.Cleanup(func() { tm.cmd("kill-server") })
	// b's server is not running: the far side's attach --stdio --start
	// starts it, with b's office file (--config crosses ssh).
	w := a.openWin(tm, "view", []string{"OFFICE_SSH_COMMAND=" + strconv.Quote(sd.command)},
		"attach", "--config", view, "--host", "a", "--host", "b")
	a.waitFor(30*time.Second, "both servers' panes, titled with their hosts", func() bool {
		s := w.screen()
		return strings.Contains(s, "1 sh@a · shell · idle") && strings.Contains(s, "2 sh@b · shell · idle")
	})
	if st, ok := b.status(); !ok || len(st) != 1 || st[0].Name != "sh" {
		t.Fatalf("b's server (started through ssh with b's file): %+v %v", st, ok)
	}

	// Keys typed into b's pane reach b's agent only.
	w.key("C-]")
	w.keys("2")
	w.keys("echo typed-on-b")
	a.waitFor(10*time.Second, "the draft on b", func() bool { return b.draft("sh") })
	a.waitFor(10*time.Second, "b's draft in the view", func() bool { return strings.Contains(w.screen(), "echo typed-on-b") })
	if a.draft("sh") {
		t.Fatal("a's agent got the keys typed into b's pane")
	}

	// a's server dies: its pane says so, b's keeps working.
	server := a.serverPid()
	if err := syscall.Kill(server, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	a.waitFor(15*time.Second, "a's pane unreachable", func() bool {
		return strings.Contains(w.screen(), "sh@a · shell · host a unreachable, retrying")
	})
	if s := w.screen(); strings.Contains(s, "host b unreachable") || !strings.Contains(s, "sh@b · shell · idle") {
		t.Fatalf("b's pane is not working with a down:\n%s", s)
	}
	w.keys(" still-b")
	a.waitFor(10*time.Second, "keys reach b with a down", func() bool {
		return strings.Contains(w.screen(), "echo typed-on-b still-b")
	})

	// a comes back: its pane recovers in the same window.
	a.must("start")
	a.waitFor(30*time.Second, "a back in the view", func() bool {
		s := w.screen()
		return !strings.Contains(s, "unreachable") && strings.Contains(s, "1 sh@a · shell · idle")
	})
	w.key("C-]")
	w.keys("1")
	w.keys("echo typed-on-a")
	a.waitFor(10*time.Second, "the draft on a after its restart", func() bool { return a.draft("sh") })
	if !w.open() {
		t.Fatal("the window closed")
	}
	w.key("C-]")
	w.keys("d")
	a.waitFor(10*time.Second, "detached", func() bool { return !w.open() })
	if !b.draft("sh") || !a.draft("sh") {
		t.Fatal("detaching lost a draft")
	}
}

package e2e

// server_ssh_test.go runs a real sshd on loopback (test/sshd: a throwaway
// host key and user key in a temporary directory, a high port on 127.0.0.1)
// and reaches the office server through it, as a person on another machine
// would.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"office/client"
	testsshd "office/test/sshd"
	"office/wire"
)

// sshd is a private sshd for one test (test/sshd).
type sshd struct {
	host    string // user@127.0.0.1
	command string // the ssh command line that reaches it
}

// startSSHD starts sshd on a free loopback port, or skips the test when
// there is none to start.
func startSSHD(t *testing.T) *sshd {
	t.Helper()
	s := testsshd.Start(t)
	return &sshd{host: s.Host, command: s.Command}
}

// children returns the pids whose parent is pid.
func children(pid int) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(st[bytes.LastIndexByte(st, ')')+2:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, n)
		}
	}
	return out
}

func TestEventsWaitAndAttachOverSSH(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts an sshd and several ssh sessions (about 10 s)")
	}
	t.Parallel()
	sd := startSSHD(t)
	o := newOffice(t, agentSpec{name: "a"})
	o.startServe()
	remote := []string{"--ssh", sd.host, "--remote-office", officeBin}

	// events --ssh, the ssh command from OFFICE_SSH_COMMAND.
	before := o.eventClients()
	cmd := exec.Command(officeBin, append([]string{"events", "--json", "--state", o.state}, remote...)...)
	cmd.Env = append(o.env(), "OFFICE_SSH_COMMAND="+sd.command)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb syncBuffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	evs := decodeEvents(t, out)
	o.waitEventClient(before)
	id := o.send("a", "over ssh one")
	var n1 int64
	fmt.Sscan(id, &n1)
	expectEvent(t, evs, "verified over ssh", func(e wire.Event) bool {
		return e.Type == wire.EventDelivery && e.State == wire.DeliveryVerified && e.MsgID == n1
	})

	// Kill the ssh process under events: it reconnects and resumes after the
	// last event it printed, losing none and repeating none.
	var sshPid int
	for _, p := range children(cmd.Process.Pid) {
		if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p)); strings.TrimSpace(string(comm)) == "ssh" {
			sshPid = p
		}
	}
	if sshPid == 0 {
		t.Fatalf("no ssh process under office events (pid %d)", cmd.Process.Pid)
	}
	if err := syscall.Kill(sshPid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	id2 := o.send("a", "over ssh two")
	var n2 int64
	fmt.Sscan(id2, &n2)
	seen := map[int64]int{}
	ev := expectEvent(t, evs, "the second message verified after the reconnect", func(e wire.Event) bool {
		if e.Seq > 0 {
			seen[e.Seq]++
		}
		return e.Type == wire.EventDelivery && e.State == wire.DeliveryVerified && e.MsgID == n2
	})
	for seq, k := range seen {
		if k > 1 {
			t.Errorf("event %d printed %d times", seq, k)
		}
	}
	if ev.Seq == 0 {
		t.Fatalf("stored event without seq: %+v", ev)
	}
	if !strings.Contains(errb.String(), "reconnecting") {
		t.Errorf("events did not say it reconnects: %q", errb.String())
	}
	// wait --ssh, the ssh command from --ssh-command.
	args := append([]string{"wait", "a", "--until", "delivered:" + id2, "--timeout", "20s", "--ssh-command", sd.command}, remote...)
	if _, errOut, code := o.run("", args...); code != 0 {
		t.Fatalf("wait over ssh: exit %d: %s", code, errOut)
	}

	// attach --stdio through ssh: the client library sees the screen.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tr := client.SSH(client.SSHCommand(sd.command), sd.host, officeBin, o.state)
	c, err := client.Dial(ctx, tr, client.Options{Client: "ssh test", Screens: true})
	if err != nil {
		t.Fatalf("attach over ssh: %v", err)
	}
	defer c.Close()
	o.waitScreen(c, "a", "the last message over ssh", func(s string) bool { return strings.Contains(s, "over ssh two") })
	if err := c.Input("a", []byte("typed far away")); err != nil {
		t.Fatal(err)
	}
	o.waitFor(10*time.Second, "the draft typed over ssh", func() bool { return o.draft("a") })
	c.Close()
	// Re-attach after the connection is gone: the same draft is there.
	c, err = client.Dial(ctx, tr, client.Options{Client: "ssh test again", Screens: true})
	if err != nil {
		t.Fatalf("re-attach over ssh: %v", err)
	}
	defer c.Close()
	o.waitScreen(c, "a", "the draft after re-attaching", func(s string) bool { return strings.Contains(s, "typed far away") })
	c.Close()

	// A session through ssh survives killing its ssh: it dials again.
	sess, err := client.Open(ctx, tr, client.Options{Client: "ssh session", Screens: true})
	if err != nil {
		t.Fatalf("session over ssh: %v", err)
	}
	defer sess.Close()
	o.waitScreen(sess.Conn(), "a", "the draft in the session", func(s string) bool { return strings.Contains(s, "typed far away") })
	first := sess.Conn()
	var ssh []int
	for _, p := range children(os.Getpid()) {
		if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p)); strings.TrimSpace(string(comm)) == "ssh" {
			ssh = append(ssh, p)
		}
	}
	if len(ssh) != 1 {
		t.Fatalf("ssh processes of this test: %v, want the session's one", ssh)
	}
	if err := syscall.Kill(ssh[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	o.waitFor(20*time.Second, "the session on a new ssh", func() bool { return sess.Conn() != first })
	o.waitScreen(sess.Conn(), "a", "the draft after the reconnect", func(s string) bool { return strings.Contains(s, "typed far away") })
}

package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// rawUI is the office UI in a PTY of its own, every byte it writes kept
// (what its outer terminal would get).
type rawUI struct {
	cmd *exec.Cmd
	f   *os.File
	mu  sync.Mutex
	out bytes.Buffer
}

func (o *office) startRawUI(t *testing.T, env ...string) *rawUI {
	t.Helper()
	cmd := exec.Command(officeBin, "attach", "--config", o.config, "--state", o.state)
	cmd.Env = append(o.env(), env...)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 120, Rows: 40})
	if err != nil {
		t.Fatal(err)
	}
	u := &rawUI{cmd: cmd, f: f}
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := f.Read(buf)
			u.mu.Lock()
			u.out.Write(buf[:n])
			u.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGHUP)
		f.Close()
		_ = cmd.Wait()
	})
	return u
}

func (u *rawUI) has(s string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return bytes.Contains(u.out.Bytes(), []byte(s))
}

// TestNeedsReachEveryAttachedTerminalAndEmptyWhenAnswered: a dialog waiting
// is in `office needs --json` with its options, and its notification
// reaches both attached UIs' own terminals (the real binary, each in a PTY
// whose bytes are read), each in its own form (OSC 9 for iTerm2, tmux's
// passthrough inside tmux); approving it takes it off the list.
func TestNeedsReachEveryAttachedTerminalAndEmptyWhenAnswered(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a0", args: []string{"--permission", "--busy", "100ms"}})
	o.startServe()
	iterm := o.startRawUI(t, "TERM_PROGRAM=iTerm.app")
	intmux := o.startRawUI(t, "TMUX=/tmp/tmux-0/default,1,0", "TERM_PROGRAM=tmux")
	o.waitFor(20*time.Second, "both UIs drawn", func() bool { return iterm.has("a0") && intmux.has("a0") })
	o.must("send", "a0", "hello")
	type need struct {
		Agent, Reason string
		Options       []string
	}
	var got []need
	o.waitFor(30*time.Second, "the dialog in office needs", func() bool {
		out, _, code := o.run("", "needs", "--json")
		got = nil
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var n need
			if json.Unmarshal([]byte(l), &n) == nil {
				got = append(got, n)
			}
		}
		return code == 0 && len(got) == 1 && got[0].Reason == "dialog"
	})
	if got[0].Agent != "a0" || len(got[0].Options) < 2 {
		t.Fatalf("needs %+v: want a0's dialog with its options", got)
	}
	o.waitFor(20*time.Second, "the notification on both terminals", func() bool {
		return iterm.has("\x1b]9;office: a0 dialog") && intmux.has("\x1bPtmux;\x1b\x1b]9;office: a0 dialog")
	})
	o.must("approve", "a0", "1")
	o.waitFor(20*time.Second, "the dialog off the list once answered", func() bool {
		out, _, code := o.run("", "needs", "--json")
		return code == 0 && !strings.Contains(out, `"dialog"`)
	})
}

package e2e

// Pane history end to end: a real agent process prints 3,000 numbered lines
// (with CJK) into its pane under the UI in tmux, the window shrinks in the
// middle, an alternate-screen program runs in between, the office stops and
// starts again (`office serve`), and is killed with SIGKILL: `office history`
// prints every line once, in order, intact, and nothing of the alternate
// screen.

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"office/engine"
)

// historyScript prints lines 1-1500, reports its PTY size while it waits for
// the file "go", runs an alternate-screen "program", prints lines 1501-3000
// and marks itself done; started again, it only says so.
const historyScript = `d=%q
if [ -e "$d/done" ]; then echo restarted; exec sleep 1000; fi
for i in $(seq 1 1500); do printf 'line %%04d 中文字 end\n' $i; done
while [ ! -e "$d/go" ]; do stty size > "$d/size.tmp" && mv "$d/size.tmp" "$d/size"; sleep 0.05; done
printf '\033[?1049h'; for i in $(seq 1 200); do echo "alt $i"; done; printf '\033[?1049l'
for i in $(seq 1501 3000); do printf 'line %%04d 中文字 end\n' $i; done
touch "$d/done"
exec sleep 1000
`

func numberedLine(i int) string { return fmt.Sprintf("line %04d 中文字 end", i) }

// wantHistory checks that out holds lines 1..3000 exactly once, in order,
// followed by tail.
func wantHistory(t *testing.T, out string, tail ...string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	want := make([]string, 0, 3000+len(tail))
	for i := 1; i <= 3000; i++ {
		want = append(want, numberedLine(i))
	}
	want = append(want, tail...)
	// Blank lines (the cursor's row when the pane was retired) are not text.
	var got []string
	for _, l := range lines {
		if l != "" {
			got = append(got, l)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("office history printed %d lines, want %d\nfirst %q\nlast %q", len(got), len(want), got[0], got[len(got)-1])
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("line %d = %q, want %q", i+1, got[i], want[i])
		}
	}
}

func TestHistoryAcrossResizeAndRestart(t *testing.T) {
	t.Parallel()
	o := newOffice(t)
	cfg := fmt.Sprintf("brief = false\n\n[[agent]]\nname = \"h\"\ncommand = [\"bash\", \"-c\", %q]\n", fmt.Sprintf(historyScript, o.dir))
	if err := os.WriteFile(o.config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	history := func(args ...string) (string, string) {
		out, errOut, code := o.run("", append([]string{"history", "h"}, args...)...)
		if code != 0 {
			t.Fatalf("office history: exit %d: %s", code, errOut)
		}
		return out, errOut
	}

	// 1. Under the UI: lines 1-1500, then the window shrinks.
	tm := o.startUI(120, 40)
	o.waitFor(30*time.Second, "line 1500 in the pane", func() bool {
		out, _, code := o.run("", "history", "h")
		return code == 0 && strings.Contains(out, numberedLine(1500))
	})
	o.waitFor(15*time.Second, "the agent to report its PTY size", func() bool { return ptyRows(t, o.dir) > 0 })
	before := ptyRows(t, o.dir)
	tm.cmd("resize-window", "-t", officeTarget, "-x", "100", "-y", "16")
	o.waitFor(15*time.Second, "the agent's PTY to shrink", func() bool { return ptyRows(t, o.dir) < before })
	if err := os.WriteFile(filepath.Join(o.dir, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	o.waitFor(30*time.Second, "line 3000", func() bool {
		_, err := os.Stat(filepath.Join(o.dir, "done"))
		out, _, code := o.run("", "history", "h")
		return err == nil && code == 0 && strings.Contains(out, numberedLine(3000))
	})
	out, _ := history()
	wantHistory(t, out)
	if strings.Contains(out, "alt ") {
		t.Fatal("the alternate screen's lines are in the history")
	}

	// 2. The office stops (SIGTERM); with none running the file alone.
	pid := lockPid(t, o.state)
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	o.waitFor(15*time.Second, "the office to stop", func() bool { return !engine.Running(o.state) })
	out, errOut := history()
	wantHistory(t, out)
	if !strings.Contains(errOut, "no office is running") {
		t.Fatalf("stderr %q does not say the screen is missing", errOut)
	}

	// 3. It starts again: the agent is restarted, its history continues.
	o.startServeUntil("the restarted agent", func() bool {
		out, _, code := o.run("", "history", "h")
		return code == 0 && strings.HasSuffix(out, "restarted\n")
	})
	out, _ = history()
	wantHistory(t, out, "restarted")
	if out, _ := history("--lines", "2"); out != numberedLine(2999)+"\n"+numberedLine(3000)+"\nrestarted\n" {
		t.Fatalf("--lines 2 printed %q", out)
	}
	if out, _ := history("--since", "1ns"); out != "restarted\n" {
		t.Fatalf("--since 1ns printed %q", out)
	}
	if out, _ := history("--ansi", "--lines", "1"); out != numberedLine(3000)+"\nrestarted\n" {
		t.Fatalf("--ansi printed %q", out)
	}

	// 4. Killed: what was written is readable.
	o.stopServe(syscall.SIGKILL)
	out, _ = history()
	wantHistory(t, out)

	if _, errOut, code := o.run("", "history", "nobody"); code != 2 || !strings.Contains(errOut, "nobody") {
		t.Fatalf("unknown agent: exit %d, %q", code, errOut)
	}
}

// ptyRows is the agent's PTY height as the script last reported it (0 before).
func ptyRows(t *testing.T, dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, "size"))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[0])
	return n
}

// lockPid is the pid the running office wrote into its lock file.
func lockPid(t *testing.T, state string) int {
	b, err := os.ReadFile(filepath.Join(state, engine.LockFile))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("lock file %q: %v", b, err)
	}
	return pid
}

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// shellOffice writes an office of two shell agents (sh) and, as third, a
// custom agent that hides its cursor and then waits.
func shellOffice(t *testing.T) *office {
	t.Helper()
	o := &office{t: t, dir: t.TempDir(), logs: map[string]string{}}
	o.config = filepath.Join(o.dir, "office.toml")
	o.state = filepath.Join(o.dir, "state")
	cfg := `brief = false

[[agent]]
name = "one"
profile = "shell"
command = ["env", "PS1=$ ", "sh", "-i"]

[[agent]]
name = "two"
profile = "shell"
command = ["env", "PS1=$ ", "sh", "-i"]

[[agent]]
name = "hider"
command = ["sh", "-c", "printf 'hidden cursor\\033[?25l'; exec cat"]
`
	if err := os.WriteFile(o.config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return o
}

// startUIWith runs the UI under tmux as startUI does, with extra variables
// in its environment.
func (o *office) startUIWith(cols, rows int, extra ...string) *tmux {
	o.t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		o.t.Skip("tmux not installed (CI installs it: .ci/run)")
	}
	tm := &tmux{t: o.t, socket: filepath.Join(o.dir, "tmux.sock")}
	envs := strings.Join(append(o.env(), extra...), " ")
	cmdline := fmt.Sprintf("env -i %s %s --config %s --state %s", envs, officeBin, o.config, o.state)
	tm.cmd("new-session", "-d", "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows), "-s", "office", cmdline)
	o.t.Cleanup(func() { tm.cmd("kill-server") })
	o.ui = tm
	return tm
}

// cursor returns tmux's cursor of the office pane: position and visibility.
func (tm *tmux) cursor() (x, y int, visible bool) {
	out := strings.TrimSpace(tm.cmd("display-message", "-p", "-t", officeTarget, "#{cursor_x},#{cursor_y},#{cursor_flag}"))
	f := strings.Split(out, ",")
	if len(f) != 3 {
		tm.t.Fatalf("tmux cursor: %q", out)
	}
	x, _ = strconv.Atoi(f[0])
	y, _ = strconv.Atoi(f[1])
	return x, y, f[2] == "1"
}

// find returns the cell after the first occurrence of text on screen.
func find(screen, text string) (x, y int, ok bool) {
	for i, line := range strings.Split(screen, "\n") {
		if j := strings.Index(line, text); j >= 0 {
			return len([]rune(line[:j+len(text)])), i, true
		}
	}
	return 0, 0, false
}

// TestUIRealCursorFollowsTheFocusedAgent: the person's terminal cursor is
// the focused agent's: right after "abc" typed into the first shell,
// visible; in the second shell's prompt once it is focused; hidden while
// an agent that hid its cursor is focused.
func TestUIRealCursorFollowsTheFocusedAgent(t *testing.T) {
	t.Parallel()
	o := shellOffice(t)
	tm := o.startUI(150, 40)
	o.waitFor(30*time.Second, "three panes", func() bool {
		s := tm.screen()
		return strings.Contains(s, "hidden cursor") && strings.Count(s, "$") >= 2
	})
	tm.keys("abc")
	var wx, wy int
	o.waitFor(10*time.Second, "the cursor right after abc", func() bool {
		var ok bool
		wx, wy, ok = find(tm.screen(), "$ abc")
		x, y, vis := tm.cursor()
		return ok && x == wx && y == wy && vis
	})
	if wx >= 75 {
		t.Fatalf("abc is not in the first pane (column %d)", wx)
	}
	tm.key("C-]", "2")
	o.waitFor(10*time.Second, "the cursor in the second pane", func() bool {
		x, y, vis := tm.cursor()
		return x > wx && x < 100 && y == wy && vis
	})
	tm.key("C-]", "3")
	o.waitFor(10*time.Second, "the cursor hidden for the hider", func() bool {
		_, _, vis := tm.cursor()
		return !vis
	})
	tm.key("C-]", "1")
	o.waitFor(10*time.Second, "the cursor back after abc", func() bool {
		x, y, vis := tm.cursor()
		return x == wx && y == wy && vis
	})
}

// sgrSeq matches an SGR sequence that sets a colour.
var sgrSeq = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

func hasColour(s string) bool {
	for _, m := range sgrSeq.FindAllStringSubmatch(s, -1) {
		for _, p := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ';' || r == ':' }) {
			n, _ := strconv.Atoi(p)
			if n >= 30 && n <= 49 && n != 39 && n != 49 || n >= 90 && n <= 107 {
				return true
			}
		}
	}
	return false
}

// TestUINoColorLeavesTheChromeWithoutColour: with NO_COLOR=1 the title bars
// and the status line carry attributes only; without it they are coloured.
func TestUINoColorLeavesTheChromeWithoutColour(t *testing.T) {
	t.Parallel()
	for _, noColor := range []bool{false, true} {
		t.Run(fmt.Sprint("NO_COLOR=", noColor), func(t *testing.T) {
			o := shellOffice(t)
			var extra []string
			if noColor {
				extra = append(extra, "NO_COLOR=1")
			}
			tm := o.startUIWith(150, 40, extra...)
			o.waitFor(30*time.Second, "the panes", func() bool { return strings.Contains(tm.screen(), "hidden cursor") })
			styled := strings.Split(tm.cmd("capture-pane", "-p", "-e", "-t", officeTarget), "\n")
			chrome := styled[0] + styled[len(styled)-2] // the title row and the status line
			if got := hasColour(chrome); got == noColor {
				t.Fatalf("chrome coloured = %v with NO_COLOR %v: %q", got, noColor, chrome)
			}
		})
	}
}

package e2e

// Copy mode end to end: the real binary under tmux, two shell panes. Prefix
// [ then g shows the first history line, / finds a line and brings it into
// view, q returns; the mouse wheel scrolls a shell pane; a drag selection
// stays inside its pane, and the OSC 52 sequence office writes carries
// exactly the selected text (tmux with set-clipboard on turns it into its
// paste buffer, read back with show-buffer).

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// copyModeConfig: pane a prints 300 numbered lines, pane b two short rows;
// both then wait without asking for the mouse.
const copyModeConfig = `brief = false

[[agent]]
name = "a"
command = ["bash", "-c", "for i in $(seq 1 300); do printf 'line %04d end\\n' $i; done; exec sleep 1000"]

[[agent]]
name = "b"
command = ["bash", "-c", "printf 'alpha beta gamma\\nsecond row\\n'; exec sleep 1000"]
`

// raw types bytes into the UI as the person's terminal would send them (a
// mouse report, say), untouched by tmux's key parser.
func (tm *tmux) raw(s string) {
	args := []string{"send-keys", "-t", officeTarget, "-H"}
	for i := 0; i < len(s); i++ {
		args = append(args, fmt.Sprintf("%02x", s[i]))
	}
	tm.cmd(args...)
}

func TestCopyModeUnderTmux(t *testing.T) {
	o := newOffice(t)
	if err := os.WriteFile(o.config, []byte(copyModeConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	tm := o.startUI(120, 40)
	// OSC 52 from an application reaches tmux's buffers only with
	// set-clipboard on (the default, external, ignores it).
	tm.cmd("set-option", "-s", "set-clipboard", "on")
	screenHas := func(what string, d time.Duration, cond func(string) bool) {
		t.Helper()
		o.waitFor(d, what, func() bool { return cond(tm.screen()) })
	}
	screenHas("both panes' output", 30*time.Second, func(s string) bool {
		return strings.Contains(s, "line 0300 end") && strings.Contains(s, "second row")
	})

	// Prefix [ and g: the first line, and the title says how far back.
	tm.key("C-]", "[")
	tm.keys("g")
	screenHas("line 0001 after g", 10*time.Second, func(s string) bool {
		return strings.Contains(s, "line 0001 end") && strings.Contains(s, "[+")
	})
	if strings.Contains(tm.screen(), "line 0300 end") {
		t.Fatalf("g still shows the last line:\n%s", tm.screen())
	}
	// / finds a line below and brings it into view.
	tm.keys("/line 0150")
	tm.key("Enter")
	screenHas("line 0150 after /", 10*time.Second, func(s string) bool {
		return strings.Contains(s, "line 0150 end") && !strings.Contains(s, "line 0001 end")
	})
	// q returns to the live pane.
	tm.keys("q")
	screenHas("the live pane after q", 10*time.Second, func(s string) bool {
		return strings.Contains(s, "line 0300 end") && !strings.Contains(s, "[+")
	})

	// The pane layout: b starts right of the separator on the first body row.
	lines := strings.Split(tm.screen(), "\n")
	sep := strings.IndexRune(lines[1], '│')
	if sep < 0 {
		t.Fatalf("no separator in %q", lines[1])
	}
	bx := len([]rune(lines[1][:sep])) + 1 // b's first column, 0-based
	if !strings.HasPrefix(string([]rune(lines[1])[bx:]), "alpha beta gamma") {
		t.Fatalf("b's first row is not at column %d: %q", bx, lines[1])
	}

	// The mouse wheel over the shell pane a scrolls it back.
	tm.raw("\x1b[<64;10;10M")
	screenHas("a scrolled by the wheel", 10*time.Second, func(s string) bool { return strings.Contains(s, "[+3]") })
	tm.raw("\x1b[<65;10;10M")
	screenHas("a back at the bottom", 10*time.Second, func(s string) bool { return !strings.Contains(s, "[+") })

	// A drag from "beta" in b leftwards across the border deep into a and
	// down one row selects b's cells only: from "beta" to b's first column.
	press := fmt.Sprintf("\x1b[<0;%d;2M", bx+7)
	tm.raw(press + fmt.Sprintf("\x1b[<32;%d;2M", bx-5) + "\x1b[<32;5;3M" + "\x1b[<0;5;3m")
	want := "beta gamma\ns"
	var got string
	o.waitFor(10*time.Second, "the copy in tmux's buffer", func() bool {
		out, err := tmuxOut(tm, "show-buffer")
		got = out
		return err == nil && out == want
	})
	if got != want {
		t.Fatalf("OSC 52 carried %q, want %q", got, want)
	}
}

// tmuxOut runs a tmux command that may fail (show-buffer with no buffer yet).
func tmuxOut(tm *tmux, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "tmux", append([]string{"-S", tm.socket}, args...)...).Output()
	return string(out), err
}

// exitingScript reports its PTY size until the file "go" exists, then
// prints 60 rows and exits.
const exitingScript = `d=%q
while [ ! -e "$d/go" ]; do stty size > "$d/size.tmp" && mv "$d/size.tmp" "$d/size"; sleep 0.05; done
for i in $(seq 1 60); do printf 'row %%02d end\n' $i; done
`

// TestCopyModeOfAnExitedAgentUnderTmux: an agent prints 60 rows and exits;
// its last screen went into its history, so copy mode shows each row once:
// a page up from the bottom shows the rows above the last screen, not that
// screen a second time.
func TestCopyModeOfAnExitedAgentUnderTmux(t *testing.T) {
	t.Parallel()
	o := newOffice(t)
	cfg := fmt.Sprintf("brief = false\n\n[[agent]]\nname = \"a\"\ncommand = [\"bash\", \"-c\", %q]\n", fmt.Sprintf(exitingScript, o.dir))
	if err := os.WriteFile(o.config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	tm := o.startUI(80, 24)
	// The rows are printed once the pane has its size (22 rows under a
	// title and above the status line), so its last screen shows row 60.
	o.waitFor(30*time.Second, "the agent's PTY to get the pane's size", func() bool { return ptyRows(t, o.dir) == 22 })
	if err := os.WriteFile(filepath.Join(o.dir, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	o.waitFor(30*time.Second, "a to exit", func() bool {
		st, ok := o.status()
		return ok && len(st) == 1 && st[0].Status == "exited"
	})
	o.waitFor(10*time.Second, "the last row in the pane", func() bool { return strings.Contains(tm.screen(), "row 60 end") })
	tm.key("C-]", "[")
	o.waitFor(10*time.Second, "copy mode", func() bool { return strings.Contains(tm.screen(), "[copy]") })
	tm.key("PPage")
	o.waitFor(10*time.Second, "a page up", func() bool { return strings.Contains(tm.screen(), "[+") })
	s := tm.screen()
	if strings.Contains(s, "row 60 end") {
		t.Fatalf("a page up from the bottom still shows the last row: the last screen is shown twice\n%s", s)
	}
	for i := 1; i <= 60; i++ {
		if n := strings.Count(s, fmt.Sprintf("row %02d end", i)); n > 1 {
			t.Fatalf("row %02d shown %d times\n%s", i, n, s)
		}
	}
}

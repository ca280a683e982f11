package ui

import (
	"fmt"
	"strings"
	"testing"
)

// claudeLike draws a 40-row screen as a bottom-anchored CLI does: a
// transcript from the top, the prompt row (the caret on it) between two
// rules, and a footer on the last row.
func claudeLike(prompt string) string {
	var b strings.Builder
	b.WriteString("\x1b[H\x1b[2J")
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "transcript %02d\r\n", i)
	}
	fmt.Fprintf(&b, "\x1b[37;1H%s\x1b[38;1H❯ %s\x1b[39;1H%s\x1b[40;1H  ? for shortcuts", strings.Repeat("─", 60), prompt, strings.Repeat("─", 60))
	fmt.Fprintf(&b, "\x1b[38;%dH", 3+len(prompt))
	return b.String()
}

// A window smaller than the agent's screen (another, larger window is the
// latest and decides the agent's size) shows the rows around the cursor, as
// tmux pans a smaller client: a bottom-anchored CLI's prompt row and footer,
// with the terminal's cursor on the caret, not the transcript's top rows
// with the cursor drawn on the pane's last row.
func TestASmallerWindowShowsTheRowsAroundTheCursor(t *testing.T) {
	h := newHarness(t, "a")
	h.size(80, 24) // body: 22 rows
	a := h.o.agent("a")
	a.scr.Resize(100, 40) // the larger window's size
	h.o.feed("a", claudeLike("half typed"))
	h.changed()
	rows := h.paneRows("a")
	if len(rows) != 22 {
		t.Fatalf("%d body rows", len(rows))
	}
	if got := rows[len(rows)-1]; got != "  ? for shortcuts" {
		t.Fatalf("the last row shows %q, want the footer; rows:\n%s", got, strings.Join(rows, "\n"))
	}
	prompt := len(rows) - 3
	if rows[prompt] != "❯ half typed" {
		t.Fatalf("the prompt row shows %q; rows:\n%s", rows[prompt], strings.Join(rows, "\n"))
	}
	p := h.m.panes[0]
	caretX := p.box.X + stringCells("❯ half typed")
	if c := h.m.cursor(); c.y != p.box.Y+1+prompt || c.x != caretX {
		t.Fatalf("cursor at %d,%d; the caret is at %d,%d", c.x, c.y, caretX, p.box.Y+1+prompt)
	}
	// A click on the prompt row reaches an agent that asked for the mouse
	// at that row of its screen (row 38), not at the pane's row.
	h.o.feed("a", "\x1b[?1000h\x1b[?1006h")
	h.changed()
	h.keys(fmt.Sprintf("\x1b[<0;%d;%dM", p.box.X+1, p.box.Y+1+prompt+1))
	if got, want := h.o.got("a"), "\x1b[<0;1;38M"; got != want {
		t.Fatalf("the click reached the agent as %q, want %q", got, want)
	}
	h.o.feed("a", "\x1b[?1000l\x1b[?1006l")

	// A shell: output down to the cursor, nothing below it: the view ends
	// on the cursor's row.
	var b strings.Builder
	b.WriteString("\x1b[H\x1b[2J")
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "out %02d\r\n", i)
	}
	b.WriteString("$ ")
	h.o.feed("a", b.String())
	h.changed()
	rows = h.paneRows("a")
	if got := rows[len(rows)-1]; got != "$" {
		t.Fatalf("the last row shows %q, want the shell's prompt; rows:\n%s", got, strings.Join(rows, "\n"))
	}
	if got := rows[0]; got != "out 10" {
		t.Fatalf("the first row shows %q, want out 10", got)
	}

	// Output that fits in the view's first rows, with the cursor among
	// them: the view starts at the top.
	h.o.feed("a", "\x1b[H\x1b[2Jtop line\r\n$ ")
	h.changed()
	if rows = h.paneRows("a"); rows[0] != "top line" {
		t.Fatalf("the first row shows %q, want the top", rows[0])
	}
}

package ui

import (
	"strings"
	"testing"
)

// Prefix > on the last page wraps to the first and < on the first to the
// last, as tmux's next-window and previous-window; with one page they stay.
func TestPagesWrapAround(t *testing.T) {
	h := newHarness(t, names(20)...)
	h.size(150, 40)
	h.keys("\x1d<")
	if h.focusedName() != "agent19" || !strings.Contains(h.text(), "page 3/3") {
		t.Fatalf("< on page 1: focus %s\n%s", h.focusedName(), h.text())
	}
	h.keys("\x1d>")
	if h.focusedName() != "agent1" || !strings.Contains(h.text(), "page 1/3") {
		t.Fatalf("> on the last page: focus %s\n%s", h.focusedName(), h.text())
	}
	one := newHarness(t, "a", "b")
	one.size(150, 40)
	one.keys("\x1d2\x1d>")
	if one.focusedName() != "b" {
		t.Fatalf("> with one page moved the focus to %s", one.focusedName())
	}
}

// The zoomed view's status line says it is zoomed and how to go back.
func TestZoomedStatusLineSaysSo(t *testing.T) {
	h := newHarness(t, "a", "b")
	h.size(120, 40)
	if strings.Contains(h.text(), "ZOOMED") {
		t.Fatalf("not zoomed, yet:\n%s", h.text())
	}
	h.keys("\x1dz")
	if !strings.Contains(h.text(), "ZOOMED (Ctrl-] z)") {
		t.Fatalf("zoomed status line:\n%s", h.text())
	}
	h.keys("\x1dz")
	if strings.Contains(h.text(), "ZOOMED") {
		t.Fatalf("unzoomed, still says zoomed:\n%s", h.text())
	}
}

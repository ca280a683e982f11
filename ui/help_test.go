package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestHelpFitsASmallWindow: in a window too short and narrow for the help,
// every binding is still there to read, word-wrapped (not cut at the box's
// edge) and reached with the arrows; the last line says so; any other key
// closes it. In a window it fits, any key closes it.
func TestHelpFitsASmallWindow(t *testing.T) {
	h := newHarness(t, "a")
	h.size(50, 12)
	h.keys("\x1d?")
	first := h.text()
	if !strings.Contains(first, "other keys close") {
		t.Fatalf("a clipped help does not say how to see the rest:\n%s", first)
	}
	if !strings.Contains(first, "move focus to the pane in") || !strings.Contains(first, "that direction") {
		t.Fatalf("a binding is cut at the box's edge, not wrapped:\n%s", first)
	}
	seen := first
	for range 60 {
		h.keys("\x1b[B") // Down
		seen += h.text()
	}
	for _, b := range prefixKeys {
		for _, w := range strings.Fields(b.does) {
			if !strings.Contains(seen, w) {
				t.Fatalf("scrolling the help never shows %q of %q", w, b.does)
			}
		}
	}
	if !strings.Contains(h.text(), "Queue panel") {
		t.Fatalf("Down does not reach the end of the help:\n%s", h.text())
	}
	h.keys("\x1b[5~") // PgUp
	if !strings.Contains(h.text(), "office keys") {
		t.Fatalf("PgUp closed the help")
	}
	h.keys("x")
	if strings.Contains(h.text(), "office keys") {
		t.Fatalf("x does not close the help")
	}

	h.size(150, 50)
	h.keys("\x1d?")
	if !strings.Contains(h.text(), "any key closes this help") {
		t.Fatalf("a help that fits:\n%s", h.text())
	}
	h.keys("\x1b[B")
	if strings.Contains(h.text(), "office keys") {
		t.Fatalf("Down does not close a help that fits")
	}
}

// TestHelpLinesFitEveryWidth: at every inner width no help line is wider
// than the box (a word longer than the width is broken, not cut at the
// edge), and every binding's text is there whole, in order.
func TestHelpLinesFitEveryWidth(t *testing.T) {
	h := newHarness(t, "a")
	squeeze := func(s string) string { return strings.Join(strings.Fields(s), "") }
	for inner := 1; inner <= 80; inner++ {
		lines := h.m.helpLines(inner)
		var all strings.Builder
		for _, l := range lines {
			if w := ansi.StringWidth(l.text); w > inner {
				t.Fatalf("inner %d: line %q is %d cells wide", inner, l.text, w)
			}
			all.WriteString(squeeze(l.text))
		}
		for _, b := range prefixKeys {
			if !strings.Contains(all.String(), squeeze(b.keys+b.does)) {
				t.Fatalf("inner %d: binding %q %q is not there whole", inner, b.keys, b.does)
			}
		}
	}
}

// TestHelpPagesInTheSmallestWindow: with room for two lines (one of them
// the hint), PgDn and Space still move the help on.
func TestHelpPagesInTheSmallestWindow(t *testing.T) {
	h := newHarness(t, "a")
	h.size(60, 5)
	h.keys("\x1d?")
	first := h.text()
	if !strings.Contains(first, "other keys close") {
		t.Fatalf("the help does not scroll in a 5-row window:\n%s", first)
	}
	for _, key := range []string{"\x1b[6~", " "} {
		h.keys(key)
		if now := h.text(); now == first || !strings.Contains(now, "office keys") {
			t.Fatalf("%q did not page the help on:\n%s", key, now)
		}
		first = h.text()
	}
}

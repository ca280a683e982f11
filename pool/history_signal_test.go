package pool

import (
	"fmt"
	"strings"
	"testing"
)

// signalled reports whether h.Changed holds a signal, and takes it.
func signalled(h *History) bool {
	select {
	case <-h.Changed():
		return true
	default:
		return false
	}
}

// The lines a Feed, a Resize or the end of the output pushes into the history
// are all in it when Changed signals, and a Feed or a Resize that scrolls
// nothing off signals nothing.
func TestHistoryChangedAfterEachFeedThatAddsLines(t *testing.T) {
	t.Parallel()
	s := NewScreen(20, 5, nil)
	h := NewHistory(100)
	s.CaptureHistory(h, nil)
	var b strings.Builder
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&b, "line %d\r\n", i)
	}
	s.Feed([]byte(b.String()))
	if !signalled(h) {
		t.Fatal("no Changed signal after a Feed that scrolled lines off")
	}
	if _, total := h.Bounds(); total != 8 {
		t.Fatalf("history holds %d lines, want 8 (12 lines and the cursor's row on a 5-row screen)", total)
	}
	s.Feed([]byte("\x1b[1;1Hover"))
	if signalled(h) {
		t.Fatal("Changed signalled after a Feed that scrolled nothing")
	}
	s.Resize(20, 2) // the cursor on row 0: nothing slides off
	if signalled(h) {
		t.Fatal("Changed signalled after a resize that slid nothing off")
	}
	s.Feed([]byte("\x1b[2;1H"))
	s.Resize(20, 1) // the cursor on row 1: row 0 slides off
	if !signalled(h) {
		t.Fatal("no Changed signal after a resize slid a row off")
	}
	s.retireHistory()
	if !signalled(h) {
		t.Fatal("no Changed signal after the last screen was retired")
	}
	if _, total := h.Bounds(); total != 10 {
		t.Fatalf("history holds %d lines, want 10", total)
	}
}

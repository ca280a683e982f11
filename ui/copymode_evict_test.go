package ui

import (
	"regexp"
	"strings"
	"testing"
)

// A pane whose history is evicted while copy mode is open (an agent that
// floods: every line held when copy mode was entered falls off the history
// behind it) still shows its frozen screen, counts its lines from 1 up, and
// searches it: the view never goes blank and the line count never goes
// negative.
func TestCopyModeKeepsItsFrozenScreenWhenTheHistoryIsEvicted(t *testing.T) {
	h := newHarness(t, "a")
	h.size(80, 24)
	h.numbered("a", 1, 300)
	h.keys("\x1d[")
	c := h.m.panes[0].cm
	if c == nil {
		t.Fatal("not in copy mode")
	}
	frozen := h.paneRows("a")
	// More new lines than the history holds: the 300 lines held when copy
	// mode began (and those of the screen since) all fall off.
	h.numbered("a", 301, 301+h.o.agent("a").scr.History().Max()+100)
	h.keys("g")
	rows := h.paneRows("a")
	if strings.TrimSpace(strings.Join(rows, "")) == "" {
		t.Fatalf("copy mode shows a blank pane (frozen view was %q)", frozen)
	}
	if !slicesContain(rows, "line 0300 中文 end") {
		t.Fatalf("the frozen screen is not shown: %q", rows)
	}
	status := h.m.copyStatus()
	if m := regexp.MustCompile(`line (-?\d+)/(-?\d+)`).FindStringSubmatch(status); m == nil || strings.HasPrefix(m[1], "-") || strings.HasPrefix(m[2], "-") || m[1] == "0" {
		t.Fatalf("status line %q", status)
	}
	h.keys("G?line 0295\r")
	if c.note != "" {
		t.Fatalf("search of the frozen screen: %q", c.note)
	}
	if got := strings.Join(h.paneRows("a"), "\n"); !strings.Contains(got, "line 0295") {
		t.Fatalf("the match is not in view:\n%s", got)
	}
}

func slicesContain(rows []string, s string) bool {
	for _, r := range rows {
		if r == s {
			return true
		}
	}
	return false
}

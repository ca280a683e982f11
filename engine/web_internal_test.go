package engine

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCutTextOnARuneBoundary: the mail calls cut a long text at their
// bound without splitting a character, and say they cut it.
func TestCutTextOnARuneBoundary(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", maxInboxBody) // 2 bytes each
	got, cut := cutText("a"+long, maxInboxBody)
	if !cut || len(got) > maxInboxBody || !utf8.ValidString(got) || len(got) < maxInboxBody-1 {
		t.Fatalf("cut %v to %d bytes (valid %v), want at most %d on a rune boundary", cut, len(got), utf8.ValidString(got), maxInboxBody)
	}
	if got, cut := cutText("short", maxInboxBody); cut || got != "short" {
		t.Fatalf("a short text: %q %v", got, cut)
	}
}

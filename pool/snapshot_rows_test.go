package pool

import (
	"fmt"
	"slices"
	"testing"
)

// TestSnapshotRowsCopiesChangedRows: a kept Snapshot brought up to date by
// SnapshotRows equals a fresh Snapshot after every kind of change, and only
// the rows that changed are copied.
func TestSnapshotRowsCopiesChangedRows(t *testing.T) {
	s := NewScreen(20, 6, nil)
	s.Feed([]byte("one\r\ntwo\r\nthree"))
	var kept, fresh Snapshot
	var gens []uint64
	check := func(step string, wantCopied int) {
		t.Helper()
		got := s.SnapshotRows(&kept, &gens)
		s.Snapshot(&fresh)
		if !slices.Equal(kept.Cells, fresh.Cells) || kept.Cols != fresh.Cols || kept.Rows != fresh.Rows ||
			kept.CursorX != fresh.CursorX || kept.CursorY != fresh.CursorY || kept.Title != fresh.Title ||
			kept.Modes != fresh.Modes || kept.Generation != fresh.Generation {
			t.Fatalf("%s: kept snapshot differs from a fresh one", step)
		}
		if wantCopied >= 0 && got != wantCopied {
			t.Fatalf("%s: copied %d rows, want %d", step, got, wantCopied)
		}
	}
	check("first", 6)
	check("unchanged", 0)
	s.Feed([]byte("\x1b[2;1H\x1b[31mTWO\x1b[m"))
	check("one row recoloured", 1)
	s.Feed([]byte("\x1b]0;a title\x07\x1b[5;3H"))
	check("title and cursor", 0)
	s.Feed([]byte("\x1b[6;1H\r\n\r\nnew"))
	check("scrolled", -1)
	s.Resize(30, 8)
	check("resized", 8)
	for i := range 20 {
		s.Feed(fmt.Appendf(nil, "\x1b[%d;1H\x1b[2Kline %d 世界", i%8+1, i))
		check(fmt.Sprintf("line %d", i), 1)
	}
}

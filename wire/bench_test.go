package wire_test

import (
	"fmt"
	"strings"
	"testing"

	"office/pool"
	"office/wire"
)

// BenchmarkSpinnerUpdate is the server's update of one client for one agent
// whose spinner row and title changed on a full 120×40 screen: the
// snapshot of the screen and the Diff against what the client has. "whole"
// copies every row (the way before), "rows" only the rows that changed,
// "gens" also compares only those (the server's way, pool.RowsChanged);
// "feed" is the agent's output alone, included in all.
func BenchmarkSpinnerUpdate(b *testing.B) {
	var text strings.Builder
	for y := range 38 {
		fmt.Fprintf(&text, "\x1b[3%dmtranscript line %d with some words on it, and \x1b[1mbold\x1b[m ones\r\n", y%8, y)
	}
	frames := []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧"}
	for _, mode := range []string{"feed", "whole", "rows", "gens"} {
		b.Run(mode, func(b *testing.B) {
			s := pool.NewScreen(120, 40, nil)
			s.Feed([]byte(text.String()))
			var sent, cur pool.Snapshot
			var gens, curGens []uint64
			var changed []bool
			s.SnapshotRows(&sent, &gens)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				s.Feed(fmt.Appendf(nil, "\x1b]0;%s working\x07\x1b[39;1H\x1b[2K%s Thinking… (%ds)", frames[i%8], frames[i%8], i))
				if mode == "feed" {
					continue
				}
				if mode == "whole" {
					s.Snapshot(&cur)
				} else {
					cur.Cells = append(cur.Cells[:0], sent.Cells...)
					cur.Cols, cur.Rows = sent.Cols, sent.Rows
					curGens = append(curGens[:0], gens...)
					s.SnapshotRows(&cur, &curGens)
				}
				if mode == "gens" {
					changed = pool.RowsChanged(changed, gens, curGens)
				}
				ups := wire.DiffRows("a", 1, &sent, &cur, changed)
				if len(ups[0].Lines) != 1 {
					b.Fatalf("%d lines, want 1", len(ups[0].Lines))
				}
				sent, cur = cur, sent
				gens, curGens = curGens, gens
			}
		})
	}
}

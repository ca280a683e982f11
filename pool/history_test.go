package pool

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// histScreen is a cols×rows screen feeding a History of max lines.
func histScreen(cols, rows, max int) (*Screen, *History) {
	s := NewScreen(cols, rows, nil)
	h := NewHistory(max)
	s.CaptureHistory(h, func() time.Time { return time.UnixMilli(1_700_000_000_000) })
	return s, h
}

// histText returns the history's lines as text.
func histText(h *History) []string {
	first, total := h.Bounds()
	var out []string
	for _, l := range h.Rows(first, total, nil) {
		out = append(out, string(AppendText(nil, l.Cells)))
	}
	return out
}

// allText returns the history's lines followed by the screen's rows down to
// the last one not blank: everything the agent printed, once.
func allText(s *Screen, h *History) []string {
	var sn Snapshot
	_, live := s.SnapshotAfterHistory(&sn)
	out := histText(h)
	if live {
		lines := strings.Split(sn.Text(), "\n")
		if len(lines) == 1 && lines[0] == "" {
			lines = nil
		}
		out = append(out, lines...)
	}
	return out
}

// numbered is line i of the numbered test output (with CJK).
func numbered(i int) string { return fmt.Sprintf("line %04d 中文字 end", i) }

func feedNumbered(s *Screen, from, to int) {
	for i := from; i < to; i++ {
		s.Feed([]byte(numbered(i) + "\r\n"))
	}
}

func wantNumbered(t *testing.T, got []string, n int) {
	t.Helper()
	// Blank rows (the cursor's row, rows a resize added) are not lines.
	var text []string
	for _, l := range got {
		if l != "" {
			text = append(text, l)
		}
	}
	got = text
	if len(got) != n {
		t.Fatalf("%d lines, want %d (first %q, last %q)", len(got), n, first(got), last(got))
	}
	for i, l := range got {
		if l != numbered(i) {
			t.Fatalf("line %d = %q, want %q", i, l, numbered(i))
		}
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func last(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}

func TestHistoryKeepsNumberedLinesInOrder(t *testing.T) {
	t.Parallel()
	s, h := histScreen(80, 24, 10000)
	feedNumbered(s, 0, 3000)
	if _, total := h.Bounds(); total != 3000-23 {
		t.Fatalf("history total %d, want %d (3000 lines, 23 on screen, the cursor's row empty)", total, 3000-23)
	}
	wantNumbered(t, allText(s, h), 3000)
	// Wide runes come back as Width-2 cells followed by their right half.
	l := h.Rows(5, 6, nil)[0]
	checkWide(t, &Snapshot{Cols: len(l.Cells), Rows: 1, Cells: l.Cells})
	if c := l.Cells[len("line 0005 ")]; c.Rune != '中' || c.Width != 2 {
		t.Fatalf("cell %+v, want 中 of width 2", c)
	}
}

func TestHistoryAcrossResizes(t *testing.T) {
	t.Parallel()
	s, h := histScreen(80, 24, 10000)
	feedNumbered(s, 0, 1000)
	s.Resize(80, 10) // cursor on row 23: vt10x slides 14 rows off the top
	feedNumbered(s, 1000, 1500)
	s.Resize(100, 30) // grows: nothing comes back, nothing is lost
	feedNumbered(s, 1500, 2200)
	s.Resize(60, 30)
	s.Resize(60, 5)
	feedNumbered(s, 2200, 3000)
	wantNumbered(t, allText(s, h), 3000)
}

func TestHistoryAltScreenAddsNothing(t *testing.T) {
	t.Parallel()
	s, h := histScreen(80, 24, 100)
	feedNumbered(s, 0, 30)
	_, before := h.Bounds()
	s.Feed([]byte("\x1b[?1049h"))
	for i := 0; i < 200; i++ {
		s.Feed([]byte("alt line\r\n\x1bD\x1bE\x1b[3S"))
	}
	s.Feed([]byte("\x1b[?1049l"))
	if _, after := h.Bounds(); after != before {
		t.Fatalf("alternate screen added %d lines", after-before)
	}
	feedNumbered(s, 30, 60)
	wantNumbered(t, allText(s, h), 60)
}

func TestHistoryScrollRegions(t *testing.T) {
	t.Parallel()
	s, h := histScreen(40, 10, 100)
	// A region from row 0 with a status line under it: lines scrolled off
	// row 0 are history, the status line stays.
	s.Feed([]byte("\x1b[10;1Hstatus\x1b[1;9r\x1b[H"))
	for i := 0; i < 20; i++ {
		s.Feed([]byte(fmt.Sprintf("r%02d\r\n", i)))
	}
	got := histText(h)
	if len(got) != 12 || got[0] != "r00" || got[11] != "r11" {
		t.Fatalf("history %q, want r00..r11", got)
	}
	if sn := snap(s); sn.RowText(9) != "status" {
		t.Fatalf("status row %q", sn.RowText(9))
	}
	// A region lower down scrolls part of the screen only: no history.
	s.Feed([]byte("\x1b[3;9r\x1b[9;1H"))
	for i := 0; i < 20; i++ {
		s.Feed([]byte("x\r\n"))
	}
	if n := len(histText(h)); n != 12 {
		t.Fatalf("a region from row 2 fed history: %d lines", n)
	}
	// SU and IND/NEL at the bottom of the full screen.
	s.Feed([]byte("\x1b[r\x1b[2J\x1b[Hsu0\r\nsu1\x1b[2S"))
	for y := 1; y <= 10; y++ {
		s.Feed([]byte(fmt.Sprintf("\x1b[%d;1Ha%d", y, y-1)))
	}
	s.Feed([]byte("\x1bD\x1bE"))
	got = histText(h)[12:]
	want := []string{"su0", "su1", "a0", "a1"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("SU/IND/NEL history %q, want %q", got, want)
	}
}

func TestHistoryWrappedLines(t *testing.T) {
	t.Parallel()
	s, h := histScreen(10, 3, 100)
	long := strings.Repeat("0123456789", 7) + "abc" // 7 rows and 3 cells
	s.Feed([]byte(long + "\r\n" + "中文中文中文" + "\r\nend"))
	var want []string
	for i := 0; i < 7; i++ {
		want = append(want, "0123456789")
	}
	want = append(want, "abc")
	got := histText(h)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("history %q, want %q", got, want)
	}
	all := allText(s, h)
	if w := append(want, "中文中文中", "文", "end"); strings.Join(all, "|") != strings.Join(w, "|") {
		t.Fatalf("all %q, want %q", all, w)
	}
}

func TestHistoryKeepsStyles(t *testing.T) {
	t.Parallel()
	s, h := histScreen(20, 2, 10)
	s.Feed([]byte("\x1b[1;31mred\x1b[0m \x1b[38;2;10;20;30;48;5;200mrgb\x1b[0m\x1b[7m rev \x1b[0m\r\n\r\n"))
	l := h.Rows(0, 1, nil)[0]
	got := string(AppendANSI(nil, l.Cells))
	want := "\x1b[0;1;91mred\x1b[0m \x1b[0;38;2;10;20;30;48;5;200mrgb\x1b[0;7m rev \x1b[0m"
	if got != want {
		t.Fatalf("ANSI %q\nwant %q", got, want)
	}
}

func TestHistoryCapInMemory(t *testing.T) {
	t.Parallel()
	s, h := histScreen(40, 5, 100)
	feedNumbered(s, 0, 1000)
	first, total := h.Bounds()
	if total-first != 100 || total != 1000-4 {
		t.Fatalf("bounds %d..%d, want the last 100 of %d", first, total, 1000-4)
	}
	rows := h.Rows(0, total+10, nil) // clamped
	if len(rows) != 100 || rows[0].Seq != first || string(AppendText(nil, rows[0].Cells)) != numbered(int(first)) {
		t.Fatalf("rows %d, first seq %d", len(rows), rows[0].Seq)
	}
	if b := h.Bytes(); b > 100*AppendLineBound(40) {
		t.Fatalf("%d bytes held for 100 lines of 40 cells", b)
	}
}

// AppendLineBound is MaxLineBytes for a row of cols cells.
func AppendLineBound(cols int) int { return 17 * cols }

func TestHistoryLineRoundTrip(t *testing.T) {
	t.Parallel()
	cells := []Cell{
		{Rune: 'a', Width: 1, FG: 3, BG: DefaultBG, Attr: AttrBold},
		{Rune: '中', Width: 2, FG: DefaultFG, BG: RGB(1, 2, 3)},
		{Rune: 0, Width: 0, FG: DefaultFG, BG: RGB(1, 2, 3)},
		{Rune: ' ', Width: 1, FG: DefaultFG, BG: DefaultBG},
		{Rune: 'z', Width: 1, FG: DefaultFG, BG: DefaultBG, Attr: AttrDim | AttrItalic | AttrUnderline | AttrReverse},
		{Rune: ' ', Width: 1, FG: DefaultFG, BG: DefaultBG},
	}
	rec := AppendLine(nil, cells)
	got, err := DecodeLine(rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(cells[:5]) {
		t.Fatalf("round trip\n got %v\nwant %v", got, cells[:5])
	}
	if _, err := DecodeLine(rec[:len(rec)-1], nil); err == nil {
		t.Fatal("a cut line decoded")
	}
}

// streams are the recorded streams the capture is measured and checked on.
func streams(tb testing.TB) map[string][]byte {
	out := map[string][]byte{}
	files, _ := filepath.Glob("../test/realcli/testdata/*.raw")
	for _, f := range append(files, streamFile) {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out[filepath.Base(f)] = data
	}
	return out
}

// TestHistoryScanMatchesVT10x feeds the recorded streams twice, once with
// the scan following the cursor and once asking vt10x at every step, at
// sizes small enough to scroll: the histories must be the same.
func TestHistoryScanMatchesVT10x(t *testing.T) {
	t.Parallel()
	for name, data := range streams(t) {
		for _, size := range [][2]int{{120, 40}, {80, 12}, {33, 7}} {
			a, ha := histScreen(size[0], size[1], 1<<20)
			b, hb := histScreen(size[0], size[1], 1<<20)
			b.hist.alwaysSync = true
			for off := 0; off < len(data); off += 997 {
				chunk := data[off:min(off+997, len(data))]
				a.Feed(chunk)
				b.Feed(chunk)
			}
			ta, tb := histText(ha), histText(hb)
			if strings.Join(ta, "\n") != strings.Join(tb, "\n") {
				t.Fatalf("%s at %v: scan history (%d lines) differs from vt10x's (%d lines)", name, size, len(ta), len(tb))
			}
			if a.Text() != b.Text() {
				t.Fatalf("%s at %v: screens differ", name, size)
			}
			t.Logf("%s at %dx%d: %d lines of history", name, size[0], size[1], len(ta))
		}
	}
}

// TestHistoryDoesNotChangeTheScreen: capture only cuts vt10x's writes; the
// screen is the same as without it.
func TestHistoryDoesNotChangeTheScreen(t *testing.T) {
	t.Parallel()
	for name, data := range streams(t) {
		a, _ := histScreen(80, 12, 100)
		b := NewScreen(80, 12, nil)
		a.Feed(data)
		b.Feed(data)
		if a.Text() != b.Text() {
			t.Fatalf("%s: the screen differs with capture", name)
		}
	}
}

func TestHistoryRestore(t *testing.T) {
	t.Parallel()
	h := NewHistory(5)
	line := AppendLine(nil, []Cell{{Rune: 'x', Width: 1, FG: DefaultFG, BG: DefaultBG}})
	for _, seq := range []int64{0, 1, 2, 7, 8} {
		if err := h.Restore(HistoryRecord{Seq: seq, At: seq, Line: line}); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.Restore(HistoryRecord{Seq: 8, Line: line}); err == nil {
		t.Fatal("a line restored twice")
	}
	first, total := h.Bounds()
	rows := h.Rows(first, total, nil)
	if first != 7 || total != 9 || len(rows) != 2 || rows[0].Seq != 7 || rows[1].Seq != 8 {
		t.Fatalf("bounds %d..%d rows %d", first, total, len(rows))
	}
	// Capture goes on numbering after the restored lines.
	s := NewScreen(10, 2, nil)
	s.CaptureHistory(h, nil)
	s.Feed([]byte("a\r\nb\r\nc\r\n"))
	if _, total := h.Bounds(); total != 11 || string(AppendText(nil, h.Rows(10, 11, nil)[0].Cells)) != "b" {
		t.Fatalf("total %d after 2 more lines", total)
	}
}

// TestHistoryResizeWhileAltScreen: vt10x slides the hidden main screen on a
// resize too; those rows come from the copy taken when it was hidden.
func TestHistoryResizeWhileAltScreen(t *testing.T) {
	t.Parallel()
	s, h := histScreen(80, 24, 1000)
	feedNumbered(s, 0, 30)
	s.Feed([]byte("\x1b[?1049h\x1b[24;1Hfull-screen program"))
	s.Resize(70, 10) // the alternate cursor is on row 23: 14 rows slide
	s.Resize(70, 12)
	s.Feed([]byte("\x1b[12;1Hstill full screen\x1b[?1049l"))
	feedNumbered(s, 30, 60)
	wantNumbered(t, allText(s, h), 60)

	// The agent ends inside the alternate screen: the main screen's rows
	// as they were go into the history.
	s2, h2 := histScreen(80, 24, 1000)
	feedNumbered(s2, 0, 30)
	s2.Feed([]byte("\x1b[?1049hvim"))
	s2.retireHistory()
	wantNumbered(t, histText(h2), 30)
}

// TestHistoryScanMatchesVT10xOnRandomStreams is TestHistoryScanMatchesVT10x
// on random mixes of everything the scan follows or gives up on: text
// (ASCII, CJK, long runs that wrap), line feeds, cursor movements, origin
// mode, autowrap and LNM switches, scroll regions, SU, the alternate screen,
// RIS and resizes.
func TestHistoryScanMatchesVT10xOnRandomStreams(t *testing.T) {
	t.Parallel()
	tokens := []func(r *rand.Rand) string{
		func(r *rand.Rand) string { return strings.Repeat("abcdefghij", 13)[:1+r.IntN(120)] },
		func(r *rand.Rand) string { return strings.Repeat("中文", 1+r.IntN(20)) },
		func(*rand.Rand) string { return "\r\n" },
		func(*rand.Rand) string { return "\n" },
		func(*rand.Rand) string { return "\r" },
		func(*rand.Rand) string { return "\b" },
		func(*rand.Rand) string { return "\t" },
		func(*rand.Rand) string { return "\x1bD" },
		func(*rand.Rand) string { return "\x1bE" },
		func(*rand.Rand) string { return "\x1bM" },
		func(*rand.Rand) string { return "\x1b7" },
		func(*rand.Rand) string { return "\x1b8" },
		func(r *rand.Rand) string {
			return fmt.Sprintf("\x1b[%d%c", r.IntN(30), "ABCDEFGde`a"[r.IntN(11)])
		},
		func(r *rand.Rand) string { return fmt.Sprintf("\x1b[%d;%dH", r.IntN(30), r.IntN(90)) },
		func(r *rand.Rand) string { return fmt.Sprintf("\x1b[%dS", r.IntN(5)) },
		func(r *rand.Rand) string { return fmt.Sprintf("\x1b[%d;%dr", r.IntN(4), 5+r.IntN(20)) },
		func(*rand.Rand) string { return "\x1b[r" },
		func(r *rand.Rand) string {
			return fmt.Sprintf("\x1b[?%d%c", []int{6, 7, 1049, 47, 25}[r.IntN(5)], "hl"[r.IntN(2)])
		},
		func(r *rand.Rand) string { return fmt.Sprintf("\x1b[20%c", "hl"[r.IntN(2)]) },
		func(r *rand.Rand) string { return fmt.Sprintf("\x1b[%dK\x1b[1;3%dm", r.IntN(3), r.IntN(8)) },
	}
	for seed := uint64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		a, ha := histScreen(40, 12, 1<<20)
		b, hb := histScreen(40, 12, 1<<20)
		b.hist.alwaysSync = true
		var stream strings.Builder
		for k := 0; k < 3000; k++ {
			var tok string
			switch n := r.IntN(400); {
			case n == 0:
				tok = "\x1bc"
			case n < 3:
				cols, rows := 10+r.IntN(60), 3+r.IntN(30)
				a.Resize(cols, rows)
				b.Resize(cols, rows)
				continue
			default:
				// Lines dominate, as in real output.
				if r.IntN(3) == 0 {
					tok = "\r\n"
				} else {
					tok = tokens[r.IntN(len(tokens))](r)
				}
			}
			stream.WriteString(tok)
			a.Feed([]byte(tok))
			b.Feed([]byte(tok))
		}
		ta, tb := histText(ha), histText(hb)
		if strings.Join(ta, "\n") != strings.Join(tb, "\n") {
			for i := 0; i < min(len(ta), len(tb)); i++ {
				if ta[i] != tb[i] {
					t.Fatalf("seed %d: line %d: scan %q, vt10x %q", seed, i, ta[i], tb[i])
				}
			}
			t.Fatalf("seed %d: scan history %d lines, vt10x's %d", seed, len(ta), len(tb))
		}
		if a.Text() != b.Text() {
			t.Fatalf("seed %d: screens differ", seed)
		}
		if len(ta) == 0 {
			t.Fatalf("seed %d: no history at all", seed)
		}
	}
}

// TestHistoryRowsAreSnapshotRows: the rows capture reads (converting each
// run of one style once) are the rows Snapshot gives, on every row of the
// recorded streams' screens as they are drawn.
func TestHistoryRowsAreSnapshotRows(t *testing.T) {
	t.Parallel()
	for name, data := range streams(t) {
		s, _ := histScreen(120, 40, 10)
		var sn Snapshot
		row := make([]Cell, 120)
		for off := 0; off < len(data); off += 1500 {
			s.Feed(data[off:min(off+1500, len(data))])
			s.Snapshot(&sn)
			for y := 0; y < sn.Rows; y++ {
				s.mu.Lock()
				s.hist.readRow(s, y, row)
				s.mu.Unlock()
				if want := sn.Cells[y*sn.Cols : (y+1)*sn.Cols]; !slices.Equal(row, want) {
					t.Fatalf("%s, offset %d, row %d (%q): read\n%v\nwant\n%v", name, off, y, sn.RowText(y), row, want)
				}
			}
		}
	}
}

// The ring's first arena block is small: an agent with a few lines of
// history does not hold the 64 KiB of a full block.
func TestHistoryArenaStartsSmall(t *testing.T) {
	h := NewHistory(100)
	h.appendLine(0, make([]byte, 100))
	if c := cap(h.arena); c != historyArenaMin {
		t.Fatalf("first block %d bytes, want %d", c, historyArenaMin)
	}
	for range 200 {
		h.appendLine(0, make([]byte, 1000))
	}
	if c := cap(h.arena); c != historyArena {
		t.Fatalf("block after 200 KB of lines %d bytes, want %d", c, historyArena)
	}
}

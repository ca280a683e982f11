package pool

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"office/test/inkstream"
)

// sameAsVT10x fails t unless a (fed through the batch) and ref (the
// Filter's output written to vt10x as it is) hold the same cells, cursor,
// cursor attributes and modes.
func sameAsVT10x(t testing.TB, a, ref *Screen, where string) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	ref.mu.Lock()
	defer ref.mu.Unlock()
	if ac, rc := a.vt.Cursor(), ref.vt.Cursor(); ac != rc {
		t.Fatalf("%s: cursor %+v, vt10x fed the raw stream %+v", where, ac, rc)
	}
	if am, rm := a.vt.Mode(), ref.vt.Mode(); am != rm {
		t.Fatalf("%s: mode %#x, vt10x fed the raw stream %#x", where, am, rm)
	}
	if at, rt := a.vt.Title(), ref.vt.Title(); at != rt {
		t.Fatalf("%s: title %q, vt10x fed the raw stream %q", where, at, rt)
	}
	for y := 0; y < a.rows; y++ {
		for x := 0; x < a.cols; x++ {
			if ag, rg := a.vt.Cell(x, y), ref.vt.Cell(x, y); ag != rg {
				t.Fatalf("%s: cell (%d,%d) %+v, vt10x fed the raw stream %+v", where, x, y, ag, rg)
			}
		}
	}
}

// feedBoth feeds data to a batched and an unbatched screen in chunks of the
// given sizes (cycled), comparing them after every check-th chunk and at
// the end.
func feedBoth(t testing.TB, cols, rows int, data []byte, chunks []int, check int) {
	t.Helper()
	a, ref := NewScreen(cols, rows, nil), NewScreen(cols, rows, nil)
	ref.noBatch = true
	clock := func() time.Time { return time.Unix(0, 0) }
	ha, href := NewHistory(1<<20), NewHistory(1<<20)
	a.CaptureHistory(ha, clock)
	ref.CaptureHistory(href, clock)
	ref.hist.alwaysSync = true // the history vt10x's own cursor says
	defer func() {
		_, na := ha.Bounds()
		_, nr := href.Bounds()
		if na != nr {
			t.Fatalf("history: %d lines, vt10x fed the raw stream %d", na, nr)
		}
		ra, rr := ha.Records(0, int(na), nil), href.Records(0, int(nr), nil)
		for i := range ra {
			if string(ra[i].Line) != string(rr[i].Line) {
				t.Fatalf("history line %d: %q, vt10x fed the raw stream %q", i, ra[i].Line, rr[i].Line)
			}
		}
	}()
	n := 0
	for off := 0; off < len(data); n++ {
		end := min(off+chunks[n%len(chunks)], len(data))
		a.Feed(data[off:end])
		ref.Feed(data[off:end])
		if check > 0 && n%check == 0 {
			sameAsVT10x(t, a, ref, fmt.Sprintf("after byte %d", end))
		}
		off = end
	}
	sameAsVT10x(t, a, ref, "at the end")
}

// TestBatchMatchesVT10x: the benchmark's streams (the Ink-like one and the
// escape-dense one) leave the screen exactly as vt10x fed the Filter's
// output whole does, read by read, whatever the reads' sizes.
func TestBatchMatchesVT10x(t *testing.T) {
	t.Parallel()
	streams := map[string][]byte{
		"ink":     inkstream.Generate(512 << 10),
		"ink-pty": onlcr(inkstream.Generate(512 << 10)), // as it leaves a PTY
		"dense":   inkstream.Dense(512 << 10),
	}
	for name, data := range streams {
		for _, chunks := range [][]int{{4096}, {32768}, {1, 7, 300, 4093}} {
			t.Run(fmt.Sprintf("%s/%v", name, chunks), func(t *testing.T) {
				t.Parallel()
				feedBoth(t, 120, 40, data, chunks, 1)
			})
		}
	}
}

// batchOps are the pieces FuzzBatchMatchesVT10x and
// TestBatchMatchesVT10xRandom build streams from: what the batch follows,
// what it hands to vt10x, and the edges between them.
var batchOps = []string{
	"a", "xyz ", "日本", "─", "✻", "👍", "\r", "\n", "\b", "\t", "\x1b[K", "\x1b[1K", "\x1b[2K",
	"\x1b[J", "\x1b[1J", "\x1b[2J", "\x1b[3X", "\x1b[0X", "\x1b[H", "\x1b[5;7H", "\x1b[40;120H",
	"\x1b[1;120H", "\x1b[2A", "\x1b[B", "\x1b[3C", "\x1b[D", "\x1b[2E", "\x1b[F", "\x1b[10G",
	"\x1b[5d", "\x1b[m", "\x1b[1m", "\x1b[7m", "\x1b[1;31m", "\x1b[38;5;200;48;5;17m",
	"\x1b[38;2;10;20;30m", "\x1b[2m", "\x1b[22m", "\x1b[3;4m", "\x1b[0m", "\x1b[39;49m",
	"\x1b[?25l", "\x1b[?25h", "\x1b[?7l", "\x1b[?7h", "\x1b[?6h", "\x1b[?6l", "\x1b[3;10r",
	"\x1b[r", "\x1b[?1049h", "\x1b[?1049l", "\x1b(0", "\x1b(B", "lqqk", "\x1b7", "\x1b8",
	"\x1bM", "\x1bD", "\x1bE", "\x1b]0;title\x07", "\x1b[2S", "\x1b[L", "\x1b[M", "\x1b[2@",
	"\x1b[P", "\x1b[20l", "\x1b[20h", "\x1b[?2026h", "\x1b[?2026l", "\x1b[6n", "\x1bc",
	strings.Repeat("w", 130), "\x1b[1;119H日", "\x1b[40;1H\n", "\x1b[90m", "\x1b[1;34m",
	"\x1b[7;31;42m", "\x1b[27m", "\x1b[22;23;24;25m", "\x1b[97;100m", "\x1b[38;5;3m",
	"\x1b[H", "\x1b[1;1H", "\x1b[2;1H", "a", "a", "\x1b[1G", "\x1b[3;1H\x1b[2K",
	// A scroll region set while vt10x is stuck (origin mode, the line
	// drawing charset), text right after it, and line feeds near its bottom.
	"\x1b[2;5r", "\x1b[1;4r", "\x1b[2;4rab", "\x1b(0\x1b[2;4rqq\x1b(B", "\x1b[?6h\x1b[2;3rab\x1b[?6l",
	"\x1b[4;1H", "\x1b[5;1H", "A\nB\nC\n", "\n\n\n",
	// IND and NEL on the bottom row with a wrap pending.
	"\x1b[99;999Hz", "\x1b[99;999Hz\x1bD", "\x1b[99;999Hz\x1bDa\r", "\x1bDab", "\x1bD", "\x1bEa",
}

// randomStream is n ops picked by rng.
func randomStream(rng *rand.Rand, n int) []byte {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(batchOps[rng.Intn(len(batchOps))])
	}
	return []byte(b.String())
}

// TestBatchMatchesVT10xRandom: streams of random operations, on a small
// and the benchmark's screen, in random reads.
func TestBatchMatchesVT10xRandom(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(28))
	for i := 0; i < 600; i++ {
		data := randomStream(rng, 200)
		cols, rows := 120, 40
		if i%2 == 1 {
			cols, rows = 2+rng.Intn(20), 1+rng.Intn(8)
		}
		feedBoth(t, cols, rows, data, []int{1 + rng.Intn(64), 1 + rng.Intn(512)}, 1)
	}
}

// FuzzBatchMatchesVT10x: any bytes, split anywhere, on a small screen.
func FuzzBatchMatchesVT10x(f *testing.F) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 20; i++ {
		f.Add(randomStream(rng, 30), uint8(7), uint8(13))
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk, cols uint8) {
		feedBoth(t, 2+int(cols%40), 1+int(chunk%9), data, []int{1 + int(chunk)}, 1)
	})
}

// TestVTLinesFound: the batch reads vt10x's rows where this vt10x keeps
// them, on the main and the alternate screen and after a resize.
func TestVTLinesFound(t *testing.T) {
	t.Parallel()
	s := NewScreen(20, 6, nil)
	if s.lines == nil {
		t.Fatal("vt10x's rows were not found: the batch would read every cell through Cell")
	}
	check := func(where string) {
		t.Helper()
		for y := 0; y < s.rows; y++ {
			row := s.vtRow(y, nil)
			for x := 0; x < s.cols; x++ {
				if row[x] != s.vt.Cell(x, y) {
					t.Fatalf("%s: row %d col %d: %+v, Cell says %+v", where, y, x, row[x], s.vt.Cell(x, y))
				}
			}
		}
	}
	s.Feed([]byte("\x1b[31mred\r\n\x1b[7mrev"))
	check("main screen")
	s.Feed([]byte("\x1b[?1049halt\x1b[2;2Hx"))
	check("alternate screen")
	s.Resize(30, 8)
	s.Feed([]byte("\x1b[?1049l\x1b[8;1Hbottom"))
	check("after a resize")
}

// TestBatchRewritesWhatLooksAlike: cells whose glyph vt10x derives from
// the attributes (bold brightens colours 0-7, reverse swaps the colours)
// are written again when they differ from what vt10x holds, and left when
// they do not. Each case is two reads: what vt10x holds, then the rewrite.
func TestBatchRewritesWhatLooksAlike(t *testing.T) {
	t.Parallel()
	for _, c := range [][2]string{
		{"\x1b[1;90ma", "\x1b[H\x1b[1;31ma"},
		{"\x1b[1;31ma", "\x1b[H\x1b[1;90ma"},
		{"\x1b[7;31;42ma", "\x1b[H\x1b[7;32;41ma"},
		{"\x1b[32;41ma", "\x1b[H\x1b[7;31;42ma"},
		{"\x1b[7;31;42ma", "\x1b[H\x1b[32;41ma"},
		{"\x1b[7;31;42m\x1b[K", "\x1b[H\x1b[7;32;41ma\x1b[1;5H\x1b[2K"},
		{"\x1b[41m\x1b[2J", "\x1b[m\x1b[5;5H\x1b[1J\x1b[2;1H\x1b[41m\x1b[1K"},
		{"\x1b[1;3;4;5;7;38;2;1;2;3;48;5;200mz", "\x1b[H\x1b[0;1;3;4;5;7;38;2;1;2;3;48;5;200mz\x1b[0mq"},
	} {
		feedBoth(t, 10, 4, []byte(c[0]+c[1]), []int{len(c[0]), len(c[1])}, 1)
	}
}

// TestBatchEdgeCases: streams the review of the batch found it wrong on
// (each once, in one read and byte by byte).
func TestBatchEdgeCases(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cols, rows int
		s          string
	}{
		// A DECSTBM while the line drawing charset is set, text after it:
		// the batch must follow the region vt10x has.
		{20, 10, "\x1b[2J\x1b[H\x1b(0\x1b[2;5rqqq\x1b(B\x1b[5;1HA\nB\nC\nD"},
		// The same in origin mode.
		{20, 10, "\x1b[2J\x1b[?6h\x1b[2;5rabc\x1b[?6l\x1b[5;1HA\nB\nC\nD"},
		// IND on the bottom row keeps a pending wrap: the next rune
		// scrolls again, and that row goes into history too.
		{10, 3, strings.Repeat("x", 30) + "\x1bDab"},
		{10, 3, strings.Repeat("x", 30) + "\x1bDa\r"},
		{10, 3, strings.Repeat("x", 30) + "\x1bD\x1bDab\r\n"},
	} {
		feedBoth(t, c.cols, c.rows, []byte(c.s), []int{len(c.s)}, 1)
		feedBoth(t, c.cols, c.rows, []byte(c.s), []int{1}, 1)
	}
}

// TestBatchPanicWritesTheRest: a fault inside the batch (forced at each
// operation it follows in turn) leaves vt10x, and the history, as vt10x fed
// the read whole: what the batch had not written yet goes to vt10x as it is.
func TestBatchPanicWritesTheRest(t *testing.T) {
	t.Parallel()
	first := "\x1b[2J\x1b[Hprompt> " + strings.Repeat("y", 25)
	rest := "\x1b[31mred\x1b[m\r\nnext\x1b[K\n\x1b[2;4rab\x1b[4;1H\n\nz\x1b[H\x1b[2Jfin\n\n\n\nend"
	data := []byte(first + rest)
	for at := 0; ; at++ {
		a, ref := NewScreen(10, 4, nil), NewScreen(10, 4, nil)
		ref.noBatch = true
		ha, href := NewHistory(1<<20), NewHistory(1<<20)
		clock := func() time.Time { return time.Unix(0, 0) }
		a.CaptureHistory(ha, clock)
		ref.CaptureHistory(href, clock)
		ref.hist.alwaysSync = true
		a.Feed([]byte(first)) // a batch before, written whole
		calls, hit := 0, false
		a.batchHook = func(int) {
			if calls == at {
				hit = true
				panic("forced")
			}
			calls++
		}
		a.Feed([]byte(rest))
		ref.Feed(data)
		if !hit {
			if at == 0 {
				t.Fatal("the batch followed nothing: the hook was never called")
			}
			t.Logf("a panic forced at each of %d operations", at)
			return
		}
		if a.panics.Load() != 1 || !a.noBatch {
			t.Fatalf("panic at op %d: %d panics counted, noBatch %v", at, a.panics.Load(), a.noBatch)
		}
		sameAsVT10x(t, a, ref, fmt.Sprintf("panic at op %d", at))
		if ta, tr := histText(ha), histText(href); strings.Join(ta, "\n") != strings.Join(tr, "\n") {
			t.Fatalf("panic at op %d: history %q, vt10x fed the read whole %q", at, ta, tr)
		}
	}
}

package pool

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/hinshun/vt10x"
)

// replies collects what a Screen sends back to the PTY.
type replies struct {
	mu  sync.Mutex
	buf []byte
}

func (r *replies) sink(p []byte) {
	r.mu.Lock()
	r.buf = append(r.buf, p...)
	r.mu.Unlock()
}

func (r *replies) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return string(r.buf)
}

func newTestScreen(cols, rows int) (*Screen, *replies) {
	r := &replies{}
	return NewScreen(cols, rows, r.sink), r
}

func snap(s *Screen) *Snapshot {
	var sn Snapshot
	s.Snapshot(&sn)
	return &sn
}

// checkWide verifies the Snapshot invariants on wide cells.
func checkWide(t testing.TB, sn *Snapshot) {
	t.Helper()
	for y := 0; y < sn.Rows; y++ {
		for x := 0; x < sn.Cols; x++ {
			c := sn.Cell(x, y)
			switch c.Width {
			case 2:
				if x+1 >= sn.Cols || sn.Cell(x+1, y).Width != 0 {
					t.Fatalf("wide cell at (%d,%d) not followed by a Width-0 cell", x, y)
				}
			case 0:
				if x == 0 || sn.Cell(x-1, y).Width != 2 {
					t.Fatalf("Width-0 cell at (%d,%d) without a wide cell on its left", x, y)
				}
			case 1:
			default:
				t.Fatalf("cell (%d,%d) has width %d", x, y, c.Width)
			}
		}
	}
}

func TestScreenSplitUTF8(t *testing.T) {
	t.Parallel()
	stream := "╭────────╮\r\n│ 中文字符 │\r\n│ 日本語テ │\r\n╰────────╯\r\n\x1b[1;32m✓ done\x1b[0m 한국어"
	whole, _ := newTestScreen(40, 8)
	whole.Feed([]byte(stream))
	want := whole.Text()
	if !strings.Contains(want, "│ 中文字符 │") || !strings.Contains(want, "╰────────╯") {
		t.Fatalf("whole feed looks wrong:\n%s", want)
	}
	for _, n := range []int{1, 2} {
		s, _ := newTestScreen(40, 8)
		for i := 0; i < len(stream); i += n {
			s.Feed([]byte(stream[i:min(i+n, len(stream))]))
		}
		if got := s.Text(); got != want {
			t.Errorf("%d-byte chunks:\n%s\nwant\n%s", n, got, want)
		}
		checkWide(t, snap(s))
	}
}

func TestScreenCJKColumns(t *testing.T) {
	t.Parallel()
	s, _ := newTestScreen(40, 5)
	s.Feed([]byte("中文X"))
	sn := snap(s)
	if c := sn.Cell(4, 0); c.Rune != 'X' {
		t.Fatalf("X at column %d, row %q", 4, sn.RowText(0))
	}
	if sn.Cell(0, 0).Rune != '中' || sn.Cell(0, 0).Width != 2 || sn.Cell(1, 0).Width != 0 || sn.Cell(2, 0).Rune != '文' {
		t.Fatalf("cells: %+v", sn.Cells[:5])
	}
	if sn.CursorX != 5 || sn.CursorY != 0 {
		t.Fatalf("cursor (%d,%d), want (5,0)", sn.CursorX, sn.CursorY)
	}
	if got := sn.RowText(0); got != "中文X" {
		t.Fatalf("row text %q", got)
	}

	// Absolute positioning after wide text.
	s.Feed([]byte("\x1b[2;10H中文\x1b[2;14HX"))
	sn = snap(s)
	if sn.Cell(9, 1).Rune != '中' || sn.Cell(11, 1).Rune != '文' || sn.Cell(13, 1).Rune != 'X' {
		t.Fatalf("row 1: %q", sn.RowText(1))
	}
	if got := sn.RowText(1); got != "         中文X" {
		t.Fatalf("row 1 text %q", got)
	}
}

func TestScreenEmoji(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"🎉x", "👩\u200d💻x", "👍🏽x"} {
		s, _ := newTestScreen(20, 2)
		s.Feed([]byte(in))
		sn := snap(s)
		if sn.Cell(2, 0).Rune != 'x' || sn.CursorX != 3 {
			t.Errorf("%q: x at col 2? row %q cursor %d", in, sn.RowText(0), sn.CursorX)
		}
		checkWide(t, sn)
	}
}

func TestScreenWideAtLastColumnWraps(t *testing.T) {
	t.Parallel()
	s, _ := newTestScreen(5, 3)
	s.Feed([]byte("abcd中e"))
	sn := snap(s)
	if got := sn.RowText(0); got != "abcd" {
		t.Fatalf("row 0 %q", got)
	}
	if got := sn.RowText(1); got != "中e" {
		t.Fatalf("row 1 %q", got)
	}
	checkWide(t, sn)
}

func TestScreenBrokenWidePairs(t *testing.T) {
	t.Parallel()
	s, _ := newTestScreen(10, 2)
	// Overwrite the right half of 中 and the left half of 文.
	s.Feed([]byte("中文\x1b[1;2Ha\x1b[1;3Hb"))
	sn := snap(s)
	checkWide(t, sn)
	if got := sn.RowText(0); got != " ab" {
		t.Fatalf("row %q, want \" ab\"", got)
	}
}

func TestScreenKittyKeyboardDoesNotMoveCursor(t *testing.T) {
	t.Parallel()
	s, _ := newTestScreen(20, 10)
	s.Feed([]byte("\x1b[5;5H\x1b[>7u\x1b[?u\x1b[<u\x1b[>1u"))
	sn := snap(s)
	if sn.CursorX != 4 || sn.CursorY != 4 {
		t.Fatalf("cursor (%d,%d), want (4,4)", sn.CursorX, sn.CursorY)
	}
	// A bare CSI u still restores the cursor.
	s.Feed([]byte("\x1b[2;2H\x1b[s\x1b[7;7H\x1b[u"))
	if sn = snap(s); sn.CursorX != 1 || sn.CursorY != 1 {
		t.Fatalf("CSI u: cursor (%d,%d), want (1,1)", sn.CursorX, sn.CursorY)
	}
}

func TestScreenStrayAltScreenReset(t *testing.T) {
	t.Parallel()
	s, _ := newTestScreen(20, 5)
	s.Feed([]byte("main text\r\n\x1b[?1049l"))
	if got := s.Text(); got != "main text" {
		t.Fatalf("after stray ?1049l: %q", got)
	}
	if s.Modes().AltScreen {
		t.Fatal("AltScreen set")
	}
	s.Feed([]byte("\x1b[?1049h\x1b[2J\x1b[Halt"))
	if got := s.Text(); got != "alt" || !s.Modes().AltScreen {
		t.Fatalf("in alt: %q", got)
	}
	s.Feed([]byte("\x1b[?1049l"))
	if got := s.Text(); got != "main text" || s.Modes().AltScreen {
		t.Fatalf("back from alt: %q", got)
	}
}

func TestScreenNegativeCounts(t *testing.T) {
	t.Parallel()
	s, _ := newTestScreen(20, 3)
	s.Feed([]byte("abcdefgh\x1b[1;3H\x1b[-5@\x1b[-5P\x1b[-1X\x1b[-3L"))
	if p := s.Panics(); p != 0 {
		t.Fatalf("%d panics", p)
	}
	if got := s.Text(); got != "abcdefgh" {
		t.Fatalf("text corrupted: %q", got)
	}
}

// panickyVT is a vt10x terminal whose Write panics on "!".
type panickyVT struct{ vt10x.Terminal }

func (p panickyVT) Write(b []byte) (int, error) {
	if strings.Contains(string(b), "!") {
		var a []int
		_ = a[len(b)] // index out of range, as in vt10x's insertBlanks
	}
	return p.Terminal.Write(b)
}

func TestScreenRecoversVT10xPanic(t *testing.T) {
	t.Parallel()
	s, _ := newTestScreen(20, 3)
	s.vt = panickyVT{s.vt}
	s.Feed([]byte("ok"))
	s.Feed([]byte("boom!"))
	s.Feed([]byte("\r\nafter"))
	if s.Panics() != 1 {
		t.Fatalf("Panics() = %d, want 1", s.Panics())
	}
	if got := s.Text(); got != "ok\nafter" {
		t.Fatalf("screen after a panic: %q", got)
	}
}

func TestScreenHugeCountReturns(t *testing.T) {
	t.Parallel()
	s, _ := newTestScreen(80, 24)
	s.Feed([]byte("\x1b[999999999I\x1b[999999999Z\x1b[999999999bx\x1b[999999999@"))
	if s.Panics() != 0 {
		t.Fatal("panic")
	}
}

func TestScreenModesAcrossFeeds(t *testing.T) {
	t.Parallel()
	s, _ := newTestScreen(20, 5)
	for _, part := range []string{"\x1b[?20", "04h\x1b", "[?2026", "h\x1b]0;ti", "tle\x1b", "\\\x1b]75", "01;state=wor", "king:app=codex\x07\x1b[?10", "49h"} {
		s.Feed([]byte(part))
	}
	m := s.Modes()
	if !m.BracketedPaste || !m.SyncOutput || !m.AltScreen || m.Title != "title" || m.OSCState != "working" {
		t.Fatalf("modes %+v", m)
	}
	if sn := snap(s); sn.Title != "title" || sn.Modes != m {
		t.Fatalf("snapshot title %q modes %+v", sn.Title, sn.Modes)
	}
	s.Feed([]byte("\x1b[?2026l\x1b[?20"))
	s.Feed([]byte("04l"))
	if m = s.Modes(); m.BracketedPaste || m.SyncOutput {
		t.Fatalf("modes after reset %+v", m)
	}
}

func TestScreenReplies(t *testing.T) {
	t.Parallel()
	s, r := newTestScreen(20, 5)
	s.Feed([]byte("\x1b[c"))
	if got := r.String(); got != "\x1b[?62;22c" {
		t.Fatalf("DA1 reply %q", got)
	}
	s, r = newTestScreen(20, 5)
	s.Feed([]byte("abc\x1b[3;7H\x1b[6n"))
	if got := r.String(); got != "\x1b[3;7R" {
		t.Fatalf("CPR reply %q", got)
	}
	// Codex's probe: answers come back in the order asked, so DA1 (the
	// sentinel) arrives after the CPR.
	s, r = newTestScreen(20, 5)
	s.Feed([]byte("\x1b[2;2H\x1b[6n\x1b]10;?\x1b\\\x1b]11;?\x1b\\\x1b[?u\x1b[c"))
	want := "\x1b[2;2R\x1b]10;rgb:ffff/ffff/ffff\x1b\\\x1b]11;rgb:0000/0000/0000\x1b\\\x1b[?62;22c"
	if got := r.String(); got != want {
		t.Fatalf("probe replies %q, want %q", got, want)
	}
	// And with the DA1 first.
	s, r = newTestScreen(20, 5)
	s.Feed([]byte("\x1b[c\x1b[6n"))
	if got := r.String(); got != "\x1b[?62;22c\x1b[1;1R" {
		t.Fatalf("replies %q", got)
	}
}

func TestScreenNilReply(t *testing.T) {
	t.Parallel()
	s := NewScreen(10, 2, nil)
	s.Feed([]byte("\x1b[c\x1b[6nok"))
	if s.Text() != "ok" {
		t.Fatal(s.Text())
	}
}

func TestScreenGeneration(t *testing.T) {
	t.Parallel()
	s, _ := newTestScreen(20, 5)
	g0 := s.Generation()
	s.Feed([]byte("hello"))
	g1 := s.Generation()
	if g1 == g0 {
		t.Fatal("generation unchanged after output")
	}
	s.Feed(nil)
	s.Feed([]byte("\x1b[>0q\x1b[?1049l\x07")) // a kitty push is a mode change now (Modes.KittyKeys)
	if g := s.Generation(); g != g1 {
		t.Fatalf("generation changed on a no-op: %d -> %d", g1, g)
	}
	s.Feed([]byte("\x1b[?2004h"))
	g2 := s.Generation()
	if g2 == g1 {
		t.Fatal("generation unchanged after a mode change")
	}
	s.Feed([]byte("\x1b[?2004h"))
	if s.Generation() != g2 {
		t.Fatal("generation changed on a repeated mode")
	}
	s.Feed([]byte("\x1b]0;t\x07"))
	g3 := s.Generation()
	if g3 == g2 {
		t.Fatal("generation unchanged after a title change")
	}
	s.Snapshot(&Snapshot{}) // must not eat a pending change
	s.Resize(30, 5)
	if s.Generation() == g3 {
		t.Fatal("generation unchanged after resize")
	}
	if sn := snap(s); sn.Generation != s.Generation() {
		t.Fatal("snapshot generation differs")
	}
}

func TestScreenResize(t *testing.T) {
	t.Parallel()
	s, _ := newTestScreen(10, 3)
	s.Feed([]byte("abc中"))
	s.Resize(0, -3)
	if c, r := s.Size(); c != 1 || r != 1 {
		t.Fatalf("size %dx%d, want 1x1", c, r)
	}
	sn := snap(s)
	checkWide(t, sn)
	s.Resize(4, 2)
	s.Feed([]byte("\x1b[2;1H中文xyz"))
	checkWide(t, snap(s))
	s.Resize(1_000_000, 3)
	if c, _ := s.Size(); c != MaxDim {
		t.Fatalf("cols %d", c)
	}
}

func TestScreenColorsAndAttrs(t *testing.T) {
	t.Parallel()
	s, _ := newTestScreen(20, 2)
	s.Feed([]byte("\x1b[38;2;0;0;200mA\x1b[38;5;200mB\x1b[38:2::255:128:0mC\x1b[0;2mD\x1b[22;1;3;4mE\x1b[0;7mF\x1b[0;1;31mG\x1b[0mH"))
	sn := snap(s)
	cell := func(x int) Cell { return sn.Cell(x, 0) }
	if c := cell(0).FG; c != RGB(0, 1, 200) {
		t.Errorf("A fg %#x", c)
	}
	if idx, ok := cell(1).FG.Palette(); !ok || idx != 200 {
		t.Errorf("B fg %#x", cell(1).FG)
	}
	if r, g, b, ok := cell(2).FG.RGB(); !ok || r != 255 || g != 128 || b != 0 {
		t.Errorf("C fg %#x", cell(2).FG)
	}
	if cell(3).Attr != AttrDim {
		t.Errorf("D attr %b", cell(3).Attr)
	}
	if cell(4).Attr != AttrBold|AttrItalic|AttrUnderline {
		t.Errorf("E attr %b", cell(4).Attr)
	}
	if c := cell(5); c.Attr != AttrReverse || c.FG != DefaultBG || c.BG != DefaultFG {
		t.Errorf("F %+v", c)
	}
	if c := cell(6); c.FG != 9 || c.Attr != AttrBold {
		t.Errorf("G %+v", c)
	}
	if c := cell(7); c.FG != DefaultFG || c.BG != DefaultBG || c.Attr != 0 {
		t.Errorf("H %+v", c)
	}
	if c := sn.Cell(-1, 0); c != blankCell {
		t.Errorf("out of range %+v", c)
	}
	if c := sn.Cell(0, 2); c != blankCell {
		t.Errorf("out of range %+v", c)
	}
}

func TestSnapshotTextTrims(t *testing.T) {
	t.Parallel()
	s, _ := newTestScreen(10, 5)
	s.Feed([]byte("a  \r\n\r\n b\r\n\r\n"))
	if got := s.Text(); got != "a\n\n b" {
		t.Fatalf("%q", got)
	}
	var empty Snapshot
	if empty.Text() != "" || empty.RowText(3) != "" {
		t.Fatal("empty snapshot")
	}
}

func TestSnapshotNoAllocs(t *testing.T) {
	s, _ := newTestScreen(120, 40)
	s.Feed([]byte("\x1b[1;31mhello 中文 🎉\x1b[0m\r\n╭──╮"))
	var sn Snapshot
	s.Snapshot(&sn)
	if n := testing.AllocsPerRun(50, func() { s.Snapshot(&sn) }); n != 0 {
		t.Fatalf("%v allocs per Snapshot", n)
	}
	if n := testing.AllocsPerRun(50, func() { s.Feed([]byte("x")) }); n > 0 && testing.Short() {
		t.Logf("%v allocs per Feed (vt10x logs)", n)
	}
}

// TestScreenRaceStorm runs Feed, Resize, Snapshot and the accessors at once;
// run with -race.
func TestScreenRaceStorm(t *testing.T) {
	t.Parallel()
	s, _ := newTestScreen(80, 24)
	stream := []byte(genInkFrame(newGenRand(1), 80, 24, 3))
	var wg sync.WaitGroup
	stop := make(chan struct{})
	iter := 300
	if testing.Short() {
		iter = 50
	}
	wg.Add(3)
	go func() {
		defer wg.Done()
		for i := 0; i < iter; i++ {
			j := (i * 997) % len(stream)
			s.Feed(stream[j:min(j+512, len(stream))])
			s.Feed(fmt.Appendf(nil, "\x1b]0;title %d\x07\x1b[?2004%c", i, "hl"[i%2]))
		}
		close(stop)
	}()
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			s.Resize(10+i%90, 3+i%30)
			_, _ = s.Size()
		}
	}()
	go func() {
		defer wg.Done()
		var sn Snapshot
		for {
			select {
			case <-stop:
				return
			default:
			}
			s.Snapshot(&sn)
			checkWide(t, &sn)
			_ = sn.Text()
			_ = s.Generation()
			_ = s.Modes()
			_, _, _ = sn.FindPrompt(PromptSpec{Marker: "❯", BetweenRules: true})
		}
	}()
	wg.Wait()
	if s.Panics() != 0 {
		t.Fatalf("%d panics", s.Panics())
	}
}

// TestScreenGenerationUnderConcurrentSnapshots: a Snapshot running between
// Feed's vt10x write and its change check must not make Feed miss the change.
func TestScreenGenerationUnderConcurrentSnapshots(t *testing.T) {
	t.Parallel()
	s, _ := newTestScreen(40, 10)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var sn Snapshot
		for {
			select {
			case <-stop:
				return
			default:
				s.Snapshot(&sn)
			}
		}
	}()
	missed := 0
	for i := 0; i < 3000; i++ {
		g := s.Generation()
		s.Feed([]byte("x"))
		if s.Generation() == g {
			missed++
		}
	}
	close(stop)
	<-done
	if missed > 0 {
		t.Fatalf("%d of 3000 Feeds did not advance Generation", missed)
	}
}

func ExampleScreen() {
	s := NewScreen(20, 3, func(p []byte) { fmt.Printf("reply %q\n", p) })
	s.Feed([]byte("中文X\x1b[c"))
	var sn Snapshot
	s.Snapshot(&sn)
	fmt.Println(sn.RowText(0), sn.CursorX)
	// Output:
	// reply "\x1b[?62;22c"
	// 中文X 5
}

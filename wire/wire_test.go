package wire_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"office/pool"
	"office/wire"
)

// screenOf feeds s to a real screen of cols×rows and snapshots it.
func screenOf(t testing.TB, cols, rows int, s string) *pool.Snapshot {
	t.Helper()
	sc := pool.NewScreen(cols, rows, nil)
	sc.Feed([]byte(s))
	var snap pool.Snapshot
	sc.Snapshot(&snap)
	return &snap
}

// sameCells compares the drawn cells (a wide rune's right half is not drawn,
// so its colours do not count).
func sameCells(t *testing.T, want, got *pool.Snapshot) {
	t.Helper()
	if want.Cols != got.Cols || want.Rows != got.Rows {
		t.Fatalf("size %dx%d, want %dx%d", got.Cols, got.Rows, want.Cols, want.Rows)
	}
	for y := 0; y < want.Rows; y++ {
		for x := 0; x < want.Cols; x++ {
			w, g := want.Cell(x, y), got.Cell(x, y)
			if w.Width == 0 && g.Width == 0 {
				continue
			}
			if w != g {
				t.Fatalf("cell (%d,%d) = %+v, want %+v\nwant:\n%s\ngot:\n%s", x, y, g, w, want.Text(), got.Text())
			}
		}
	}
	if want.CursorX != got.CursorX || want.CursorY != got.CursorY || want.CursorVisible != got.CursorVisible {
		t.Fatalf("cursor (%d,%d,%v), want (%d,%d,%v)", got.CursorX, got.CursorY, got.CursorVisible, want.CursorX, want.CursorY, want.CursorVisible)
	}
	if want.Title != got.Title || want.Modes != got.Modes {
		t.Fatalf("title/modes %q %+v, want %q %+v", got.Title, got.Modes, want.Title, want.Modes)
	}
}

// roundTrip sends every update through real frames and applies it.
func roundTrip(t *testing.T, dst *pool.Snapshot, ups []wire.Screen) int {
	t.Helper()
	var buf bytes.Buffer
	w := wire.NewWriter(&buf)
	for i := range ups {
		if err := w.Write(&ups[i]); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	n := buf.Len()
	r := wire.NewReader(&buf, wire.MaxServerFrame)
	for {
		typ, p, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil || typ != wire.TScreen {
			t.Fatalf("frame %q: %v", typ, err)
		}
		var s wire.Screen
		if err := wire.Decode(p, &s); err != nil {
			t.Fatal(err)
		}
		if err := wire.Apply(dst, &s); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

func TestDiffRoundTrip(t *testing.T) {
	steps := []string{
		"\x1b]0;title one\x07hello \x1b[1;31mred\x1b[0m world\r\n\x1b[48;2;10;20;30mtruecolor bg\x1b[0m\r\n中文 wide 字\r\n",
		"\x1b[2;1H\x1b[7mreverse\x1b[0m \x1b[4munder\x1b[0m\x1b[?2004h\x1b[?1h",
		strings.Repeat("scrolling line\r\n", 30),
		"\x1b[?1049h\x1b[Halt screen\x1b[?25l",
		"\x1b[?1049l\x1b]0;title two\x07",
		"\x1b[>1u\x1b[5 q", // kitty keyboard flags and a bar cursor (what the UI encodes keys and draws the caret with)
	}
	sc := pool.NewScreen(40, 10, nil)
	var prev, cur, client pool.Snapshot
	for i, s := range steps {
		sc.Feed([]byte(s))
		sc.Snapshot(&cur)
		ups := wire.Diff("a", 1, &prev, &cur)
		if i == 0 && !ups[0].Full {
			t.Fatal("first update is not full")
		}
		roundTrip(t, &client, ups)
		sameCells(t, &cur, &client)
		prev, cur = cur, prev
		prev.Cells = append([]pool.Cell(nil), prev.Cells...)
	}
	if client.Modes.KittyKeys != 1 || client.Modes.CursorShape != 5 {
		t.Fatalf("modes after the last step %+v, want kitty flags 1 and cursor shape 5", client.Modes)
	}
}

func TestDiffSendsOnlyChangedRows(t *testing.T) {
	a := screenOf(t, 80, 24, "one\r\ntwo\r\nthree")
	b := screenOf(t, 80, 24, "one\r\nTWO\r\nthree")
	ups := wire.Diff("a", 1, a, b)
	if len(ups) != 1 || ups[0].Full || len(ups[0].Lines) != 1 || ups[0].Lines[0].Y != 1 {
		t.Fatalf("diff = %+v, want one line, row 1", ups)
	}
	if ups := wire.Diff("a", 1, b, b); len(ups[0].Lines) != 0 || ups[0].Cursor != nil || ups[0].Title != nil || ups[0].Modes != nil {
		t.Fatalf("diff of equal screens = %+v, want nothing", ups[0])
	}
}

func TestDiffScroll(t *testing.T) {
	var lines []string
	for i := 0; i < 40; i++ {
		lines = append(lines, "line "+strings.Repeat("x", i%7)+string(rune('A'+i%26)))
	}
	a := screenOf(t, 60, 20, strings.Join(lines[:20], "\r\n"))
	b := screenOf(t, 60, 20, strings.Join(lines[:23], "\r\n"))
	ups := wire.Diff("a", 1, a, b)
	if ups[0].Scroll != 3 || len(ups[0].Lines) > 4 {
		t.Fatalf("scroll %d with %d lines, want 3 and at most 4 lines", ups[0].Scroll, len(ups[0].Lines))
	}
	client := pool.Snapshot{}
	roundTrip(t, &client, wire.Diff("a", 1, &pool.Snapshot{}, a))
	roundTrip(t, &client, ups)
	sameCells(t, b, &client)
}

func TestDiffSplitsLargeUpdates(t *testing.T) {
	var b strings.Builder
	for y := 0; y < 400; y++ {
		for x := 0; x < 500; x++ {
			b.WriteString("\x1b[3" + string(rune('0'+x%8)) + "m" + "x")
		}
	}
	cur := screenOf(t, 500, 400, b.String())
	ups := wire.Diff("a", 1, &pool.Snapshot{}, cur)
	if len(ups) < 2 || !ups[0].More || ups[len(ups)-1].More {
		t.Fatalf("%d updates, want several, all but the last with More", len(ups))
	}
	var client pool.Snapshot
	roundTrip(t, &client, ups)
	sameCells(t, cur, &client)
}

func TestReaderLimits(t *testing.T) {
	var hdr [4]byte
	binary.BigEndian.PutUint32(hdr[:], 100)
	r := wire.NewReader(bytes.NewReader(append(hdr[:], make([]byte, 100)...)), 50)
	if _, _, err := r.Next(); !errors.Is(err, wire.ErrFrameTooLarge) {
		t.Fatalf("oversized frame: %v, want ErrFrameTooLarge", err)
	}
	r = wire.NewReader(bytes.NewReader(append(hdr[:], `{"t":"x"}`...)), 1000)
	if _, _, err := r.Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("cut frame: %v, want ErrUnexpectedEOF", err)
	}
	binary.BigEndian.PutUint32(hdr[:], 2)
	r = wire.NewReader(bytes.NewReader(append(hdr[:], `{}`...)), 1000)
	if _, _, err := r.Next(); err == nil || !strings.Contains(err.Error(), `no "t"`) {
		t.Fatalf("frame without type: %v", err)
	}
}

// TestTypeOfReadsTheTypeWhereverItIs: a frame that opens with its type (as
// office writes them) and one whose "t" comes later (another writer's field
// order) give the same type; a frame with none, an empty one, or one that is
// no JSON object is an error.
func TestTypeOfReadsTheTypeWhereverItIs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		frame, want string
	}{
		{`{"t":"input","agent":"a","data":"eA=="}`, "input"},
		{`{"t":"subscribe"}`, "subscribe"},
		{`{"agent":"a","t":"input"}`, "input"},
		{`{"t" : "view"}`, "view"},
		{`{"t":"Screen"}`, "Screen"},
		{`{"t":"a\u0062c"}`, "abc"},
	} {
		if got, err := wire.TypeOf([]byte(c.frame)); err != nil || got != c.want {
			t.Errorf("TypeOf(%s) = %q, %v; want %q", c.frame, got, err, c.want)
		}
	}
	for _, frame := range []string{`{"t":""}`, `{"a":1}`, `["t"]`, `{"t":"inp`, `{"t":"x"`, `{"t":5}`} {
		if got, err := wire.TypeOf([]byte(frame)); err == nil {
			t.Errorf("TypeOf(%s) = %q, want an error", frame, got)
		}
	}
}

func TestApplyRejectsBadUpdates(t *testing.T) {
	var s pool.Snapshot
	if err := wire.Apply(&s, &wire.Screen{Agent: "a", Cols: 10, Rows: 2}); !errors.Is(err, wire.ErrNoScreen) {
		t.Fatalf("update before snapshot: %v", err)
	}
	if err := wire.Apply(&s, &wire.Screen{Agent: "a", Full: true, Cols: 10, Rows: 2}); err != nil {
		t.Fatal(err)
	}
	bad := []wire.Screen{
		{Cols: 11, Rows: 2},
		{Cols: 10, Rows: 2, Scroll: 2},
		{Cols: 10, Rows: 2, Lines: []wire.Line{{Y: 2}}},
		{Cols: 10, Rows: 2, Lines: []wire.Line{{Y: 0, Runs: []wire.Run{{X: 8, Text: "abc"}}}}},
		{Cols: 10, Rows: 2, Lines: []wire.Line{{Y: 0, Runs: []wire.Run{{X: 5, Text: "a"}, {X: 2, Text: "b"}}}}},
		{Cols: 10, Rows: 2, Lines: []wire.Line{{Y: 0, Runs: []wire.Run{{X: 9, Text: "中", W: 2}}}}},
		{Cols: 10, Rows: 2, Lines: []wire.Line{{Y: 0, Runs: []wire.Run{{X: 0, Text: "a", FG: 1 << 30}}}}},
	}
	for i, u := range bad {
		u.Agent = "a"
		if err := wire.Apply(&s, &u); err == nil {
			t.Errorf("bad update %d accepted", i)
		}
	}
}

// TestDiffScrollByOne: a screen that moved up one row is still sent as a
// scroll (every row changed, so bestScroll runs), and two changed rows are
// sent as those two rows with no scroll (no scroll can win there).
func TestDiffScrollByOne(t *testing.T) {
	var lines []string
	for i := 0; i < 21; i++ {
		lines = append(lines, "row "+string(rune('A'+i)))
	}
	a := screenOf(t, 30, 20, strings.Join(lines[:20], "\r\n"))
	b := screenOf(t, 30, 20, strings.Join(lines[:21], "\r\n"))
	if ups := wire.Diff("a", 1, a, b); ups[0].Scroll != 1 || len(ups[0].Lines) != 1 {
		t.Fatalf("scroll %d with %d lines, want 1 and 1 line", ups[0].Scroll, len(ups[0].Lines))
	}
	c := screenOf(t, 30, 20, strings.Join(append(append([]string{"X", "Y"}, lines[2:19]...), lines[19]), "\r\n"))
	ups := wire.Diff("a", 1, a, c)
	if ups[0].Scroll != 0 || len(ups[0].Lines) != 2 {
		t.Fatalf("scroll %d with %d lines, want 0 and 2 lines", ups[0].Scroll, len(ups[0].Lines))
	}
	client := pool.Snapshot{}
	roundTrip(t, &client, wire.Diff("a", 1, &pool.Snapshot{}, a))
	roundTrip(t, &client, ups)
	sameCells(t, c, &client)
}

// TestDiffRowsByGenerations updates a client the server's way: the copy of
// what the client has brought up to date by SnapshotRows, the rows that may
// differ told by their generations (pool.RowsChanged), DiffRows of those.
// After every kind of change the client's copy equals the screen, and the
// update holds the same lines as comparing every row would.
func TestDiffRowsByGenerations(t *testing.T) {
	steps := []string{
		"\x1b]0;title\x07hello \x1b[1;31mred\x1b[0m world\r\n中文 wide 字\r\n> ",
		"x",                       // a key's echo: one row
		"\x08 \x08",               // and its erasure
		"\x1b[3;1H\x1b[7mreverse", // another row, recoloured
		strings.Repeat("scrolling line\r\n", 14),
		"\x1b[?1049h\x1b[Halt screen\x1b[?25l",
		"\x1b[5;2Hone cell",
		"\x1b[?1049l\x1b]0;back\x07",
		"\x1b[2J\x1b[Hcleared",
		"\x1b[1;5r\x1b[5;1H\n\n\x1b[r", // a region scrolled
		"\x1b[4;1H\x1b[2K\x1b[4;1Hrow four again",
	}
	sc := pool.NewScreen(40, 12, nil)
	var sent, cur, fresh, client pool.Snapshot
	var gens, curGens []uint64
	var changed []bool
	for i, step := range steps {
		sc.Feed([]byte(step))
		cur.Cells = append(cur.Cells[:0], sent.Cells...)
		cur.Cols, cur.Rows = sent.Cols, sent.Rows
		curGens = append(curGens[:0], gens...)
		sc.SnapshotRows(&cur, &curGens)
		changed = pool.RowsChanged(changed, gens, curGens)
		if i > 0 && changed == nil {
			t.Fatalf("step %d: the generations told nothing", i)
		}
		ups := wire.DiffRows("a", 1, &sent, &cur, changed)
		all := wire.Diff("a", 1, &sent, &cur)
		if len(ups) != len(all) || len(ups[0].Lines) != len(all[0].Lines) || ups[0].Scroll != all[0].Scroll {
			t.Fatalf("step %d: %d lines (scroll %d), comparing every row gives %d (scroll %d)",
				i, len(ups[0].Lines), ups[0].Scroll, len(all[0].Lines), all[0].Scroll)
		}
		roundTrip(t, &client, ups)
		sc.Snapshot(&fresh)
		sameCells(t, &fresh, &client)
		sent, cur = cur, sent
		gens, curGens = curGens, gens
	}
}

// TestDiffRowsComparesOnlyTheRowsItIsTold: a row promised unchanged is not
// compared, so the promise is what saves the work (and a wrong one shows).
func TestDiffRowsComparesOnlyTheRowsItIsTold(t *testing.T) {
	a := screenOf(t, 80, 24, "one\r\ntwo\r\nthree")
	b := screenOf(t, 80, 24, "ONE\r\nTWO\r\nthree")
	changed := make([]bool, 24)
	changed[1] = true
	ups := wire.DiffRows("a", 1, a, b, changed)
	if len(ups) != 1 || len(ups[0].Lines) != 1 || ups[0].Lines[0].Y != 1 {
		t.Fatalf("diff = %+v, want row 1 alone", ups)
	}
	if ups := wire.DiffRows("a", 1, a, b, changed[:3]); len(ups[0].Lines) != 2 {
		t.Fatalf("a mask of the wrong height: %d lines, want both changed rows", len(ups[0].Lines))
	}
}

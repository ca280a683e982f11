package ui

import (
	"bytes"
	"encoding/base64"
	"fmt"

	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
)

// numbered feeds lines numbered from through to (with CJK) to agent, on a
// cleared screen when from is 1.
func (h *harness) numbered(agent string, from, to int) {
	var b strings.Builder
	if from == 1 {
		b.WriteString("\x1b[H\x1b[2J")
	}
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %04d 中文 end\r\n", i)
	}
	h.o.feed(agent, b.String())
	h.changed()
}

// paneRows returns the body rows of the pane of agent in the frame.
func (h *harness) paneRows(agent string) []string {
	h.t.Helper()
	h.m.draw()
	for _, p := range h.m.panes {
		if p.info.Name != agent {
			continue
		}
		var out []string
		for y := p.box.Y + 1; y < p.box.Y+p.box.H; y++ {
			out = append(out, strings.TrimRight(h.m.frame.buf.Lines[y][p.box.X:p.box.X+p.box.W].String(), " "))
		}
		return out
	}
	h.t.Fatalf("no pane %s", agent)
	return nil
}

// title returns agent's title row.
func (h *harness) title(agent string) string {
	h.m.draw()
	for _, p := range h.m.panes {
		if p.info.Name == agent {
			return h.m.frame.buf.Lines[p.box.Y][p.box.X : p.box.X+p.box.W].String()
		}
	}
	return ""
}

// clip captures what office writes to the person's terminal.
func (h *harness) clip() *bytes.Buffer {
	var buf bytes.Buffer
	h.m.out = newOutput(&buf, nil, colorprofile.TrueColor)
	return &buf
}

var osc52Re = regexp.MustCompile("\x1b\\]52;c;([A-Za-z0-9+/=]*)(?:\x07|\x1b\\\\)")

// clipboard returns the texts of the OSC 52 sequences written to buf.
func clipboard(t *testing.T, buf *bytes.Buffer) []string {
	t.Helper()
	var out []string
	for _, m := range osc52Re.FindAllSubmatch(buf.Bytes(), -1) {
		b, err := base64.StdEncoding.DecodeString(string(m[1]))
		if err != nil {
			t.Fatalf("OSC 52 payload %q: %v", m[1], err)
		}
		out = append(out, string(b))
	}
	return out
}

func TestCopyModeShowsHistoryAndKeysStayInOffice(t *testing.T) {
	h := newHarness(t, "a")
	h.size(80, 24) // body: 22 rows
	h.numbered("a", 1, 200)
	h.keys("\x1d[")
	if tl := h.title("a"); !strings.Contains(tl, "[copy]") {
		t.Fatalf("title in copy mode at the bottom: %q", tl)
	}
	h.keys("g")
	rows := h.paneRows("a")
	if rows[0] != "line 0001 中文 end" || rows[1] != "line 0002 中文 end" {
		t.Fatalf("g shows %q, %q", rows[0], rows[1])
	}
	// 200 lines and the prompt row: 201 rows after the one shown, 22 shown.
	if tl := h.title("a"); !strings.Contains(tl, "[+179]") {
		t.Fatalf("title scrolled to the top: %q", tl)
	}
	h.keys("jjjkx\x04\x15\x1b[6~\x1b[5~ihello")
	if got := h.o.got("a"); got != "" {
		t.Fatalf("copy-mode keys reached the agent: %q", got)
	}
	// New output does not move the view, and the title counts it.
	h.numbered("a", 201, 205)
	if rows := h.paneRows("a"); rows[0] != "line 0001 中文 end" {
		t.Fatalf("new output moved the view: %q", rows[0])
	}
	if tl := h.title("a"); !strings.Contains(tl, "[+184]") {
		t.Fatalf("title after 5 more lines: %q", tl)
	}
	h.keys("G")
	if tl := h.title("a"); !strings.Contains(tl, "[+5]") {
		t.Fatalf("G: title %q", tl)
	}
	h.keys("q")
	if tl := h.title("a"); strings.Contains(tl, "[") {
		t.Fatalf("q left copy mode but the title says %q", tl)
	}
	rows = h.paneRows("a")
	if rows[len(rows)-2] != "line 0205 中文 end" {
		t.Fatalf("after q the pane shows %q, not the live screen", rows[len(rows)-2])
	}
	h.keys("x")
	if got := h.o.got("a"); got != "x" {
		t.Fatalf("after q keys go to the agent again: %q", got)
	}
}

// TestCopyModeOfAnExitedAgentShowsItsLastScreenOnce: once an agent's output
// ended, its last screen's rows are the history's last lines (the office
// says the screen is no longer live), so copy mode shows each line once:
// the history alone, not the history followed by the screen again.
func TestCopyModeOfAnExitedAgentShowsItsLastScreenOnce(t *testing.T) {
	h := newHarness(t, "a")
	h.size(80, 24) // body: 22 rows
	h.numbered("a", 1, 30)
	h.o.feed("a", "bye\r\n")
	h.o.exit("a")
	h.changed()
	h.keys("\x1d[")
	if tl := h.title("a"); !strings.Contains(tl, "[copy]") {
		t.Fatalf("title in copy mode at the bottom: %q", tl)
	}
	rows := h.paneRows("a")
	if last := rows[len(rows)-1]; last != "bye" {
		t.Fatalf("the last row is %q, want the agent's last line \"bye\" (rows %q)", last, rows)
	}
	var seen []string
	seen = append(seen, rows...)
	h.keys("g")
	seen = append(seen, h.paneRows("a")...)
	count := map[string]int{}
	for _, r := range seen {
		count[r]++
	}
	// g shows lines 1-22 and the bottom showed 10-30 and bye: lines 10-22
	// are in both views, once in each.
	for i := 1; i <= 30; i++ {
		want := 1
		if i >= 10 && i <= 22 {
			want = 2
		}
		if l := fmt.Sprintf("line %04d 中文 end", i); count[l] != want {
			t.Fatalf("%q shown %d times in the two views, want %d:\nbottom %q\ntop %q", l, count[l], want, rows, seen[len(rows):])
		}
	}
	// Walking from the top to the bottom meets bye once, as the last line.
	h.keys("G")
	h.keys("\x1b[5~")
	if r := h.paneRows("a"); slicesCount(r, "bye") != 0 {
		t.Fatalf("a page up still shows bye: %q", r)
	}
}

// slicesCount is how many of rows are s.
func slicesCount(rows []string, s string) int {
	n := 0
	for _, r := range rows {
		if r == s {
			n++
		}
	}
	return n
}

func TestCopyModeSearch(t *testing.T) {
	h := newHarness(t, "a")
	h.size(80, 24)
	h.numbered("a", 1, 300)
	h.keys("\x1d[")
	h.keys("?line 0042\r")
	rows := h.paneRows("a")
	c := h.m.panes[0].cm
	if c.cur.line != 41 || c.cur.col != 0 {
		t.Fatalf("? put the cursor at %+v, want line 41", c.cur)
	}
	y := int(c.cur.line - c.top)
	if rows[y] != "line 0042 中文 end" {
		t.Fatalf("the match is not in view: row %d is %q", y, rows[y])
	}
	// The current match is magenta, other matches cyan.
	cell := h.m.frame.buf.Lines[1+y][0]
	if !colorEq(cell.Style.Bg, ansi.BasicColor(colMagenta)) {
		t.Fatalf("current match background %v", cell.Style.Bg)
	}
	// Smart case: lower case matches both; n goes on in the same direction.
	h.keys("/LINE\r")
	if c.note == "" {
		t.Fatalf("upper-case LINE matched: %+v", c.cur)
	}
	h.keys("/中文\r")
	if c.cur.line != 41 || c.cur.col != 10 {
		t.Fatalf("/中文 moved to %+v", c.cur)
	}
	h.keys("n")
	if c.cur.line != 42 || c.cur.col != 10 {
		t.Fatalf("n moved to %+v", c.cur)
	}
	h.m.draw()
	if cell := h.m.frame.buf.Lines[1+y][10]; !colorEq(cell.Style.Bg, ansi.BasicColor(colCyan)) {
		t.Fatalf("other match background %v (%q)", cell.Style.Bg, cell.Content)
	}
	h.keys("N")
	if c.cur.line != 41 {
		t.Fatalf("N moved to %+v", c.cur)
	}
	// Wrapping: / from the last line finds the first.
	h.keys("G/line 0001\r")
	if c.cur.line != 0 || c.top != 0 {
		t.Fatalf("wrapped search: cursor %+v top %d", c.cur, c.top)
	}
}

func TestCopyModeSelectionCopiesAndPastes(t *testing.T) {
	h := newHarness(t, "a", "b")
	h.size(100, 30)
	h.numbered("a", 1, 100)
	buf := h.clip()
	h.keys("\x1d[")
	h.keys("g")
	h.keys("lllllv") // from column 5 of line 1
	h.keys("jj$")    // to the end of line 3
	h.keys("y")
	want := "0001 中文 end\nline 0002 中文 end\nline 0003 中文 end"
	if h.m.pasteBuf != want {
		t.Fatalf("paste buffer %q, want %q", h.m.pasteBuf, want)
	}
	if got := clipboard(t, buf); len(got) != 1 || got[0] != want {
		t.Fatalf("OSC 52 carried %q, want %q", got, want)
	}
	if h.m.panes[0].cm != nil {
		t.Fatalf("y did not leave copy mode")
	}
	// Prefix ] pastes it into the focused agent as its bracketed paste.
	h.keys("\x1dl")
	h.o.feed("b", "\x1b[?2004h")
	h.changed()
	h.keys("\x1d]")
	if got := h.o.got("b"); got != "\x1b[200~"+want+"\x1b[201~" {
		t.Fatalf("prefix ] typed %q", got)
	}
	if got := h.o.got("a"); got != "" {
		t.Fatalf("a got %q", got)
	}
}

func TestMouseWheelScrollsAPaneThatDidNotAskForTheMouse(t *testing.T) {
	h := newHarness(t, "a", "b")
	h.size(100, 30) // a: x 0-48, b: x 50-99
	h.numbered("b", 1, 100)
	h.keys("\x1b[<64;61;10M")
	p := h.m.panes[1]
	if p.cm == nil {
		t.Fatalf("the wheel over b did not scroll it")
	}
	if tl := h.title("b"); !strings.Contains(tl, "[+3]") {
		t.Fatalf("title after one notch: %q", tl)
	}
	if h.focusedName() != "a" {
		t.Fatalf("the wheel moved focus")
	}
	h.keys("\x1b[<64;61;10M\x1b[<65;61;10M")
	if tl := h.title("b"); !strings.Contains(tl, "[+3]") {
		t.Fatalf("title after up, up, down: %q", tl)
	}
	h.keys("\x1b[<65;61;10M")
	if p.cm != nil {
		t.Fatalf("the wheel back to the bottom did not leave copy mode")
	}
	// An agent that asked for the mouse gets the wheel.
	h.keys("\x1d2")
	h.o.feed("b", "\x1b[?1000h\x1b[?1006h")
	h.changed()
	h.keys("\x1b[<64;61;10M")
	if p.cm != nil || h.o.got("b") != "\x1b[<64;11;9M" {
		t.Fatalf("a mouse agent's wheel: copy mode %v, got %q", p.cm != nil, h.o.got("b"))
	}
}

func TestDragSelectsInsideOnePane(t *testing.T) {
	h := newHarness(t, "a", "b")
	h.size(100, 30) // a: x 0-48, b: x 50-99; body rows from y 1
	h.o.feed("a", "\x1b[2J\x1b[Hleft pane text")
	h.o.feed("b", "\x1b[2J\x1b[Hfirst row of b\r\nsecond row of b")
	h.changed()
	buf := h.clip()
	// Press on b's "row" (x 56, y 1), drag left across the border into
	// a and down a row, release.
	h.keys("\x1b[<0;57;2M\x1b[<32;40;2M\x1b[<32;10;3M\x1b[<0;10;3m")
	got := clipboard(t, buf)
	if len(got) != 1 {
		t.Fatalf("OSC 52 sequences: %q", got)
	}
	// The drag ends at b's left edge on its second row: column 0.
	if got[0] != "row of b\ns" {
		t.Fatalf("drag copied %q, want only b's cells", got[0])
	}
	if h.m.pasteBuf != got[0] {
		t.Fatalf("paste buffer %q", h.m.pasteBuf)
	}
	if h.m.panes[1].cm != nil || h.m.panes[0].cm != nil {
		t.Fatalf("copy mode stayed after the release")
	}
	if h.o.got("a") != "" || h.o.got("b") != "" {
		t.Fatalf("the drag reached an agent: %q %q", h.o.got("a"), h.o.got("b"))
	}
	if h.focusedName() != "b" {
		t.Fatalf("the press did not focus b")
	}
	// A plain click copies nothing.
	h.keys("\x1b[<0;57;2M\x1b[<0;57;2m")
	if n := len(clipboard(t, buf)); n != 1 {
		t.Fatalf("a click copied: %d sequences", n)
	}
}

func TestDoubleClickSelectsAWord(t *testing.T) {
	h := newHarness(t, "a")
	h.size(80, 24)
	h.o.feed("a", "\x1b[2J\x1b[Hsee /tmp/some-file.go:12 here")
	h.changed()
	buf := h.clip()
	now := testClock
	h.m.now = func() time.Time { return now }
	h.keys("\x1b[<0;10;2M\x1b[<0;10;2m")
	now = now.Add(100 * time.Millisecond)
	h.keys("\x1b[<0;10;2M\x1b[<0;10;2m")
	if got := clipboard(t, buf); len(got) != 1 || got[0] != "/tmp/some-file.go:12" {
		t.Fatalf("double click copied %q", got)
	}
	// Two clicks too far apart are two clicks.
	now = now.Add(time.Second)
	h.keys("\x1b[<0;10;2M\x1b[<0;10;2m")
	now = now.Add(time.Second)
	h.keys("\x1b[<0;10;2M\x1b[<0;10;2m")
	if got := clipboard(t, buf); len(got) != 1 {
		t.Fatalf("slow clicks copied %q", got)
	}
}

func TestGoldenCopyMode(t *testing.T) {
	setup := func(t *testing.T) *harness {
		h := newHarness(t, "a", "b")
		h.size(100, 20)
		h.numbered("a", 1, 60)
		h.keys("\x1d[")
		h.keys("?0012\r")
		h.keys("v$j")
		return h
	}
	t.Run("copymode_text_100x20", func(t *testing.T) {
		golden(t, "copymode_text_100x20", setup(t).text())
	})
	t.Run("copymode_styled_100x20", func(t *testing.T) {
		h := setup(t)
		h.m.draw()
		golden(t, "copymode_styled_100x20", strings.ReplaceAll(h.m.frame.styled(colorprofile.ANSI256), "\x1b", "\\e"))
	})
}

// BenchmarkCopyModeScroll9Panes measures a frame of the 9-pane office while
// the focused pane scrolls its history one line (Ctrl-Y's worth: k at the
// view's top): the rows read through Office.History, the highlights of a
// search and the diff of the frame. Target: no allocation per cell (what
// allocates is the title and status line, rendered again as their text
// changes with every line scrolled).
func BenchmarkCopyModeScroll9Panes(b *testing.B) {
	h, _ := benchOffice(b)
	h.numbered("agent1", 1, 3000)
	m := h.m
	h.keys("\x1d[")
	h.keys("/end\r")
	p := m.focused()
	up := true
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		c := p.cm
		if up && c.top <= c.first || !up && c.atBottom() {
			up = !up
		}
		if up {
			c.scroll(-1)
		} else {
			c.scroll(1)
		}
		c.stale, m.dirty = true, true
		m.compose()
	}
}

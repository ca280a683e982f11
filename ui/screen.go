package ui

// screen.go is the frame: one ultraviolet cell buffer the size of the
// person's terminal. Pane bodies are written into it from the agents'
// screens through a shadow grid of the agent cells each frame cell was
// converted from: a row equal to its shadow costs one comparison, and in a
// changed row only the changed cells are converted (written field by
// field into the frame's cell; styles and cell strings come from small
// caches, and a run of cells in one style reuses the style converted for
// its first cell, so nothing allocates per cell) and marked for the
// renderer. Chrome is copied in from lipgloss renders
// cached until their text changes. The ultraviolet renderer then writes
// only the rows marked (within a row without wide runes, only the changed
// cells), and puts the person's real cursor where the focused agent's is.

import (
	"image/color"
	"io"
	"slices"
	"unicode/utf8"

	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"

	"office/pool"
)

// chromeMark in the shadow grid means the cell holds chrome, not a body cell
// (or, after invalidate, that what it holds is not known).
var chromeMark = pool.Cell{Width: 255}

// wideCut is the Width a shadow cell gets when its wide rune's right half
// falls outside the pane (or under a box): a blank in its colours is drawn
// instead, and the shadow records that, so the next compose skips it too.
const wideCut = 254

// asciiCells are the one-byte cell strings, shared by every frame.
var asciiCells = func() (t [128]string) {
	for i := range t {
		t[i] = string(rune(i))
	}
	return t
}()

// frame is the picture of the person's terminal.
type frame struct {
	w, h int
	buf  *uv.RenderBuffer
	// shadow holds, for every cell, the agent cell it was converted from
	// (chromeMark for chrome): a cell whose source did not change is
	// neither converted nor compared again.
	shadow []pool.Cell
	runes  map[rune]string
	recent [runeSlots]runeSlot // the runes last looked up, before runes
	colors map[pool.Color]color.Color
	styles [styleSlots]styleSlot
	dirty  bool   // a cell changed since the last draw
	epoch  uint64 // advances whenever every pane must be compared again
	n      uint64 // advances with every compose (see placed)
	// converted counts the agent cells converted to ultraviolet cells
	// (the tests read it to prove unchanged cells are skipped).
	converted int
}

// maxCache bounds the caches of non-ASCII cell strings and truecolours
// (each is made once, then shared by every cell that shows it).
const maxCache = 4096

// styleSlots is the size of the direct-mapped cache of converted styles:
// an agent screen uses a few dozen (colour, colour, attributes) triples.
const styleSlots = 256

// runeSlots is the size of the direct-mapped cache in front of the map of
// cell strings.
const runeSlots = 512

// runeSlot is one rune and its cell string.
type runeSlot struct {
	r rune
	s string
}

// styleSlot is one converted style and the agent style it came from.
type styleSlot struct {
	fg, bg pool.Color
	attr   pool.Attr
	ok     bool
	st     uv.Style
}

func newFrame() *frame {
	return &frame{buf: uv.NewRenderBuffer(0, 0), runes: map[rune]string{}, colors: map[pool.Color]color.Color{}}
}

// resize makes the frame w×h and marks every cell for drawing.
func (f *frame) resize(w, h int) {
	if w == f.w && h == f.h {
		return
	}
	f.w, f.h = w, h
	f.buf.Resize(w, h)
	f.shadow = make([]pool.Cell, w*h)
	f.invalidate()
	f.dirty = true
}

// invalidate forgets what every cell holds (the frame's size changed):
// the next compose converts and touches every body cell.
func (f *frame) invalidate() {
	f.recheck()
	for i := range f.shadow {
		f.shadow[i] = chromeMark
	}
}

// recheck makes the next compose compare every pane with what the frame
// holds (a box closed or moved, the layout changed), converting only the
// cells that differ.
func (f *frame) recheck() { f.epoch++ }

// cellString is the cell content for r, without allocating in steady state.
func (f *frame) cellString(r rune) string {
	if r < utf8.RuneSelf {
		if r < 0x20 {
			return " "
		}
		return asciiCells[r]
	}
	e := &f.recent[uint32(r)%runeSlots]
	if e.r == r && e.s != "" {
		return e.s
	}
	s, ok := f.runes[r]
	if !ok {
		if len(f.runes) >= maxCache {
			clear(f.runes)
		}
		s = string(r)
		f.runes[r] = s
	}
	*e = runeSlot{r: r, s: s}
	return s
}

// color converts an agent's colour.
func (f *frame) color(c pool.Color) color.Color {
	switch {
	case c < 16:
		return ansi.BasicColor(c)
	case c < 256:
		return ansi.IndexedColor(c)
	case c.IsDefault():
		return nil
	}
	col, ok := f.colors[c]
	if !ok {
		r, g, b, _ := c.RGB()
		if len(f.colors) >= maxCache {
			clear(f.colors)
		}
		col = color.RGBA{R: r, G: g, B: b, A: 0xff}
		f.colors[c] = col
	}
	return col
}

// style converts an agent cell's colours and attributes, each distinct
// triple once (a direct-mapped cache: a miss only costs a conversion).
func (f *frame) style(fg, bg pool.Color, a pool.Attr) *uv.Style {
	h := (uint32(fg)*0x9e3779b1 ^ uint32(bg)*0x85ebca77 ^ uint32(a)*0xc2b2ae3d) >> 24
	e := &f.styles[h%styleSlots]
	if e.ok && e.fg == fg && e.bg == bg && e.attr == a {
		return &e.st
	}
	var st uv.Style
	if a&pool.AttrReverse != 0 {
		// The snapshot's colours are already swapped; let the person's
		// terminal swap the agent's own colours, defaults included.
		st.Fg, st.Bg = f.color(bg), f.color(fg)
		st.Attrs |= uv.AttrReverse
	} else {
		st.Fg, st.Bg = f.color(fg), f.color(bg)
	}
	if a&pool.AttrBold != 0 {
		st.Attrs |= uv.AttrBold
	}
	if a&pool.AttrDim != 0 {
		st.Attrs |= uv.AttrFaint
	}
	if a&pool.AttrItalic != 0 {
		st.Attrs |= uv.AttrItalic
	}
	if a&pool.AttrUnderline != 0 {
		st.Underline = uv.UnderlineSingle
	}
	*e = styleSlot{fg: fg, bg: bg, attr: a, ok: true, st: st}
	return &e.st
}

// styleRun remembers the style a span converted last: consecutive cells
// of a row mostly share their colours and attributes, and such a cell
// reuses the converted style without looking it up.
type styleRun struct {
	fg, bg pool.Color
	attr   pool.Attr
	st     *uv.Style
}

// put converts an agent cell (Width wideCut: a blank in its colours) into
// the frame cell d, writing d's fields in place (every field of uv.Cell:
// TestPutWritesEveryCellField).
func (f *frame) put(d *uv.Cell, c *pool.Cell, run *styleRun) {
	switch {
	case c.Width == 1 && c.Rune >= 0x20 && c.Rune < utf8.RuneSelf:
		d.Content, d.Width = asciiCells[c.Rune], 1
	case c.Width == 0:
		// The right half of a wide rune: not drawn.
		d.Content, d.Width = "", 0
	case c.Width == wideCut || c.Rune == pool.WidePlaceholder || c.Rune == 0:
		d.Content, d.Width = " ", 1
	default:
		d.Content, d.Width = f.cellString(c.Rune), int(c.Width)
	}
	if run.st == nil || run.fg != c.FG || run.bg != c.BG || run.attr != c.Attr {
		*run = styleRun{fg: c.FG, bg: c.BG, attr: c.Attr, st: f.style(c.FG, c.BG, c.Attr)}
	}
	d.Style = *run.st
	d.Link = uv.Link{}
}

// blankBody is the cell drawn where a pane's box is larger than its screen.
var blankBody = pool.Cell{Rune: ' ', Width: 1, FG: pool.DefaultFG, BG: pool.DefaultBG}

// body draws snap's rows from top on into the box r (the pane's body),
// skipping cells under cover (an open box). A row whose cells are those the
// frame already holds costs one comparison of the row; in a changed row only
// the cells that changed are converted and touched.
func (f *frame) body(snap *Screen, top int, r, cover rect, drawn, now []uint64) {
	x0, x1 := max(r.X, 0), min(r.X+r.W, f.w)
	if x0 >= x1 {
		return
	}
	if len(drawn) != snap.Rows || len(now) != snap.Rows {
		drawn, now = nil, nil
	}
	for y := 0; y < r.H; y++ {
		fy := r.Y + y
		if fy < 0 || fy >= f.h {
			continue
		}
		var row []pool.Cell
		if sy := top + y; sy < snap.Rows && (sy+1)*snap.Cols <= len(snap.Cells) {
			if drawn != nil && drawn[sy] == now[sy] && now[sy] != 0 {
				continue // the row the frame holds
			}
			row = snap.Cells[sy*snap.Cols : (sy+1)*snap.Cols]
		}
		if cover.W > 0 && fy >= cover.Y && fy < cover.Y+cover.H {
			f.span(row, r.X, fy, x0, min(x1, cover.X))
			f.span(row, r.X, fy, max(x0, cover.X+cover.W), x1)
		} else {
			f.span(row, r.X, fy, x0, x1)
		}
	}
}

// span draws frame columns [a, b) of row fy from row, whose first cell is
// at frame column ox. A wide rune cut at b becomes a blank, a right half
// at a becomes a blank.
func (f *frame) span(row []pool.Cell, ox, fy, a, b int) {
	if a >= b {
		return
	}
	base := fy * f.w
	shadow := f.shadow[base : base+b]
	if lo, hi := a-ox, b-ox; hi <= len(row) && row[lo].Width != 0 && row[hi-1].Width != 2 && slices.Equal(shadow[a:], row[lo:hi]) {
		// Unchanged, and no wide rune is cut at either end.
		return
	}
	line := f.buf.Lines[fy][:b]
	var run styleRun
	first, last, n := -1, -1, 0
	for fx := a; fx < b; fx++ {
		src := &blankBody
		if x := fx - ox; x < len(row) {
			src = &row[x]
		}
		var cut pool.Cell
		if src.Width != 1 {
			switch {
			case src.Width == 2 && fx+1 >= b:
				cut = *src
				cut.Width = wideCut
				src = &cut
			case src.Width == 0 && fx == a:
				src = &blankBody
			}
		}
		sh := &shadow[fx]
		if *sh == *src {
			continue
		}
		*sh = *src
		f.put(&line[fx], src, &run)
		n++
		if first < 0 {
			first = fx
		}
		last = fx
	}
	if first >= 0 {
		f.converted += n
		f.buf.TouchLine(first, fy, last-first+2)
		f.dirty = true
	}
}

// placed is where a piece of chrome was last copied into the frame.
type placed struct {
	src      *uv.Buffer
	x, y, h  int
	cover    rect
	epoch, n uint64
}

// placedAgain reports whether src is already at (x, y) (h rows of its
// first column when h > 0), uncovered as before: the same render copied
// to the same place in this epoch by the compose before this one, so
// nothing has drawn over it since. It records this compose's placement.
func (f *frame) placedAgain(p *placed, src *uv.Buffer, x, y, h int, cover rect) bool {
	k := placed{src: src, x: x, y: y, h: h, cover: cover, epoch: f.epoch, n: f.n - 1}
	same := src != nil && *p == k
	k.n = f.n
	*p = k
	return same
}

// setChrome writes a chrome cell at (x, y) if it differs.
func (f *frame) setChrome(x, y int, c *uv.Cell) {
	if x < 0 || y < 0 || x >= f.w || y >= f.h {
		return
	}
	i := y*f.w + x
	d := &f.buf.Lines[y][x]
	if f.shadow[i] == chromeMark && d.Width == c.Width && d.Content == c.Content && d.Style.Equal(&c.Style) {
		return
	}
	f.shadow[i] = chromeMark
	*d = *c
	f.buf.TouchLine(x, y, 1)
	f.dirty = true
}

// chrome copies a cached chrome render to (x, y), clipped to w×h cells and
// to the frame, skipping cells under cover.
func (f *frame) chrome(src *uv.Buffer, x, y int, cover rect) {
	if src == nil {
		return
	}
	for sy := 0; sy < src.Height(); sy++ {
		line := src.Line(sy)
		for sx := 0; sx < len(line); sx++ {
			if cover.contains(x+sx, y+sy) {
				continue
			}
			c := &line[sx]
			if c.Width == 0 && c.Content == "" {
				// The right half of a wide rune: it must follow its rune.
				if sx == 0 || cover.contains(x+sx-1, y+sy) {
					f.setChrome(x+sx, y+sy, &uv.EmptyCell)
				}
				continue
			}
			if c.Width > 1 && sx+c.Width > len(line) {
				f.setChrome(x+sx, y+sy, &uv.EmptyCell)
				continue
			}
			f.setChrome(x+sx, y+sy, c)
			for k := 1; k < c.Width; k++ {
				i := (y+sy)*f.w + x + sx + k
				if x+sx+k < f.w && y+sy < f.h {
					f.shadow[i] = chromeMark
					f.buf.Lines[y+sy][x+sx+k] = uv.Cell{}
				}
			}
		}
	}
}

// text returns the frame's rows as plain text, trailing spaces trimmed.
func (f *frame) text() string {
	out := make([]byte, 0, f.w*f.h)
	for y := 0; y < f.h; y++ {
		out = append(out, f.buf.Lines[y].String()...)
		out = append(out, '\n')
	}
	return string(out)
}

// styled returns the frame's rows with SGR styles, colours downsampled to
// profile (for the colour goldens).
func (f *frame) styled(p colorprofile.Profile) string {
	out := make([]byte, 0, f.w*f.h*2)
	for y := 0; y < f.h; y++ {
		line := make(uv.Line, len(f.buf.Lines[y]))
		copy(line, f.buf.Lines[y])
		for i := range line {
			st := &line[i].Style
			if st.Fg != nil {
				st.Fg = p.Convert(st.Fg)
			}
			if st.Bg != nil {
				st.Bg = p.Convert(st.Bg)
			}
			if p <= colorprofile.Ascii {
				st.Fg, st.Bg, st.UnderlineColor = nil, nil, nil
			}
		}
		out = append(out, line.Render()...)
		out = append(out, '\n')
	}
	return string(out)
}

// cursorState is the person's real cursor.
type cursorState struct {
	x, y    int
	visible bool
	shape   uint8 // DECSCUSR parameter
}

// output writes frames to the person's terminal.
type output struct {
	r       *uv.TerminalRenderer
	cur     cursorState
	started bool
}

func newOutput(w io.Writer, env []string, profile colorprofile.Profile) *output {
	r := uv.NewTerminalRenderer(w, env)
	r.SetColorProfile(profile)
	r.SetFullscreen(true)
	r.SetRelativeCursor(false)
	r.SetScrollOptim(false)
	r.SetTabStops(-1)
	return &output{r: r}
}

// draw writes the frame's changes and places the cursor. With nothing
// changed and the cursor where it was it writes nothing.
func (o *output) draw(f *frame, c cursorState) error {
	if !o.started {
		o.r.Erase()
		o.started = true
		o.cur = cursorState{x: -1, visible: true, shape: 255}
		f.dirty = true
	}
	changed := f.dirty
	if !changed && c == o.cur {
		return nil
	}
	if o.cur.visible && (changed || !c.visible) {
		_, _ = o.r.WriteString(ansi.HideCursor)
	}
	if changed {
		o.r.Render(f.buf)
		f.dirty = false
	}
	o.r.MoveTo(c.x, c.y)
	if c.shape != o.cur.shape {
		_, _ = o.r.WriteString(ansi.SetCursorStyle(int(c.shape)))
	}
	if c.visible && (changed || !o.cur.visible) {
		_, _ = o.r.WriteString(ansi.ShowCursor)
	}
	o.cur = c
	return o.r.Flush()
}

// resize tells the renderer the terminal's new size.
func (o *output) resize(w, h int) {
	o.r.Resize(w, h)
	o.r.Erase()
}

// write sends raw bytes (bell, OSC 9) between frames.
func (o *output) write(s string) error {
	_, _ = o.r.WriteString(s)
	return o.r.Flush()
}

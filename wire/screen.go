package wire

// screen.go encodes screens: a Screen message carries the rows of one agent's
// screen that changed since the last one the client got (all rows of a full
// snapshot), each as runs of cells of one style.

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"office/pool"
)

// Screen is one update of an agent's screen.
type Screen struct {
	T     string `json:"t"`
	Agent string `json:"agent"`
	// Instance is the roster's Agent.Instance this screen belongs to.
	Instance int64 `json:"instance"`
	// Gen is the server's generation of the screen after this update.
	Gen uint64 `json:"gen"`
	// Full: start from a blank Cols×Rows screen (first update, resize, new
	// instance); otherwise the size is unchanged.
	Full bool `json:"full,omitempty"`
	Cols int  `json:"cols"`
	Rows int  `json:"rows"`
	// Scroll moves every row up by Scroll rows before Lines apply (the top
	// Scroll rows leave, blank rows enter at the bottom).
	Scroll int `json:"scroll,omitempty"`
	// Lines are whole rows, each replacing the row it names.
	Lines []Line `json:"lines,omitempty"`
	// More: further Screen messages complete this update (a large update
	// is split); only the last one carries the cursor, title and modes.
	More    bool    `json:"more,omitempty"`
	Cursor  *Cursor `json:"cursor,omitempty"`
	Title   *string `json:"title,omitempty"`
	Modes   *Modes  `json:"modes,omitempty"`
	lineLen int
}

// Cursor is the cursor's cell and visibility.
type Cursor struct {
	X       int  `json:"x"`
	Y       int  `json:"y"`
	Visible bool `json:"visible"`
}

// Modes are the terminal modes the agent set that a client needs to encode
// keys and mouse reports for it.
type Modes struct {
	BracketedPaste bool   `json:"bracketed_paste,omitempty"`
	AppCursor      bool   `json:"app_cursor,omitempty"`
	AltScreen      bool   `json:"alt_screen,omitempty"`
	FocusEvents    bool   `json:"focus_events,omitempty"`
	SyncOutput     bool   `json:"sync_output,omitempty"`
	Mouse          uint32 `json:"mouse,omitempty"`
	OSCState       string `json:"osc_state,omitempty"`
	// KittyKeys are the kitty keyboard flags the agent pushed (0: legacy
	// key encoding); CursorShape its last DECSCUSR parameter (0-6).
	KittyKeys   uint8 `json:"kitty_keys,omitempty"`
	CursorShape uint8 `json:"cursor_shape,omitempty"`
}

// Line is one whole row: its runs left to right; cells no run covers are
// blank (a space in default colours).
type Line struct {
	Y    int   `json:"y"`
	Runs []Run `json:"runs,omitempty"`
}

// Run is consecutive cells of one style starting at column X: each rune of
// Text is one cell, or two when W is 2 (a wide rune and its right half).
type Run struct {
	X    int    `json:"x"`
	Text string `json:"s"`
	W    uint8  `json:"w,omitempty"`
	FG   uint32 `json:"fg,omitempty"`
	BG   uint32 `json:"bg,omitempty"`
	A    uint8  `json:"a,omitempty"`
}

// Wire colours: 0 is the slot's default (foreground or background), 1..256
// a palette index plus one, TrueColor|0xRRGGBB a 24-bit colour, and
// ExplicitFG / ExplicitBG the default foreground or background drawn in the
// other slot (reverse video).
const (
	TrueColor  uint32 = 1 << 24
	ExplicitFG uint32 = 1 << 25
	ExplicitBG uint32 = 1<<25 + 1
)

func colorOut(c pool.Color, slotDefault pool.Color) uint32 {
	switch {
	case c == slotDefault:
		return 0
	case c == pool.DefaultFG:
		return ExplicitFG
	case c == pool.DefaultBG:
		return ExplicitBG
	case c < 256:
		return uint32(c) + 1
	}
	return TrueColor | uint32(c)&0xffffff
}

func colorIn(w uint32, slotDefault pool.Color) (pool.Color, error) {
	switch {
	case w == 0:
		return slotDefault, nil
	case w == ExplicitFG:
		return pool.DefaultFG, nil
	case w == ExplicitBG:
		return pool.DefaultBG, nil
	case w <= 256:
		return pool.Color(w - 1), nil
	case w&^0xffffff == TrueColor:
		return pool.TrueColorFlag | pool.Color(w&0xffffff), nil
	}
	return 0, fmt.Errorf("bad colour %d", w)
}

// blank is the cell a row holds where no run covers it.
var blank = pool.Cell{Rune: ' ', Width: 1, FG: pool.DefaultFG, BG: pool.DefaultBG}

// minGap is the shortest stretch of blank cells a run is broken at (shorter
// ones stay inside the run: a new run costs more than a few spaces).
const minGap = 6

// EncodeLine returns row's runs.
func EncodeLine(y int, row []pool.Cell) Line {
	l := Line{Y: y}
	end := len(row)
	for end > 0 && row[end-1] == blank {
		end--
	}
	var b strings.Builder
	for x := 0; x < end; {
		c := row[x]
		if c == blank {
			g := x
			for g < end && row[g] == blank {
				g++
			}
			if g-x >= minGap || len(l.Runs) == 0 {
				x = g
				continue
			}
		}
		w := c.Width
		if w == 0 { // an orphan right half cannot start a run
			w = 1
			c.Rune = ' '
		}
		r := Run{X: x, FG: colorOut(c.FG, pool.DefaultFG), BG: colorOut(c.BG, pool.DefaultBG), A: uint8(c.Attr)}
		if w == 2 {
			r.W = 2
		}
		b.Reset()
		for x < end {
			d := row[x]
			if d.FG != c.FG || d.BG != c.BG || d.Attr != c.Attr || max(d.Width, 1) != w {
				break
			}
			if d == blank && blankRun(row[x:end]) >= minGap {
				break
			}
			if w == 2 {
				if x+1 >= len(row) || row[x+1].Width != 0 {
					break
				}
				b.WriteRune(d.Rune)
				x += 2
				continue
			}
			if d.Width == 0 {
				d.Rune = ' '
			}
			b.WriteRune(d.Rune)
			x++
		}
		if b.Len() == 0 { // a wide rune with no right half: one blank cell
			r.W = 0
			r.Text = " "
			x++
		} else {
			r.Text = b.String()
		}
		l.Runs = append(l.Runs, r)
	}
	return l
}

func blankRun(cells []pool.Cell) int {
	n := 0
	for n < len(cells) && cells[n] == blank {
		n++
	}
	return n
}

// DecodeLine writes l's cells into row (len(row) is the screen's width); it
// fails on runs that overlap, go backwards or leave the row.
func DecodeLine(l Line, row []pool.Cell) error {
	for i := range row {
		row[i] = blank
	}
	next := 0
	for _, r := range l.Runs {
		if r.X < next || r.X >= len(row) {
			return fmt.Errorf("row %d: run at column %d out of order or off the row", l.Y, r.X)
		}
		fg, err := colorIn(r.FG, pool.DefaultFG)
		if err != nil {
			return fmt.Errorf("row %d: %w", l.Y, err)
		}
		bg, err := colorIn(r.BG, pool.DefaultBG)
		if err != nil {
			return fmt.Errorf("row %d: %w", l.Y, err)
		}
		if r.W > 2 || r.W == 1 {
			return fmt.Errorf("row %d: bad width %d", l.Y, r.W)
		}
		x := r.X
		for _, ch := range r.Text {
			if ch < 0x20 || ch == 0x7f {
				ch = '?'
			}
			c := pool.Cell{Rune: ch, Width: 1, FG: fg, BG: bg, Attr: pool.Attr(r.A)}
			if r.W == 2 {
				if x+1 >= len(row) {
					return fmt.Errorf("row %d: wide rune at column %d off the row", l.Y, x)
				}
				c.Width = 2
				row[x] = c
				row[x+1] = pool.Cell{Rune: 0, Width: 0, FG: fg, BG: bg, Attr: pool.Attr(r.A)}
				x += 2
				continue
			}
			if x >= len(row) {
				return fmt.Errorf("row %d: run at column %d runs off the row", l.Y, r.X)
			}
			row[x] = c
			x++
		}
		next = x
	}
	return nil
}

func modesOf(m pool.Modes) Modes {
	return Modes{BracketedPaste: m.BracketedPaste, AppCursor: m.AppCursor, AltScreen: m.AltScreen,
		FocusEvents: m.FocusEvents, SyncOutput: m.SyncOutput, Mouse: uint32(m.Mouse), OSCState: m.OSCState,
		KittyKeys: m.KittyKeys, CursorShape: m.CursorShape}
}

// PoolModes converts m back (Title is carried separately).
func (m Modes) PoolModes(title string) pool.Modes {
	return pool.Modes{BracketedPaste: m.BracketedPaste, AppCursor: m.AppCursor, AltScreen: m.AltScreen,
		FocusEvents: m.FocusEvents, SyncOutput: m.SyncOutput, Mouse: pool.MouseMode(m.Mouse), Title: title, OSCState: m.OSCState,
		KittyKeys: m.KittyKeys, CursorShape: m.CursorShape}
}

// maxSplit is the encoded size of lines after which an update is split into
// another Screen message.
const maxSplit = 1 << 20

// Diff returns the updates that turn prev (what the client has; Cols 0 means
// nothing) into cur, splitting a large one into several messages (all but
// the last with More). Rows are compared cell by cell, so the result is exact
// whatever changed; a screen that moved up by k rows is sent as Scroll k
// and the rows that are new.
func Diff(agent string, instance int64, prev, cur *pool.Snapshot) []Screen {
	return DiffRows(agent, instance, prev, cur, nil)
}

// DiffRows is Diff told which rows may differ: changed[y] false promises
// that row y of cur is row y of prev, so it is not compared (a key's echo
// changes one row of forty, and comparing the rest cell by cell was most
// of a client's update). A nil changed, or one not of cur's height,
// promises nothing. A scroll is still looked for, and judged, cell by cell.
func DiffRows(agent string, instance int64, prev, cur *pool.Snapshot, changed []bool) []Screen {
	if len(changed) != cur.Rows {
		changed = nil
	}
	s := Screen{T: TScreen, Agent: agent, Instance: instance, Gen: cur.Generation, Cols: cur.Cols, Rows: cur.Rows}
	full := prev.Cols != cur.Cols || prev.Rows != cur.Rows || len(prev.Cells) != len(cur.Cells)
	var out []Screen
	add := func(l Line) {
		n := 8
		for _, r := range l.Runs {
			n += len(r.Text) + 32
		}
		if s.lineLen+n > maxSplit && len(s.Lines) > 0 {
			s.More = true
			out = append(out, s)
			s = Screen{T: TScreen, Agent: agent, Instance: instance, Gen: cur.Generation, Cols: cur.Cols, Rows: cur.Rows}
		}
		s.lineLen += n
		s.Lines = append(s.Lines, l)
	}
	cols := cur.Cols
	row := func(sn *pool.Snapshot, y int) []pool.Cell { return sn.Cells[y*cols : (y+1)*cols] }
	if full {
		s.Full = true
		for y := 0; y < cur.Rows; y++ {
			if l := EncodeLine(y, row(cur, y)); len(l.Runs) > 0 {
				add(l)
			}
		}
	} else {
		k := 0
		if changedRows(prev, cur, changed, 3) >= 3 {
			k = bestScroll(prev, cur)
		}
		s.Scroll = k
		for y := 0; y < cur.Rows; y++ {
			if k == 0 && changed != nil && !changed[y] {
				continue
			}
			var was []pool.Cell
			if y+k < cur.Rows {
				was = row(prev, y+k)
			}
			now := row(cur, y)
			if was == nil {
				if l := EncodeLine(y, now); len(l.Runs) > 0 {
					add(l)
				}
				continue
			}
			if !slices.Equal(was, now) {
				add(EncodeLine(y, now))
			}
		}
	}
	cursor := Cursor{X: cur.CursorX, Y: cur.CursorY, Visible: cur.CursorVisible}
	if full || cursor != (Cursor{X: prev.CursorX, Y: prev.CursorY, Visible: prev.CursorVisible}) {
		s.Cursor = &cursor
	}
	if full || cur.Title != prev.Title {
		t := cur.Title
		s.Title = &t
	}
	if m := modesOf(cur.Modes); full || m != modesOf(prev.Modes) {
		s.Modes = &m
	}
	return append(out, s)
}

// changedRows counts the rows that differ between prev and cur (of one
// size), stopping at limit; rows changed (if not nil) promises equal are
// not compared. Fewer than 3 changed rows cannot make a scroll win:
// bestScroll asks a shift to match more than one row more than no shift
// does, and a shift by k matches at most Rows-k rows.
func changedRows(prev, cur *pool.Snapshot, changed []bool, limit int) int {
	cols, n := cur.Cols, 0
	for y := 0; y < cur.Rows && n < limit; y++ {
		if changed != nil && !changed[y] {
			continue
		}
		if !slices.Equal(prev.Cells[y*cols:(y+1)*cols], cur.Cells[y*cols:(y+1)*cols]) {
			n++
		}
	}
	return n
}

// bestScroll finds the upward shift k (0 none) under which the most rows of
// cur equal rows of prev, when it beats no shift by more than one row.
func bestScroll(prev, cur *pool.Snapshot) int {
	rows, cols := cur.Rows, cur.Cols
	if rows < 3 {
		return 0
	}
	h := func(sn *pool.Snapshot, y int) uint64 {
		var x uint64 = 14695981039346656037
		for _, c := range sn.Cells[y*cols : (y+1)*cols] {
			x ^= uint64(c.Rune) | uint64(c.FG)<<21 | uint64(c.Attr)<<53 | uint64(c.Width)<<61
			x *= 1099511628211
			x ^= uint64(c.BG)
			x *= 1099511628211
		}
		return x
	}
	hp := make([]uint64, rows)
	hc := make([]uint64, rows)
	for y := 0; y < rows; y++ {
		hp[y], hc[y] = h(prev, y), h(cur, y)
	}
	score := func(k int) int {
		n := 0
		for y := 0; y+k < rows; y++ {
			if hc[y] == hp[y+k] {
				n++
			}
		}
		return n
	}
	base := score(0)
	best, bestN := 0, base+1
	for k := 1; k < rows-1; k++ {
		if rows-k <= bestN { // cannot beat the best any more
			break
		}
		if n := score(k); n > bestN {
			best, bestN = k, n
		}
	}
	return best
}

// Errors of Apply.
var (
	ErrNoScreen = errors.New("wire: screen update before a full snapshot")
)

// Apply applies s to dst (the client's copy of the screen). A non-Full update
// must match dst's size. It validates everything, so a bad server cannot make
// the client index out of range.
func Apply(dst *pool.Snapshot, s *Screen) error {
	if s.Full {
		if s.Cols < 1 || s.Rows < 1 || s.Cols > pool.MaxDim || s.Rows > pool.MaxDim {
			return fmt.Errorf("wire: screen of %s: bad size %dx%d", s.Agent, s.Cols, s.Rows)
		}
		n := s.Cols * s.Rows
		if cap(dst.Cells) >= n {
			dst.Cells = dst.Cells[:n]
		} else {
			dst.Cells = make([]pool.Cell, n)
		}
		for i := range dst.Cells {
			dst.Cells[i] = blank
		}
		dst.Cols, dst.Rows = s.Cols, s.Rows
	} else if dst.Cols == 0 {
		return ErrNoScreen
	} else if s.Cols != dst.Cols || s.Rows != dst.Rows {
		return fmt.Errorf("wire: screen of %s: update for %dx%d on a %dx%d screen", s.Agent, s.Cols, s.Rows, dst.Cols, dst.Rows)
	}
	cols, rows := dst.Cols, dst.Rows
	if k := s.Scroll; k != 0 {
		if k < 0 || k >= rows {
			return fmt.Errorf("wire: screen of %s: bad scroll %d", s.Agent, k)
		}
		copy(dst.Cells, dst.Cells[k*cols:])
		for i := (rows - k) * cols; i < rows*cols; i++ {
			dst.Cells[i] = blank
		}
	}
	for _, l := range s.Lines {
		if l.Y < 0 || l.Y >= rows {
			return fmt.Errorf("wire: screen of %s: row %d off a %d-row screen", s.Agent, l.Y, rows)
		}
		if err := DecodeLine(l, dst.Cells[l.Y*cols:(l.Y+1)*cols]); err != nil {
			return fmt.Errorf("wire: screen of %s: %w", s.Agent, err)
		}
	}
	if c := s.Cursor; c != nil {
		dst.CursorX, dst.CursorY, dst.CursorVisible = min(max(c.X, 0), cols-1), min(max(c.Y, 0), rows-1), c.Visible
	}
	if s.Title != nil {
		dst.Title = *s.Title
		dst.Modes.Title = *s.Title
	}
	if s.Modes != nil {
		dst.Modes = s.Modes.PoolModes(dst.Title)
	}
	dst.Generation = s.Gen
	return nil
}

package pool

// rows.go reads what the status monitor needs of a screen, row by row,
// without a full snapshot per read: the Screen records which rows
// each write touched (vt10x's own dirty rows), a row reader copies only the
// rows that are read, and a Terminal keeps each row's text, and its prompt
// reading, until a row it read changes.

import (
	"reflect"
	"sync"
	"unsafe"

	"github.com/hinshun/vt10x"

	"office/automation"
)

// rowGens is a Screen's record of when each row last changed: a generation
// per row, advanced when vt10x marks the row dirty. Equal generations mean
// the row's cells are the same. s.mu guards it.
type rowGens struct {
	dirty    *[]bool  // vt10x's dirty rows; nil: every write touches every row
	rowGen   []uint64 // per row, the rowClock of its last change
	rowClock uint64
}

// vtDirtyRows returns vt10x's per-row dirty flags, which it sets on every
// change to a row's cells and clears on Unlock, or nil when this vt10x keeps
// none where this version does (an unexported field: TestVTDirtyRowsFound
// pins it). Reading them under the Screen's lock, before any Unlock, is
// race-free: vt10x writes them only inside Write, under the same lock.
func vtDirtyRows(vt vt10x.Terminal) *[]bool {
	v := reflect.ValueOf(vt)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	st := v.Elem().FieldByName("State")
	if !st.IsValid() || st.Kind() != reflect.Pointer || st.IsNil() {
		return nil
	}
	f := st.Elem().FieldByName("dirty")
	if !f.IsValid() || f.Type() != reflect.TypeFor[[]bool]() || !f.CanAddr() {
		return nil
	}
	return (*[]bool)(unsafe.Pointer(f.UnsafeAddr()))
}

// initRowGens finds vt10x's dirty rows and starts every row at a first
// generation.
func (s *Screen) initRowGens() {
	s.dirty = vtDirtyRows(s.vt)
	s.touchAllRows()
}

// touchAllRows advances every row's generation (a resize, or no dirty rows
// to read).
func (s *Screen) touchAllRows() {
	s.rowClock++
	if len(s.rowGen) != s.rows {
		s.rowGen = make([]uint64, s.rows)
	}
	for y := range s.rowGen {
		s.rowGen[y] = s.rowClock
	}
}

// harvestRows advances the generation of each row vt10x marked dirty since
// its last Unlock. It must run under s.mu, before the Unlock that follows a
// write.
func (s *Screen) harvestRows() {
	if s.dirty == nil || len(*s.dirty) != s.rows || len(s.rowGen) != s.rows {
		s.touchAllRows()
		return
	}
	bumped := false
	for y, d := range *s.dirty {
		if d {
			if !bumped {
				s.rowClock++
				bumped = true
			}
			s.rowGen[y] = s.rowClock
		}
	}
}

// rowReader lends a Snapshot whose rows are copied from the Screen only when
// read (Snapshot.row). It is valid only inside Screen.readRows.
type rowReader struct {
	s      *Screen
	snap   *Snapshot
	filled []bool // row copied in this read
	traced []bool // row recorded in trace
	trace  *[]int // when set, every row read is appended once
	copied int    // rows copied in this read
}

var rowReaders = sync.Pool{New: func() any { return new(rowReader) }}

// fill copies row y from the screen unless this read did already.
func (r *rowReader) fill(y int) {
	if r.trace != nil && !r.traced[y] {
		r.traced[y] = true
		*r.trace = append(*r.trace, y)
	}
	if r.filled[y] {
		return
	}
	r.filled[y] = true
	r.copied++
	r.s.readRow(r.snap.Cells[y*r.snap.Cols:(y+1)*r.snap.Cols], y)
}

// gen returns row y's generation.
func (r *rowReader) gen(y int) uint64 { return r.s.rowGen[y] }

// traceRows records into dst, from now until untrace, every row read.
func (r *rowReader) traceRows(dst *[]int) {
	clear(r.traced)
	*dst = (*dst)[:0]
	r.trace = dst
}

func (r *rowReader) untrace() { r.trace = nil }

// readRows calls fn under s's lock with a row reader: its Snapshot has the
// size, cursor, title and modes of now, and copies a row's cells only when
// one is read. fn must not keep the reader or the Snapshot, nor call s. It
// returns how many rows fn made it copy.
func (s *Screen) readRows(fn func(r *rowReader)) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := snapshots.Get().(*Snapshot)
	defer snapshots.Put(snap)
	cols, rows := s.vt.Size()
	if n := cols * rows; cap(snap.Cells) >= n {
		snap.Cells = snap.Cells[:n]
	} else {
		snap.Cells = make([]Cell, n)
	}
	snap.Cols, snap.Rows = cols, rows
	cur := s.vt.Cursor()
	snap.CursorX, snap.CursorY = clampInt(cur.X, 0, cols-1), clampInt(cur.Y, 0, rows-1)
	snap.CursorVisible = s.vt.CursorVisible()
	snap.Modes = s.f.modes
	snap.Title = s.f.modes.Title
	snap.Generation = s.gen.Load()

	r := rowReaders.Get().(*rowReader)
	defer rowReaders.Put(r)
	r.s, r.snap, r.trace, r.copied = s, snap, nil, 0
	r.filled = resetBools(r.filled, rows)
	r.traced = resetBools(r.traced, rows)
	snap.lazy = r
	defer func() { snap.lazy, r.s, r.snap = nil, nil, nil }()
	fn(r)
	return r.copied
}

// resetBools returns b with n false entries, reusing its storage.
func resetBools(b []bool, n int) []bool {
	if cap(b) < n {
		return make([]bool, n)
	}
	b = b[:n]
	clear(b)
	return b
}

// rowCache is what a Terminal keeps of its screen between reads: the text of
// every row (Snapshot.RowText) with the generation it was read at, and the
// last prompt reading with the rows it read. It is the judge's
// automation.Rows: Len is the rows up to the last non-blank one. A few KiB
// an agent: no cells are kept.
type rowCache struct {
	gens  []uint64
	texts []string
	n     int    // rows up to the last non-blank one
	buf   []byte // a row's text being compared
	// copied counts the rows copied from the screen by this cache's reads
	// (tests and benchmarks).
	copied uint64

	prompt promptMemo
}

// Len returns the rows up to the last non-blank one.
func (c *rowCache) Len() int { return c.n }

// Row returns row i's text.
func (c *rowCache) Row(i int) string { return c.texts[i] }

// refresh re-reads the text of each row whose generation moved since the
// last read, and reports whether any row's text changed.
func (c *rowCache) refresh(r *rowReader) bool {
	rows := r.snap.Rows
	changed := false
	if len(c.texts) != rows {
		c.texts = make([]string, rows)
		c.gens = make([]uint64, rows)
		changed = true
	}
	before := r.copied
	for y := 0; y < rows; y++ {
		g := r.gen(y)
		if c.gens[y] == g {
			continue
		}
		c.gens[y] = g
		c.buf = appendRowText(c.buf[:0], r.snap.row(y))
		if string(c.buf) != c.texts[y] {
			c.texts[y] = string(c.buf)
			changed = true
		}
	}
	c.copied += uint64(r.copied - before)
	if changed {
		c.n = 0
		for y := rows - 1; y >= 0; y-- {
			if c.texts[y] != "" {
				c.n = y + 1
				break
			}
		}
	}
	return changed
}

// promptMemo is a prompt reading and what it depended on: the rows
// FindPrompt read (at their generations), and the cursor row when the
// prompt was not found (the hint is the cursor row's text).
type promptMemo struct {
	valid      bool
	cols, rows int
	cursorY    int
	read       []int    // the rows FindPrompt read
	gens       []uint64 // their generations then
	row        int
	text       string
	ok         bool
}

// current reports whether the memo still holds for the screen r reads.
func (m *promptMemo) current(r *rowReader) bool {
	if !m.valid || m.cols != r.snap.Cols || m.rows != r.snap.Rows || (!m.ok && m.cursorY != r.snap.CursorY) {
		return false
	}
	for i, y := range m.read {
		if r.gen(y) != m.gens[i] {
			return false
		}
	}
	return true
}

// stillMissing reports whether a prompt that was not found (every row
// read) is still not found: the size and the cursor row are the same, and
// no row that changed spells the marker or is a rule row now. A row that
// is neither cannot make FindPrompt's scan succeed: it neither starts a
// match nor completes the rules around one. Only the changed rows are
// copied; the memo takes their new generations.
func (m *promptMemo) stillMissing(r *rowReader, spec PromptSpec) bool {
	if !m.valid || m.ok || spec.Marker == "" || m.cols != r.snap.Cols || m.rows != r.snap.Rows || m.cursorY != r.snap.CursorY {
		return false
	}
	rule, below := spec.Rule, spec.RuleBelow
	if rule == 0 {
		rule = DefaultRule
	}
	if below == 0 {
		below = rule
	}
	for i, y := range m.read {
		if r.gen(y) == m.gens[i] {
			continue
		}
		if y == m.cursorY {
			return false
		}
		if _, match := r.snap.matchMarker(y, spec.Column, spec.Marker); match || r.snap.isRuleRow(y, rule) || r.snap.isRuleRow(y, below) {
			return false
		}
	}
	for i, y := range m.read {
		m.gens[i] = r.gen(y)
	}
	return true
}

// findPrompt is Snapshot.FindPrompt on the screen r reads, read again only
// when a row the last reading read changed (or the size, or, when it was
// not found, the cursor row); a prompt not found is looked for again only
// when a changed row could complete it (stillMissing).
func (c *rowCache) findPrompt(r *rowReader, spec PromptSpec) (row int, text string, ok bool) {
	m := &c.prompt
	before := r.copied
	if m.current(r) || m.stillMissing(r, spec) {
		c.copied += uint64(r.copied - before)
		return m.row, m.text, m.ok
	}
	r.traceRows(&m.read)
	m.row, m.text, m.ok = r.snap.FindPrompt(spec)
	r.untrace()
	c.copied += uint64(r.copied - before)
	m.gens = m.gens[:0]
	for _, y := range m.read {
		m.gens = append(m.gens, r.gen(y))
	}
	m.valid, m.cols, m.rows, m.cursorY = true, r.snap.Cols, r.snap.Rows, r.snap.CursorY
	return m.row, m.text, m.ok
}

var _ automation.Rows = (*rowCache)(nil)

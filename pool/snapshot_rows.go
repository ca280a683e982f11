package pool

// snapshot_rows.go brings a kept Snapshot up to date by copying only the rows
// that changed since it was taken (the row generations of rows.go), for a
// reader that keeps a copy per screen, such as the server's copy of what
// each client has.

import "slices"

// SnapshotRows brings dst up to the screen of now, copying only the rows
// whose generation moved: gens holds, per row, the generation dst's row was
// copied at, and is updated. dst must hold what this Screen's Snapshot or
// SnapshotRows put there when gens was recorded; an empty gens, or a size
// that changed, copies every row. It returns how many rows it copied.
func (s *Screen) SnapshotRows(dst *Snapshot, gens *[]uint64) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.vt.Lock()
	defer s.vt.Unlock()
	cols, rows := s.vt.Size()
	n := cols * rows
	all := dst.Cols != cols || dst.Rows != rows || len(dst.Cells) != n || len(*gens) != rows || len(s.rowGen) != rows
	if all {
		if cap(dst.Cells) >= n {
			dst.Cells = dst.Cells[:n]
		} else {
			dst.Cells = make([]Cell, n)
		}
		if cap(*gens) >= rows {
			*gens = (*gens)[:rows]
		} else {
			*gens = make([]uint64, rows)
		}
	}
	dst.Cols, dst.Rows = cols, rows
	copied := 0
	for y := 0; y < rows; y++ {
		var g uint64
		if y < len(s.rowGen) {
			g = s.rowGen[y]
		}
		if !all && g != 0 && (*gens)[y] == g {
			continue
		}
		s.readRow(dst.Cells[y*cols:(y+1)*cols], y)
		(*gens)[y] = g
		copied++
	}
	cur := s.vt.Cursor()
	dst.CursorX, dst.CursorY = clampInt(cur.X, 0, cols-1), clampInt(cur.Y, 0, rows-1)
	dst.CursorVisible = s.vt.CursorVisible()
	dst.Modes = s.f.modes
	dst.Title = s.f.modes.Title
	dst.Generation = s.gen.Load()
	return copied
}

// SnapshotRows is Screen.SnapshotRows of the Terminal's screen.
func (t *Terminal) SnapshotRows(dst *Snapshot, gens *[]uint64) int {
	return t.screen.SnapshotRows(dst, gens)
}

// RowsChanged marks, in dst (grown to fit), the rows that may differ
// between two snapshots of one screen whose row generations (as
// SnapshotRows keeps them) are was and now: a row copied at the same
// generation is the same row; one copied at none (0) may be anything. It
// returns nil when the generations cannot tell (of different heights).
func RowsChanged(dst []bool, was, now []uint64) []bool {
	if len(was) != len(now) {
		return nil
	}
	dst = slices.Grow(dst[:0], len(now))[:len(now)]
	for y, g := range now {
		dst[y] = g == 0 || g != was[y]
	}
	return dst
}

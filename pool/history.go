package pool

// history.go keeps what scrolled off the top of a Screen: a bounded ring of
// lines numbered for the life of the agent, each stored compactly (runs of
// same-style text, see AppendLine), readable row by row for a copy-mode view.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// History bounds.
const (
	// MaxHistory is the largest number of lines a History keeps (the top of
	// the history setting's range; the default is the settings table's).
	MaxHistory = 1000000
	// MaxLineBytes bounds one encoded line (AppendLine): a run costs at most
	// 1 header byte, two 5-byte colours and a 2-byte length, plus 4 bytes a
	// cell for its rune, so a row of MaxDim cells needs at most
	// 17 × MaxDim bytes. A History holding N lines of C columns thus holds
	// at most N × (17 × C + 40) bytes (40: the line's own slot).
	MaxLineBytes = 17 * MaxDim
	// historyArena is the largest size of the blocks encoded lines are
	// carved from (one allocation per block, not per line). The first block
	// is historyArenaMin and each next one twice the last, so an agent with a
	// few lines of history holds a few KiB, not 64.
	historyArena    = 64 * 1024
	historyArenaMin = 4 * 1024
)

// HistoryLine is one line that left the top of a Screen.
type HistoryLine struct {
	// Seq numbers the line: 0 for the agent's first, counting on across
	// restarts of the office (the persisted history carries the numbers).
	Seq int64
	// At is when the line left the screen, to the millisecond.
	At time.Time
	// Cells are the line's cells as Snapshot gives them (a Width-2 cell is
	// followed by its Width-0 right half), trailing blank cells in the
	// default background trimmed: a line is at most as wide as its screen
	// was, and may be narrower than the screen is now.
	Cells []Cell
}

// HistoryRecord is one line in its stored form: the bytes of AppendLine, as
// the ring holds them and the history file stores them. Line is never
// modified once made and may be shared.
type HistoryRecord struct {
	Seq  int64
	At   int64 // unix milliseconds
	Line []byte
}

// History is a bounded ring of lines that scrolled off a Screen, oldest first.
// It is safe for concurrent use: the Screen appends from the PTY reader while
// a view reads rows and a writer persists records. The zero value is not
// usable; create one with NewHistory.
type History struct {
	mu      sync.Mutex
	max     int
	lines   []HistoryRecord // ring; lines[head] is the oldest once full
	head    int
	total   int64 // the next line's Seq
	bytes   int   // bytes of the records held
	arena   []byte
	changed chan struct{}
}

// NewHistory returns an empty History that keeps the last max lines (max is
// clamped to [1, MaxHistory]).
func NewHistory(max int) *History {
	if max < 1 {
		max = 1
	}
	if max > MaxHistory {
		max = MaxHistory
	}
	return &History{max: max, changed: make(chan struct{}, 1)}
}

// Max returns how many lines h keeps.
func (h *History) Max() int { return h.max }

// Bounds returns the numbers of the lines h holds: first through total-1
// (first == total when it holds none). total counts every line ever appended,
// so a view keeps its place by Seq while older lines fall off. It is cheap
// (one short lock) and meant to be called every frame.
func (h *History) Bounds() (first, total int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.total - int64(len(h.lines)), h.total
}

// Bytes returns the bytes the held lines take (their encoded cells), not
// counting their 40-byte slots.
func (h *History) Bytes() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.bytes
}

// Changed receives a value (without blocking the appender: the channel holds
// one) after lines were appended.
func (h *History) Changed() <-chan struct{} { return h.changed }

// Restore appends a persisted record with its own number, for reloading a
// history file into a new ring. Records must come in increasing Seq order; a
// Seq below the ring's total is refused. The ring's lines are always
// numbered without gaps: a record after a gap (lines the file lost) drops the
// lines restored before it.
func (h *History) Restore(r HistoryRecord) error {
	if len(r.Line) > MaxLineBytes {
		return fmt.Errorf("pool: history line %d: %d bytes, more than %d", r.Seq, len(r.Line), MaxLineBytes)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if r.Seq < h.total {
		return fmt.Errorf("pool: history line %d restored after line %d", r.Seq, h.total-1)
	}
	if r.Seq > h.total {
		h.lines, h.head, h.bytes = h.lines[:0], 0, 0
		h.total = r.Seq
	}
	h.pushLocked(r.At, r.Line, false)
	return nil
}

// appendLine adds one encoded line taken at at; rec is copied.
func (h *History) appendLine(at int64, rec []byte) {
	h.mu.Lock()
	h.pushLocked(at, rec, true)
	h.mu.Unlock()
	select {
	case h.changed <- struct{}{}:
	default:
	}
}

// pushLocked stores rec as line h.total (copied into the arena when copy is
// set) and advances total, evicting the oldest line when full.
func (h *History) pushLocked(at int64, rec []byte, copyRec bool) {
	if copyRec {
		if cap(h.arena)-len(h.arena) < len(rec) {
			size := min(historyArena, max(historyArenaMin, 2*cap(h.arena)))
			h.arena = make([]byte, 0, max(size, len(rec)))
		}
		n := len(h.arena)
		h.arena = append(h.arena, rec...)
		rec = h.arena[n:len(h.arena):len(h.arena)]
	}
	r := HistoryRecord{Seq: h.total, At: at, Line: rec}
	h.total++
	h.bytes += len(rec)
	if len(h.lines) < h.max {
		h.lines = append(h.lines, r)
		return
	}
	h.bytes -= len(h.lines[h.head].Line)
	h.lines[h.head] = r
	h.head++
	if h.head == len(h.lines) {
		h.head = 0
	}
}

// atLocked returns the record of line seq, which must be held.
func (h *History) atLocked(seq int64) *HistoryRecord {
	first := h.total - int64(len(h.lines))
	i := h.head + int(seq-first)
	if i >= len(h.lines) {
		i -= len(h.lines)
	}
	return &h.lines[i]
}

// Rows decodes lines [from, to) (clamped to Bounds) into dst, reusing dst's
// rows and their Cells when their capacity suffices, and returns it: with a
// dst kept from frame to frame, reading the rows a view shows allocates
// nothing. It is the call a copy-mode view makes per frame.
func (h *History) Rows(from, to int64, dst []HistoryLine) []HistoryLine {
	h.mu.Lock()
	defer h.mu.Unlock()
	first := h.total - int64(len(h.lines))
	from, to = max(from, first), min(to, h.total)
	dst = dst[:0]
	for seq := from; seq < to; seq++ {
		r := h.atLocked(seq)
		if len(dst) < cap(dst) {
			dst = dst[:len(dst)+1]
		} else {
			dst = append(dst, HistoryLine{})
		}
		row := &dst[len(dst)-1]
		row.Seq, row.At = r.Seq, time.UnixMilli(r.At)
		row.Cells, _ = DecodeLine(r.Line, row.Cells[:0])
	}
	return dst
}

// Records appends to dst the stored records from line from on (clamped to
// Bounds), at most n of them, and returns dst. The records' Line bytes are
// shared, never modified, and stay valid after the line leaves the ring.
func (h *History) Records(from int64, n int, dst []HistoryRecord) []HistoryRecord {
	h.mu.Lock()
	defer h.mu.Unlock()
	first := h.total - int64(len(h.lines))
	for seq := max(from, first); seq < h.total && n > 0; seq, n = seq+1, n-1 {
		dst = append(dst, *h.atLocked(seq))
	}
	return dst
}

// ---- the stored form of a line ----

// Bits of a run's header byte: the low six are the run's Attr.
const (
	runFG     = 1 << 6 // a foreground colour follows (else DefaultFG)
	runBG     = 1 << 7 // a background colour follows (else DefaultBG)
	runAttrs  = 0x3f
	maxRunLen = 1<<14 - 1 // a run's text length fits a 2-byte uvarint
)

// ErrBadLine is returned by DecodeLine for bytes AppendLine did not make.
var ErrBadLine = errors.New("pool: malformed history line")

// AppendLine appends the stored form of a row of cells (as Snapshot gives
// them) to dst: runs of cells of one style, each a header byte (Attr in the
// low six bits, then whether a foreground and a background colour follow),
// the colours as uvarints, the text's length in bytes as a uvarint and the
// text in UTF-8, one rune per cell; the Width-0 right halves of wide runes
// are left out (DecodeLine puts them back from the rune's width). Trailing
// blank cells in the default background, not underlined, are trimmed. The
// result is at most MaxLineBytes for a row of at most MaxDim cells.
func AppendLine(dst []byte, cells []Cell) []byte {
	end := trimmedEnd(cells)
	for i := 0; i < end; {
		st := cells[i]
		h := byte(st.Attr) & runAttrs
		if st.FG != DefaultFG {
			h |= runFG
		}
		if st.BG != DefaultBG {
			h |= runBG
		}
		dst = append(dst, h)
		if h&runFG != 0 {
			dst = binary.AppendUvarint(dst, uint64(st.FG))
		}
		if h&runBG != 0 {
			dst = binary.AppendUvarint(dst, uint64(st.BG))
		}
		// The text length is written once the run is known: reserve two
		// bytes (a run of at most MaxDim cells is under 2^14 bytes).
		lenAt := len(dst)
		dst = append(dst, 0, 0)
		j := i
		for ; j < end; j++ {
			c := &cells[j]
			if c.Width == 0 {
				continue
			}
			if c.FG != st.FG || c.BG != st.BG || c.Attr != st.Attr || len(dst)-lenAt-2 > maxRunLen-utf8.UTFMax {
				break
			}
			dst = utf8.AppendRune(dst, c.Rune)
		}
		n := len(dst) - lenAt - 2
		dst[lenAt], dst[lenAt+1] = byte(n&0x7f)|0x80, byte(n>>7)
		i = j
	}
	return dst
}

// DecodeLine appends the cells of a line stored by AppendLine to dst and
// returns dst. A wide rune (two columns) gets its Width-0 right half back.
func DecodeLine(rec []byte, dst []Cell) ([]Cell, error) {
	for len(rec) > 0 {
		h := rec[0]
		rec = rec[1:]
		c := Cell{Width: 1, FG: DefaultFG, BG: DefaultBG, Attr: Attr(h & runAttrs)}
		if h&runFG != 0 {
			v, k := binary.Uvarint(rec)
			if k <= 0 {
				return dst, ErrBadLine
			}
			c.FG, rec = Color(v), rec[k:]
		}
		if h&runBG != 0 {
			v, k := binary.Uvarint(rec)
			if k <= 0 {
				return dst, ErrBadLine
			}
			c.BG, rec = Color(v), rec[k:]
		}
		n, k := binary.Uvarint(rec)
		if k <= 0 || n > uint64(len(rec)-k) {
			return dst, ErrBadLine
		}
		text := rec[k : k+int(n)]
		rec = rec[k+int(n):]
		for len(text) > 0 {
			if text[0] < utf8.RuneSelf {
				c.Rune, c.Width = rune(text[0]), 1
				dst = append(dst, c)
				text = text[1:]
				continue
			}
			r, size := utf8.DecodeRune(text)
			text = text[size:]
			c.Rune, c.Width = r, 1
			if r >= 0x1100 && cellWidth(r) == 2 {
				c.Width = 2
				dst = append(dst, c)
				c.Rune, c.Width = 0, 0
			}
			dst = append(dst, c)
		}
	}
	return dst, nil
}

// cellWidth is the width the Filter gives r (NewFilter's condition:
// ambiguous runes one column).
func cellWidth(r rune) int {
	c := runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true}
	return c.RuneWidth(r)
}

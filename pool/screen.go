package pool

// screen.go wraps one vt10x terminal: every byte reaches it through a Filter,
// every access happens under one mutex, and a panic inside vt10x is contained.

import (
	"bytes"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/hinshun/vt10x"
)

// Screen size limits: NewScreen and Resize clamp both dimensions to
// [MinDim, MaxDim].
const (
	// MinDim is the smallest width or height of a Screen.
	MinDim = 1
	// MaxDim is the largest width or height of a Screen (vt10x keeps two
	// full grids, so this bounds memory).
	MaxDim = 2048
)

// vt10x's unexported cursor state bit for "the next rune wraps first".
const vtCursorWrapNext = 1 << 1

// placeholderUTF8 is WidePlaceholder encoded.
var placeholderUTF8 = []byte(string(WidePlaceholder))

// Screen is an emulated terminal screen fed with a child's raw PTY output. It
// is safe for concurrent use: Feed from the PTY reader, Snapshot, Resize and
// the accessors from anywhere. All of its vt10x calls happen under one mutex.
type Screen struct {
	mu      sync.Mutex
	f       *Filter
	vt      vt10x.Terminal
	changed interface{ Changed(vt10x.ChangeFlag) bool }
	cols    int
	rows    int
	reply   func([]byte)
	hist    *capture         // nil: no history (history_capture.go)
	rowGens                  // which rows changed when (rows.go)
	region  region           // vt10x's scroll region, as far as followed (batch.go)
	noBatch bool             // write the Filter's output to vt10x as it is (tests)
	lines   *[][]vt10x.Glyph // vt10x's rows (vtLines); nil: read through Cell
	// batchHook, when set (tests), is called before each operation the
	// batch follows, with its offset in the read.
	batchHook func(i int)

	gen    atomic.Uint64
	panics atomic.Int64
}

// vtWriter receives vt10x's own query answers (CPR, DSR).
type vtWriter struct{ s *Screen }

// Write hands p to the Screen's reply sink; it never fails.
func (w vtWriter) Write(p []byte) (int, error) {
	w.s.sendReply(p)
	return len(p), nil
}

// NewScreen returns a blank screen of cols×rows (each clamped to
// [MinDim, MaxDim]) with the cursor at the top left. reply receives the
// bytes to write back to the PTY: answers to terminal queries, from the
// Filter (DA1, DA2, OSC 10/11, DECRQM) and from vt10x (CPR, DSR), in stream
// order. It is called from inside Feed with the Screen's lock held, so it must
// not block and must not call the Screen; p is only valid during the call
// (copy it to keep it). reply may be nil: answers are then discarded.
func NewScreen(cols, rows int, reply func([]byte)) *Screen {
	cols, rows = clampDim(cols), clampDim(rows)
	s := &Screen{f: NewFilter(), cols: cols, rows: rows, reply: reply}
	s.vt = vt10x.New(vt10x.WithSize(cols, rows), vt10x.WithWriter(vtWriter{s}))
	s.changed, _ = s.vt.(interface{ Changed(vt10x.ChangeFlag) bool })
	s.region = region{0, rows - 1, true}
	s.lines = vtLines(s.vt)
	s.initRowGens()
	return s
}

func clampDim(n int) int {
	if n < MinDim {
		return MinDim
	}
	if n > MaxDim {
		return MaxDim
	}
	return n
}

func (s *Screen) sendReply(p []byte) {
	if s.reply != nil && len(p) > 0 {
		s.reply(p)
	}
}

// feedBufs hold the Filter's output during one Feed, shared by every
// screen: an idle agent keeps no buffer of its own (a read's output can be as
// large as the read, which is 32 KiB).
var feedBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// Feed parses p, the next bytes read from the PTY (any split is fine: a
// rune or sequence cut between two Feeds is completed by the next). It
// updates the screen and modes, sends query answers to the reply sink, and
// advances Generation if the screen, the title or the modes changed. A panic
// inside vt10x is recovered and counted (Panics); the screen stays usable.
func (s *Screen) Feed(p []byte) {
	if len(p) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := feedBufs.Get().(*[]byte)
	defer feedBufs.Put(out)
	before := s.f.modes
	wrote := false
	for len(p) > 0 {
		var n int
		*out, n = s.f.process((*out)[:0], p, true)
		if len(*out) > 0 {
			s.batchWrite(*out)
			wrote = true
		}
		if len(s.f.reply) > 0 {
			s.sendReply(s.f.reply)
			s.f.reply = s.f.reply[:0]
		}
		p = p[n:]
	}
	if s.vtChanged(wrote) || s.f.modes != before {
		s.gen.Add(1)
	}
}

// vtChanged reports and clears vt10x's change flags. Reading them under
// vt10x's lock inside s.mu means no concurrent Unlock (which clears them)
// can come between the write and this read.
func (s *Screen) vtChanged(wrote bool) bool {
	if !wrote || s.changed == nil {
		if wrote {
			s.touchAllRows()
		}
		return wrote
	}
	s.vt.Lock()
	s.harvestRows() // before Unlock clears vt10x's dirty rows
	c := s.changed.Changed(vt10x.ChangedScreen | vt10x.ChangedTitle)
	s.vt.Unlock()
	return c
}

// write passes filtered bytes to vt10x. Before each wide rune it checks
// whether the cursor sits in the last column: a real terminal then wraps
// first (the wide rune cannot be split), so a blank is written to make
// vt10x wrap too.
func (s *Screen) write(b []byte) {
	off := 0
	for s.cols >= 2 {
		k := bytes.Index(b[off:], placeholderUTF8)
		if k < 0 {
			break
		}
		k += off
		_, size := utf8.DecodeLastRune(b[:k])
		start := k - size
		if start > 0 {
			s.vtWrite(b[:start])
			b = b[start:]
			k -= start
		}
		cur := s.vt.Cursor()
		if cur.X == s.cols-1 && cur.State&vtCursorWrapNext == 0 && s.vt.Mode()&vt10x.ModeWrap != 0 {
			s.vtWrite([]byte{' '})
		}
		off = k + len(placeholderUTF8)
	}
	if len(b) > 0 {
		s.vtWrite(b)
	}
}

// vtWrite is vt10x's Write with its panics contained. The Filter sends only
// complete runes, so the count it returns is always len(b).
func (s *Screen) vtWrite(b []byte) {
	defer func() {
		if r := recover(); r != nil {
			s.panics.Add(1)
			if s.hist != nil {
				s.hist.known = false
			}
		}
	}()
	if s.hist != nil {
		s.captureWrite(b)
		return
	}
	_, _ = s.vt.Write(b)
}

// Resize changes the screen to cols×rows (each clamped to [MinDim, MaxDim]),
// keeping the text that still fits (vt10x slides the rows up when the cursor
// would fall off the bottom). It advances Generation when the size changed.
func (s *Screen) Resize(cols, rows int) {
	cols, rows = clampDim(cols), clampDim(rows)
	s.mu.Lock()
	defer s.mu.Unlock()
	if cols == s.cols && rows == s.rows {
		return
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				s.panics.Add(1)
			}
		}()
		s.captureResize(cols, rows)
		s.vt.Resize(cols, rows)
	}()
	s.cols, s.rows = s.vt.Size()
	s.region = region{0, s.rows - 1, true} // vt10x's resize resets it
	s.touchAllRows()
	s.vt.Lock()
	//lint:ignore SA2001 vt10x's Unlock clears the change flags the resize set: the empty section is the point
	s.vt.Unlock()
	s.gen.Add(1)
}

// Size returns the screen's width and height in cells.
func (s *Screen) Size() (cols, rows int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cols, s.rows
}

// Generation returns a counter that advances whenever the screen's cells,
// cursor, size, title or modes may have changed; equal values mean nothing
// changed in between. It is safe to call without taking the Screen's lock
// and never blocks.
func (s *Screen) Generation() uint64 { return s.gen.Load() }

// Modes returns the modes the child has set so far.
func (s *Screen) Modes() Modes {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.f.modes
}

// Panics returns how many panics inside vt10x (or the batch in front of it)
// Feed and Resize have recovered from (negative counts and the like; the
// Filter should leave none).
func (s *Screen) Panics() int { return int(s.panics.Load()) }

// Text returns the screen's text as Snapshot.Text does. It allocates the
// text only: the cells are copied into a Snapshot borrowed from the pool
// screen reads share (a copy of its own would be 75 KiB of garbage per call
// at 120×40, and callers such as the stall sampler read every agent's text
// every few seconds).
func (s *Screen) Text() string {
	snap := snapshots.Get().(*Snapshot)
	defer snapshots.Put(snap)
	s.Snapshot(snap)
	return snap.Text()
}

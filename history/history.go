// Package history keeps an agent's pane history on disk: the lines that
// scrolled off its screen (pool.History), appended to the agent's history
// file as they come, so that they survive a stop, a crash and a restart of
// the office, and can be read with no office running (`office history`).
//
// An agent's folder in the state directory (STATE/agents/NAME) holds two
// files: "history", appended to, and "history.1", the one before it. Once
// "history" holds the agent's limit of lines (its `history` setting) it is
// renamed to "history.1", replacing the older one, and a new "history" is
// started, so the disk holds between one and two limits' worth of lines.
//
// A file is the 8-byte header "OFFHIST1" followed by records, each
//
//	uvarint n | payload (n bytes) | CRC-32C of the payload (4 bytes, little endian)
//	payload = uvarint seq | uvarint at | line
//
// where seq numbers the line (from 0, counting on across restarts), at is
// when it left the screen (unix milliseconds) and line is its cells as
// pool.AppendLine stores them. A record whose length, bytes or checksum is
// cut short or wrong ends the file for the reader: a record torn by a crash
// (kill -9 in the middle of a write) is skipped, and Open cuts it off before
// appending again. docs/history.md describes the format and its bounds.
//
// Files are opened without following symlinks, with mode 0600, in a
// folder created 0700. Records are written with one write per batch and no
// fsync: what was written before the office process died is readable, what
// the kernel had not written before a power loss may not be.
package history

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"office/pool"
)

// File names and format constants.
const (
	// FileName is the history file appended to, in the agent's folder.
	FileName = "history"
	// OldFileName is the file rotated out before it.
	OldFileName = "history.1"
	// Header starts every history file.
	Header = "OFFHIST1"
	// MaxPayload bounds a record's payload: two 10-byte uvarints and a
	// line of at most pool.MaxLineBytes. A longer length ends the file.
	MaxPayload = 20 + pool.MaxLineBytes
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// ErrNotHistory is returned for a file that does not start with Header.
var ErrNotHistory = errors.New("not an office history file")

// Log appends an agent's history records to its history file, rotating it
// at the agent's limit. It is not safe for concurrent use: one goroutine per
// agent writes.
type Log struct {
	dir  string
	max  int      // records per file
	f    *os.File // the history file, opened for appending
	n    int      // records in it
	size int64    // its length: where a failed write is cut back to
	torn bool     // a failed write could not be cut back: cut before the next
	next int64    // the seq after the last record written (0: none yet)
	buf  []byte
	recs []pool.HistoryRecord // the records in buf
}

// Open opens (creating them if needed) the history files in dir for
// appending at most limit lines per file, and returns the last limit records
// they hold, oldest first, for a new pool.History. A torn record at the end
// of the file is cut off first, so what is appended next is readable.
func Open(dir string, limit int) (*Log, []pool.HistoryRecord, error) {
	limit = min(pool.MaxHistory, max(1, limit))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("history: %w", err)
	}
	keep := newTail(limit)
	if _, _, err := readFile(filepath.Join(dir, OldFileName), keep.add); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, err
	}
	path := filepath.Join(dir, FileName)
	good, n, err := readFile(path, keep.add)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, err
	}
	f, err := openFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return nil, nil, err
	}
	if good < int64(len(Header)) {
		// New, or torn inside its header: start it over.
		n, good = 0, 0
	}
	if err := f.Truncate(good); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("history: cut %s after its last whole record: %w", path, err)
	}
	if good == 0 {
		if _, err := f.Write([]byte(Header)); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("history: %w", err)
		}
	}
	size := max(good, int64(len(Header)))
	return &Log{dir: dir, max: limit, f: f, n: n, size: size}, keep.records(), nil
}

// openFile opens path without following a symlink, mode 0600 when created.
func openFile(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return f, nil
}

// Append writes recs, in order, rotating the file when it holds the limit.
// Each file gets one write per call. A write that fails (a full disk) is
// cut back off the file, so no torn record is left for the reader to stop
// at: the records before Next are in the file, the others may be appended
// again.
func (l *Log) Append(recs []pool.HistoryRecord) error {
	if l.torn {
		if err := l.f.Truncate(l.size); err != nil {
			return fmt.Errorf("history: cut a failed write off: %w", err)
		}
		l.torn = false
		if l.size == 0 { // a new file whose header did not go in
			if _, err := l.f.Write([]byte(Header)); err != nil {
				l.torn = true
				return fmt.Errorf("history: %w", err)
			}
			l.size = int64(len(Header))
		}
	}
	l.buf, l.recs = l.buf[:0], l.recs[:0]
	for _, r := range recs {
		if l.n+len(l.recs) >= l.max {
			if err := l.write(); err != nil {
				return err
			}
			if err := l.rotate(); err != nil {
				return err
			}
		}
		l.buf = AppendRecord(l.buf, r)
		l.recs = append(l.recs, r)
	}
	return l.write()
}

// Next is the seq after the last record this Log wrote (0 before any).
func (l *Log) Next() int64 { return l.next }

func (l *Log) write() error {
	if len(l.buf) == 0 {
		return nil
	}
	n, err := l.f.Write(l.buf)
	if err != nil {
		if n > 0 && l.f.Truncate(l.size) != nil {
			l.torn = true
		}
		l.buf, l.recs = l.buf[:0], l.recs[:0]
		return fmt.Errorf("history: %w", err)
	}
	l.size += int64(n)
	l.n += len(l.recs)
	l.next = l.recs[len(l.recs)-1].Seq + 1
	l.buf, l.recs = l.buf[:0], l.recs[:0]
	return nil
}

// rotate renames the full file to OldFileName and starts a new one.
func (l *Log) rotate() error {
	if err := l.f.Close(); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	path := filepath.Join(l.dir, FileName)
	if err := os.Rename(path, filepath.Join(l.dir, OldFileName)); err != nil {
		return fmt.Errorf("history: rotate: %w", err)
	}
	f, err := openFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_TRUNC)
	if err != nil {
		return err
	}
	l.f, l.n, l.size = f, 0, 0
	if _, err := f.Write([]byte(Header)); err != nil {
		l.torn = true // a header cut short: cut it off and write it again
		return fmt.Errorf("history: %w", err)
	}
	l.size = int64(len(Header))
	return nil
}

// Close closes the file.
func (l *Log) Close() error {
	if err := l.f.Close(); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
}

// AppendRecord appends r in the file's record form to dst.
func AppendRecord(dst []byte, r pool.HistoryRecord) []byte {
	var head [2 * binary.MaxVarintLen64]byte
	h := binary.AppendUvarint(head[:0], uint64(r.Seq))
	h = binary.AppendUvarint(h, uint64(r.At))
	dst = binary.AppendUvarint(dst, uint64(len(h)+len(r.Line)))
	start := len(dst)
	dst = append(dst, h...)
	dst = append(dst, r.Line...)
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start:], crcTable))
}

// Read returns the last keep records of the history files in dir (both
// files, oldest first), skipping a torn record at the end. keep <= 0 means
// pool.MaxHistory. A folder with no history files gives none and no error.
// It never writes: it is safe while an office appends.
func Read(dir string, keep int) ([]pool.HistoryRecord, error) {
	if keep <= 0 {
		keep = pool.MaxHistory
	}
	t := newTail(keep)
	for _, name := range []string{OldFileName, FileName} {
		if _, _, err := readFile(filepath.Join(dir, name), t.add); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	return t.records(), nil
}

// readFile calls add for each whole record of the file at path and returns
// the offset just after the last one and how many there were. A torn or
// damaged record ends the file without an error; a file that is not a
// history file is ErrNotHistory.
func readFile(path string, add func(pool.HistoryRecord)) (good int64, n int, err error) {
	f, err := openFile(path, os.O_RDONLY)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64*1024)
	var head [len(Header)]byte
	if k, err := io.ReadFull(r, head[:]); err != nil {
		if k == 0 || errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, 0, nil // empty, or torn inside its header
		}
		return 0, 0, fmt.Errorf("history: %s: %w", path, err)
	}
	if string(head[:]) != Header {
		return 0, 0, fmt.Errorf("history: %s: %w", path, ErrNotHistory)
	}
	good = int64(len(Header))
	var payload []byte
	for {
		size, err := binary.ReadUvarint(r)
		if err != nil || size > MaxPayload {
			return good, n, nil
		}
		if cap(payload) < int(size)+4 {
			payload = make([]byte, int(size)+4)
		}
		payload = payload[:int(size)+4]
		if _, err := io.ReadFull(r, payload); err != nil {
			return good, n, nil
		}
		body := payload[:size]
		if crc32.Checksum(body, crcTable) != binary.LittleEndian.Uint32(payload[size:]) {
			return good, n, nil
		}
		seq, k1 := binary.Uvarint(body)
		if k1 <= 0 {
			return good, n, nil
		}
		at, k2 := binary.Uvarint(body[k1:])
		if k2 <= 0 {
			return good, n, nil
		}
		line := append([]byte(nil), body[k1+k2:]...)
		add(pool.HistoryRecord{Seq: int64(seq), At: int64(at), Line: line})
		good += int64(uvarintLen(size)) + int64(size) + 4
		n++
	}
}

func uvarintLen(v uint64) int {
	var b [binary.MaxVarintLen64]byte
	return len(binary.AppendUvarint(b[:0], v))
}

// tail keeps the last max records added.
type tail struct {
	max  int
	ring []pool.HistoryRecord
	next int
}

func newTail(max int) *tail { return &tail{max: max} }

func (t *tail) add(r pool.HistoryRecord) {
	// A record numbered below the last kept one (a file rotated while
	// being read, or damaged) cannot be put in order: drop what was kept
	// after it rather than show lines twice or out of order.
	if n := len(t.ring); n > 0 && r.Seq <= t.last().Seq {
		kept := t.records()
		for len(kept) > 0 && kept[len(kept)-1].Seq >= r.Seq {
			kept = kept[:len(kept)-1]
		}
		t.ring, t.next = kept, 0
	}
	if len(t.ring) < t.max {
		t.ring = append(t.ring, r)
		return
	}
	t.ring[t.next] = r
	t.next = (t.next + 1) % t.max
}

func (t *tail) last() pool.HistoryRecord {
	if len(t.ring) < t.max || t.next == 0 {
		return t.ring[len(t.ring)-1]
	}
	return t.ring[t.next-1]
}

// records returns the kept records, oldest first.
func (t *tail) records() []pool.HistoryRecord {
	if len(t.ring) < t.max || t.next == 0 {
		return append([]pool.HistoryRecord(nil), t.ring...)
	}
	return append(append([]pool.HistoryRecord(nil), t.ring[t.next:]...), t.ring[:t.next]...)
}

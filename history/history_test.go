package history

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"office/pool"
)

func rec(seq int) pool.HistoryRecord {
	cells := []pool.Cell{}
	for _, r := range fmt.Sprintf("line %d 中", seq) {
		w := uint8(1)
		if r == '中' {
			w = 2
		}
		cells = append(cells, pool.Cell{Rune: r, Width: w, FG: pool.DefaultFG, BG: pool.DefaultBG})
		if w == 2 {
			cells = append(cells, pool.Cell{Width: 0, FG: pool.DefaultFG, BG: pool.DefaultBG})
		}
	}
	return pool.HistoryRecord{Seq: int64(seq), At: 1_700_000_000_000 + int64(seq), Line: pool.AppendLine(nil, cells)}
}

func recs(from, to int) []pool.HistoryRecord {
	var out []pool.HistoryRecord
	for i := from; i < to; i++ {
		out = append(out, rec(i))
	}
	return out
}

func wantSeqs(t *testing.T, got []pool.HistoryRecord, from, to int) {
	t.Helper()
	if len(got) != to-from {
		t.Fatalf("%d records, want %d..%d", len(got), from, to-1)
	}
	for i, r := range got {
		want := rec(from + i)
		if r.Seq != want.Seq || r.At != want.At || string(r.Line) != string(want.Line) {
			t.Fatalf("record %d = %+v, want %+v", i, r, want)
		}
	}
}

func TestAppendReadAndReopen(t *testing.T) {
	dir := t.TempDir()
	l, old, err := Open(dir, 100)
	if err != nil || len(old) != 0 {
		t.Fatalf("open: %v, %d records", err, len(old))
	}
	if err := l.Append(recs(0, 30)); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(recs(30, 40)); err != nil {
		t.Fatal(err)
	}
	got, err := Read(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantSeqs(t, got, 0, 40)
	l.Close()
	l, old, err = Open(dir, 100)
	if err != nil {
		t.Fatal(err)
	}
	wantSeqs(t, old, 0, 40)
	if err := l.Append(recs(40, 45)); err != nil {
		t.Fatal(err)
	}
	l.Close()
	got, _ = Read(dir, 10)
	wantSeqs(t, got, 35, 45)
	st, err := os.Stat(filepath.Join(dir, FileName))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("history file mode %v, %v", st.Mode(), err)
	}
}

// TestCapOnDisk: with a limit of 10 the disk holds the last 10 to 20 lines.
func TestCapOnDisk(t *testing.T) {
	dir := t.TempDir()
	l, _, err := Open(dir, 10)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 95; i += 5 {
		if err := l.Append(recs(i, i+5)); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	got, err := Read(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantSeqs(t, got, 80, 95) // history.1: 80..89, history: 90..94
	for _, name := range []string{FileName, OldFileName} {
		var n int
		if _, n, err = readFile(filepath.Join(dir, name), func(pool.HistoryRecord) {}); err != nil || n > 10 {
			t.Fatalf("%s holds %d records (%v), limit 10", name, n, err)
		}
	}
	_, old, err := Open(dir, 10)
	if err != nil {
		t.Fatal(err)
	}
	wantSeqs(t, old, 85, 95)
}

// TestTornRecordSkipped: a record cut short by a crash ends the file for the
// reader, and Open cuts it off so what is appended next is readable.
func TestTornRecordSkipped(t *testing.T) {
	dir := t.TempDir()
	l, _, err := Open(dir, 100)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Append(recs(0, 5)); err != nil {
		t.Fatal(err)
	}
	l.Close()
	whole := AppendRecord(nil, rec(5))
	for _, cut := range []int{1, len(whole) / 2, len(whole) - 1} {
		f, err := os.OpenFile(filepath.Join(dir, FileName), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(whole[:cut])
		f.Close()
		got, err := Read(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		wantSeqs(t, got, 0, 5)
		l, old, err := Open(dir, 100)
		if err != nil {
			t.Fatal(err)
		}
		wantSeqs(t, old, 0, 5)
		l.Close()
	}
	// A flipped byte in the last record fails its checksum.
	l, _, _ = Open(dir, 100)
	l.Append(recs(5, 7))
	l.Close()
	path := filepath.Join(dir, FileName)
	b, _ := os.ReadFile(path)
	b[len(b)-6] ^= 0xff
	os.WriteFile(path, b, 0o600)
	got, _ := Read(dir, 0)
	wantSeqs(t, got, 0, 6)
	l, _, _ = Open(dir, 100)
	l.Append(recs(6, 8))
	l.Close()
	got, _ = Read(dir, 0)
	wantSeqs(t, got, 0, 8)
}

func TestRefusesSymlinksAndForeignFiles(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	os.WriteFile(target, []byte("keep me"), 0o600)
	os.Symlink(target, filepath.Join(dir, FileName))
	if _, _, err := Open(dir, 10); err == nil {
		t.Fatal("Open followed a symlink")
	}
	if b, _ := os.ReadFile(target); string(b) != "keep me" {
		t.Fatalf("the symlink's target was written: %q", b)
	}
	dir2 := t.TempDir()
	os.WriteFile(filepath.Join(dir2, FileName), []byte("something else entirely"), 0o600)
	if _, _, err := Open(dir2, 10); err == nil {
		t.Fatal("Open took a file that is not a history file")
	}
	if _, err := Read(t.TempDir(), 0); err != nil {
		t.Fatalf("no files: %v", err)
	}
}

// A failed write (the disk full) leaves the file as it was and Next where
// it was: the same records appended again once writes work are read back
// once, in order.
func TestFailedAppendCanBeRetried(t *testing.T) {
	dir := t.TempDir()
	l, _, err := Open(dir, 100)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Append(recs(0, 5)); err != nil || l.Next() != 5 {
		t.Fatalf("append: %v, next %d", err, l.Next())
	}
	good := l.f
	ro, err := os.Open(filepath.Join(dir, FileName)) // every write fails
	if err != nil {
		t.Fatal(err)
	}
	l.f = ro
	if err := l.Append(recs(5, 9)); err == nil {
		t.Fatal("an append into a read-only descriptor succeeded")
	}
	if l.Next() != 5 || l.n != 5 {
		t.Fatalf("after a failed append: next %d, %d records counted; want 5, 5", l.Next(), l.n)
	}
	ro.Close()
	l.f = good
	if err := l.Append(recs(5, 9)); err != nil || l.Next() != 9 {
		t.Fatalf("the retried append: %v, next %d", err, l.Next())
	}
	l.Close()
	got, err := Read(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantSeqs(t, got, 0, 9)
}

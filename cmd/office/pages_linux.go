package main

// pages_linux.go lets an attached UI give back the pages of office's binary
// it touched only to start.
//
// office is one binary: the server (the engine, NATS, SQLite) is linked into
// the UI too. Starting touches far more of it than the UI then runs (package
// initialisation of every linked package, flag parsing, the config, the
// dial), and the kernel maps up to 16 pages of the file around each page
// touched, so a UI held 18–19 MiB of the binary's pages that it never uses
// again. They are clean pages of the executable (read-only text and data,
// never written), so dropping them from this process's page tables loses
// nothing: the page cache keeps them (the server maps the same file), and a
// page the UI uses again is mapped back on its next touch.

import (
	"bufio"
	"debug/elf"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// pagesSettle is how long after the UI starts the start-up pages are
// dropped: by then the first frame is drawn and the pages the UI keeps
// using (its frame, the socket's reader, the renderer) are touched again
// within a few frames.
const pagesSettle = 2 * time.Second

// releaseStartPages drops, after pagesSettle, this process's mappings of
// its own executable's read-only segments (see the file comment). Errors
// are ignored: the pages stay mapped, which costs memory only.
func releaseStartPages() {
	time.AfterFunc(pagesSettle, func() { _ = dropExecutablePages() })
}

// dropExecutablePages advises MADV_DONTNEED for every read-only, private
// mapping of the executable listed in /proc/self/maps.
func dropExecutablePages() error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if p, err := filepath.EvalSymlinks(exe); err == nil {
		exe = p
	}
	// A binary the loader relocates (-buildmode=pie, or one linked
	// externally with RELRO) had read-only data written at load before it
	// was made read-only: dropping those pages would map back the file's
	// unrelocated bytes. Only a fixed-address executable with nothing for
	// the loader to write (Go's default, internally linked) is safe. The
	// mapped file is read through /proc/self/exe, which stays the running
	// binary even after the file at its path was replaced.
	if moved, err := relocatedAtLoad("/proc/self/exe"); err != nil || moved {
		return err
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return err
	}
	defer f.Close()
	type span struct{ start, end uintptr }
	var spans []span
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "start-end perms offset dev inode path"
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[5] != exe || len(fields[1]) < 4 || fields[1][1] == 'w' || fields[1][3] != 'p' {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		spans = append(spans, span{uintptr(start), uintptr(end)})
	}
	if err := sc.Err(); err != nil {
		return err
	}
	for _, s := range spans {
		if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, s.start, s.end-s.start, syscall.MADV_DONTNEED); errno != 0 {
			return errno
		}
	}
	return nil
}

// relocatedAtLoad reports whether the ELF executable at path has read-only
// pages the dynamic loader writes first: position independent (ET_DYN), a
// PT_GNU_RELRO segment (made read-only after relocation), or text
// relocations. Dynamic relocations of a fixed-address binary without RELRO
// (Go's internal linker with cgo) land in writable segments, which are never
// dropped.
func relocatedAtLoad(path string) (bool, error) {
	f, err := elf.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if f.Type == elf.ET_DYN {
		return true, nil
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_GNU_RELRO {
			return true, nil
		}
	}
	if v, err := f.DynValue(elf.DT_TEXTREL); err == nil && len(v) > 0 {
		return true, nil
	}
	if v, err := f.DynValue(elf.DT_FLAGS); err == nil && len(v) > 0 && v[0]&uint64(elf.DF_TEXTREL) != 0 {
		return true, nil
	}
	return false, nil
}

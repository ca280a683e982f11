package ui

// ttyinput.go: the person's keys are read through Go's poller.

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// pollableInput returns a reader of the person's terminal in whose reads
// wait in Go's poller, and the function that ends it (closing the file,
// which also ends a read under way). Bubble Tea reads a terminal it is given
// as a file through its own epoll in a blocking system call, and hands each
// read to its parser on another goroutine: that hand-off, from a thread
// parked in a system call, cost a typed key about 0.1 ms on a 2-core
// machine before office saw it. A plain reader makes Bubble Tea read on a
// goroutine of its own, which here parks in the poller and lets the parser
// run on the same thread.
//
// The terminal is opened again by its device path, so the non-blocking mode
// the poller needs is set on office's own open file and never on the one
// the person's shell shares (a shell handed a non-blocking terminal can
// exit on its first read). Where that cannot be done (no /proc, another
// device, not a terminal) in is returned as it is and the stop does
// nothing. Raw mode is office's (App.Run) either way.
func pollableInput(in *os.File) (io.Reader, func()) {
	var st0 syscall.Stat_t
	if err := syscall.Fstat(int(in.Fd()), &st0); err != nil || st0.Mode&syscall.S_IFMT != syscall.S_IFCHR {
		return in, func() {}
	}
	path, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", in.Fd()))
	if err != nil {
		return in, func() {}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOCTTY, 0)
	if err != nil {
		return in, func() {}
	}
	var st syscall.Stat_t
	rc, err := f.SyscallConn()
	if err == nil {
		cerr := rc.Control(func(fd uintptr) { err = syscall.Fstat(int(fd), &st) })
		if cerr != nil {
			err = cerr
		}
	}
	if err != nil || st.Rdev != st0.Rdev || st.Mode&syscall.S_IFMT != syscall.S_IFCHR {
		f.Close()
		return in, func() {}
	}
	return polledReader{f}, func() { f.Close() }
}

// polledReader is a file seen as a reader only: neither a terminal nor a
// cancelable file to Bubble Tea (its Fd would set the file blocking).
type polledReader struct{ f *os.File }

func (r polledReader) Read(p []byte) (int, error) { return r.f.Read(p) }

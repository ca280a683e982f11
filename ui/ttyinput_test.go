package ui

import (
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// The person's terminal is read through a file of office's own, opened by
// its device path: its reads park in the poller, the shell's open file
// stays blocking, and the stop ends a read under way. Anything that is not
// a terminal is read as it is.
func TestTheTerminalIsReadThroughItsOwnPolledFile(t *testing.T) {
	t.Parallel()
	master, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no PTY here: %v", err)
	}
	defer master.Close()
	defer tty.Close()
	if _, err := term.MakeRaw(int(tty.Fd())); err != nil { // as App.Run does
		t.Fatal(err)
	}
	r, stop := pollableInput(tty)
	defer stop()
	if _, ok := r.(polledReader); !ok {
		t.Fatalf("a terminal is read as %T, want its own polled file", r)
	}
	flags, err := unix.FcntlInt(tty.Fd(), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	if flags&unix.O_NONBLOCK != 0 {
		t.Error("the terminal's shared open file was made non-blocking")
	}
	if _, err := master.Write([]byte("z")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	n, err := r.Read(buf)
	if err != nil || string(buf[:n]) != "z" {
		t.Fatalf("read %q, %v; want the key typed", buf[:n], err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := r.Read(buf)
		done <- err
	}()
	stop()
	select {
	case err := <-done:
		if !errors.Is(err, os.ErrClosed) {
			t.Errorf("a read under way when stopped ended with %v, want os.ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a read under way did not end when the input stopped")
	}

	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	if got, _ := pollableInput(pr); got != io.Reader(pr) {
		t.Errorf("a pipe is read as %T, want the file itself", got)
	}
}

package pool

// spawn.go starts an agent's process in a new PTY. Where each input of the new
// process comes from:
//   - argv: Options.Argv, resolved against Options.Env's PATH, never the office's;
//   - environment: exactly Options.Env (nil means an empty environment: nothing
//     of the office's own environment is inherited unless the caller put it there);
//   - working directory: Options.Dir ("" means the office's own);
//   - terminal size: Options.Cols × Options.Rows (defaults 80×24);
//   - session: a new session and process group led by the child (pid = pgid),
//     with the PTY as its controlling terminal (creack/pty's Setsid+Setctty).

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// Default terminal size when Options leaves it zero.
const (
	defaultCols = 80
	defaultRows = 24
)

// lookPath resolves prog against the PATH in env (not the office's PATH), so an
// agent's explicit environment decides which binary runs.
func lookPath(prog string, env []string) (string, error) {
	if strings.Contains(prog, "/") {
		return prog, nil
	}
	path := ""
	for _, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			path = kv[len("PATH="):]
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, prog)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%q not found in the agent's PATH %q: %w", prog, path, exec.ErrNotFound)
}

// startPTY starts argv in a new PTY and returns the child and a non-blocking
// master. Non-blocking matters: with a blocking master, Close cannot interrupt
// a pending Read, so the child is never hung up (libs.md §4).
func startPTY(o *Options) (*exec.Cmd, *os.File, error) {
	if len(o.Argv) == 0 || o.Argv[0] == "" {
		return nil, nil, fmt.Errorf("empty command")
	}
	env := o.Env
	if env == nil {
		env = []string{}
	}
	prog, err := lookPath(o.Argv[0], env)
	if err != nil {
		return nil, nil, err
	}
	cmd := exec.Command(prog, o.Argv[1:]...)
	cmd.Args[0] = o.Argv[0]
	cmd.Env = env
	cmd.Dir = o.Dir
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(o.Cols), Rows: uint16(o.Rows)})
	if err != nil {
		return nil, nil, err
	}
	master, err := nonBlocking(ptmx)
	if err != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		return nil, nil, err
	}
	return cmd, master, nil
}

// nonBlocking duplicates f's descriptor (close-on-exec), puts it in
// non-blocking mode so the runtime poller serves it, and closes f.
func nonBlocking(f *os.File) (*os.File, error) {
	defer f.Close()
	var dupErr error
	nfd := -1
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("pty master: %w", err)
	}
	if err := rc.Control(func(fd uintptr) {
		nfd, dupErr = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		return nil, fmt.Errorf("pty master: %w", err)
	}
	if dupErr != nil {
		return nil, fmt.Errorf("pty master: dup: %w", dupErr)
	}
	if err := unix.SetNonblock(nfd, true); err != nil {
		unix.Close(nfd)
		return nil, fmt.Errorf("pty master: set non-blocking: %w", err)
	}
	return os.NewFile(uintptr(nfd), "/dev/ptmx"), nil
}

// setWinsize sets the PTY size without (*os.File).Fd, which would switch the
// descriptor back to blocking mode.
func setWinsize(f *os.File, cols, rows int) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ioErr error
	if err := rc.Control(func(fd uintptr) {
		ioErr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(cols), Row: uint16(rows)})
	}); err != nil {
		return err
	}
	return ioErr
}

// foregroundPgrp returns the PTY's foreground process group (tcgetpgrp).
func foregroundPgrp(f *os.File) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var pgrp int
	var ioErr error
	if err := rc.Control(func(fd uintptr) {
		pgrp, ioErr = unix.IoctlGetInt(int(fd), unix.TIOCGPGRP)
	}); err != nil {
		return 0, err
	}
	return pgrp, ioErr
}

// awaitExit returns once process pid (a child not yet reaped) has exited,
// waiting on the runtime's poller, since a pidfd becomes readable when its
// process exits: a running agent then ties up no OS thread (os.Process.Wait
// blocks one in waitid for as long as the child lives, about 50 KiB of
// thread and stacks each). Without pidfds (Linux < 5.10) it returns at once
// and Wait blocks as before.
func awaitExit(pid int) {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return
	}
	f := os.NewFile(uintptr(fd), "pidfd")
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Read(func(fd uintptr) bool {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 0)
		return err != nil || n > 0
	})
}

package engine

// state.go finds the state directory and takes its lock.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Files inside the state directory.
const (
	// LockFile is locked exclusively by the running engine; it holds its pid.
	LockFile = "engine.lock"
	// StoreFile is the SQLite store.
	StoreFile = "office.db"
	// LogFile is the engine's log.
	LogFile = "office.log"
)

// StateDir returns the state directory: flagValue if set, else $OFFICE_STATE,
// else $XDG_STATE_HOME/office, else ~/.local/state/office. getenv is
// os.Getenv in production.
func StateDir(flagValue string, getenv func(string) string) (string, error) {
	dir := flagValue
	if dir == "" {
		dir = getenv("OFFICE_STATE")
	}
	if dir == "" {
		if x := getenv("XDG_STATE_HOME"); x != "" {
			dir = filepath.Join(x, "office")
		}
	}
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			return "", errors.New("engine: no state directory: set --state, OFFICE_STATE or HOME")
		}
		dir = filepath.Join(home, ".local", "state", "office")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("engine: state directory %q: %w", dir, err)
	}
	return abs, nil
}

// LockedError says another engine holds the state directory.
type LockedError struct {
	Dir string
	Pid int // 0 when the holder's pid could not be read
}

// Error names the directory and the holder.
func (e *LockedError) Error() string {
	if e.Pid > 0 {
		return fmt.Sprintf("another office (pid %d) is running on state directory %s", e.Pid, e.Dir)
	}
	return fmt.Sprintf("another office is running on state directory %s", e.Dir)
}

// lockState takes the exclusive engine lock on dir and records our pid in it.
// The lock is an open-file-description lock (fcntl F_OFD_SETLK), released when
// the returned file is closed or the process dies; unlike flock it can be
// tested without being taken (see Running).
func lockState(dir string) (*os.File, error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("engine: open lock: %w", err)
	}
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: 0, Len: 0}
	if err := unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk); err != nil {
		f.Close()
		if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EACCES) {
			return nil, &LockedError{Dir: dir, Pid: readPid(path)}
		}
		return nil, fmt.Errorf("engine: lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

func readPid(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// Running reports whether an engine holds dir's lock right now. It only
// tests the lock (F_OFD_GETLK), so it never makes an engine's start fail.
func Running(dir string) bool {
	f, err := os.Open(filepath.Join(dir, LockFile))
	if err != nil {
		return false
	}
	defer f.Close()
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: 0, Len: 0}
	if err := unix.FcntlFlock(f.Fd(), unix.F_OFD_GETLK, &lk); err != nil {
		return false
	}
	return lk.Type != unix.F_UNLCK
}

// ServerPid returns the pid of the engine holding dir's lock, as it
// recorded it there, or 0 when none runs or its pid cannot be read.
func ServerPid(dir string) int {
	if !Running(dir) {
		return 0
	}
	return readPid(filepath.Join(dir, LockFile))
}

// unlockState releases the lock taken by lockState, then closes its file.
// The explicit unlock matters: a child this process is starting holds a copy
// of every descriptor between fork and exec (close-on-exec ones are closed
// only at the exec), and so the lock's open file description; closing our
// descriptor alone would leave the lock held by that child for a moment, and
// an engine opening the directory right after would be refused as if
// another office ran there.
func unlockState(f *os.File) {
	lk := unix.Flock_t{Type: unix.F_UNLCK, Whence: 0, Start: 0, Len: 0}
	_ = unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk)
	f.Close()
}

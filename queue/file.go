package queue

// file.go holds what the store does with its files beside SQLite: it opens
// the database file itself without following a symbolic link and keeps it
// open, so that a file deleted or replaced under a running office is noticed
// (Store.CheckFile); and it takes a cross-process writer lock on a file of its
// own ("-lock" beside the database) before SQLite's write lock, so that
// writers from many processes take turns in the order the kernel wakes them
// instead of polling SQLite's lock (a poller that sleeps can miss a lock that
// is never free for long, and time out).

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Errors about the store's files. Each is wrapped with the path and what was
// seen.
var (
	// ErrUnsafeFile: the file is a symbolic link or not a regular file, is
	// not owned by this user, or is writable by group or others. Nothing was
	// opened.
	ErrUnsafeFile = errors.New("unsafe store file")
	// ErrFileGone: the database file this Store opened was deleted or
	// replaced by another file at the same path.
	ErrFileGone = errors.New("store file deleted or replaced")
	// ErrCorrupt: SQLite's integrity check found the file damaged.
	ErrCorrupt = errors.New("store file is damaged")
)

// openNoFollow opens path read-write, creating it (0600) when missing
// unless existing (then a missing file is an error wrapping
// fs.ErrNotExist), without following a symbolic link, and checks that what
// was opened is a regular file owned by this user and not writable by group
// or others, and that it is the file Lstat saw at the path before the open.
func openNoFollow(path string, existing bool) (*os.File, error) {
	var before unix.Stat_t
	existed := true
	if err := unix.Lstat(path, &before); errors.Is(err, unix.ENOENT) {
		existed = false
	} else if err != nil {
		return nil, fmt.Errorf("stat %s: %w", path, err)
	} else if err := safeStat(path, &before); err != nil {
		return nil, err
	}
	flags := os.O_RDWR | unix.O_NOFOLLOW | unix.O_CLOEXEC
	if !existing {
		flags |= os.O_CREATE
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if errors.Is(err, unix.ELOOP) {
		return nil, fmt.Errorf("%w: %s is a symbolic link", ErrUnsafeFile, path)
	}
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	if err := safeStat(path, &st); err != nil {
		f.Close()
		return nil, err
	}
	if existed && (st.Dev != before.Dev || st.Ino != before.Ino) {
		f.Close()
		return nil, fmt.Errorf("%w: %s changed while it was being opened", ErrUnsafeFile, path)
	}
	return f, nil
}

// safeStat checks st, the status of path: a regular file, owned by this
// process's user, not writable by group or others.
func safeStat(path string, st *unix.Stat_t) error {
	switch {
	case st.Mode&unix.S_IFMT == unix.S_IFLNK:
		return fmt.Errorf("%w: %s is a symbolic link", ErrUnsafeFile, path)
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return fmt.Errorf("%w: %s is not a regular file", ErrUnsafeFile, path)
	case int(st.Uid) != os.Geteuid():
		return fmt.Errorf("%w: %s is owned by uid %d, not by this user (uid %d)", ErrUnsafeFile, path, st.Uid, os.Geteuid())
	case st.Mode&0o022 != 0:
		return fmt.Errorf("%w: %s is writable by group or others (mode %04o)", ErrUnsafeFile, path, st.Mode&0o7777)
	}
	return nil
}

// sameFile checks that path still names the file f: not deleted (a link
// count of zero, or nothing at the path), not replaced (another device or
// inode at the path).
func sameFile(path string, f *os.File) error {
	var open, now unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &open); err != nil {
		return fmt.Errorf("stat the open %s: %w", path, err)
	}
	if open.Nlink == 0 {
		return fmt.Errorf("%w: %s was deleted", ErrFileGone, path)
	}
	err := unix.Lstat(path, &now)
	switch {
	case errors.Is(err, unix.ENOENT):
		return fmt.Errorf("%w: %s was deleted", ErrFileGone, path)
	case err != nil:
		return fmt.Errorf("stat %s: %w", path, err)
	case now.Dev != open.Dev || now.Ino != open.Ino:
		return fmt.Errorf("%w: %s was replaced by another file", ErrFileGone, path)
	}
	return nil
}

// writerLock is the cross-process writer lock: an exclusive flock on a file
// beside the database, taken before BEGIN IMMEDIATE and released after the
// commit. A free lock is taken at once on the handle's own descriptor f (used
// by the committer goroutine only); a wait opens the file anew, so a wait
// that is given up on owns its descriptor and lock and cannot release anyone
// else's. A process killed while holding the lock releases it with its
// descriptor.
type writerLock struct {
	path string
	f    *os.File
}

// lock takes the lock, waiting at most timeout, and returns the function that
// releases it. flock cannot time out by itself, so a wait runs on its own
// goroutine; one that is given up on releases the lock as soon as it gets it.
func (l writerLock) lock(timeout time.Duration) (unlock func(), err error) {
	own := int(l.f.Fd())
	if err := flockRetry(own, unix.LOCK_EX|unix.LOCK_NB); err == nil {
		return func() { _ = flockRetry(own, unix.LOCK_UN) }, nil
	} else if !errors.Is(err, unix.EWOULDBLOCK) {
		return nil, fmt.Errorf("writer lock %s: %w", l.path, err)
	}
	f, err := os.OpenFile(l.path, os.O_RDWR|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("writer lock: %w", err)
	}
	fd := int(f.Fd())
	got := make(chan error, 1)
	go func() { got <- flockRetry(fd, unix.LOCK_EX) }()
	release := func() {
		_ = flockRetry(fd, unix.LOCK_UN)
		f.Close()
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case err := <-got:
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("writer lock %s: %w", l.path, err)
		}
		return release, nil
	case <-t.C:
		go func() {
			if <-got == nil {
				release()
			} else {
				f.Close()
			}
		}()
		return nil, fmt.Errorf("%w (waited %s for the writer lock %s)", ErrLocked, timeout, l.path)
	}
}

func flockRetry(fd, how int) error {
	for {
		err := unix.Flock(fd, how)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

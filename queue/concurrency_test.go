package queue

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Helper-process protocol: the test binary re-executes itself with
// helperEnv set; TestMain then runs the helper instead of the tests.
const (
	helperEnv   = "OFFICE_QUEUE_TEST_HELPER" // "enqueue" or "loop"
	helperDB    = "OFFICE_QUEUE_TEST_DB"
	helperAgent = "OFFICE_QUEUE_TEST_AGENT"
	helperN     = "OFFICE_QUEUE_TEST_N"
	helperG     = "OFFICE_QUEUE_TEST_G" // goroutines per helper ("enqueue" only)
	idPrefix    = "ID "
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode))
	}
	os.Exit(m.Run())
}

// runHelper opens the store named by the environment and enqueues, printing
// "ID n" after each Enqueue returns. "enqueue" stops after N; "loop" runs
// until killed.
func runHelper(mode string) int {
	s, err := Open(os.Getenv(helperDB), Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 3
	}
	defer s.Close()
	agent := os.Getenv(helperAgent)
	ctx := context.Background()
	if err := s.EnsureAgents(ctx, []string{agent}); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 3
	}
	n, _ := strconv.Atoi(os.Getenv(helperN))
	if g, _ := strconv.Atoi(os.Getenv(helperG)); g > 1 && mode == "enqueue" {
		return enqueueParallel(ctx, s, agent, g, n)
	}
	for i := 0; mode == "loop" || i < n; i++ {
		id, err := s.Enqueue(ctx, agent, fmt.Sprintf("%s message %d", agent, i), EnqueueOptions{Source: "helper"})
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return 4
		}
		// os.Stdout is unbuffered: the line is in the pipe when Fprintf returns.
		fmt.Fprintf(os.Stdout, "%s%d\n", idPrefix, id)
	}
	return 0
}

// enqueueParallel runs g goroutines of n enqueues each on one handle,
// printing each id once its Enqueue returned.
func enqueueParallel(ctx context.Context, s *Store, agent string, g, n int) int {
	var mu sync.Mutex
	var wg sync.WaitGroup
	failed := false
	for w := range g {
		wg.Go(func() {
			for i := range n {
				id, err := s.Enqueue(ctx, agent, fmt.Sprintf("%s g%d m%d", agent, w, i), EnqueueOptions{Source: "helper"})
				mu.Lock()
				if err != nil {
					fmt.Fprintln(os.Stderr, "helper:", err)
					failed = true
				} else {
					fmt.Fprintf(os.Stdout, "%s%d\n", idPrefix, id)
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	if failed {
		return 4
	}
	return 0
}

func helperCmd(t testing.TB, mode, db, agent string, n int) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(),
		helperEnv+"="+mode, helperDB+"="+db, helperAgent+"="+agent, helperN+"="+strconv.Itoa(n))
	return cmd
}

func parseIDs(t testing.TB, out string) []int64 {
	t.Helper()
	var ids []int64
	for _, line := range strings.Split(out, "\n") {
		rest, ok := strings.CutPrefix(line, idPrefix)
		if !ok {
			continue
		}
		id, err := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
		if err != nil {
			t.Fatalf("bad helper line %q", line)
		}
		ids = append(ids, id)
	}
	return ids
}

// checkAll verifies the queue holds exactly the given ids per agent, in id
// order within each agent, with one "enqueued" event each.
func checkAll(t *testing.T, s *Store, want map[string][]int64) {
	t.Helper()
	ctx := context.Background()
	total := 0
	seen := map[int64]bool{}
	for agent, ids := range want {
		total += len(ids)
		ms, err := s.List(ctx, agent)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != len(ids) {
			t.Errorf("agent %s: %d messages queued, %d acknowledged", agent, len(ms), len(ids))
		}
		got := map[int64]bool{}
		for i, m := range ms {
			got[m.ID] = true
			if i > 0 && m.ID <= ms[i-1].ID {
				t.Errorf("agent %s: delivery order %d after %d", agent, m.ID, ms[i-1].ID)
			}
		}
		for _, id := range ids {
			if seen[id] {
				t.Errorf("id %d returned twice", id)
			}
			seen[id] = true
			if !got[id] {
				t.Errorf("agent %s: acknowledged id %d lost", agent, id)
			}
		}
	}
	all, err := s.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != total {
		t.Errorf("%d messages in total, want %d", len(all), total)
	}
	evs, err := s.Events(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	enq := 0
	for _, e := range evs {
		if e.Kind == EventEnqueued {
			enq++
			if !seen[e.MsgID] {
				t.Errorf("enqueued event for unknown id %d", e.MsgID)
			}
		}
	}
	if enq != total {
		t.Errorf("%d enqueued events, want %d", enq, total)
	}
}

// 16 senders, each with its own Store on the same (new) file, enqueue at once
// to one shared agent and to their own: nothing is lost and ids are unique.
func TestConcurrentSendersSeparateHandles(t *testing.T) {
	const senders, perSender = 16, 20
	path := filepath.Join(t.TempDir(), "state", "queue.db")
	ctx := context.Background()
	var wg sync.WaitGroup
	var mu sync.Mutex
	want := map[string][]int64{}
	errs := make(chan error, senders)
	start := make(chan struct{})
	for g := 0; g < senders; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			// Open concurrently too: migrations and registration race.
			s, err := Open(path, Options{})
			if err != nil {
				errs <- err
				return
			}
			defer s.Close()
			own := fmt.Sprintf("agent%02d", g)
			if err := s.EnsureAgents(ctx, []string{"shared", own}); err != nil {
				errs <- err
				return
			}
			for i := 0; i < perSender; i++ {
				agent := own
				if i%2 == 0 {
					agent = "shared"
				}
				id, err := s.Enqueue(ctx, agent, fmt.Sprintf("g%d m%d", g, i), EnqueueOptions{Source: "send"})
				if err != nil {
					errs <- fmt.Errorf("sender %d: %w", g, err)
					return
				}
				mu.Lock()
				want[agent] = append(want[agent], id)
				mu.Unlock()
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	s := openAt(t, path, Options{})
	checkAll(t, s, want)
	if got := len(want["shared"]); got != senders*perSender/2 {
		t.Errorf("shared got %d acks", got)
	}
	// The dedupe holds under contention too: exactly one /compact wins.
	var wins, dups int
	var wg2 sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg2.Add(1)
		go func() {
			defer wg2.Done()
			h, err := Open(path, Options{})
			if err != nil {
				t.Error(err)
				return
			}
			defer h.Close()
			_, err = h.Enqueue(ctx, "shared", "/compact", EnqueueOptions{})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				wins++
			case errors.Is(err, ErrDuplicate):
				dups++
			default:
				t.Error(err)
			}
		}()
	}
	wg2.Wait()
	if wins != 1 || dups != 7 {
		t.Errorf("concurrent /compact: %d accepted, %d duplicates; want 1 and 7", wins, dups)
	}
}

// One Store shared by many goroutines.
func TestConcurrentSameHandle(t *testing.T) {
	s := open(t, Options{}, "a")
	ctx := context.Background()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var ids []int64
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				id, err := s.Enqueue(ctx, "a", "x", EnqueueOptions{})
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := s.List(ctx, "a"); err != nil {
					t.Error(err)
				}
				mu.Lock()
				ids = append(ids, id)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	checkAll(t, s, map[string][]int64{"a": ids})
}

// 4 processes × 50 enqueues on one file: nothing lost.
func TestMultiProcessEnqueue(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	const procs, per = 4, 50
	path := filepath.Join(t.TempDir(), "queue.db")
	type result struct {
		agent string
		out   string
		err   error
	}
	results := make(chan result, procs)
	for p := 0; p < procs; p++ {
		// Two processes share an agent, two have their own.
		agent := "shared"
		if p >= 2 {
			agent = fmt.Sprintf("proc%d", p)
		}
		cmd := helperCmd(t, "enqueue", path, agent, per)
		go func() {
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				err = fmt.Errorf("%v: %s", err, stderr.String())
			}
			results <- result{agent, string(out), err}
		}()
	}
	want := map[string][]int64{}
	for p := 0; p < procs; p++ {
		r := <-results
		if r.err != nil {
			t.Fatalf("helper: %v", r.err)
		}
		ids := parseIDs(t, r.out)
		if len(ids) != per {
			t.Errorf("helper for %s acknowledged %d, want %d", r.agent, len(ids), per)
		}
		want[r.agent] = append(want[r.agent], ids...)
	}
	s := openAt(t, path, Options{})
	checkAll(t, s, want)
}

// kill -9 in the middle of an enqueue loop: every id the child printed (after
// Enqueue returned) is in the file afterwards.
func TestKill9Durability(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	path := filepath.Join(t.TempDir(), "queue.db")
	for round := 0; round < 2; round++ {
		cmd := helperCmd(t, "loop", path, "victim", 0)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var printed []int64
		sc := bufio.NewScanner(stdout)
		killed := false
		deadline := time.AfterFunc(45*time.Second, func() { cmd.Process.Kill() })
		for sc.Scan() {
			printed = append(printed, parseIDs(t, sc.Text())...)
			if !killed && len(printed) >= 100+round*37 {
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				killed = true
				// Keep reading: lines already in the pipe were printed
				// after their Enqueue returned and must be present too.
			}
		}
		deadline.Stop()
		werr := cmd.Wait()
		if !killed {
			t.Fatalf("helper ended before being killed: %v: %s", werr, stderr.String())
		}
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("helper not killed by SIGKILL: %v (%s)", werr, stderr.String())
		}
		s, err := Open(path, Options{})
		if err != nil {
			t.Fatalf("reopen after kill -9: %v", err)
		}
		ctx := context.Background()
		for _, id := range printed {
			m, err := s.Get(ctx, id)
			if err != nil {
				t.Errorf("round %d: acknowledged id %d missing after kill -9: %v", round, id, err)
			} else if m.Agent != "victim" {
				t.Errorf("id %d belongs to %q", id, m.Agent)
			}
		}
		var ic string
		if err := s.DB().QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&ic); err != nil || ic != "ok" {
			t.Errorf("integrity_check = %q, %v", ic, err)
		}
		t.Logf("round %d: %d acknowledged ids, all present", round, len(printed))
		s.Close()
	}
}

// 8 processes, each with 8 goroutines on its own handle, and 8 goroutines of
// this process enqueue at once to shared and own agents: every call
// succeeds, nothing is lost, ids are unique, each queue stays in id order.
func TestManyGoroutinesInManyProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 8 processes")
	}
	const procs, goroutines, per = 8, 8, 25
	path := filepath.Join(t.TempDir(), "queue.db")
	s := openAt(t, path, Options{}, "shared")
	type result struct {
		agent string
		out   string
		err   error
	}
	results := make(chan result, procs)
	for p := range procs {
		agent := "shared"
		if p%2 == 1 {
			agent = fmt.Sprintf("proc%d", p)
		}
		cmd := helperCmd(t, "enqueue", path, agent, per)
		cmd.Env = append(cmd.Env, helperG+"="+strconv.Itoa(goroutines))
		go func() {
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				err = fmt.Errorf("%v: %s", err, stderr.String())
			}
			results <- result{agent, string(out), err}
		}()
	}
	var mu sync.Mutex
	want := map[string][]int64{}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range per {
				id, err := s.Enqueue(context.Background(), "shared", fmt.Sprintf("parent g%d m%d", g, i), EnqueueOptions{})
				if err != nil {
					t.Errorf("parent enqueue: %v", err)
					return
				}
				mu.Lock()
				want["shared"] = append(want["shared"], id)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for range procs {
		r := <-results
		if r.err != nil {
			t.Fatalf("helper: %v", r.err)
		}
		ids := parseIDs(t, r.out)
		if len(ids) != goroutines*per {
			t.Errorf("helper for %s acknowledged %d, want %d", r.agent, len(ids), goroutines*per)
		}
		want[r.agent] = append(want[r.agent], ids...)
	}
	checkAll(t, s, want)
}

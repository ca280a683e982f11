package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"office/engine"
	"office/queue"
)

// The crash suite (issue 15): `office serve` is killed with SIGKILL at random
// points, 24 times, while 4 senders queue 200 messages for fake agents
// that record what they received and report each prompt through Claude-style
// hooks (--hook-evidence: `office hook UserPromptSubmit` with the prompt on
// stdin). Every message must be received exactly once with no release by the
// person, or be set aside with a notice naming it; none twice, none lost, and
// no agent's queue stalled behind a held message.
//
// It takes about a minute and a half (the 4.5 s cooldown per agent bounds
// the rate); run it alone with
//
//	go test -run TestCrashSuite -v ./test/e2e
//
// OFFICE_CRASH_SEED replays one run's random kill points (the seed is logged).
func TestCrashSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("the crash suite takes minutes; skipped in -short mode")
	}
	const (
		agents   = 8
		senders  = 4
		messages = 200
		cycles   = 24
	)
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("OFFICE_CRASH_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (OFFICE_CRASH_SEED replays it)", seed)
	rng := rand.New(rand.NewPCG(seed, 0))

	var specs []agentSpec
	for i := range agents {
		specs = append(specs, agentSpec{name: fmt.Sprintf("a%d", i), args: []string{"--busy", "100ms", "--hook-evidence"}})
	}
	o := newOffice(t, specs...)
	o.startServe()

	// The senders: 50 messages each, round-robin over the agents, with a
	// little random pacing so they overlap the kills.
	type sent struct{ id, agent, text string }
	var mu sync.Mutex
	var all []sent
	var wg sync.WaitGroup
	pauses := make([][]time.Duration, senders)
	for s := range senders {
		for range messages / senders {
			pauses[s] = append(pauses[s], time.Duration(rng.IntN(400))*time.Millisecond)
		}
	}
	errs := make(chan string, messages)
	for s := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range messages / senders {
				time.Sleep(pauses[s][n])
				agent := fmt.Sprintf("a%d", (s*(messages/senders)+n)%agents)
				text := fmt.Sprintf("crash suite message s%d-n%d", s, n)
				out, errOut, code := o.run(text, "send", agent, "-")
				if code != 0 {
					errs <- fmt.Sprintf("send %q: exit %d: %s", text, code, errOut)
					continue
				}
				mu.Lock()
				all = append(all, sent{id: strings.TrimSpace(out), agent: agent, text: text})
				mu.Unlock()
			}
		}()
	}

	// The killer: SIGKILL at a random point, restart at once. After a
	// restart every agent is ready about a second later and gets its next
	// message then, and the 4.5 s cooldown spaces the next ones: three kills
	// in four fall in the window where those first deliveries are typed and
	// checked, the fourth anywhere in the next six seconds.
	for c := range cycles {
		wait := 800 + rng.IntN(1000)
		if c%4 == 3 {
			wait = 1500 + rng.IntN(4500)
		}
		time.Sleep(time.Duration(wait) * time.Millisecond)
		o.stopServe(syscall.SIGKILL)
		t.Logf("cycle %d: killed", c+1)
		o.startServeUntil("the restarted office answering", func() bool { _, ok := o.status(); return ok })
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}

	// Let the office finish: nothing left but what was set aside.
	o.waitFor(4*time.Minute, "every queue delivered but what was set aside", func() bool {
		for _, q := range o.queue() {
			if q.Held != "set aside" {
				return false
			}
		}
		return true
	})
	pending := map[string]queued{}
	for _, q := range o.queue() {
		pending[strconv.FormatInt(q.ID, 10)] = q
	}
	received := map[string]int{}
	for i := range agents {
		for _, p := range o.prompts(fmt.Sprintf("a%d", i)) {
			received[p]++
		}
	}
	notices := strings.Join(o.personNotices(), "\n")
	var asideReceived, asideNot, once int
	for _, m := range all {
		n := received[m.text]
		q, aside := pending[m.id]
		switch {
		case n > 1:
			t.Errorf("message %s (%q) received %d times", m.id, m.text, n)
		case aside:
			if !strings.Contains(notices, fmt.Sprintf("Message %s for %s was set aside", m.id, m.agent)) {
				t.Errorf("message %s set aside with no notice naming it (%+v)", m.id, q)
			}
			if n == 1 {
				asideReceived++
			} else {
				asideNot++
			}
		case n == 0:
			t.Errorf("message %s (%q) lost: not received, not queued", m.id, m.text)
		default:
			once++
		}
	}
	t.Logf("%d messages: %d received exactly once, %d set aside (%d of them had reached the agent, %d had not)",
		len(all), once, len(pending), asideReceived, asideNot)
	if b, err := os.ReadFile(filepath.Join(o.state, "office.log")); err == nil {
		log := string(b)
		t.Logf("interrupted deliveries settled at restarts: %d by the CLI's record, %d not typed (delivered again), %d set aside",
			strings.Count(log, "interrupted delivery settled"), strings.Count(log, "interrupted delivery will be delivered again"),
			strings.Count(log, "interrupted delivery set aside"))
	}
	if len(all) != messages {
		t.Errorf("%d messages stored, want %d", len(all), messages)
	}
	if t.Failed() {
		t.Log(o.diagnose())
	}
}

// personNotices returns the bodies of the person's inbox (notices included).
func (o *office) personNotices() []string {
	o.t.Helper()
	out := o.must("inbox", "--person", "--all", "--json")
	var its []struct {
		Body string `json:"body"`
	}
	if err := json.Unmarshal([]byte(out), &its); err != nil {
		o.t.Fatalf("inbox --person --json: %v\n%s", err, out)
	}
	bodies := make([]string, len(its))
	for i, it := range its {
		bodies[i] = it.Body
	}
	return bodies
}

// A message the last stop left being typed, whose Enter had begun and that
// the agent's records do not show, is set aside: `office queue` says so and
// what is known, the rest of the queue is delivered, and the person's
// release types it once.
func TestSetAsideMessageInTheQueue(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a", args: []string{"--busy", "100ms", "--hook-evidence"}})
	o.must("queue") // create the store and register the agent
	aside, err := strconv.ParseInt(o.send("a", "being typed when the office died"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	o.send("a", "queued behind it")
	s, err := queue.Open(filepath.Join(o.state, engine.StoreFile), queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, step := range []func(context.Context, int64) error{
		func(ctx context.Context, id int64) error { _, err := s.Attempt(ctx, id); return err },
		s.Writing, s.Entering,
	} {
		if err := step(ctx, aside); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()

	o.startServe()
	o.waitFor(20*time.Second, "the message behind it delivered", func() bool {
		return contains(o.prompts("a"), "queued behind it") && len(o.queue()) == 1
	})
	q := o.queue()
	if len(q) != 1 || q[0].ID != aside || q[0].Held != "set aside" || !strings.Contains(q[0].Evidence, "do not show it") {
		t.Fatalf("queue --json: %+v", q)
	}
	if out := o.must("queue"); !strings.Contains(out, "set aside (typing had begun") {
		t.Fatalf("office queue:\n%s", out)
	}
	if !strings.Contains(strings.Join(o.personNotices(), "\n"), fmt.Sprintf("Message %d for a was set aside", aside)) {
		t.Fatal("no notice to the person names the set-aside message")
	}
	o.must("queue", "release", strconv.FormatInt(aside, 10))
	o.waitFor(20*time.Second, "the released message delivered", func() bool {
		return contains(o.prompts("a"), "being typed when the office died")
	})
	if n := len(o.prompts("a")); n != 2 {
		t.Fatalf("%d prompts, want 2: %q", n, o.prompts("a"))
	}
}

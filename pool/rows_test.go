package pool

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"office/automation"
)

// TestVTDirtyRowsFound pins the vt10x internal the row generations come
// from: its per-row dirty flags are found, and a write advances the
// generation of the rows it touched and of no other.
func TestVTDirtyRowsFound(t *testing.T) {
	s := NewScreen(20, 6, nil)
	if s.dirty == nil {
		t.Fatal("vt10x's dirty rows were not found: every write would touch every row")
	}
	s.Feed([]byte("row0\r\nrow1\r\nrow2"))
	before := append([]uint64(nil), s.rowGen...)
	s.Feed([]byte("\x1b[5;3Hx"))
	for y := range before {
		if moved := s.rowGen[y] != before[y]; moved != (y == 4) {
			t.Errorf("row %d: generation moved %v after a write to row 4 only", y, moved)
		}
	}
	s.Resize(20, 7)
	for y, g := range s.rowGen {
		if g == before[min(y, len(before)-1)] {
			t.Errorf("row %d: generation kept over a resize", y)
		}
	}
}

// The pinned CLIs' prompt specs (configs/profiles.toml).
var replaySpecs = map[string]PromptSpec{
	"claude": {Marker: "❯", BetweenRules: true},
	"codex":  {Marker: "›", Placeholders: []string{"Ask Codex to do anything"}},
	"gemini": {Marker: ">", Column: 1, Placeholders: []string{"Type your message or @path/to/file"}},
	"ink":    {Marker: "❯", BetweenRules: true},
}

// TestRowReadsAgreeWithSnapshots feeds the recorded real-CLI streams and
// the Ink-like benchmark stream in chunks of random sizes (a resize on the
// way; each stream with and without history capture, as a Terminal's
// screen has it)
// and checks, after every chunk, that what the monitor's row reads give
// (the cached rows, the memoised prompt reading) is exactly what a full
// snapshot of the same moment gives: its Text and its FindPrompt. A row
// vt10x changed without marking it would show up here as a stale row.
func TestRowReadsAgreeWithSnapshots(t *testing.T) {
	t.Parallel()
	streams := map[string]string{
		"claude": "../test/realcli/testdata/claude.raw",
		"codex":  "../test/realcli/testdata/codex.raw",
		"gemini": "../test/realcli/testdata/gemini.raw",
		"ink":    streamFile,
	}
	for name, path := range streams {
		raw, err := os.ReadFile(filepath.FromSlash(path))
		if err != nil {
			t.Fatal(err)
		}
		if testing.Short() {
			raw = raw[:min(len(raw), 256<<10)]
		}
		for _, hist := range []bool{false, true} {
			checkRowReads(t, name, raw, hist)
		}
	}
}

// checkRowReads is one stream of TestRowReadsAgreeWithSnapshots.
func checkRowReads(t *testing.T, name string, raw []byte, hist bool) {
	spec := replaySpecs[name]
	rng := rand.New(rand.NewPCG(7, uint64(len(raw))))
	s := NewScreen(120, 40, nil)
	if hist {
		s.CaptureHistory(NewHistory(1000), nil)
	}
	var c rowCache
	var snap Snapshot
	for off, step := 0, 0; off < len(raw); step++ {
		n := 1 + rng.IntN(2048)
		s.Feed(raw[off:min(off+n, len(raw))])
		off += n
		if step == 40 {
			s.Resize(100, 30) // every row moves
		}
		var prow int
		var ptext string
		var pok bool
		s.readRows(func(r *rowReader) {
			c.refresh(r)
			prow, ptext, pok = c.findPrompt(r, spec)
		})
		s.Snapshot(&snap)
		if got, want := strings.Join(c.texts[:c.Len()], "\n"), snap.Text(); got != want {
			t.Fatalf("%s (history %v) at byte %d: rows read\n%s\nsnapshot\n%s", name, hist, off, got, want)
		}
		wrow, wtext, wok := snap.FindPrompt(spec)
		if prow != wrow || ptext != wtext || pok != wok {
			t.Fatalf("%s (history %v) at byte %d: prompt read %d %q %v, snapshot %d %q %v", name, hist, off, prow, ptext, pok, wrow, wtext, wok)
		}
	}
}

// promptScreen is a 120×40 screen with a transcript above a Claude-like
// prompt box at the bottom.
func promptScreen() *Screen {
	s := NewScreen(120, 40, nil)
	var b strings.Builder
	for i := 0; i < 34; i++ {
		b.WriteString("transcript line\r\n")
	}
	rule := strings.Repeat("─", 120)
	b.WriteString(rule + "\r\n❯ \r\n" + rule + "\r\n  ? for shortcuts")
	s.Feed([]byte(b.String()))
	return s
}

// testTerminal is a Terminal with no process: the screen is fed by the
// test, the clock is the test's, and judge runs when the test calls it.
func testTerminal(s *Screen, b Behavior, clock *time.Time) *Terminal {
	t := &Terminal{screen: s, behavior: b, now: func() time.Time { return *clock }, status: automation.StatusStarting}
	t.spawned = *clock
	return t
}

// TestRowReadCopiesOnlyRowsNeeded: a read copies the rows that changed and
// that the behavior reads, no other. A prompt reading is read again only
// when a row it read changed; rows above the prompt box it never read are
// not copied when they change; a pattern behavior copies exactly the rows
// that changed.
func TestRowReadCopiesOnlyRowsNeeded(t *testing.T) {
	clock := time.Unix(1000, 0)
	copies := func(term *Terminal) uint64 {
		term.mu.Lock()
		defer term.mu.Unlock()
		before := term.rows.copied
		term.readPromptLocked(clock)
		return term.rows.copied - before
	}

	s := promptScreen()
	prompt := testTerminal(s, Behavior{Prompt: PromptSpec{Marker: "❯", BetweenRules: true}}, &clock)
	if n := copies(prompt); n == 0 || n > 6 {
		t.Fatalf("first prompt read copied %d rows, want the few around the prompt box", n)
	}
	if n := copies(prompt); n != 0 {
		t.Fatalf("a read with nothing changed copied %d rows", n)
	}
	s.Feed([]byte("\x1b[3;1Hchanged transcript line"))
	if n := copies(prompt); n != 0 {
		t.Fatalf("a change above the prompt box copied %d rows: they are not read", n)
	}
	s.Feed([]byte("\x1b[36;3Hdraft"))
	if n := copies(prompt); n == 0 || n > 6 {
		t.Fatalf("a change to the prompt row copied %d rows, want the prompt box again", n)
	}
	if text, ok := prompt.promptText, prompt.promptOK; text != "draft" || !ok {
		t.Fatalf("prompt %q %v, want \"draft\"", text, ok)
	}

	// No prompt box (a dialog covers it): every row was read to find none;
	// a changed row that could not complete a prompt is the only row copied,
	// and the box drawn again (the cursor parked where it was) is found.
	s = NewScreen(120, 40, nil)
	s.Feed([]byte(strings.Repeat("dialog line\r\n", 30) + "\x1b[1;1H"))
	if n := copies(prompt2(s, &clock)); n != 40 {
		t.Fatalf("a screen with no prompt copied %d rows, want all 40", n)
	}
	missing := prompt2(s, &clock)
	copies(missing)
	s.Feed([]byte("\x1b[20;1Hspinner ⠂\x1b[1;1H"))
	if n := copies(missing); n != 1 {
		t.Fatalf("a change to a row that cannot hold the prompt copied %d rows, want 1", n)
	}
	rule := strings.Repeat("─", 120)
	s.Feed([]byte("\x1b[36;1H" + rule + "\x1b[37;1H❯ again\x1b[38;1H" + rule + "\x1b[1;1H"))
	copies(missing)
	if text, ok := missing.promptText, missing.promptOK; text != "again" || !ok {
		t.Fatalf("prompt %q %v after the box came back, want \"again\" true", text, ok)
	}

	s = promptScreen()
	patterns := testTerminal(s, Behavior{Status: automation.StatusRules{Busy: []string{"esc to interrupt"}}}, &clock)
	if n := copies(patterns); n != 40 {
		t.Fatalf("first pattern read copied %d rows, want all 40", n)
	}
	s.Feed([]byte("\x1b[3;1Hchanged\x1b[10;1Hchanged too"))
	if n := copies(patterns); n != 2 {
		t.Fatalf("a change to two rows copied %d rows, want 2", n)
	}
}

// prompt2 is a Terminal reading a Claude-like prompt on s.
func prompt2(s *Screen, clock *time.Time) *Terminal {
	return testTerminal(s, Behavior{Prompt: PromptSpec{Marker: "❯", BetweenRules: true}}, clock)
}

// TestRejudgeOnlyWhenAnInputChanged: output the judge does not read causes
// no judgment; a change to a row it reads, to the title, a forced wake (a
// poke, a deadline), and output that ends a quiet spell each do.
func TestRejudgeOnlyWhenAnInputChanged(t *testing.T) {
	clock := time.Unix(1000, 0)
	step := func(d time.Duration) { clock = clock.Add(d) }
	output := func(term *Terminal, p string) {
		term.screen.Feed([]byte(p))
		term.lastOutput.Store(clock.UnixNano())
	}
	judged := func(term *Terminal, forced bool) bool {
		n := term.Judgments()
		term.judge(clock, forced)
		return term.Judgments() != n
	}
	// ready: first output, then CustomReadyQuiet of quiet; then output
	// flowing again.
	start := func(b Behavior) *Terminal {
		term := testTerminal(promptScreen(), b, &clock)
		output(term, "")
		term.lastOutput.Store(clock.UnixNano())
		step(automation.CustomReadyQuiet)
		if !judged(term, true) || !term.judgment.Ready {
			t.Fatalf("not ready: %+v", term.judgment)
		}
		step(automation.QuietAfter)
		if !judged(term, true) || term.judgment.Status != automation.StatusIdle {
			t.Fatalf("not idle after the quiet window: %+v", term.judgment)
		}
		step(time.Second)
		output(term, "\x1b[2;1Hmore output")
		if !judged(term, false) {
			t.Fatal("output after a quiet spell was not judged: it makes the agent busy")
		}
		if st, sig := term.StatusSignal(); st != automation.StatusBusy || sig != "output" {
			t.Fatalf("status %v by %q, want busy by output", st, sig)
		}
		return term
	}

	prompt := start(Behavior{Prompt: PromptSpec{Marker: "❯", BetweenRules: true}})
	step(100 * time.Millisecond)
	output(prompt, "\x1b[3;1Hspinner ⠂")
	if judged(prompt, false) {
		t.Fatal("a change to a row the judge does not read was judged")
	}
	output(prompt, "\x1b]0;⠐ working\x07")
	if !judged(prompt, false) {
		t.Fatal("a title change was not judged")
	}
	if judged(prompt, false) {
		t.Fatal("no change at all was judged")
	}
	if !judged(prompt, true) {
		t.Fatal("a forced wake (a poke) was not judged")
	}
	step(automation.QuietAfter)
	if !judged(prompt, false) {
		t.Fatal("the quiet window's end (a deadline) was not judged")
	}
	if st := prompt.Status(); st != automation.StatusBusy {
		t.Fatalf("status %v, want busy: the title says so", st)
	}

	patterns := start(Behavior{Status: automation.StatusRules{Busy: []string{"esc to interrupt"}}})
	step(100 * time.Millisecond)
	output(patterns, "\x1b[2;1H\x1b[31mmore output\x1b[m") // the same text, coloured
	if judged(patterns, false) {
		t.Fatal("a row redrawn with the same text was judged")
	}
	output(patterns, "\x1b[3;1Hesc to interrupt")
	if !judged(patterns, false) {
		t.Fatal("a new busy pattern on a row the judge reads was not judged")
	}
	if _, sig := patterns.StatusSignal(); sig != "screen: esc to interrupt" {
		t.Fatalf("decided by %q, want the busy pattern", sig)
	}
}

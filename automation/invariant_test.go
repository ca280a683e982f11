package automation

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// The line model's invariants, checked after every step of any key stream:
//
//   - the draft is dirty exactly when it has text (Draft);
//   - a screen reading of "unknown" changes nothing at all;
//   - no screen reading touches the picker latch; only new text on the row
//     extends the settling block, to at most EchoGrace from now;
//   - a screen reading of "empty" never makes a clean line dirty;
//   - a reading of "has text" makes a clean line dirty only with that text,
//     and never while office's own typing is on the row (it lasts until the
//     row reads empty past the echo grace, or the person's next key);
//   - the settling block never moves earlier;
//   - a latched picker always has its latch time;
//   - submitted lines are non-empty and trimmed.
//
// They run on random streams from a fixed seed (TestTrackerInvariants) and on
// fuzzed streams (FuzzTracker, seeded from the rule table).

// invariantChecker drives a Tracker and checks the invariants after each step.
type invariantChecker struct {
	t       testing.TB
	tr      Tracker
	now     time.Time
	typed   bool      // office typed since the row last read empty (past the grace) and no key came
	typedAt time.Time // when it last did
}

func (c *invariantChecker) step(d time.Duration) { c.now = c.now.Add(d) }

func (c *invariantChecker) check(what string, before State) {
	c.t.Helper()
	s := c.tr.State()
	if s.Dirty != (c.tr.Draft() != "") {
		c.t.Fatalf("after %s: Dirty = %v but Draft() = %q", what, s.Dirty, c.tr.Draft())
	}
	if s.SettleUntil.Before(before.SettleUntil) {
		c.t.Fatalf("after %s: SettleUntil moved back from %v to %v", what, before.SettleUntil, s.SettleUntil)
	}
	if s.PickerLatched && s.PickerAt.IsZero() {
		c.t.Fatalf("after %s: picker latched with no latch time", what)
	}
}

func (c *invariantChecker) feed(chunk []byte) {
	c.t.Helper()
	before := c.tr.State()
	if len(chunk) > 0 {
		c.typed = false // the person's key ends office's typing
	}
	for _, s := range c.tr.Feed(chunk, c.now) {
		if s == "" || s != strings.TrimSpace(s) {
			c.t.Fatalf("Feed(%q) submitted %q: want non-empty and trimmed", chunk, s)
		}
	}
	c.check("Feed", before)
}

// rows are the texts a "has text" reading shows.
var rows = []string{"recalled", "restored prompt", "x"}

func (c *invariantChecker) observe(r PromptReading, n int) {
	c.t.Helper()
	before, draft := c.tr.State(), c.tr.Draft()
	text := ""
	if r == PromptHasText {
		text = rows[n%len(rows)]
	}
	c.tr.ObservePrompt(text, r != PromptUnknown, c.now)
	after := c.tr.State()
	if after.PickerLatched != before.PickerLatched || !after.PickerAt.Equal(before.PickerAt) {
		c.t.Fatalf("ObservePrompt(%v) touched the picker: %+v -> %+v", r, before, after)
	}
	if !after.SettleUntil.Equal(before.SettleUntil) && (r != PromptHasText || after.SettleUntil.After(c.now.Add(EchoGrace))) {
		c.t.Fatalf("ObservePrompt(%v) moved settling beyond the echo grace: %+v -> %+v", r, before, after)
	}
	switch r {
	case PromptEmpty:
		if !before.Dirty && after.Dirty {
			c.t.Fatalf("ObservePrompt(empty) created a draft %q", c.tr.Draft())
		}
		if c.typed && c.now.Sub(c.typedAt) >= EchoGrace {
			c.typed = false
		}
	case PromptHasText:
		if !before.Dirty && after.Dirty && (c.typed || c.tr.Draft() != text) {
			c.t.Fatalf("ObservePrompt(%q) made a draft %q (office typing %v)", text, c.tr.Draft(), c.typed)
		}
	default:
		if after != before || c.tr.Draft() != draft {
			c.t.Fatalf("ObservePrompt(%v) changed the tracker: %+v %q -> %+v %q", r, before, draft, after, c.tr.Draft())
		}
	}
	c.check("ObservePrompt", before)
}

func (c *invariantChecker) call(n byte) {
	c.t.Helper()
	before := c.tr.State()
	switch n % 5 {
	case 0:
		c.tr.ClearDraft()
		if c.tr.State().PickerLatched != before.PickerLatched {
			c.t.Fatal("ClearDraft touched the picker latch")
		}
	case 1:
		c.tr.ReleasePicker(c.now)
		if c.tr.State().PickerLatched {
			c.t.Fatal("ReleasePicker left the picker latched")
		}
	case 2:
		c.tr.Settle(c.now.Add(time.Duration(n) * time.Millisecond))
	case 3:
		c.tr.MarkDraft("typed by office", c.now)
	case 4:
		c.tr.Typed(c.now)
		c.typed, c.typedAt = true, c.now
	}
	c.check("an explicit call", before)
}

func TestTrackerInvariants(t *testing.T) {
	// fragments are the pieces random key streams are built from.
	fragments := []string{
		"a", "Z", " ", "\t", "你", "😀", "/model", "/model sonnet", "/compact", "/config",
		"\r", "\n", "\r\n", "\x7f", "\x08", "\x1b", "\x03", "\x15", "\x01",
		"\x1b[A", "\x1b[D", "\x1bb", "\x1b[200~", "\x1b[201~",
		"\xe4", "\xbd", "\xa0", "\xf0\x9f", "\xff",
	}
	rng := rand.New(rand.NewPCG(2026, 11))
	for stream := range 300 {
		c := &invariantChecker{t: t, now: t0}
		for range 200 {
			c.step(time.Duration(rng.IntN(2500)) * time.Millisecond)
			switch k := rng.IntN(10); {
			case k < 6:
				var b strings.Builder
				for range 1 + rng.IntN(3) {
					b.WriteString(fragments[rng.IntN(len(fragments))])
				}
				c.feed([]byte(b.String()))
			case k < 9:
				c.observe(PromptReading(rng.IntN(3)), rng.IntN(4))
			default:
				c.call(byte(rng.IntN(256)))
			}
			if t.Failed() {
				t.Fatalf("stream %d failed", stream)
			}
		}
	}
}

// FuzzTracker feeds data to a Tracker as directed by script. Each script byte
// is one step: its top two bits pick feed (0: the next (b&63)+1 bytes of data),
// a screen reading of empty (1), has text or unknown (2, by the low bit), or an
// explicit call (3); the clock advances by ((b*7)%13)*100ms first. Data left
// over when the script ends is fed as one last chunk.
func FuzzTracker(f *testing.F) {
	for _, tc := range trackerCases() {
		var data []byte
		var script []byte
		for _, op := range tc.ops {
			switch op.kind {
			case "feed":
				for rest := op.text; rest != ""; {
					n := min(len(rest), 64)
					data = append(data, rest[:n]...)
					script = append(script, byte(n-1))
					rest = rest[n:]
				}
			case "screen":
				switch op.reading {
				case PromptEmpty:
					script = append(script, 0x40)
				case PromptHasText:
					script = append(script, 0x80)
				default:
					script = append(script, 0x81)
				}
			default:
				script = append(script, 0xC0|byte(len(op.kind)))
			}
		}
		f.Add(data, script)
	}
	f.Fuzz(func(t *testing.T, data, script []byte) {
		c := &invariantChecker{t: t, now: t0}
		for _, b := range script {
			c.step(time.Duration((int(b)*7)%13) * 100 * time.Millisecond)
			switch b >> 6 {
			case 0:
				n := min(int(b&63)+1, len(data))
				if n > 0 {
					c.feed(data[:n])
					data = data[n:]
				}
			case 1:
				c.observe(PromptEmpty, 0)
			case 2:
				if b&1 == 0 {
					c.observe(PromptHasText, int(b>>1))
				} else {
					c.observe(PromptUnknown, 0)
				}
			case 3:
				c.call(b)
			}
		}
		if len(data) > 0 {
			c.feed(data)
		}
	})
}

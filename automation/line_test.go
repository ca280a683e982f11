package automation

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// trackerOp is one event in a tracker script: a chunk of the person's input,
// a screen reading, or one of the caller's explicit calls.
type trackerOp struct {
	at      time.Duration
	kind    string // "feed", "screen", "clear", "release", "mark", "settle", "typed"
	text    string
	reading PromptReading
}

func feed(d time.Duration, s string) trackerOp { return trackerOp{at: d, kind: "feed", text: s} }
func screen(d time.Duration, r PromptReading) trackerOp {
	op := trackerOp{at: d, kind: "screen", reading: r}
	if r == PromptHasText {
		op.text = "stray text"
	}
	return op
}

// row is a screen reading of the prompt row showing text.
func row(d time.Duration, text string) trackerOp {
	return trackerOp{at: d, kind: "screen", reading: ReadPromptRow(text, true), text: text}
}
func typed(d time.Duration) trackerOp          { return trackerOp{at: d, kind: "typed"} }
func clearDraft(d time.Duration) trackerOp     { return trackerOp{at: d, kind: "clear"} }
func release(d time.Duration) trackerOp        { return trackerOp{at: d, kind: "release"} }
func mark(d time.Duration, s string) trackerOp { return trackerOp{at: d, kind: "mark", text: s} }
func settleTo(d time.Duration) trackerOp       { return trackerOp{at: d, kind: "settle"} }
func (op trackerOp) apply(tr *Tracker) []string {
	now := at(op.at)
	switch op.kind {
	case "feed":
		return tr.Feed([]byte(op.text), now)
	case "screen":
		tr.ObservePrompt(op.text, op.reading != PromptUnknown, now)
	case "typed":
		tr.Typed(now)
	case "clear":
		tr.ClearDraft()
	case "release":
		tr.ReleasePicker(now)
	case "mark":
		tr.MarkDraft(op.text, now)
	case "settle":
		tr.Settle(now)
	}
	return nil
}

const ms = time.Millisecond

// noSettle marks a case whose SettleUntil must stay zero.
const noSettle = time.Duration(-1)

// trackerCase is one rule of the line model: a script of operations and the
// tracker's state after it.
type trackerCase struct {
	name      string
	extra     []string
	ops       []trackerOp
	line      string
	dirty     bool
	picker    bool
	settle    time.Duration // SettleUntil - t0, or noSettle for zero
	submitted []string
}

// trackerCases is the line model's rule table; FuzzTracker seeds from it too.
func trackerCases() []trackerCase {
	const (
		pasteOn  = "\x1b[200~"
		pasteOff = "\x1b[201~"
	)
	return []trackerCase{
		// Typing
		{name: "printable runes append and make a draft",
			ops: []trackerOp{feed(0, "hello")}, line: "hello", dirty: true, settle: noSettle},
		{name: "tab appends",
			ops: []trackerOp{feed(0, "a\tb")}, line: "a\tb", dirty: true, settle: noSettle},
		{name: "chunks accumulate",
			ops: []trackerOp{feed(0, "he"), feed(ms, "llo")}, line: "hello", dirty: true, settle: noSettle},
		{name: "other C0 controls are ignored",
			ops: []trackerOp{feed(0, "a\x01\x02\x15b")}, line: "ab", dirty: true, settle: noSettle},
		{name: "C1 controls are ignored",
			ops: []trackerOp{feed(0, "a\u0085\u009bb")}, line: "ab", dirty: true, settle: noSettle},
		{name: "an invalid byte counts as U+FFFD",
			ops: []trackerOp{feed(0, "\xff")}, line: "\uFFFD", dirty: true, settle: noSettle},
		{name: "empty chunk changes nothing",
			ops: []trackerOp{feed(0, "ab"), feed(ms, "")}, line: "ab", dirty: true, settle: noSettle},
		{name: "a space alone is a draft",
			ops: []trackerOp{feed(0, " ")}, line: " ", dirty: true, settle: noSettle},

		// Erasing
		{name: "DEL pops one rune",
			ops: []trackerOp{feed(0, "abc\x7f")}, line: "ab", dirty: true, settle: noSettle},
		{name: "BS pops one rune",
			ops: []trackerOp{feed(0, "abc\x08")}, line: "ab", dirty: true, settle: noSettle},
		{name: "backspace pops a whole CJK rune",
			ops: []trackerOp{feed(0, "你好"), feed(ms, "\x7f")}, line: "你", dirty: true, settle: noSettle},
		{name: "backspace pops an emoji whole",
			ops: []trackerOp{feed(0, "a😀\x7f")}, line: "a", dirty: true, settle: noSettle},
		{name: "backspace on an empty line is harmless",
			ops: []trackerOp{feed(0, "\x7f\x7f")}, line: "", dirty: false, settle: noSettle},
		{name: "backspacing to empty clears the draft",
			ops: []trackerOp{feed(0, "a"), feed(ms, "\x7f")}, line: "", dirty: false, settle: noSettle},

		// UTF-8 split across reads
		{name: "a UTF-8 rune split across two chunks is kept",
			ops: []trackerOp{feed(0, "\xe4\xbd"), feed(ms, "\xa0")}, line: "你", dirty: true, settle: noSettle},
		{name: "a 4-byte rune split three ways is kept",
			ops: []trackerOp{feed(0, "x\xf0"), feed(ms, "\x9f\x98"), feed(2*ms, "\x80")}, line: "x😀", dirty: true, settle: noSettle},
		{name: "a broken carried rune becomes U+FFFD and the next byte is kept",
			ops: []trackerOp{feed(0, "\xe4"), feed(ms, "x")}, line: "\uFFFDx", dirty: true, settle: noSettle},
		{name: "a lone Esc drops a carried partial rune",
			ops: []trackerOp{feed(0, "\xe4"), feed(ms, "\x1b"), feed(2*ms, "\xbd\xa0")}, line: "\uFFFD\uFFFD", dirty: true, settle: noSettle},

		// Enter
		{name: "Enter submits and clears the line",
			ops: []trackerOp{feed(0, "hi\r")}, line: "", dirty: false, settle: noSettle, submitted: []string{"hi"}},
		{name: "LF submits too",
			ops: []trackerOp{feed(0, "hi\n")}, line: "", dirty: false, settle: noSettle, submitted: []string{"hi"}},
		{name: "submitted text is trimmed",
			ops: []trackerOp{feed(0, "  hi  \r")}, settle: noSettle, submitted: []string{"hi"}},
		{name: "a blank Enter submits nothing",
			ops: []trackerOp{feed(0, "   \r"), feed(ms, "\r")}, settle: noSettle},
		{name: "several lines in one chunk submit in order",
			ops: []trackerOp{feed(0, "a\rb\rc")}, line: "c", dirty: true, settle: noSettle, submitted: []string{"a", "b"}},
		{name: "text typed before Enter in separate chunks is submitted",
			ops: []trackerOp{feed(0, "hi"), feed(ms, "\r")}, settle: noSettle, submitted: []string{"hi"}},

		// The picker latch
		{name: "Enter after /model latches the picker",
			ops: []trackerOp{feed(0, "/model"), feed(ms, "\r")}, picker: true, settle: noSettle, submitted: []string{"/model"}},
		{name: "Enter after /provider with spaces latches",
			ops: []trackerOp{feed(0, " /provider \r")}, picker: true, settle: noSettle, submitted: []string{"/provider"}},
		{name: "CR LF is one Enter, so it does not release what it latched",
			ops: []trackerOp{feed(0, "/model\r\n")}, picker: true, settle: noSettle, submitted: []string{"/model"}},
		{name: "/compact does not latch",
			ops: []trackerOp{feed(0, "/compact\r")}, settle: noSettle, submitted: []string{"/compact"}},
		{name: "implement this does not latch",
			ops: []trackerOp{feed(0, "implement this\r")}, settle: noSettle, submitted: []string{"implement this"}},
		{name: "/model sonnet does not latch",
			ops: []trackerOp{feed(0, "/model sonnet\r")}, settle: noSettle, submitted: []string{"/model sonnet"}},
		{name: "/permissions allow does not latch",
			ops: []trackerOp{feed(0, "/permissions allow\r")}, settle: noSettle, submitted: []string{"/permissions allow"}},
		{name: "a profile's extra command latches",
			extra: []string{"/agents"},
			ops:   []trackerOp{feed(0, "/agents\r")}, picker: true, settle: noSettle, submitted: []string{"/agents"}},
		{name: "an extra command does not latch without the profile",
			ops: []trackerOp{feed(0, "/agents\r")}, settle: noSettle, submitted: []string{"/agents"}},
		{name: "a bare command typed but not submitted does not latch",
			ops: []trackerOp{feed(0, "/model")}, line: "/model", dirty: true, settle: noSettle},
		{name: "the next Enter releases the latch with 500ms settling",
			ops:    []trackerOp{feed(0, "/model\r"), feed(2*time.Second, "\r")},
			settle: 2*time.Second + PickerCloseSettle, submitted: []string{"/model"}},
		{name: "Enter on another bare command releases and latches again",
			ops:    []trackerOp{feed(0, "/model\r"), feed(time.Second, "/config\r")},
			picker: true, settle: time.Second + PickerCloseSettle, submitted: []string{"/model", "/config"}},
		{name: "lone Esc releases the latch with 500ms settling and clears the line",
			ops:    []trackerOp{feed(0, "/model\r"), feed(time.Second, "abc"), feed(2*time.Second, "\x1b")},
			settle: 2*time.Second + PickerCloseSettle, submitted: []string{"/model"}},
		{name: "lone Ctrl-C releases the latch with 500ms settling and clears the line",
			ops:    []trackerOp{feed(0, "/model\r"), feed(time.Second, "abc"), feed(2*time.Second, "\x03")},
			settle: 2*time.Second + PickerCloseSettle, submitted: []string{"/model"}},
		{name: "lone Esc without a latch clears the line and sets no settling",
			ops: []trackerOp{feed(0, "abc"), feed(ms, "\x1b")}, settle: noSettle},
		{name: "lone Ctrl-C without a latch clears the line",
			ops: []trackerOp{feed(0, "abc"), feed(ms, "\x03")}, settle: noSettle},
		{name: "Ctrl-U clears the line but keeps the latch",
			ops:    []trackerOp{feed(0, "/model\r"), feed(ms, "abc"), feed(2*ms, "\x15")},
			picker: true, settle: noSettle, submitted: []string{"/model"}},
		{name: "Ctrl-U inside a longer chunk is ignored",
			ops: []trackerOp{feed(0, "abc\x15")}, line: "abc", dirty: true, settle: noSettle},
		{name: "Ctrl-C inside a longer chunk neither clears nor releases",
			ops:  []trackerOp{feed(0, "/model\r"), feed(ms, "ab\x03")},
			line: "ab", dirty: true, picker: true, settle: noSettle, submitted: []string{"/model"}},
		{name: "arrow key in a picker neither clears nor releases",
			ops:  []trackerOp{feed(0, "/model\r"), feed(time.Second, "ab"), feed(2*time.Second, "\x1b[A")},
			line: "ab", dirty: true, picker: true, settle: noSettle, submitted: []string{"/model"}},
		{name: "an escape sequence ends the scan of its chunk",
			ops: []trackerOp{feed(0, "ab\x1b[Dcd")}, line: "ab", dirty: true, settle: noSettle},
		{name: "an Alt-combo ends the scan of its chunk",
			ops: []trackerOp{feed(0, "x\x1bb\r")}, line: "x", dirty: true, settle: noSettle},
		{name: "Esc at the end of a longer chunk is not a lone Esc",
			ops:  []trackerOp{feed(0, "/model\r"), feed(ms, "ab\x1b")},
			line: "ab", dirty: true, picker: true, settle: noSettle, submitted: []string{"/model"}},
		{name: "Enter before an escape sequence in one chunk still submits",
			ops: []trackerOp{feed(0, "hi\r\x1b[A")}, settle: noSettle, submitted: []string{"hi"}},

		// Bracketed paste
		{name: "pasted multi-line text counts as a draft and does not submit",
			ops:  []trackerOp{feed(0, pasteOn+"line1\nline2"+pasteOff)},
			line: "line1\nline2", dirty: true, settle: noSettle},
		{name: "a pasted CR is kept as a newline",
			ops: []trackerOp{feed(0, pasteOn+"a\rb"+pasteOff)}, line: "a\nb", dirty: true, settle: noSettle},
		{name: "a pasted CR LF is one newline",
			ops: []trackerOp{feed(0, pasteOn+"a\r\nb"+pasteOff)}, line: "a\nb", dirty: true, settle: noSettle},
		{name: "a paste body may span chunks",
			ops:  []trackerOp{feed(0, pasteOn+"a\r"), feed(ms, "b\r"), feed(2*ms, "c"+pasteOff)},
			line: "a\nb\nc", dirty: true, settle: noSettle},
		{name: "Enter after a paste submits the whole paste",
			ops:       []trackerOp{feed(0, pasteOn+"a\nb"+pasteOff), feed(ms, "\r")},
			settle:    noSettle,
			submitted: []string{"a\nb"}},
		{name: "pasted text is appended to typed text",
			ops: []trackerOp{feed(0, "x"), feed(ms, pasteOn+"y"+pasteOff+"z")}, line: "xyz", dirty: true, settle: noSettle},
		{name: "a pasted bare command submitted with Enter latches",
			ops: []trackerOp{feed(0, pasteOn+"/model"+pasteOff+"\r")}, picker: true, settle: noSettle, submitted: []string{"/model"}},
		{name: "an arrow key before a paste in the same chunk keeps the paste",
			ops: []trackerOp{feed(0, "\x1b[A"+pasteOn+"hi"+pasteOff)}, line: "hi", dirty: true, settle: noSettle},
		{name: "ESC inside a paste is dropped and the paste continues",
			ops: []trackerOp{feed(0, pasteOn+"a\x1bb"+pasteOff)}, line: "ab", dirty: true, settle: noSettle},
		{name: "DEL inside a paste is dropped, not an erase",
			ops: []trackerOp{feed(0, pasteOn+"ab\x7f"+pasteOff)}, line: "ab", dirty: true, settle: noSettle},
		{name: "markers alone make no draft",
			ops: []trackerOp{feed(0, pasteOn+pasteOff)}, line: "", dirty: false, settle: noSettle},
		{name: "a lone Esc ends a paste whose end marker was lost",
			ops:       []trackerOp{feed(0, pasteOn+"ab"), feed(ms, "\x1b"), feed(2*ms, "x\r")},
			settle:    noSettle,
			submitted: []string{"x"}},

		// The screen corrects one way only
		{name: "screen empty within 1s of the last key keeps the draft",
			ops:  []trackerOp{feed(0, "abc"), screen(EchoGrace-time.Nanosecond, PromptEmpty)},
			line: "abc", dirty: true, settle: noSettle},
		{name: "screen empty at exactly 1s after the last key clears the draft",
			ops: []trackerOp{feed(0, "abc"), screen(EchoGrace, PromptEmpty)}, settle: noSettle},
		{name: "the echo grace runs from the last key, not the first",
			ops:  []trackerOp{feed(0, "a"), feed(900*ms, "b"), screen(1500*ms, PromptEmpty)},
			line: "ab", dirty: true, settle: noSettle},
		{name: "screen text is no draft within the echo grace",
			ops: []trackerOp{row(time.Hour, "recalled"), row(time.Hour+EchoGrace-ms, "recalled")}, settle: time.Hour + EchoGrace},
		{name: "screen text office did not type is a draft past the echo grace",
			ops:  []trackerOp{row(time.Hour, "recalled"), row(time.Hour+EchoGrace, "recalled")},
			line: "recalled", dirty: true, settle: time.Hour + EchoGrace},
		{name: "changed screen text restarts the echo grace",
			ops:    []trackerOp{row(0, "rec"), row(900*ms, "recalled"), row(1500*ms, "recalled")},
			settle: 1900 * ms},
		{name: "changed screen text is a draft a grace after the change",
			ops:  []trackerOp{row(0, "rec"), row(900*ms, "recalled"), row(1900*ms, "recalled")},
			line: "recalled", dirty: true, settle: 1900 * ms},
		{name: "a keystroke restarts the echo grace for screen text",
			ops:    []trackerOp{row(0, "restored"), feed(500*ms, "\x1b[A"), row(1200*ms, "restored")},
			settle: EchoGrace},
		{name: "screen text after a lone Esc is a draft (a restored prompt)",
			ops:  []trackerOp{row(0, "restored"), feed(0, "\x1b"), row(2*time.Second, "restored")},
			line: "restored", dirty: true, settle: EchoGrace},
		{name: "the late echo of a line just submitted does not settle",
			ops:    []trackerOp{feed(0, "/compact"), feed(10*ms, "\r"), row(50*ms, "/compact")},
			settle: noSettle, submitted: []string{"/compact"}},
		{name: "an empty row before the late echo does not end it",
			ops:    []trackerOp{feed(0, "hello"), feed(ms, "\r"), screen(2*ms, PromptEmpty), row(5*ms, "hello")},
			settle: noSettle, submitted: []string{"hello"}},
		{name: "the late echo drawn in pieces does not settle",
			ops:    []trackerOp{feed(0, "/compact"), feed(10*ms, "\r"), row(50*ms, "/comp"), row(60*ms, "/compact")},
			settle: noSettle, submitted: []string{"/compact"}},
		{name: "the submitted line restored after an empty row settles (Esc right after Enter)",
			ops:    []trackerOp{feed(0, "task"), row(5*ms, "task"), feed(10*ms, "\r"), screen(50*ms, PromptEmpty), row(300*ms, "task")},
			settle: 300*ms + EchoGrace, submitted: []string{"task"}},
		{name: "the submitted line restored after a key settles",
			ops:    []trackerOp{feed(0, "task"), feed(10*ms, "\r"), feed(200*ms, "\x1b"), row(300*ms, "task")},
			settle: 300*ms + EchoGrace, submitted: []string{"task"}},
		{name: "a recalled old line settles",
			ops:    []trackerOp{feed(0, "old\r"), feed(5*time.Second, "\x1b[A"), row(5100*ms, "old")},
			settle: 5100*ms + EchoGrace, submitted: []string{"old"}},
		{name: "an empty row clears a screen draft",
			ops:    []trackerOp{row(0, "recalled"), row(2*time.Second, "recalled"), screen(3*time.Second, PromptEmpty)},
			settle: EchoGrace},
		{name: "ClearDraft clears a screen draft",
			ops:    []trackerOp{row(0, "recalled"), row(2*time.Second, "recalled"), clearDraft(3 * time.Second)},
			settle: EchoGrace},
		{name: "text office typed is not the person's draft",
			ops:    []trackerOp{typed(0), row(100*ms, "our message"), row(5*time.Second, "our message")},
			settle: noSettle},
		{name: "office's typing ends at an empty row past the echo grace",
			ops: []trackerOp{typed(0), row(100*ms, "our message"), screen(2*time.Second, PromptEmpty),
				row(3*time.Second, "restored"), row(4*time.Second, "restored")},
			line: "restored", dirty: true, settle: 4 * time.Second},
		{name: "an empty row within the echo grace of office's typing does not end it",
			ops:    []trackerOp{typed(0), screen(10*ms, PromptEmpty), row(100*ms, "our message"), row(5*time.Second, "our message")},
			settle: noSettle},
		{name: "screen with text after a submit counts again only past the echo grace",
			ops: []trackerOp{feed(0, "hi\r"), screen(5*time.Second, PromptHasText)}, settle: 6 * time.Second, submitted: []string{"hi"}},
		{name: "unknown screen changes nothing",
			ops: []trackerOp{feed(0, "abc"), screen(time.Hour, PromptUnknown)}, line: "abc", dirty: true, settle: noSettle},
		{name: "screen with text keeps a draft",
			ops: []trackerOp{feed(0, "abc"), screen(time.Hour, PromptHasText)}, line: "abc", dirty: true, settle: noSettle},
		{name: "an empty screen never touches the latch",
			ops:    []trackerOp{feed(0, "/model\r"), screen(5*time.Second, PromptEmpty)},
			picker: true, settle: noSettle, submitted: []string{"/model"}},
		{name: "an empty screen with no keystroke ever clears a marked draft after the grace",
			ops: []trackerOp{mark(0, "typed by office"), screen(EchoGrace, PromptEmpty)}, settle: noSettle},
		{name: "an empty screen within the grace after MarkDraft keeps it",
			ops:  []trackerOp{mark(0, "typed by office"), screen(EchoGrace-time.Nanosecond, PromptEmpty)},
			line: "typed by office", dirty: true, settle: noSettle},

		// The caller's explicit calls
		{name: "ClearDraft clears the line but keeps the latch",
			ops:    []trackerOp{feed(0, "/model\r"), feed(ms, "abc"), clearDraft(2 * ms)},
			picker: true, settle: noSettle, submitted: []string{"/model"}},
		{name: "ReleasePicker releases with 500ms settling and keeps the line",
			ops:  []trackerOp{feed(0, "/model\r"), feed(ms, "abc"), release(time.Second)},
			line: "abc", dirty: true, settle: time.Second + PickerCloseSettle, submitted: []string{"/model"}},
		{name: "ReleasePicker without a latch sets no settling",
			ops: []trackerOp{release(time.Second)}, settle: noSettle},
		{name: "MarkDraft makes a draft",
			ops: []trackerOp{mark(0, "hello")}, line: "hello", dirty: true, settle: noSettle},
		{name: "MarkDraft replaces the line",
			ops: []trackerOp{feed(0, "abc"), mark(ms, "xy")}, line: "xy", dirty: true, settle: noSettle},
		{name: "MarkDraft of empty text is no draft",
			ops: []trackerOp{feed(0, "abc"), mark(ms, "")}, settle: noSettle},
		{name: "Settle extends the settling block",
			ops: []trackerOp{settleTo(time.Second), settleTo(2 * time.Second)}, settle: 2 * time.Second},
		{name: "Settle never shortens the settling block",
			ops: []trackerOp{settleTo(2 * time.Second), settleTo(time.Second)}, settle: 2 * time.Second},
		{name: "releasing never shortens a longer settling block",
			ops:    []trackerOp{settleTo(time.Hour), feed(0, "/model\r"), feed(ms, "\x1b")},
			settle: time.Hour, submitted: []string{"/model"}},
	}
}

func TestTracker(t *testing.T) {
	tests := trackerCases()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := &Tracker{Extra: tt.extra}
			var submitted []string
			for _, op := range tt.ops {
				submitted = append(submitted, op.apply(tr)...)
			}
			s := tr.State()
			if got := tr.Draft(); got != tt.line {
				t.Errorf("Draft() = %q, want %q", got, tt.line)
			}
			if s.Dirty != tt.dirty {
				t.Errorf("Dirty = %v, want %v", s.Dirty, tt.dirty)
			}
			if s.PickerLatched != tt.picker {
				t.Errorf("PickerLatched = %v, want %v", s.PickerLatched, tt.picker)
			}
			wantSettle := time.Time{}
			if tt.settle != noSettle {
				wantSettle = at(tt.settle)
			}
			if !s.SettleUntil.Equal(wantSettle) {
				t.Errorf("SettleUntil = %v, want %v", s.SettleUntil, wantSettle)
			}
			if !slices.Equal(submitted, tt.submitted) {
				t.Errorf("submitted = %q, want %q", submitted, tt.submitted)
			}
			if s.Exited {
				t.Error("Tracker.State().Exited = true, want always false")
			}
		})
	}
}

func TestTrackerTimes(t *testing.T) {
	t.Run("zero tracker has no times", func(t *testing.T) {
		var tr Tracker
		if s := tr.State(); s != (State{}) || !tr.LastKey().IsZero() || tr.Line() != "" {
			t.Errorf("zero Tracker: State() = %+v, LastKey() = %v, Line() = %q", s, tr.LastKey(), tr.Line())
		}
	})
	t.Run("every non-empty chunk stamps LastKey and DirtyAt", func(t *testing.T) {
		var tr Tracker
		tr.Feed([]byte("ab"), at(0))
		tr.Feed([]byte("\x1b[A"), at(time.Minute)) // an arrow key touches no text but is a keystroke
		if got := tr.LastKey(); !got.Equal(at(time.Minute)) {
			t.Errorf("LastKey() = %v, want t0+1m", got)
		}
		if got := tr.State().DirtyAt; !got.Equal(at(time.Minute)) {
			t.Errorf("DirtyAt = %v, want t0+1m", got)
		}
		tr.Feed(nil, at(time.Hour))
		if got := tr.LastKey(); !got.Equal(at(time.Minute)) {
			t.Errorf("an empty chunk moved LastKey to %v", got)
		}
	})
	t.Run("the latch records its time", func(t *testing.T) {
		var tr Tracker
		tr.Feed([]byte("/model\r"), at(time.Second))
		if got := tr.State().PickerAt; !got.Equal(at(time.Second)) {
			t.Errorf("PickerAt = %v, want t0+1s", got)
		}
		tr.Feed([]byte("\x1b"), at(2*time.Second))
		if got := tr.State().PickerAt; !got.IsZero() {
			t.Errorf("PickerAt after release = %v, want zero", got)
		}
	})
	t.Run("MarkDraft stamps DirtyAt but not LastKey", func(t *testing.T) {
		var tr Tracker
		tr.MarkDraft("x", at(time.Second))
		if got := tr.State().DirtyAt; !got.Equal(at(time.Second)) {
			t.Errorf("DirtyAt = %v, want t0+1s", got)
		}
		if got := tr.LastKey(); !got.IsZero() {
			t.Errorf("LastKey() = %v, want zero (office typed, not the person)", got)
		}
	})
}

// TestTrackerBlocks runs the seed's draft and picker windows end to end:
// Tracker state into BlockReason.
func TestTrackerBlocks(t *testing.T) {
	tests := []struct {
		name   string
		ops    []trackerOp
		check  time.Duration
		want   Block
		timing Timing
	}{
		{"a draft typed at T is blocked at T+1ms", []trackerOp{feed(0, "draft")}, time.Millisecond, BlockDraft, Timing{}},
		{"a draft typed at T is blocked at T+10min", []trackerOp{feed(0, "draft")}, 10 * time.Minute, BlockDraft, Timing{}},
		{"a draft typed at T is automatable at exactly T+30min", []trackerOp{feed(0, "draft")}, StaleAfter, BlockNone, Timing{}},
		{"touching the draft again restarts its window",
			[]trackerOp{feed(0, "draft"), feed(20*time.Minute, "\x1b[D")}, StaleAfter, BlockDraft, Timing{}},
		{"picker and draft together report picker",
			[]trackerOp{feed(0, "/model\r"), feed(ms, "j")}, time.Second, BlockPicker, Timing{}},
		{"the picker is automatable 30 min after the latch", []trackerOp{feed(0, "/model\r")}, StaleAfter, BlockNone, Timing{}},
		{"settling blocks 1ns before it ends",
			[]trackerOp{feed(0, "/model\r"), feed(time.Second, "\x1b")}, time.Second + PickerCloseSettle - time.Nanosecond, BlockSettling, Timing{}},
		{"settling ends at exactly now+500ms",
			[]trackerOp{feed(0, "/model\r"), feed(time.Second, "\x1b")}, time.Second + PickerCloseSettle, BlockNone, Timing{}},
		{"a submitted prompt leaves no block", []trackerOp{feed(0, "hi\r")}, time.Millisecond, BlockNone, Timing{}},
		// The office file's stale and picker_settle (Timing).
		{"stale 5m: a draft is automatable 5 min after it was typed",
			[]trackerOp{feed(0, "draft")}, 5 * time.Minute, BlockNone, Timing{Stale: 5 * time.Minute}},
		{"stale 5m: a draft still blocks 1ns before",
			[]trackerOp{feed(0, "draft")}, 5*time.Minute - time.Nanosecond, BlockDraft, Timing{Stale: 5 * time.Minute}},
		{"stale 2h: a draft still blocks after the default 30 min",
			[]trackerOp{feed(0, "draft")}, StaleAfter, BlockDraft, Timing{Stale: 2 * time.Hour}},
		{"stale 5m: the picker is automatable 5 min after the latch",
			[]trackerOp{feed(0, "/model\r")}, 5 * time.Minute, BlockNone, Timing{Stale: 5 * time.Minute}},
		{"picker_settle 2s: settling blocks past the default 500ms",
			[]trackerOp{feed(0, "/model\r"), feed(time.Second, "\x1b")}, time.Second + PickerCloseSettle, BlockSettling, Timing{PickerSettle: 2 * time.Second}},
		{"picker_settle 2s: settling ends at exactly 2s",
			[]trackerOp{feed(0, "/model\r"), feed(time.Second, "\x1b")}, 3 * time.Second, BlockNone, Timing{PickerSettle: 2 * time.Second}},
		{"picker_settle 50ms: released by Enter, settling ends at 50ms",
			[]trackerOp{feed(0, "/model\r"), feed(time.Second, "\r")}, time.Second + 50*ms, BlockNone, Timing{PickerSettle: 50 * ms}},
		{"picker_settle 50ms: ReleasePicker settles that long",
			[]trackerOp{feed(0, "/model\r"), release(time.Second)}, time.Second + 50*ms - time.Nanosecond, BlockSettling, Timing{PickerSettle: 50 * ms}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := Tracker{Timing: tt.timing}
			for _, op := range tt.ops {
				op.apply(&tr)
			}
			if s := tr.State(); s.Stale != tt.timing.Stale {
				t.Errorf("State().Stale = %v, want the Timing's %v", s.Stale, tt.timing.Stale)
			}
			if got := BlockReason(tr.State(), at(tt.check)); got != tt.want {
				t.Errorf("BlockReason at t0+%v = %v, want %v (state %+v)", tt.check, got, tt.want, tr.State())
			}
		})
	}
}

// Text on the prompt row that office did not type holds delivery from the
// moment it is seen: settling within the echo grace, the person's draft
// after it, stale StaleAfter after it was first seen; a change restarts both.
func TestScreenTextHoldsFromFirstSight(t *testing.T) {
	for _, tm := range []Timing{{}, {EchoGrace: 3 * time.Second, Stale: 10 * time.Minute}, {EchoGrace: 200 * ms, Stale: 2 * time.Hour}} {
		echo, stale := orDefault(tm.EchoGrace, EchoGrace), orDefault(tm.Stale, StaleAfter)
		t.Run(fmt.Sprintf("echo %v stale %v", echo, stale), func(t *testing.T) {
			tr := Tracker{Timing: tm}
			tr.ObservePrompt("recalled", true, at(0))
			if b := BlockReason(tr.State(), at(echo-ms)); b != BlockSettling {
				t.Fatalf("within the echo grace: %v, want settling", b)
			}
			tr.ObservePrompt("recalled", true, at(echo-ms))
			if s := tr.State(); s.Dirty {
				t.Fatalf("a draft before the echo grace ended: %+v", s)
			}
			tr.ObservePrompt("recalled", true, at(echo))
			if b := BlockReason(tr.State(), at(echo)); b != BlockDraft {
				t.Fatalf("past the echo grace: %v, want your draft", b)
			}
			tr.ObservePrompt("recalled", true, at(stale-ms))
			if b := BlockReason(tr.State(), at(stale-ms)); b != BlockDraft {
				t.Fatalf("just before stale: %v, want your draft", b)
			}
			if b := BlockReason(tr.State(), at(stale)); b != BlockNone {
				t.Fatalf("the stale window after first seen: %v, want none", b)
			}
			tr.ObservePrompt("recalled, edited", true, at(stale))
			tr.ObservePrompt("recalled, edited", true, at(stale+echo))
			if s := tr.State(); !s.Dirty || !s.DirtyAt.Equal(at(stale)) || BlockReason(s, at(stale+echo)) != BlockDraft {
				t.Fatalf("a change restarts the stale clock: %+v", s)
			}
		})
	}
}

func TestTrackerNext(t *testing.T) {
	for _, echo := range []time.Duration{0, 250 * ms, 4 * time.Second} {
		grace := orDefault(echo, EchoGrace)
		t.Run(fmt.Sprintf("echo %v", grace), func(t *testing.T) {
			tr := Tracker{Timing: Timing{EchoGrace: echo}}
			if n := tr.Next(at(0)); !n.IsZero() {
				t.Fatalf("zero Tracker: next %v", n)
			}
			tr.Feed([]byte("abc"), at(0))
			if n := tr.Next(at(grace / 10)); !n.Equal(at(grace)) {
				t.Fatalf("a keystroke draft: next %v, want the echo grace's end", n)
			}
			if n := tr.Next(at(grace)); !n.IsZero() {
				t.Fatalf("after the echo grace: next %v", n)
			}
			tr.ClearDraft()
			tr.ObservePrompt("recalled", true, at(5*time.Second))
			if n := tr.Next(at(5 * time.Second)); !n.Equal(at(5*time.Second + grace)) {
				t.Fatalf("new screen text: next %v", n)
			}
			tr.ObservePrompt("recalled", true, at(5*time.Second+grace))
			if n := tr.Next(at(5*time.Second + grace)); !n.IsZero() {
				t.Fatalf("a screen draft: next %v", n)
			}
			tr.Typed(at(10 * time.Second))
			if n := tr.Next(at(10 * time.Second)); !n.Equal(at(10*time.Second + grace)) {
				t.Fatalf("office typing: next %v", n)
			}
		})
	}
}

func TestStatusDebouncerPending(t *testing.T) {
	var d StatusDebouncer
	if _, ok := d.Pending(); ok {
		t.Fatal("zero debouncer has a pending change")
	}
	d.Update(StatusIdle, at(0))
	if p, ok := d.Pending(); !ok || !p.Equal(at(StatusDebounce)) {
		t.Fatalf("pending %v %v", p, ok)
	}
	d.Update(StatusIdle, at(StatusDebounce))
	if _, ok := d.Pending(); ok {
		t.Fatal("adopted idle still pending")
	}
	// status_debounce: the pending change is due After the first idle.
	long := StatusDebouncer{After: 2 * time.Second}
	long.Update(StatusIdle, at(0))
	if p, ok := long.Pending(); !ok || !p.Equal(at(2*time.Second)) {
		t.Fatalf("After 2s: pending %v %v", p, ok)
	}
}

package automation

// The line model (seed 002 §4.4, docs/design.md §3): office's belief about the
// person's draft on the agent's prompt, kept from the person's own input
// bytes and from the prompt row office did not type (ObservePrompt), plus the
// picker latch and the settling window after it closes.

import (
	"bytes"
	"strings"
	"time"
	"unicode/utf8"
)

// Tracker is the line model of one terminal: the draft (line text, dirty flag
// and its time), the picker latch and the settling deadline. Feed it only the
// person's own input; office's automated writes never pass through it.
//
// The zero value is ready: an empty line, no latch, no settling. A Tracker is
// not safe for concurrent use: one goroutine (pool's input path, or whoever
// holds the terminal's lock) owns it.
type Tracker struct {
	// Extra lists the profile's interactive commands beyond
	// DefaultInteractiveCommands; submitting one bare latches the picker.
	Extra []string
	// Timing sets the echo grace, the picker's settling and the stale
	// window State reports (the office file's echo_grace, picker_settle and
	// stale); its zero value is the constants EchoGrace, PickerCloseSettle
	// and StaleAfter.
	Timing Timing

	line      []rune    // the line model
	dirty     bool      // the person's text is believed to sit on the prompt
	dirtyAt   time.Time // last keystroke (or MarkDraft) that touched the draft
	lastKey   time.Time // last non-empty Feed
	lastTouch time.Time // later of lastKey and the last MarkDraft: the echo-grace origin
	picker    bool      // a picker is believed open
	pickerAt  time.Time // when it was latched
	settle    time.Time // automation is blocked strictly before this
	inPaste   bool      // between a paste start marker and its end marker
	pending   []byte    // an incomplete UTF-8 rune at the end of the last chunk

	// The screen's side of the draft (ObservePrompt): text on the prompt row
	// that office did not type.
	officeTyped bool      // office wrote text since the row last read empty
	typedAt     time.Time // when it last did
	screenText  string    // the prompt row's text as last read ("" empty or office's)
	screenSeen  time.Time // when screenText was first seen (restarts when it changes)
	screenDraft bool      // screenText counts as the person's draft
	submitted   string    // the person's last submitted line
	submittedAt time.Time // when it was submitted
}

// Feed applies one chunk of the person's input (one read, one batch of keys)
// received at now, and returns the non-empty trimmed lines it submitted, in
// order (nil if none). An empty chunk changes nothing. The rules:
//
//   - A chunk that is exactly Esc or Ctrl-C releases the picker latch, if set,
//     with a picker settling block (Timing.PickerSettle), and clears the line.
//     A chunk that is exactly Ctrl-U clears the line but leaves the latch:
//     kill-line does not close a menu.
//   - Bracketed-paste markers (ESC[200~, ESC[201~) are removed; each must arrive
//     whole in one chunk, but a paste body may span chunks. Pasted text is
//     typed text, except that its newlines are kept in the line and never
//     submit.
//   - Otherwise the chunk is decoded rune by rune (an incomplete rune at its end
//     is kept for the next chunk; invalid bytes become U+FFFD). Outside a paste:
//     CR or LF submits (CR LF counts as one Enter); DEL or BS removes the last
//     rune; an ESC starts an escape sequence (arrow key, Alt-combo) and ends the
//     scan, up to the next paste start marker in the same chunk; printable runes
//     and tab are appended; other controls are ignored.
//   - Submitting trims the line, reports it if non-empty and clears it; a latch
//     that was set is released with a picker settling block
//     (Timing.PickerSettle); then, if the text is a bare interactive command
//     (OpensInteractiveUI with t.Extra), the picker is latched at now.
//
// After any non-empty chunk the draft is dirty exactly when the line is
// non-empty, and both LastKey and the draft's time (State().DirtyAt) are now:
// the stale window measures time since the person last touched the draft.
// Any non-empty chunk also ends office's own typing (Typed): text the prompt
// row shows after the person's key is read as ObservePrompt reads text office
// did not type. A chunk that is only a report of the person's terminal
// (focus in/out, a mouse report) is no key and changes nothing.
func (t *Tracker) Feed(chunk []byte, now time.Time) (submitted []string) {
	if len(chunk) == 0 || reportOnly(chunk) {
		// A report of the person's terminal (focus in/out, the mouse) is
		// no key: it edits no prompt and touches no draft, so switching
		// windows neither renews a draft's stale window nor ends office's
		// own typing.
		return nil
	}
	t.lastKey = now
	t.dirtyAt = now
	t.lastTouch = now
	// A key of the person's ends office's own typing: what the row shows
	// from now on may be the key's doing (Esc restoring an interrupted
	// prompt, Up recalling history), not the echo of office's text.
	t.officeTyped = false

	if act, ok := loneKeys[string(chunk)]; ok {
		t.pending = nil
		t.line = t.line[:0]
		t.dirty = false
		if act == actClearRelease {
			t.inPaste = false
			t.release(now)
		}
		return nil
	}

	data := chunk
	if len(t.pending) > 0 {
		data = append(append([]byte(nil), t.pending...), chunk...)
		t.pending = nil
	}
	prevCR := false
	for i := 0; i < len(data); {
		if data[i] == 0x1b {
			if bytes.HasPrefix(data[i:], []byte(pasteStart)) {
				t.inPaste, prevCR = true, false
				i += len(pasteStart)
				continue
			}
			if bytes.HasPrefix(data[i:], []byte(pasteEnd)) {
				t.inPaste, prevCR = false, false
				i += len(pasteEnd)
				continue
			}
		}
		r, w := rune(data[i]), 1
		if r >= utf8.RuneSelf {
			if !utf8.FullRune(data[i:]) {
				t.pending = append([]byte(nil), data[i:]...)
				break
			}
			r, w = utf8.DecodeRune(data[i:])
		}
		i += w
		if r == '\n' && prevCR {
			prevCR = false
			continue // CR LF is one Enter (or one pasted newline)
		}
		prevCR = r == '\r'

		paste := 0
		if t.inPaste {
			paste = 1
		}
		switch keyActions[paste][classify(r)] {
		case actAppend:
			t.line = append(t.line, r)
		case actNewline:
			t.line = append(t.line, '\n')
		case actPop:
			if n := len(t.line); n > 0 {
				t.line = t.line[:n-1]
			}
		case actSubmit:
			if s := t.submit(now); s != "" {
				submitted = append(submitted, s)
			}
		case actStopScan:
			if j := bytes.Index(data[i:], []byte(pasteStart)); j >= 0 {
				i += j
			} else {
				i = len(data)
			}
		}
	}
	t.dirty = len(t.line) > 0
	return submitted
}

// reportOnly reports whether chunk is exactly one report the person's
// terminal makes rather than a key: focus in or out (ESC [ I, ESC [ O) or
// a mouse report (SGR ESC [ < b ; x ; y M/m, urxvt ESC [ b ; x ; y M,
// X10 ESC [ M and three bytes).
func reportOnly(chunk []byte) bool {
	switch s := string(chunk); {
	case s == "\x1b[I" || s == "\x1b[O":
		return true
	case len(s) == 6 && strings.HasPrefix(s, "\x1b[M"):
		return true
	case strings.HasPrefix(s, "\x1b[<") && (strings.HasSuffix(s, "M") || strings.HasSuffix(s, "m")):
		return digitsAndSemicolons(s[3:len(s)-1], 2)
	case strings.HasPrefix(s, "\x1b[") && strings.HasSuffix(s, "M"):
		return digitsAndSemicolons(s[2:len(s)-1], 2)
	}
	return false
}

// digitsAndSemicolons reports whether s is decimal numbers separated by
// exactly semis semicolons.
func digitsAndSemicolons(s string, semis int) bool {
	if s == "" || strings.Count(s, ";") != semis {
		return false
	}
	for _, f := range strings.Split(s, ";") {
		if f == "" || strings.Trim(f, "0123456789") != "" {
			return false
		}
	}
	return true
}

// submit handles Enter outside a paste and returns the trimmed line.
func (t *Tracker) submit(now time.Time) string {
	text := strings.TrimSpace(string(t.line))
	t.line = t.line[:0]
	t.submitted, t.submittedAt = text, now
	t.release(now)
	if OpensInteractiveUI(text, t.Extra) {
		t.picker = true
		t.pickerAt = now
	}
	return text
}

// release drops the picker latch, if set, with a picker settling block
// (Timing.PickerSettle).
func (t *Tracker) release(now time.Time) {
	if !t.picker {
		return
	}
	t.picker = false
	t.pickerAt = time.Time{}
	t.Settle(now.Add(t.pickerSettle()))
}

// Line returns the current line model: what office believes the person has
// typed on the prompt (pasted newlines included).
func (t *Tracker) Line() string {
	return string(t.line)
}

// State returns the picker, draft and settling fields of the automation state.
// The draft is dirty when the keystroke line holds text or the screen's text
// counts as a draft; DirtyAt is the later of the last keystroke touching it
// and when the screen's text was first seen. Exited is always false; the
// caller sets it.
func (t *Tracker) State() State {
	s := State{
		PickerLatched: t.picker,
		PickerAt:      t.pickerAt,
		Dirty:         t.dirty,
		DirtyAt:       t.dirtyAt,
		SettleUntil:   t.settle,
		Stale:         t.Timing.Stale,
	}
	if t.screenDraft {
		if !s.Dirty || t.screenSeen.After(s.DirtyAt) {
			s.DirtyAt = t.screenSeen
		}
		s.Dirty = true
	}
	return s
}

// Draft returns the text of the person's draft: the keystroke line when it
// holds text, else the screen's text when it counts as a draft, else "".
func (t *Tracker) Draft() string {
	if len(t.line) > 0 {
		return string(t.line)
	}
	if t.screenDraft {
		return t.screenText
	}
	return ""
}

// LastKey returns when the person last fed a non-empty chunk; zero if never.
func (t *Tracker) LastKey() time.Time {
	return t.lastKey
}

// Settle extends the settling block to until; it never shortens it.
func (t *Tracker) Settle(until time.Time) {
	if until.After(t.settle) {
		t.settle = until
	}
}

// ClearDraft clears the line and the dirty flag, as the person's "recover
// prompt" (office sending Ctrl-U for them) does. The picker latch stays:
// kill-line does not close a menu.
func (t *Tracker) ClearDraft() {
	t.line = t.line[:0]
	t.dirty = false
	t.screenText, t.screenSeen, t.screenDraft = "", time.Time{}, false
}

// ReleasePicker releases the picker latch, if set, with a picker settling
// block (Timing.PickerSettle) from now. It is for the composer's "close
// picker" button, which sends Esc for the person. The line is left as it is.
func (t *Tracker) ReleasePicker(now time.Time) {
	t.release(now)
}

// MarkDraft makes text the line model and counts it as the person's draft from
// now (dirty when text is non-empty). It is for text office typed but could not
// submit: it sits on the prompt like the person's own. The echo grace of
// ObservePrompt also runs from now, as after a keystroke.
func (t *Tracker) MarkDraft(text string, now time.Time) {
	t.line = append(t.line[:0], []rune(text)...)
	t.dirty = len(t.line) > 0
	t.dirtyAt = now
	t.lastTouch = now
}

// ObservePrompt applies the screen's reading of the prompt row at now: row
// is its text with the profile's placeholders and dim ghost text removed, ok
// false when the row could not be found (no evidence; nothing changes).
//
//   - A row that reads empty (ReadPromptRow) ends office's own typing once
//     EchoGrace has passed since it, drops any screen draft, and clears the
//     keystroke draft once EchoGrace has passed since the last keystroke (or
//     MarkDraft), or there was none.
//   - A row with text office did not type (no Typed since the row last read
//     empty) is the person's draft, whoever put it there (history recall, a
//     restored prompt, a CLI's autofill), once the same text has been there
//     for EchoGrace and no keystroke came in that time. Its stale clock
//     (State().DirtyAt) starts when the text was first seen and restarts when
//     it changes; until it counts, the settling block runs to EchoGrace
//     after it was first seen (so nothing is typed after new text meanwhile),
//     unless the person's keys explain it: the keystroke line holds a draft,
//     or it is the late echo of the line they just submitted (no key and no
//     empty row since, less than EchoGrace ago).
//
// EchoGrace here is t.Timing's echo grace. The picker latch is never touched.
func (t *Tracker) ObservePrompt(row string, ok bool, now time.Time) {
	switch ReadPromptRow(row, ok) {
	case PromptUnknown:
		return
	case PromptEmpty:
		if t.officeTyped && now.Sub(t.typedAt) >= t.echoGrace() {
			t.officeTyped = false
		}
		if t.screenText != "" && strings.HasPrefix(t.submitted, t.screenText) {
			// The row showed the line and now is empty: the CLI took it,
			// and the same text later is no echo.
			t.submitted = ""
		}
		t.screenText, t.screenSeen, t.screenDraft = "", time.Time{}, false
		if !t.lastTouch.IsZero() && now.Sub(t.lastTouch) < t.echoGrace() {
			return
		}
		t.line = t.line[:0]
		t.dirty = false
		return
	}
	if t.officeTyped {
		return
	}
	if row != t.screenText {
		t.screenText, t.screenSeen, t.screenDraft = row, now, false
		// The late echo of the submitted line (or of its start, drawn in
		// pieces): no key since the Enter, no empty row since, and within
		// the echo grace.
		echo := t.submitted != "" && strings.HasPrefix(t.submitted, row) && t.lastKey.Equal(t.submittedAt) &&
			now.Sub(t.submittedAt) < t.echoGrace()
		if !t.dirty && !echo {
			// New text no keystroke explains (not the person's draft, not
			// the late echo of the line they just submitted): until it
			// counts as a draft the row is still settling, so nothing is
			// typed after it in the meantime.
			t.Settle(now.Add(t.echoGrace()))
		}
	}
	if now.Sub(t.screenSeen) >= t.echoGrace() && (t.lastTouch.IsZero() || now.Sub(t.lastTouch) >= t.echoGrace()) {
		t.screenDraft = true
	}
}

// Typed records that office itself wrote text to the prompt at now (the
// drain's message, an approved choice): text the screen shows on the prompt
// row is office's, not the person's, until the row next reads empty.
func (t *Tracker) Typed(now time.Time) {
	t.officeTyped = true
	t.typedAt = now
	t.screenText, t.screenSeen, t.screenDraft = "", time.Time{}, false
}

// Next returns the earliest instant after now at which a prompt-row reading
// may change the tracker though the row stays the same (the echo grace after
// a keystroke, after office's typing, after new text was first seen), or the
// settling block ends; zero when there is none. A caller that reads the row
// only when the screen changes reads it again then.
func (t *Tracker) Next(now time.Time) time.Time {
	var next time.Time
	consider := func(at time.Time) {
		if at.After(now) && (next.IsZero() || at.Before(next)) {
			next = at
		}
	}
	if t.dirty && !t.lastTouch.IsZero() {
		consider(t.lastTouch.Add(t.echoGrace()))
	}
	if t.officeTyped {
		consider(t.typedAt.Add(t.echoGrace()))
	}
	if t.screenText != "" && !t.screenDraft {
		consider(t.screenSeen.Add(t.echoGrace()))
		consider(t.lastTouch.Add(t.echoGrace()))
	}
	consider(t.settle)
	return next
}

// echoGrace is the echo grace t runs on.
func (t *Tracker) echoGrace() time.Duration { return orDefault(t.Timing.EchoGrace, EchoGrace) }

// pickerSettle is the settling block t sets when a picker is released.
func (t *Tracker) pickerSettle() time.Duration {
	return orDefault(t.Timing.PickerSettle, PickerCloseSettle)
}

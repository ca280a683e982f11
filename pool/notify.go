package pool

// notify.go reads an agent's own notifications from its output stream: the
// desktop notifications terminals show (OSC 9 text, OSC 777;notify;TITLE;
// BODY, kitty's OSC 99) and BEL. The Filter collects them as it drops them
// (they never reach vt10x or the screen); the Terminal hands them on as
// EventNotify, at most one per NoteGap, repeats folded (docs/needs.md).

import (
	"bytes"
	"encoding/base64"
	"strings"
	"sync"
	"time"
)

// Note is one notification an agent's CLI sent to its terminal.
type Note struct {
	// Kind is how it came: NoteOSC9, NoteOSC777, NoteOSC99 or NoteBell.
	Kind  string
	Title string
	Body  string
	// Repeats counts the notes folded into this one (the same note again
	// within NoteGap, or any note past the pending bound).
	Repeats int
}

// The kinds of Note.
const (
	NoteOSC9   = "osc9"
	NoteOSC777 = "osc777"
	NoteOSC99  = "osc99"
	NoteBell   = "bell"
)

// Bounds of the notes.
const (
	// maxNoteText bounds a note's title and body, in bytes.
	maxNoteText = 256
	// maxNotesPending bounds the notes one Feed collects; more are folded
	// into the last.
	maxNotesPending = 4
	// NoteGap is the least time between two EventNotify of one terminal:
	// notes in between are folded into the next one.
	NoteGap = time.Second
)

// note records a notification seen in the stream.
func (f *Filter) note(n Note) {
	n.Title, n.Body = boundNote(n.Title), boundNote(n.Body)
	if k := len(f.notes); k > 0 && (k >= maxNotesPending || sameNote(f.notes[k-1], n)) {
		f.notes[k-1].Repeats += 1 + n.Repeats
		return
	}
	f.notes = append(f.notes, n)
}

// takeNotes returns the notes collected and forgets them.
func (f *Filter) takeNotes() []Note {
	if len(f.notes) == 0 {
		return nil
	}
	out := f.notes
	f.notes = nil
	return out
}

func sameNote(a, b Note) bool { return a.Kind == b.Kind && a.Title == b.Title && a.Body == b.Body }

// noteText is an OSC payload as a notification's text: valid UTF-8 with
// every control character (C0, DEL, C1) dropped. The payload is the
// agent's: decoded from base64 (OSC 99) it may hold ESC or BEL, and the
// text reaches the person's terminal, a command's arguments and a
// webhook's consumers.
func noteText(b []byte) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return -1
		}
		return r
	}, cleanString(b))
}

// boundNote cuts s to maxNoteText bytes on a rune boundary (s is already
// valid UTF-8 with no control bytes: noteText of an OSC payload).
func boundNote(s string) string {
	if len(s) <= maxNoteText {
		return s
	}
	cut := maxNoteText
	for cut > 0 && s[cut]&0xc0 == 0x80 {
		cut--
	}
	return s[:cut]
}

// oscNote reads the notification OSCs 9, 777 and 99 (arg is the payload
// after "NUM;").
func (f *Filter) oscNote(num int, arg []byte) {
	switch num {
	case 9:
		// ConEmu's OSC 9;N;... commands (progress bars, 9;4) are not
		// notifications: a payload that starts with a number field is one.
		k := 0
		for k < len(arg) && arg[k] >= '0' && arg[k] <= '9' {
			k++
		}
		if len(arg) == 0 || (k > 0 && (k == len(arg) || arg[k] == ';')) {
			return
		}
		f.note(Note{Kind: NoteOSC9, Body: noteText(arg)})
	case 777:
		rest, ok := bytes.CutPrefix(arg, []byte("notify;"))
		if !ok {
			return
		}
		title, body, _ := bytes.Cut(rest, []byte(";"))
		f.note(Note{Kind: NoteOSC777, Title: noteText(title), Body: noteText(body)})
	case 99:
		f.kittyNote(arg)
	}
}

// kittyNote reads one chunk of kitty's OSC 99 (META;PAYLOAD, META
// colon-separated key=value pairs): p=title or p=body (the default) says
// which part, e=1 a base64 payload, d=0 more chunks follow. Chunks gather in
// f.k99 until the one that is done.
func (f *Filter) kittyNote(arg []byte) {
	meta, payload, _ := bytes.Cut(arg, []byte(";"))
	part, done, b64 := "body", true, false
	for _, kv := range bytes.Split(meta, []byte(":")) {
		k, v, _ := bytes.Cut(kv, []byte("="))
		switch string(k) {
		case "p":
			part = string(v)
		case "d":
			done = string(v) != "0"
		case "e":
			b64 = string(v) == "1"
		}
	}
	if b64 {
		dec, err := base64.StdEncoding.DecodeString(string(payload))
		if err != nil {
			return
		}
		payload = dec
	}
	text := noteText(payload)
	switch part {
	case "title":
		f.k99.Title = boundNote(f.k99.Title + text)
	case "body":
		f.k99.Body = boundNote(f.k99.Body + text)
	default:
		return // icons, buttons, queries: not text to show
	}
	if done {
		n := f.k99
		f.k99 = Note{}
		n.Kind = NoteOSC99
		f.note(n)
	}
}

// noteRate folds a terminal's notes so that at most one EventNotify leaves
// per NoteGap. Not safe for concurrent use (the reader's goroutine owns it).
type noteRate struct {
	last    time.Time // when the last note left
	pending *Note     // folded notes waiting for the gap to pass
}

// add takes notes seen at now and returns the one to send now, if any.
func (r *noteRate) add(notes []Note, now time.Time) (Note, bool) {
	for _, n := range notes {
		if r.pending == nil {
			p := n
			r.pending = &p
			continue
		}
		r.pending.Repeats += 1 + n.Repeats
		if !sameNote(*r.pending, n) {
			// the newest text wins; the count says how many came
			r.pending.Kind, r.pending.Title, r.pending.Body = n.Kind, n.Title, n.Body
		}
	}
	return r.due(now)
}

// due returns the pending note once NoteGap has passed since the last.
func (r *noteRate) due(now time.Time) (Note, bool) {
	if r.pending == nil || (!r.last.IsZero() && now.Sub(r.last) < NoteGap) {
		return Note{}, false
	}
	n := *r.pending
	r.pending, r.last = nil, now
	return n, true
}

// notes is a Terminal's notes on their way to EventNotify.
type notes struct {
	mu      sync.Mutex
	rate    noteRate
	waiting bool // a flush is scheduled for the end of the gap
}

// takeNotes returns the notes the filter collected since the last call.
func (s *Screen) takeNotes() []Note {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.f.takeNotes()
}

// passNotes sends the notes of the last read (at most one EventNotify per
// NoteGap; the rest are folded and sent when the gap ends).
func (t *Terminal) passNotes() {
	got := t.screen.takeNotes()
	if len(got) == 0 {
		return
	}
	t.notes.mu.Lock()
	n, ok := t.notes.rate.add(got, t.now())
	schedule := !ok && !t.notes.waiting
	if schedule {
		t.notes.waiting = true
	}
	t.notes.mu.Unlock()
	if ok {
		t.emitNote(n)
	}
	if schedule {
		go t.flushNotes()
	}
}

// flushNotes sends the folded notes once the gap has passed.
func (t *Terminal) flushNotes() {
	timer := t.clock.NewTimer(NoteGap)
	defer timer.Stop()
	select {
	case <-timer.C():
	case <-t.closed:
		return
	}
	t.notes.mu.Lock()
	t.notes.waiting = false
	n, ok := t.notes.rate.due(t.now())
	t.notes.mu.Unlock()
	if ok {
		t.emitNote(n)
	}
}

func (t *Terminal) emitNote(n Note) {
	if t.notify != nil {
		t.notify(Event{Agent: t.name, Kind: EventNotify, Note: n})
	}
}

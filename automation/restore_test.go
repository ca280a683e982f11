package automation

import "testing"

// A person who interrupts office's delivery at once (Esc within the echo
// grace of office's typing) gets the interrupted prompt back on the row, as
// Claude Code and the fake agent restore it: that text is no longer office's
// echo, so it holds the next message as the person's draft instead of having
// the next message typed after it (and submitted merged with it).
func TestRestoredPromptAfterAKeyIsADraft(t *testing.T) {
	for _, key := range []string{"\x1b", "\x03", "\x1b[A"} {
		tr := Tracker{}
		tr.Typed(at(0))                                // the drain types "task one"
		tr.ObservePrompt("task one", true, at(50*ms))  // its echo
		tr.ObservePrompt("", true, at(100*ms))         // Enter: the CLI took it
		tr.Feed([]byte(key), at(300*ms))               // the person's key
		tr.ObservePrompt("task one", true, at(350*ms)) // the CLI restores the prompt
		if b := BlockReason(tr.State(), at(350*ms)); b == BlockNone {
			t.Errorf("key %q: the restored prompt at once: %v, want it held", key, b)
		}
		later := at(350*ms + EchoGrace)
		tr.ObservePrompt("task one", true, later)
		if b := BlockReason(tr.State(), later); b != BlockDraft {
			t.Errorf("key %q: the restored prompt after the echo grace: %v, want your draft", key, b)
		}
		if d := tr.Draft(); d != "task one" {
			t.Errorf("key %q: draft %q, want the restored prompt", key, d)
		}
	}
}

// office's own echo still is office's: with no key of the person, the row
// showing what office typed is not a draft.
func TestOfficeEchoWithoutAKeyIsNoDraft(t *testing.T) {
	tr := Tracker{}
	tr.Typed(at(0))
	tr.ObservePrompt("task one", true, at(50*ms))
	tr.ObservePrompt("task one", true, at(50*ms+2*EchoGrace))
	if s := tr.State(); s.Dirty {
		t.Fatalf("office's own echo counted as a draft: %+v", s)
	}
}

// A report of the person's terminal during a delivery (focus out and in
// on switching windows, a mouse wheel or click an agent asked for) edits
// no prompt: office's echo stays office's, no draft.
func TestTerminalReportsDoNotEndOfficesTyping(t *testing.T) {
	for _, report := range []string{"\x1b[O", "\x1b[I", "\x1b[<64;10;5M", "\x1b[<0;3;4m", "\x1b[96;10;5M", "\x1b[M`*%"} {
		tr := Tracker{}
		tr.Typed(at(0))
		tr.ObservePrompt("task one", true, at(50*ms))
		tr.Feed([]byte(report), at(60*ms))
		tr.ObservePrompt("task one", true, at(100*ms))
		later := at(100*ms + 2*EchoGrace)
		tr.ObservePrompt("task one", true, later)
		if b := BlockReason(tr.State(), later); b == BlockDraft || tr.State().Dirty {
			t.Errorf("report %q: office's echo counted as a draft: %v %+v", report, b, tr.State())
		}
	}
	// Keys that look alike are keys: an arrow, Alt-M, a lone ESC [.
	for _, key := range []string{"\x1b[A", "\x1bM", "\x1b[", "\x1b[1;5M"} {
		if reportOnly([]byte(key)) {
			t.Errorf("key %q taken for a terminal report", key)
		}
	}
}

// A terminal report touches no draft: the draft's time (its stale window
// counts from it) and the last key stay those of the person's last key.
func TestTerminalReportsTouchNoDraft(t *testing.T) {
	tr := Tracker{}
	tr.Feed([]byte("half a thought"), at(0))
	before, key := tr.State(), tr.LastKey()
	tr.Feed([]byte("\x1b[O"), at(20*60*1000*ms))
	tr.Feed([]byte("\x1b[<35;10;5M"), at(25*60*1000*ms))
	if after := tr.State(); after.DirtyAt != before.DirtyAt || !tr.LastKey().Equal(key) || tr.Draft() != "half a thought" {
		t.Fatalf("a terminal report touched the draft: before %+v, after %+v, draft %q", before, after, tr.Draft())
	}
}

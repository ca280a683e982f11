package pool

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

func TestFilterReadsNotificationsWithoutPassingThem(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 400)
	stream := "a\x07b" +
		"\x1b]9;build done\x07" +
		"\x1b]9;4;1;50\x07" + // ConEmu progress: no notification
		"\x1b]777;notify;Codex;approval requested\x1b\\" +
		"\x1b]99;i=1:d=0:p=title;Gem\x1b\\\x1b]99;i=1:d=0:p=title;ini\x1b\\\x1b]99;i=1:p=body:e=1;" + base64.StdEncoding.EncodeToString([]byte("needs input")) + "\x1b\\" +
		"\x1b]99;i=2:p=icon;x\x1b\\" + // not text
		"\x1b]9;" + long + "\x07c"
	for _, chunk := range []int{1, 7, len(stream)} {
		f := NewFilter()
		var out []byte
		for off := 0; off < len(stream); off += chunk {
			out, _ = f.Process(out, []byte(stream[off:min(off+chunk, len(stream))]))
		}
		if string(out) != "abc" {
			t.Fatalf("chunk %d: vt10x got %q, want only the text", chunk, out)
		}
		got := f.takeNotes()
		if len(got) != 4 {
			t.Fatalf("chunk %d: notes %+v, want 4 (bell, osc9, osc777, osc99; the rest folded)", chunk, got)
		}
		want := []Note{{Kind: NoteBell}, {Kind: NoteOSC9, Body: "build done"}, {Kind: NoteOSC777, Title: "Codex", Body: "approval requested"},
			{Kind: NoteOSC99, Title: "Gemini", Body: "needs input", Repeats: 1}}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("chunk %d: note %d = %+v, want %+v", chunk, i, got[i], want[i])
			}
		}
		if f.takeNotes() != nil {
			t.Fatal("notes taken twice")
		}
	}
	f := NewFilter()
	f.Process(nil, []byte("\x1b]9;"+long+"\x07"))
	if n := f.takeNotes(); len(n) != 1 || len(n[0].Body) > maxNoteText || !strings.HasPrefix(long, n[0].Body) {
		t.Fatalf("a long note: %d bytes, want at most %d, cut on a rune", len(n[0].Body), maxNoteText)
	}
}

func TestNoteRateSendsOnePerGapAndFoldsTheRest(t *testing.T) {
	t.Parallel()
	var r noteRate
	t0 := time.Unix(1000, 0)
	if n, ok := r.add([]Note{{Kind: NoteBell}}, t0); !ok || n.Kind != NoteBell {
		t.Fatalf("first note: %+v %v, want sent", n, ok)
	}
	if _, ok := r.add([]Note{{Kind: NoteOSC9, Body: "x"}, {Kind: NoteOSC9, Body: "y"}}, t0.Add(NoteGap/2)); ok {
		t.Fatal("a note within the gap was sent")
	}
	n, ok := r.due(t0.Add(NoteGap))
	if !ok || n.Body != "y" || n.Repeats != 1 {
		t.Fatalf("after the gap: %+v %v, want the newest with 1 folded", n, ok)
	}
	if _, ok := r.due(t0.Add(3 * NoteGap)); ok {
		t.Fatal("a note sent twice")
	}
}

// A notification's text is the agent's: what OSC 99 decodes from base64
// (or any payload) carries no control character on to the person's
// terminal, a command's arguments or a webhook.
func TestNotificationTextDropsControlCharacters(t *testing.T) {
	t.Parallel()
	evil := "\x1b]52;c;aGk=\a\x1b[2Jhi\u009b\x08\x7f"
	f := NewFilter()
	_, _ = f.Process(nil, []byte("\x1b]99;i=9:d=0:p=title:e=1;"+base64.StdEncoding.EncodeToString([]byte(evil))+"\x1b\\"+
		"\x1b]99;i=9:p=body:e=1;"+base64.StdEncoding.EncodeToString([]byte("body"+evil))+"\x1b\\"))
	got := f.takeNotes()
	if len(got) != 1 {
		t.Fatalf("notes %+v, want one", got)
	}
	for _, s := range []string{got[0].Title, got[0].Body} {
		for _, r := range s {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
				t.Fatalf("note %+v keeps control character %U", got[0], r)
			}
		}
	}
	if got[0].Title != "]52;c;aGk=[2Jhi" || got[0].Body != "body]52;c;aGk=[2Jhi" {
		t.Fatalf("note %+v: want the text less its control characters", got[0])
	}
}

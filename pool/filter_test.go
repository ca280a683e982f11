package pool

import (
	"bytes"
	"strings"
	"testing"
)

// filterAll runs p through a fresh Filter in one call.
func filterAll(p string) (out, reply string, f *Filter) {
	f = NewFilter()
	o, r := f.Process(nil, []byte(p))
	return string(o), string(r), f
}

// filterChunks runs p through a fresh Filter in chunks of n bytes.
func filterChunks(p string, n int) (out, reply string, f *Filter) {
	f = NewFilter()
	var o, r []byte
	for i := 0; i < len(p); i += n {
		j := min(i+n, len(p))
		var rep []byte
		o, rep = f.Process(o, []byte(p[i:j]))
		r = append(r, rep...)
	}
	return string(o), string(r), f
}

const ph = string(WidePlaceholder)

func TestFilterPassesPlainText(t *testing.T) {
	t.Parallel()
	in := "hello, world\r\n\tx\b"
	if out, _, _ := filterAll(in); out != in {
		t.Fatalf("got %q, want %q", out, in)
	}
}

func TestFilterSplitEqualsWhole(t *testing.T) {
	t.Parallel()
	streams := []string{
		"╭──╮ 中文 │ 日本語テスト 🎉 👩\u200d💻 e\u0301 \xff\xfe ok",
		"\x1b[38:2::10:20:30mX\x1b[0m\x1b]0;title ☃\x07\x1b[?2004h\x1b[>7u\x1b[?1049l",
		"a\xe2\x95\x1b[1mb\xf0\x9f\x8e\x1b[c\x1b]11;?\x1b\\\x1b[?2026$p",
		"\x1bP+q544e\x1b\\x\x1b]7501;state=working:app=codex\x1b\\y\x1b[3;5H\x1b[5b",
	}
	for _, s := range streams {
		wantOut, wantReply, wantF := filterAll(s)
		for _, n := range []int{1, 2, 3, 5} {
			out, reply, f := filterChunks(s, n)
			if out != wantOut || reply != wantReply || f.Modes() != wantF.Modes() {
				t.Errorf("chunk %d of %q:\n got %q %q %+v\nwant %q %q %+v", n, s, out, reply, f.Modes(), wantOut, wantReply, wantF.Modes())
			}
		}
	}
}

func TestFilterUTF8(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"中", "中" + ph},
		{"🎉x", "🎉" + ph + "x"},
		{"👩\u200d💻x", "👩" + ph + "x"},
		{"👍🏽x", "👍" + ph + "x"},
		{"e\u0301x", "ex"},
		{"❤\ufe0fx", "❤x"},
		{"a\u200db", "ab"},
		{"\xffx", "\ufffdx"},
		{"\xe2\x95x", "\ufffdx"},               // truncated rune then ASCII
		{"\xed\xa0\x80", "\ufffd\ufffd\ufffd"}, // surrogate: ED, then A0 and 80 are lone continuations
		{ph, "\ufffd"},                         // the child cannot forge a placeholder
		{"\u0085x", "x"},                       // C1 control
	}
	for _, c := range cases {
		if out, _, _ := filterAll(c.in); out != c.want {
			t.Errorf("%q: got %q, want %q", c.in, out, c.want)
		}
		if out, _, _ := filterChunks(c.in, 1); out != c.want {
			t.Errorf("%q bytewise: got %q, want %q", c.in, out, c.want)
		}
	}
	// An incomplete rune at the end of a call is held, not emitted.
	f := NewFilter()
	out, _ := f.Process(nil, []byte("ab\xe2\x95"))
	if string(out) != "ab" {
		t.Fatalf("split rune: first half gave %q", out)
	}
	out, _ = f.Process(out, []byte("\xadc"))
	if string(out) != "ab╭c" {
		t.Fatalf("split rune: got %q", out)
	}
}

func TestFilterSequences(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, in, want string }{
		{"kitty push", "\x1b[>7u", ""},
		{"kitty pop", "\x1b[<u", ""},
		{"kitty query", "\x1b[?u", ""},
		{"kitty set", "\x1b[=5;1u", ""},
		{"csi u with params", "\x1b[5u", ""},
		{"bare csi u", "\x1b[u", "\x1b[u"},
		{"modifyOtherKeys", "\x1b[>4;0m", ""},
		{"stray 1049l", "\x1b[?1049l", ""},
		{"stray 47l", "\x1b[?47l", ""},
		{"stray 1047l in a list", "\x1b[?25;1047l", "\x1b[?25l"},
		{"1049 pair", "\x1b[?1049hx\x1b[?1049l\x1b[?1049l", "\x1b[?1049hx\x1b[?1049l"},
		{"negative ICH", "\x1b[-5@", ""},
		{"negative DCH", "\x1b[-5P", ""},
		{"dash anywhere", "\x1b[5-P", ""},
		{"huge count", "\x1b[999999999I", "\x1b[9999I"},
		{"zero count", "\x1b[0X", "\x1b[1X"},
		{"empty leading param", "\x1b[;5H", "\x1b[1;5H"},
		{"DECSTBM default bottom", "\x1b[3;r", "\x1b[3r"},
		{"DECSTBM reset", "\x1b[r", "\x1b[r"},
		{"colon truecolour", "\x1b[38:2::255:0:10m", "\x1b[38;2;255;0;10m"},
		{"colon truecolour no cs", "\x1b[48:2:1:2:3m", "\x1b[48;2;1;2;3m"},
		{"colon 256", "\x1b[38:5:196m", "\x1b[38;5;196m"},
		{"blue truecolour", "\x1b[38;2;0;0;200m", "\x1b[38;2;0;1;200m"},
		{"blue truecolour bg", "\x1b[1;48;2;0;0;5;4m", "\x1b[1;48;2;0;1;5;4m"},
		{"underline colour", "\x1b[4;58;2;1;2;3;1m", "\x1b[4;1m"},
		{"underline colour only", "\x1b[58:5:3m", ""},
		{"curly underline", "\x1b[4:3m", "\x1b[4m"},
		{"no underline", "\x1b[4:0m", "\x1b[24m"},
		{"dim", "\x1b[2mx\x1b[22m", "\x1b[5mx\x1b[22;25m"},
		{"normal intensity without dim", "\x1b[1mx\x1b[22m", "\x1b[1mx\x1b[22m"},
		{"dim after reset", "\x1b[2;0m\x1b[22m", "\x1b[5;0m\x1b[22m"},
		{"dim maybe restored", "\x1b8\x1b[22m", "\x1b8\x1b[22;25m"},
		{"blink dropped", "\x1b[5m", ""},
		{"sgr reset", "\x1b[m", "\x1b[m"},
		{"sgr empty params", "\x1b[;1m", "\x1b[0;1m"},
		{"DA1", "\x1b[c", ""},
		{"DECSCUSR", "\x1b[0 q", ""},
		{"DECSTR", "\x1b[!p", ""},
		{"XTWINOPS", "\x1b[22;0t", ""},
		{"G1 designation", "\x1b)0x", "x"},
		{"G0 designation", "\x1b(0q\x1b(B", "\x1b(0q\x1b(B"},
		{"DCS", "\x1bP+q544e\x1b\\x", "x"},
		{"APC", "\x1b_Gabc\x07x", "x"},
		{"old title", "\x1bkname\x1b\\x", "x"},
		{"OSC 8", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"OSC 52", "\x1b]52;c;aGk=\x07", ""},
		{"OSC 11 set", "\x1b]11;#000000\x07", ""},
		{"title", "\x1b]0;a;b\x07", "\x1b]2;a;b\x07"},
		{"title ST", "\x1b]2;t\x1b\\", "\x1b]2;t\x07"},
		{"REP", "ab\x1b[3b", "abbbb"},
		{"REP wide", "中\x1b[b", "中" + ph + "中" + ph},
		{"CAN aborts", "\x1b[3\x18x", "x"},
		{"control inside CSI", "\x1b[3\r;4H", "\r\x1b[3;4H"},
		{"BEL dropped", "a\x07b", "ab"},
		{"ESC ESC", "\x1b\x1b[1mx", "\x1b[1mx"},
		{"keypad", "\x1b=\x1b>", "\x1b=\x1b>"},
		{"save restore", "\x1b7\x1b8", "\x1b7\x1b8"},
		{"private J", "\x1b[?2J", "\x1b[2J"},
		{"DECXCPR dropped", "\x1b[?6n", ""},
		{"DSR passes", "\x1b[6n\x1b[5n", "\x1b[6n\x1b[5n"},
		{"mouse on", "\x1b[?1000;1006h", "\x1b[?1000;1006h"},
		{"paste mode not passed", "\x1b[?2004h", ""},
	}
	for _, c := range cases {
		out, _, _ := filterAll(c.in)
		if out != c.want {
			t.Errorf("%s: %q gave %q, want %q", c.name, c.in, out, c.want)
		}
	}
}

// TestFilterWorstSGRFitsVT10x: the SGR rewrite grows some parameters (dim's
// 22 becomes 22;25, empty ones become 0); with at most maxParams parameters
// the result must stay under vt10x's 256-byte sequence limit.
func TestFilterWorstSGRFitsVT10x(t *testing.T) {
	t.Parallel()
	in := "\x1b[" + strings.Repeat("2;22;", maxParams/2-1) + "2;22m"
	out, _, _ := filterAll(in)
	want := "\x1b[" + strings.Repeat("5;22;25;", maxParams/2-1) + "5;22;25m"
	if out != want {
		t.Fatalf("got %q", out)
	}
	if len(out) >= 256 {
		t.Fatalf("%d bytes", len(out))
	}
	if out, _, _ := filterAll("\x1b[" + strings.Repeat("1;", maxParams) + "1m"); out != "" {
		t.Fatalf("too many parameters passed: %q", out)
	}
}

func TestFilterOverlongCSIDropped(t *testing.T) {
	t.Parallel()
	in := "\x1b[" + strings.Repeat("1;", 200) + "mx"
	if out, _, _ := filterAll(in); out != "x" {
		t.Fatalf("got %q", out)
	}
}

func TestFilterReplies(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"\x1b[c", "\x1b[?62;22c"},
		{"\x1b[0c", "\x1b[?62;22c"},
		{"\x1b[1c", ""},
		{"\x1b[>c", "\x1b[>1;10;0c"},
		{"\x1b[>0c", "\x1b[>1;10;0c"},
		{"\x1b]10;?\x1b\\", "\x1b]10;rgb:ffff/ffff/ffff\x1b\\"},
		{"\x1b]11;?\x07", "\x1b]11;rgb:0000/0000/0000\x1b\\"},
		{"\x1b[?1007$p", "\x1b[?1007;0$y"},
		{"\x1b[?2004$p", "\x1b[?2004;2$y"},
		{"\x1b[?2004h\x1b[?2004$p", "\x1b[?2004;1$y"},
		{"\x1b[?2026h\x1b[?2026$p\x1b[?2026l\x1b[?2026$p", "\x1b[?2026;1$y\x1b[?2026;2$y"},
		{"\x1b[4$p", "\x1b[4;0$y"},
		{"\x1b[>q", ""},
		{"\x1b[>0q", ""},
		{"\x1b[?u", ""},
		{"\x1b[6n", ""}, // vt10x answers
	}
	for _, c := range cases {
		out, reply, _ := filterAll(c.in)
		if reply != c.want {
			t.Errorf("%q: reply %q, want %q", c.in, reply, c.want)
		}
		if c.in != "\x1b[6n" && out != "" {
			t.Errorf("%q: query passed on to vt10x as %q", c.in, out)
		}
	}
}

func TestFilterModes(t *testing.T) {
	t.Parallel()
	f := NewFilter()
	feed := func(s string) Modes {
		for i := 0; i < len(s); i++ { // byte by byte: splits everywhere
			f.Process(nil, []byte{s[i]})
		}
		return f.Modes()
	}
	if m := feed("\x1b[?2004h\x1b[?2026h\x1b[?1h\x1b[?1004h"); !m.BracketedPaste || !m.SyncOutput || !m.AppCursor || !m.FocusEvents {
		t.Fatalf("set: %+v", m)
	}
	if m := feed("\x1b[?2026l\x1b[?2004l"); m.BracketedPaste || m.SyncOutput || !m.AppCursor {
		t.Fatalf("reset: %+v", m)
	}
	if m := feed("\x1b[?1049h"); !m.AltScreen {
		t.Fatalf("alt: %+v", m)
	}
	if m := feed("\x1b[?1049l"); m.AltScreen {
		t.Fatalf("alt off: %+v", m)
	}
	if m := feed("\x1b[?1000h\x1b[?1002h\x1b[?1003h\x1b[?1006h"); m.Mouse.Tracking() != MouseAny || !m.Mouse.SGR() {
		t.Fatalf("mouse: %+v", m)
	}
	if m := feed("\x1b[?1003l\x1b[?1006l"); m.Mouse != MouseNone {
		t.Fatalf("mouse off: %+v", m)
	}
	if m := feed("\x1b]0;✳ Claude Code\x07"); m.Title != "✳ Claude Code" {
		t.Fatalf("title: %q", m.Title)
	}
	if m := feed("\x1b]2;x\xffy\x1b\\"); m.Title != "x\ufffdy" {
		t.Fatalf("title with invalid UTF-8: %q", m.Title)
	}
	if m := feed("\x1b]1;icon\x07"); m.Title != "x\ufffdy" {
		t.Fatalf("OSC 1 changed the title: %q", m.Title)
	}
	if m := feed("\x1b]7501;state=working:app=codex\x1b\\"); m.OSCState != "working" {
		t.Fatalf("OSC 7501: %q", m.OSCState)
	}
	if m := feed("\x1b]7501;app=codex:state=idle\x07"); m.OSCState != "idle" {
		t.Fatalf("OSC 7501 idle: %q", m.OSCState)
	}
	if m := feed("\x1b[?2004h\x1b[?1049h\x1bc"); m.BracketedPaste || m.AltScreen || m.Title == "" {
		t.Fatalf("RIS: %+v", m)
	}
}

func TestFilterLongStringDropped(t *testing.T) {
	t.Parallel()
	f := NewFilter()
	big := "\x1b]0;" + strings.Repeat("x", 5000) + "\x07after"
	out, _ := f.Process(nil, []byte(big))
	if string(out) != "after" || f.Modes().Title != "" {
		t.Fatalf("got %q, title %d bytes", out, len(f.Modes().Title))
	}
	// Just under the limit is kept.
	title := strings.Repeat("y", maxStringLen-2)
	out, _ = f.Process(nil, []byte("\x1b]0;"+title+"\x07"))
	if f.Modes().Title != title || !bytes.Contains(out, []byte(title)) {
		t.Fatalf("4 KiB title lost")
	}
}

func TestFilterNoAllocs(t *testing.T) {
	f := NewFilter()
	in := []byte("\x1b[?2026h\x1b[2K\x1b[1A\x1b[38;2;0;0;200m╭──╮ 中文 🎉\x1b[0m\x1b[5;10H\x1b]0;⠂ Claude\x07\x1b[c\x1b[?2026l")
	dst := make([]byte, 0, 4096)
	f.Process(dst, in)
	if n := testing.AllocsPerRun(100, func() { dst, _ = f.Process(dst[:0], in) }); n != 0 {
		t.Fatalf("%v allocs per Process", n)
	}
}

// TestFilterKittyKeysAndCursorShape: the kitty keyboard flags the child
// pushed, set and popped, and its DECSCUSR cursor shape, are tracked so
// the UI encodes keys and shapes the person's cursor as the child asked.
func TestFilterKittyKeysAndCursorShape(t *testing.T) {
	t.Parallel()
	f := NewFilter()
	feed := func(s string) Modes {
		for i := 0; i < len(s); i++ {
			f.Process(nil, []byte{s[i]})
		}
		return f.Modes()
	}
	steps := []struct {
		in    string
		kitty uint8
		shape uint8
	}{
		{"", 0, 0},
		{"\x1b[>1u", 1, 0},
		{"\x1b[>7u", 7, 0},
		{"\x1b[=8;2u", 15, 0},
		{"\x1b[=2;3u", 13, 0},
		{"\x1b[<u", 1, 0},
		{"\x1b[<5u", 0, 0},
		{"\x1b[>3u\x1b[5 q", 3, 5},
		{"\x1b[ q", 3, 0},
		{"\x1b[2 q\x1bc", 0, 0},
	}
	for _, s := range steps {
		if m := feed(s.in); m.KittyKeys != s.kitty || m.CursorShape != s.shape {
			t.Fatalf("after %q: kitty %d shape %d, want %d %d", s.in, m.KittyKeys, m.CursorShape, s.kitty, s.shape)
		}
	}
}

// A long OSC string is collected whole (split across reads too), and its
// buffer is not kept for the strings after it: a Filter holds no 4 KiB
// string buffer per agent.
func TestFilterLongTitleBufferNotKept(t *testing.T) {
	f := NewFilter()
	long := strings.Repeat("t", maxStringLen-2)
	in := "\x1b]2;" + long + "\x07"
	for _, part := range []string{in[:100], in[100:]} {
		f.Process(nil, []byte(part))
	}
	if f.Modes().Title != long {
		t.Fatalf("title of %d bytes, want %d", len(f.Modes().Title), len(long))
	}
	if cap(f.osc) > oscKeep {
		t.Fatalf("a %d-byte string buffer kept after the string", cap(f.osc))
	}
	f.Process(nil, []byte("\x1b]0;short\x07"))
	if f.Modes().Title != "short" {
		t.Fatalf("next title %q", f.Modes().Title)
	}
}

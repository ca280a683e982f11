package pool

import (
	"bytes"
	"testing"
)

// fuzzSeeds are the sequences vt10x gets wrong, plus text that stresses the
// UTF-8 and width handling.
var fuzzSeeds = []string{
	"\x1b[-5@", "\x1b[-5P", "abc\x1b[1;2H\x1b[-5@\x1b[-5P",
	"\x1b[999999999I", "\x1b[999999999Z", "A\x1b[999999999b",
	"\x1b[5;5H\x1b[>7u\x1b[?u\x1b[<u",
	"text\x1b[?1049l", "\x1b[?1049h\x1b[?1049l\x1b[?47l",
	"\x1b[38:2::255:0:0m\x1b[38;2;0;0;200m\x1b[58:5:3m",
	"中文X\x1b[1;10H中文\x1b[1;14HX", "🎉x👩\u200d💻x👍🏽", "e\u0301\ufe0f\u200d",
	"ab\xe2\x95", "\xff\xfe\xed\xa0\x80", string(WidePlaceholder) + "x",
	"\x1b[c\x1b[>c\x1b[6n\x1b]10;?\x1b\\\x1b]11;?\x07\x1b[?2026$p\x1b[>0q",
	"\x1b]0;title\x07\x1b]7501;state=working:app=codex\x1b\\",
	"\x1bP+q\x1b\\\x1b_x\x07\x1bkname\x1b\\\x1b)0x\x1b(0qqq\x1b(B",
	"\x1b[2;4r\x1b[3L\x1b[3M\x1b[2S\x1b[2T\x1b[?6h\x1b[9;9H\x1b[?6l",
	"abcd中\x1b[1;5H\x1b[2@中\x1b[1;1H\x1b[3P",
	"\x1b[?1000;1002;1003;1006h\x1b[?2004h\x1b[?1h\x1bc",
}

func FuzzFeed(f *testing.F) {
	for i, s := range fuzzSeeds {
		f.Add([]byte(s), uint8(i*7))
	}
	f.Fuzz(func(t *testing.T, data []byte, shape uint8) {
		cols := 1 + int(shape&0x3f) // 1..64
		rows := 1 + int(shape>>6)*3 // 1..10
		chunk := 1 + int(shape)%17  // split points vary with the input
		s := NewScreen(cols, rows, func([]byte) {})
		for i := 0; i < len(data); i += chunk {
			s.Feed(data[i:min(i+chunk, len(data))])
			if i == len(data)/2 {
				s.Resize(rows+5, cols) // a resize mid-stream
			}
		}
		if s.Panics() != 0 {
			t.Fatalf("vt10x panicked on %q: the Filter let a bad sequence through", data)
		}
		var sn Snapshot
		s.Snapshot(&sn)
		checkWide(t, &sn)
		if sn.CursorX < 0 || sn.CursorX >= sn.Cols || sn.CursorY < 0 || sn.CursorY >= sn.Rows {
			t.Fatalf("cursor (%d,%d) off a %dx%d screen", sn.CursorX, sn.CursorY, sn.Cols, sn.Rows)
		}
		_ = sn.Text()
		_, _, _ = sn.FindPrompt(PromptSpec{Marker: "❯", BetweenRules: true})
	})
}

func FuzzFilterSplit(f *testing.F) {
	for i, s := range fuzzSeeds {
		f.Add([]byte(s), uint16(i))
	}
	f.Fuzz(func(t *testing.T, data []byte, at uint16) {
		whole := NewFilter()
		wantOut, wantReply := whole.Process(nil, data)
		wantReply = bytes.Clone(wantReply)

		k := 0
		if len(data) > 0 {
			k = int(at) % (len(data) + 1)
		}
		split := NewFilter()
		out, r1 := split.Process(nil, data[:k])
		reply := bytes.Clone(r1)
		out, r2 := split.Process(out, data[k:])
		reply = append(reply, r2...)

		if !bytes.Equal(out, wantOut) || !bytes.Equal(reply, wantReply) || split.Modes() != whole.Modes() {
			t.Fatalf("split at %d of %q:\n got %q %q\nwant %q %q", k, data, out, reply, wantOut, wantReply)
		}
		// Everything handed to vt10x is valid UTF-8.
		if !utf8Valid(out) {
			t.Fatalf("invalid UTF-8 out of %q: %q", data, out)
		}
	})
}

func utf8Valid(b []byte) bool { return bytes.Equal(bytes.ToValidUTF8(b, []byte("\x00")), b) }

// FuzzFilterPerByte compares a whole feed with the same bytes fed one at a
// time: a one-byte feed never takes the Filter's fast paths (runs of
// printable ASCII, runs of one-column runes, ESC [ straight into CSI), so
// this holds the fast paths to the byte-by-byte parser.
func FuzzFilterPerByte(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte("──x─👩\u200d─\u200d💻──中─🎉\U0001F3FD─\U0001F3FD─e\u0301─\ufe0f─" + string(WidePlaceholder) + "──\xe2\x94──\xff─·─·\r\n"))
	f.Add([]byte("a\u200d─b中\U0001F3FB─\U0001F3FB\xef\xbf\xbd\xc2\x85─\x1b[5b"))
	f.Fuzz(func(t *testing.T, data []byte) {
		whole := NewFilter()
		wantOut, wantReply := whole.Process(nil, data)
		wantReply = bytes.Clone(wantReply)
		bytewise := NewFilter()
		var out, reply []byte
		for i := range data {
			var r []byte
			out, r = bytewise.Process(out, data[i:i+1])
			reply = append(reply, r...)
		}
		if !bytes.Equal(out, wantOut) || !bytes.Equal(reply, wantReply) || bytewise.Modes() != whole.Modes() {
			t.Fatalf("%q:\n whole %q %q\n bytes %q %q", data, wantOut, wantReply, out, reply)
		}
	})
}

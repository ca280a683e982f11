package drain_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"office/drain"
)

var sanitizeCases = []struct {
	name    string
	in      string
	inPaste bool
	want    string
}{
	// Text is kept.
	{"ascii", "hello world", false, "hello world"},
	{"chinese", "你好，世界", false, "你好，世界"},
	{"emoji and combining", "e\u0301 👩‍💻", false, "e\u0301 👩‍💻"},
	{"no-break space", "a\u00a0b", false, "a\u00a0b"},
	// Newlines and tabs.
	{"newline kept", "a\nb", false, "a\nb"},
	{"tab outside paste", "a\tb", false, "a b"},
	{"tab inside paste", "a\tb", true, "a\tb"},
	{"cr", "a\rb", false, "a\nb"},
	{"crlf", "a\r\nb", true, "a\nb"},
	{"cr cr lf", "a\r\r\nb", false, "a\n\nb"},
	// Controls that press keys or end a paste are removed.
	{"paste end", "x\x1b[201~y", true, "x[201~y"},
	{"paste start", "\x1b[200~x", true, "[200~x"},
	{"esc alone", "a\x1bb", false, "ab"},
	{"ctrl-c ctrl-u ctrl-d", "a\x03\x15\x04b", false, "ab"},
	{"nul and bell", "a\x00\x07b", false, "ab"},
	{"backspace and del", "ab\x08\x7fc", false, "abc"},
	{"c1 csi", "a\u009b2Jb", false, "a2Jb"},
	{"c1 nel and st", "a\u0085\u009cb", false, "ab"},
	// Invalid UTF-8.
	{"invalid byte", "a\xffb", false, "a\ufffdb"},
	{"raw c1 byte", "a\x9bb", false, "a\ufffdb"},
	{"truncated rune", "你\xe5\xa5", false, "你\ufffd\ufffd"},
}

func TestSanitize(t *testing.T) {
	for _, c := range sanitizeCases {
		t.Run(c.name, func(t *testing.T) {
			if got := drain.Sanitize(c.in, c.inPaste); got != c.want {
				t.Errorf("Sanitize(%q, %v) = %q, want %q", c.in, c.inPaste, got, c.want)
			}
			checkSanitized(t, c.in, c.inPaste)
		})
	}
}

// keptRunes returns the runes of s that Sanitize must keep as they are.
func keptRunes(s string) []rune {
	var out []rune
	for _, r := range s {
		if unicode.IsPrint(r) || r == ' ' || r == '\u00a0' {
			out = append(out, r)
		}
	}
	return out
}

// checkSanitized checks Sanitize's promises for one input.
func checkSanitized(t *testing.T, in string, inPaste bool) {
	t.Helper()
	out := drain.Sanitize(in, inPaste)
	if !utf8.ValidString(out) {
		t.Fatalf("Sanitize(%q) = %q: invalid UTF-8", in, out)
	}
	if strings.Contains(out, "\x1b[201~") {
		t.Fatalf("Sanitize(%q) = %q: contains the paste end", in, out)
	}
	for _, r := range out {
		control := r < 0x20 || (r >= 0x7f && r <= 0x9f)
		allowed := r == '\n' || (r == '\t' && inPaste)
		if control && !allowed {
			t.Fatalf("Sanitize(%q, %v) = %q: contains control %U", in, inPaste, out, r)
		}
	}
	typed := in
	if !inPaste {
		typed = strings.ReplaceAll(in, "\t", " ") // a typed tab becomes a space
	}
	if got, want := string(keptRunes(out)), string(keptRunes(typed)); got != want {
		t.Fatalf("Sanitize(%q) = %q: printable text %q, want %q", in, out, got, want)
	}
	if again := drain.Sanitize(out, inPaste); again != out {
		t.Fatalf("Sanitize is not idempotent on %q: %q then %q", in, out, again)
	}
}

func FuzzSanitize(f *testing.F) {
	for _, c := range sanitizeCases {
		f.Add(c.in, c.inPaste)
	}
	f.Fuzz(func(t *testing.T, in string, inPaste bool) {
		checkSanitized(t, in, inPaste)
	})
}

// A body of only escape sequences has nothing to type (README: such a body
// is refused at the door), though Sanitize alone would leave their tails;
// text around or between sequences is typeable.
func TestTypeableEscapeSequences(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"\x1b[2J\x1bc",                   // clear screen, reset
		"\x1b[1;31m \x1b[0m\n",           // SGR around white space
		"\x1b]0;title\x07\x1b]2;t\x1b\\", // OSC ended by BEL and by ST
		"\x1bPq#0;1\x1b\\",               // DCS
		"\x1b(B\x1b)0\x1b7\x1b8",         // charset designations, save/restore
		"\x1b[?2004h\x1b[200~\x1b[201~",  // bracketed paste on, markers
		"\x1b]8;;http://x\x1b",           // OSC never terminated
		"\x1b",
	} {
		if drain.Typeable(s) {
			t.Errorf("Typeable(%q) = true, want false: only escape sequences", s)
		}
	}
	for _, s := range []string{"x\x1b[2J", "\x1b[31mred\x1b[0m", "a\x1bcb", "[2Jc"} {
		if !drain.Typeable(s) {
			t.Errorf("Typeable(%q) = false, want true: text is left", s)
		}
	}
}

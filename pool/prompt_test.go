package pool

import (
	"strings"
	"testing"
)

var claudeSpec = PromptSpec{Marker: "❯", Column: 0, BetweenRules: true}

// claudeScreen draws a Claude Code-like screen: an old prompt in the
// transcript, the input between rules, a footer. input is the text after
// "❯\u00a0" (lines after the first are drawn indented by two columns).
func claudeScreen(t *testing.T, input string) *Snapshot {
	t.Helper()
	s, _ := newTestScreen(60, 14)
	rule := strings.Repeat("─", 60)
	var b strings.Builder
	b.WriteString(" ▐▛███▜▌   Claude Code v2.1.197\r\n\r\n")
	b.WriteString("❯ old prompt\r\n\r\n")
	b.WriteString("⏺ Done. 中文 reply\r\n\r\n")
	b.WriteString("\x1b[2m" + rule + "\x1b[22m\r\n")
	lines := strings.Split(input, "\n")
	b.WriteString("❯\u00a0" + lines[0] + "\x1b[7m \x1b[27m\r\n")
	for _, l := range lines[1:] {
		b.WriteString("  " + l + "\r\n")
	}
	b.WriteString("\x1b[2m" + rule + "\x1b[22m\r\n")
	b.WriteString("  ? for shortcuts                         ● high · /effort\r\n")
	b.WriteString("\x1b[?25l")
	s.Feed([]byte(b.String()))
	return snap(s)
}

func TestFindPromptClaude(t *testing.T) {
	t.Parallel()
	sn := claudeScreen(t, "hello")
	row, text, ok := sn.FindPrompt(claudeSpec)
	if !ok || text != "hello" || row != 7 {
		t.Fatalf("got row %d %q %v\n%s", row, text, ok, sn.Text())
	}

	sn = claudeScreen(t, "")
	if row, text, ok := sn.FindPrompt(claudeSpec); !ok || text != "" || row != 7 {
		t.Fatalf("empty prompt: row %d %q %v", row, text, ok)
	}

	sn = claudeScreen(t, "first line\nsecond  \n  indented")
	if _, text, ok := sn.FindPrompt(claudeSpec); !ok || text != "first line\nsecond\n  indented" {
		t.Fatalf("multi-line: %q %v", text, ok)
	}

	sn = claudeScreen(t, "中文 ok")
	if _, text, ok := sn.FindPrompt(claudeSpec); !ok || text != "中文 ok" {
		t.Fatalf("wide: %q %v", text, ok)
	}
}

func TestFindPromptWithoutRulesTakesLastMarker(t *testing.T) {
	t.Parallel()
	sn := claudeScreen(t, "now")
	spec := PromptSpec{Marker: "❯ "} // NBSP on screen matches the space
	if row, text, ok := sn.FindPrompt(spec); !ok || row != 7 || text != "now" {
		t.Fatalf("got row %d %q %v", row, text, ok)
	}
}

func TestFindPromptNoMarker(t *testing.T) {
	t.Parallel()
	s, _ := newTestScreen(40, 5)
	s.Feed([]byte("$ ls\r\nfile\r\n$ typed"))
	sn := snap(s)
	row, text, ok := sn.FindPrompt(claudeSpec)
	if ok || row != 2 || text != "$ typed" {
		t.Fatalf("no marker: row %d %q %v", row, text, ok)
	}
	if _, _, ok := sn.FindPrompt(PromptSpec{}); ok {
		t.Fatal("empty marker gave ok")
	}
	// A marker outside rules does not count with BetweenRules.
	s.Feed([]byte("\r\n❯ not framed"))
	if _, _, ok := snap(s).FindPrompt(claudeSpec); ok {
		t.Fatal("unframed marker accepted")
	}
}

func TestFindPromptMissingLowerRule(t *testing.T) {
	t.Parallel()
	s, _ := newTestScreen(30, 4)
	s.Feed([]byte(strings.Repeat("─", 30) + "❯\u00a0half drawn"))
	if _, _, ok := snap(s).FindPrompt(claudeSpec); ok {
		t.Fatal("prompt without its lower rule accepted")
	}
}

func TestFindPromptCodexAndGemini(t *testing.T) {
	t.Parallel()
	s, _ := newTestScreen(50, 8)
	s.Feed([]byte("› earlier message\r\n\r\n\x1b[48;5;234m› \x1b[2mAsk Codex to do anything\x1b[22m\x1b[K\x1b[0m\r\n  gpt-fake default · PROJECT\r\n"))
	sn := snap(s)
	row, text, ok := sn.FindPrompt(PromptSpec{Marker: "›"})
	if !ok || row != 2 || text != "" {
		t.Fatalf("codex: row %d %q %v; want the dim placeholder read as empty", row, text, ok)
	}
	if sn.Cell(2, 2).Attr&AttrDim == 0 {
		t.Fatal("placeholder is not dim")
	}

	s, _ = newTestScreen(50, 8)
	s.Feed([]byte(" > old\r\n" + strings.Repeat("▄", 50) + " >   Type your message\r\n" + strings.Repeat("▀", 50) + " workspace\r\n"))
	spec := PromptSpec{Marker: ">", Column: 1, BetweenRules: true, Rule: '▄', RuleBelow: '▀'}
	if row, text, ok := snap(s).FindPrompt(spec); !ok || row != 2 || text != "Type your message" {
		t.Fatalf("gemini: row %d %q %v", row, text, ok)
	}
}

// Ghost text is not text: a dim placeholder with the caret drawn over its
// first letter, and a dim suggestion after typed text.
func TestFindPromptGhostText(t *testing.T) {
	rule := strings.Repeat("─", 40)
	for _, tc := range []struct{ name, row, want string }{
		{"caret over a dim placeholder", "❯\u00a0\x1b[7mP\x1b[0m\x1b[2mress up to edit queued messages\x1b[0m", ""},
		{"typed text, caret over a dim suggestion", "❯\u00a0hel\x1b[7ml\x1b[0m\x1b[2mo world\x1b[0m", "hel"},
		{"typed text and the caret after it", "❯\u00a0hello\x1b[7m \x1b[0m", "hello"},
		{"recalled text is text", "❯\u00a0say hi again\x1b[7m \x1b[0m", "say hi again"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newTestScreen(40, 4)
			s.Feed([]byte(rule + tc.row + "\r\n" + rule))
			if _, text, ok := snap(s).FindPrompt(claudeSpec); !ok || text != tc.want {
				t.Fatalf("prompt %q %v, want %q", text, ok, tc.want)
			}
		})
	}
}

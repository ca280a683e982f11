// Package inkstream generates the output stream the speed benchmarks feed
// an agent's screen: what Ink (Claude Code, Gemini CLI) writes while a turn
// runs. test/bench times office and tmux swallowing it; pool's benchmarks
// feed it to the filter and the screen.
package inkstream

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Generate returns about size bytes redrawn the way Ink (Claude Code,
// Gemini CLI) redraws: each frame erases the live region line by line
// (ESC[2K ESC[1A …) and writes it again, a box with a coloured spinner,
// a counter, wide and box-drawing runes; every 16th frame a line is
// committed above it (the transcript scrolls).
func Generate(size int) []byte {
	var b bytes.Buffer
	b.Grow(size + 8192)
	spin := []string{"·", "✢", "✳", "✶", "✻", "✽"}
	bar := strings.Repeat("─", 98)
	live := 0
	for f := 0; b.Len() < size; f++ {
		for i := 0; i < live; i++ {
			b.WriteString("\x1b[2K\x1b[1A")
		}
		if live > 0 {
			b.WriteString("\x1b[2K\x1b[G")
		}
		if f%16 == 0 {
			fmt.Fprintf(&b, "\x1b[38;5;%dm●\x1b[39m \x1b[1mRead\x1b[22m(src/pkg%03d/file_%d.go) \x1b[2m⎿ %d lines · 読み込み完了\x1b[22m\n", 33+f%6, f%997, f, 40+f%300)
		}
		lines := []string{
			"",
			fmt.Sprintf("\x1b[38;5;%dm%s\x1b[39m \x1b[38;5;174mWorking…\x1b[39m \x1b[2m(%ds · ↓ %d tokens · esc to interrupt)\x1b[22m", 208+f%6, spin[f%len(spin)], f/60, f*7),
			"",
			"\x1b[2m╭" + bar + "╮\x1b[22m",
			fmt.Sprintf("\x1b[2m│\x1b[22m > %-95s\x1b[2m│\x1b[22m", "refactor the parser so it streams "+strconv.Itoa(f%1000)),
			"\x1b[2m╰" + bar + "╯\x1b[22m",
			fmt.Sprintf("  \x1b[2m? for shortcuts\x1b[22m%80s", fmt.Sprintf("\x1b[38;5;%dm◯ IDE\x1b[39m", 70+f%3)),
		}
		b.WriteString(strings.Join(lines, "\n"))
		b.WriteString("\n")
		live = len(lines)
	}
	return b.Bytes()
}

package inkstream

import (
	"bytes"
	"fmt"
	"strings"
)

// Dense frame size: the benchmark's pane.
const (
	denseCols = 120
	denseRows = 40
)

// Dense returns about size bytes of an escape-dense full-screen redraw, the
// way a full-screen TUI (Codex, Gemini CLI's alternate screen, a pager
// under Ink) repaints: each frame is a synchronized-output frame
// (ESC[?2026h … ESC[?2026l) that addresses every row of a 120×40 screen
// (ESC[row;1H), erases it (ESC[2K) and writes it again in 256-colour SGR
// runs, with CJK and box-drawing runes; a few rows change from frame to
// frame (a spinner, a counter, a scrolling log), the rest are drawn again
// as they were.
func Dense(size int) []byte {
	var b bytes.Buffer
	b.Grow(size + 16384)
	spin := []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}
	bar := strings.Repeat("━", 116)
	for f := 0; b.Len() < size; f++ {
		b.WriteString("\x1b[?2026h\x1b[?25l")
		for r := 1; r <= denseRows; r++ {
			fmt.Fprintf(&b, "\x1b[%d;1H\x1b[2K", r)
			switch {
			case r == 1:
				fmt.Fprintf(&b, "\x1b[48;5;24m\x1b[38;5;231m\x1b[1m %s office · 作業中 \x1b[22m\x1b[38;5;250m%-90s\x1b[0m", spin[f%len(spin)], fmt.Sprintf("frame %d · %d tokens", f, f*13))
			case r == 2 || r == denseRows-2:
				fmt.Fprintf(&b, "\x1b[38;5;%dm┏%s┓\x1b[39m", 60+r%6, bar[:len(bar)-3*2])
			case r == denseRows:
				fmt.Fprintf(&b, "\x1b[7m NORMAL \x1b[27m \x1b[38;5;%dm%s\x1b[39m \x1b[2m%5d/%-5d\x1b[22m", 34+f%6, "main.go — 編集", f%9999, 9999)
			case r == denseRows-1:
				fmt.Fprintf(&b, "\x1b[38;5;244m│\x1b[39m > \x1b[1m%-100s\x1b[22m\x1b[38;5;244m│\x1b[39m", fmt.Sprintf("ask about line %d", f%500))
			default:
				// A log that scrolls one line every 4 frames: row r shows
				// entry n, in colours picked by the entry.
				n := f/4 + r
				fmt.Fprintf(&b, "\x1b[38;5;%dm%4d\x1b[39m \x1b[38;5;%dm%-8s\x1b[39m \x1b[48;5;%dm%s\x1b[49m \x1b[3m%-40s\x1b[23m \x1b[38;5;%dm%s\x1b[0m",
					240+n%12, n, 16+n%200, []string{"INFO", "WARN", "DEBUG", "読込"}[n%4], 232+n%20,
					[]string{"ok", "--", "..", "完了"}[n%4], fmt.Sprintf("request %d handled in %d µs", n*7, n%997), 100+n%100,
					[]string{"┃ done", "┃ 再試行", "┃ wait", "┃ skip"}[n%4])
			}
		}
		fmt.Fprintf(&b, "\x1b[%d;%dH\x1b[?25h\x1b[?2026l", denseRows-1, 5+f%40)
	}
	return b.Bytes()
}

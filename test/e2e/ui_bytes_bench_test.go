package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkUIBytesOneBusyPane measures the bytes the UI writes to the
// person's terminal per second while one agent of nine streams (a coloured
// line every 20 ms, scrolling) and the others are idle, at 240×60 under tmux (tmux's pipe-pane counts what reaches the pane). Run once:
//
//	go test -run '^$' -bench UIBytes -benchtime 1x ./test/e2e
//
// OFFICE_UI_BENCH_BIN runs another office binary instead (to compare).
func BenchmarkUIBytesOneBusyPane(b *testing.B) { uiBytes(b, "of a busy agent") }

// BenchmarkUIBytesOneBusyPaneCJK is the same with wide characters on every
// line (a renderer repaints a whole terminal row holding a wide cell).
func BenchmarkUIBytesOneBusyPaneCJK(b *testing.B) { uiBytes(b, "中文 of a busy agent") }

func uiBytes(b *testing.B, text string) {
	if bin := os.Getenv("OFFICE_UI_BENCH_BIN"); bin != "" {
		saved := officeBin
		officeBin = bin
		defer func() { officeBin = saved }()
	}
	o := &office{t: b, dir: b.TempDir(), logs: map[string]string{}}
	o.config = filepath.Join(o.dir, "office.toml")
	o.state = filepath.Join(o.dir, "state")
	var cfg strings.Builder
	cfg.WriteString("brief = false\n\n[[agent]]\nname = \"busy\"\n")
	cfg.WriteString(`command = ["sh", "-c", "i=0; while :; do i=$((i+1)); printf '\\033[32mline %d\\033[0m ` + text + `\\n' $i; sleep 0.02; done"]` + "\n")
	for i := 0; i < 8; i++ {
		fmt.Fprintf(&cfg, "\n[[agent]]\nname = \"idle%d\"\ncommand = [\"sh\", \"-c\", \"echo idle agent; exec cat\"]\n", i)
	}
	if err := os.WriteFile(o.config, []byte(cfg.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	tm := o.startUI(240, 60)
	o.waitFor(60*time.Second, "9 panes, one streaming", func() bool {
		s := tm.screen()
		return strings.Count(s, "idle agent") == 8 && strings.Contains(s, text)
	})
	out := filepath.Join(o.dir, "pane.out")
	const window = 10 * time.Second
	b.ResetTimer()
	for b.Loop() {
		os.Remove(out)
		tm.cmd("pipe-pane", "-o", "-t", officeTarget, "cat >> "+out)
		time.Sleep(window) // the measurement window itself, not a wait for a condition
		tm.cmd("pipe-pane", "-t", officeTarget)
		fi, err := os.Stat(out)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(fi.Size())/window.Seconds(), "bytes/s")
	}
}

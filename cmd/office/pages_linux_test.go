package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// exePagesKB sums the resident KiB of this process's read-only mappings of
// its own executable (/proc/self/smaps).
func exePagesKB(t *testing.T) int {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if p, err := filepath.EvalSymlinks(exe); err == nil {
		exe = p
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	kb, in := 0, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) >= 6 && strings.Contains(fields[0], "-"):
			in = fields[5] == exe && fields[1][1] != 'w'
		case in && len(fields) >= 2 && fields[0] == "Rss:":
			n, _ := strconv.Atoi(fields[1])
			kb += n
		}
	}
	return kb
}

// TestStartPagesDropped: the executable's read-only pages a process holds
// are dropped from it, and what it runs next comes back from the file.
func TestStartPagesDropped(t *testing.T) {
	before := exePagesKB(t)
	if before == 0 {
		t.Skip("no resident pages of the executable to drop")
	}
	if err := dropExecutablePages(); err != nil {
		t.Fatal(err)
	}
	after := exePagesKB(t)
	if after >= before/2 {
		t.Fatalf("the executable's resident pages went from %d to %d KiB; want them mostly dropped", before, after)
	}
	// The code and data come back on use: the process runs on.
	if got := strings.Repeat("ab", 3); got != "ababab" {
		t.Fatalf("after the drop: %q", got)
	}
	t.Logf("the executable's resident read-only pages: %d KiB before, %d after", before, after)
}

package automation

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestScreenHasMatchesJoinedText: ScreenHas on rows answers exactly as a
// substring search in the rows joined with "\n" (trailing blank rows
// dropped) does, for patterns within a row, across rows, and at the edges.
func TestScreenHasMatchesJoinedText(t *testing.T) {
	cases := []struct {
		rows []string
		pat  string
		want bool
	}{
		{[]string{"esc to interrupt"}, "esc to interrupt", true},
		{[]string{"esc to", "interrupt"}, "esc to interrupt", false},
		{[]string{"esc to", "interrupt"}, "to\ninter", true},
		{[]string{"a", "b", "c"}, "a\nb\nc", true},
		{[]string{"a", "x", "c"}, "a\nb\nc", false},
		{[]string{"xa", "b", "cx"}, "a\nb\nc", true},
		{[]string{"a", "", ""}, "a\n", false},
		{[]string{"a", "b", ""}, "a\n", true},
		{[]string{"a", "", "b"}, "\n\n", true},
		{[]string{"a"}, "", false},
		{nil, "a", false},
	}
	for _, c := range cases {
		if got := ScreenHas(Lines(c.rows), c.pat); got != c.want {
			t.Errorf("ScreenHas(%q, %q) = %v, want %v", c.rows, c.pat, got, c.want)
		}
		if c.pat != "" {
			if want := strings.Contains(joined(c.rows), c.pat); want != c.want {
				t.Errorf("case %q %q: the joined text says %v", c.rows, c.pat, want)
			}
		}
	}
	// Random screens of a small alphabet, so that patterns often match.
	rng := rand.New(rand.NewPCG(1, 2))
	word := func(n int) string {
		b := make([]byte, rng.IntN(n))
		for i := range b {
			b[i] = "ab \n"[rng.IntN(4)]
		}
		return string(b)
	}
	for i := 0; i < 20000; i++ {
		rows := TextRows(word(12))
		pat := word(5)
		if pat == "" {
			continue
		}
		if got, want := ScreenHas(rows, pat), strings.Contains(joined(rows), pat); got != want {
			t.Fatalf("ScreenHas(%q, %q) = %v, the joined text says %v", []string(rows), pat, got, want)
		}
	}
}

// joined is the rows' text as a full-screen read gave it: rows joined with
// "\n", trailing blank rows dropped.
func joined(rows []string) string {
	n := len(rows)
	for n > 0 && rows[n-1] == "" {
		n--
	}
	return strings.Join(rows[:n], "\n")
}

// countingRows counts the rows the judge reads.
type countingRows struct {
	Lines
	reads int
}

func (c *countingRows) Row(i int) string { c.reads++; return c.Lines[i] }

// TestJudgeReadsRowsNotText: the judge reads the screen through Rows, row
// by row, and stops reading at the first row a pattern is found on.
func TestJudgeReadsRowsNotText(t *testing.T) {
	rows := &countingRows{Lines: Lines{"esc to interrupt", "x", "x", "x"}}
	rules := StatusRules{Busy: []string{"esc to interrupt"}}
	j := Judge(Inputs{Now: at(0), Boot: Boot{Seen: true}, Screen: rows}, rules)
	if j.Status != StatusBusy || j.Signal() != "screen: esc to interrupt" {
		t.Fatalf("status %v by %q", j.Status, j.Signal())
	}
	if rows.reads != 1 {
		t.Fatalf("the judge read %d rows, want 1 (no waiting pattern; the busy one is on row 0)", rows.reads)
	}
}

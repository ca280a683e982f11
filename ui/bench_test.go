package ui

import (
	"fmt"
	"os"
	"testing"
)

// benchOffice is 9 panes of 120×40 (a 362×124 terminal: three columns of
// 120 with two separators; three rows of a title and 40 screen rows, plus
// the status line), each screen filled from the recorded Ink stream
// (colours, attributes, box drawing, CJK and emoji).
func benchOffice(b *testing.B) *harness {
	stream, err := os.ReadFile("../pool/testdata/ink.stream")
	if err != nil {
		b.Skip(err)
	}
	h := newHarness(b, namesN(9)...)
	h.size(362, 124)
	for i, ft := range h.terms {
		if c, r := ft.Size(); c != 120 || r != 40 {
			b.Fatalf("%s is %dx%d", i, c, r)
		}
		ft.scr.Feed(stream[:len(stream)/2])
	}
	h.frame()
	return h
}

// BenchmarkView9Panes120x40 measures View() rebuilding the whole frame (what
// happens on every frame in which anything changed). Target: ≤ 2 ms.
func BenchmarkView9Panes120x40(b *testing.B) {
	h := benchOffice(b)
	m := h.m
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		m.dirty = true
		if len(m.View()) == 0 {
			b.Fatal("empty frame")
		}
	}
	b.ReportMetric(float64(len(m.frame)), "bytes/frame")
}

// BenchmarkFrame9Panes120x40 measures a whole frame with every screen
// changed: the frame tick's snapshots and titles, then View().
func BenchmarkFrame9Panes120x40(b *testing.B) {
	h := benchOffice(b)
	m := h.m
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, p := range m.panes {
			p.stale = true
		}
		m.refresh(testClock)
		m.View()
	}
}

// TestViewAllocationsDoNotGrowWithCells checks the renderer allocates
// nothing per cell: a frame's allocations are the same for 1 pane and 9.
func TestViewAllocationsDoNotGrowWithCells(t *testing.T) {
	for _, n := range []int{1, 9} {
		h := newHarness(t, namesN(n)...)
		h.size(362, 124)
		h.m.View()
		allocs := testing.AllocsPerRun(20, func() {
			h.m.dirty = true
			h.m.View()
		})
		if allocs > 2 {
			t.Errorf("%s: View allocates %.0f times per frame, want ≤ 2 (the frame string)", fmt.Sprint(n, " panes"), allocs)
		}
	}
}

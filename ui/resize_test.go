package ui

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"

	"office/pool"
)

// TestResizeDrawsTheFreshFrame: after the terminal shrinks and grows back
// (through sizes where wide runes straddle the panes' edges, with the rail,
// a box open over the panes, a zoomed pane and output after each resize),
// the frame kept across the resizes is exactly what a new frame composes
// from scratch at that size, and so is the frame after the next change.
func TestResizeDrawsTheFreshFrame(t *testing.T) {
	h := newHarness(t, names(9)...)
	h.size(362, 124)
	fill := func(round int) {
		for i, n := range names(9) {
			// Colours, attributes, a full row of wide runes (cut at
			// every odd pane width) and ASCII after them.
			h.o.feed(n, fmt.Sprintf("\x1b[H\x1b[2J\x1b[1;3%dm%s %d\x1b[0m\r\n%s\r\n\x1b[7mrev\x1b[0m \x1b[4;44mline %d\x1b[0m\r\n%s",
				i%8, n, round, strings.Repeat("全角", 40), round, strings.Repeat("ab中", 30)))
		}
	}
	fill(0)
	h.changed()
	sameAsFresh(t, h, "start")
	for i, s := range []struct {
		name string
		w, h int
		keys string
	}{
		{"smaller", 200, 61, ""},
		{"back to the first size", 362, 124, ""},
		{"odd widths", 161, 50, ""},
		{"larger than the first", 401, 130, ""},
		{"with the rail", 250, 70, "\x1dr"},
		{"back, rail shown", 362, 124, ""},
		{"rail off, help open", 300, 90, "\x1dr\x1d?"},
		{"help open, back", 362, 124, ""},
		{"help closed, zoomed", 200, 61, "\x1d?\x1dz"},
		{"zoomed, back", 362, 124, ""},
		{"unzoomed, tiny", 30, 8, "\x1dz"},
		{"back from tiny", 362, 124, ""},
	} {
		if s.keys != "" {
			h.keys(s.keys)
			h.changed()
		}
		h.size(s.w, s.h)
		sameAsFresh(t, h, s.name)
		fill(i + 1)
		h.changed()
		sameAsFresh(t, h, s.name+", then output")
	}
}

// TestResizeWithNoAgents: the cleared body of an office with no agents is
// the fresh frame's after the terminal shrinks and grows back.
func TestResizeWithNoAgents(t *testing.T) {
	h := newHarness(t)
	h.size(150, 40)
	for _, sz := range [][2]int{{80, 24}, {150, 40}, {151, 41}, {60, 20}, {150, 40}} {
		h.size(sz[0], sz[1])
		h.m.dirty = true
		h.changed()
		sameAsFresh(t, h, fmt.Sprintf("%dx%d", sz[0], sz[1]))
	}
}

// TestPutWritesEveryCellField: put writes a frame cell field by field (no
// temporary), so it must write every field ultraviolet's cell has; a cell
// that held a link, an underline colour and a wide rune holds exactly the
// converted agent cell afterwards.
func TestPutWritesEveryCellField(t *testing.T) {
	var fields []string
	for _, ft := range reflect.VisibleFields(reflect.TypeFor[uv.Cell]()) {
		fields = append(fields, ft.Name)
	}
	if got := strings.Join(fields, ","); got != "Content,Style,Link,Width" {
		t.Fatalf("uv.Cell has the fields %s: put writes Content, Style, Link and Width only", got)
	}
	f := newFrame()
	for _, c := range []pool.Cell{
		{Rune: 'a', Width: 1, FG: 1, BG: pool.DefaultBG},
		{Rune: '中', Width: 2, FG: pool.DefaultFG, BG: 4, Attr: pool.AttrBold},
		{Rune: 0, Width: 0, FG: pool.DefaultFG, BG: 4},
		{Rune: '中', Width: wideCut, FG: 200, BG: 4},
		{Rune: 0x01, Width: 1, FG: pool.DefaultFG, BG: pool.DefaultBG, Attr: pool.AttrUnderline | pool.AttrReverse},
	} {
		d := uv.Cell{Content: "old", Width: 2, Link: uv.Link{URL: "https://example.com", Params: "id=1"},
			Style: uv.Style{Fg: ansi.BasicColor(3), UnderlineColor: ansi.BasicColor(5), Underline: uv.UnderlineCurly, Attrs: uv.AttrBlink}}
		var run styleRun
		f.put(&d, &c, &run)
		want := uv.Cell{Style: *f.style(c.FG, c.BG, c.Attr)}
		switch {
		case c.Width == 0:
		case c.Width == wideCut || c.Rune < 0x20:
			want.Content, want.Width = " ", 1
		default:
			want.Content, want.Width = string(c.Rune), int(c.Width)
		}
		if !reflect.DeepEqual(d, want) {
			t.Errorf("put(%+v) over a linked, styled cell made %+v, want %+v", c, d, want)
		}
	}
}

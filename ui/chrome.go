package ui

// chrome.go is office's own drawing: the styles of titles, separators, the
// roster rail, the boxes and the status line (lipgloss), for a dark or a
// light background, and without any colour when NO_COLOR is set; and the
// cache that renders a piece of chrome only when its text or size changed.

import (
	"image/color"

	"charm.land/lipgloss/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// palette holds the chrome's styles.
type palette struct {
	titleFocused, titleOther, titleAttention lipgloss.Style
	titleLimited                             lipgloss.Style // a usage-limit hold
	status, statusAlert                      lipgloss.Style
	sep                                      lipgloss.Style
	roster, rosterFocused, rosterHead        lipgloss.Style
	border                                   color.Color
	boxBg                                    color.Color
	boxText, boxSelected, boxDim             lipgloss.Style
	boxError, boxButton                      lipgloss.Style
	noColor                                  bool
}

// newPalette returns the styles for a dark or light background; noColor
// uses attributes only (reverse, bold, faint), as NO_COLOR asks.
func newPalette(noColor, dark bool) palette {
	s := lipgloss.NewStyle
	if noColor {
		rev := s().Reverse(true)
		return palette{
			titleFocused:   rev.Bold(true),
			titleOther:     rev,
			titleAttention: rev.Bold(true).Underline(true),
			titleLimited:   rev.Italic(true),
			status:         rev,
			statusAlert:    rev.Bold(true),
			sep:            s(),
			roster:         s(),
			rosterFocused:  rev.Bold(true),
			rosterHead:     s().Bold(true),
			boxText:        s(),
			boxSelected:    rev.Bold(true),
			boxDim:         s().Faint(true),
			boxError:       s().Bold(true),
			boxButton:      rev,
			noColor:        true,
		}
	}
	ld := lipgloss.LightDark(dark)
	c := lipgloss.Color
	// The 16 ANSI colours follow the person's terminal theme; the pairs
	// below keep text and background far apart on either background.
	boxBg := ld(c("15"), c("0"))
	boxFg := ld(c("0"), c("15"))
	accent := ld(c("4"), c("14"))
	return palette{
		titleFocused:   s().Foreground(ld(c("15"), c("0"))).Background(accent).Bold(true),
		titleOther:     s().Foreground(ld(c("0"), c("15"))).Background(ld(c("7"), c("8"))),
		titleAttention: s().Foreground(c("0")).Background(c("11")).Bold(true),
		titleLimited:   s().Foreground(c("15")).Background(c("5")).Bold(true),
		status:         s().Foreground(c("15")).Background(c("4")),
		statusAlert:    s().Foreground(c("0")).Background(c("11")).Bold(true),
		sep:            s().Foreground(ld(c("7"), c("8"))),
		roster:         s(),
		rosterFocused:  s().Foreground(ld(c("15"), c("0"))).Background(accent).Bold(true),
		rosterHead:     s().Foreground(accent).Bold(true),
		border:         accent,
		boxBg:          boxBg,
		boxText:        s().Foreground(boxFg).Background(boxBg),
		boxSelected:    s().Foreground(ld(c("15"), c("0"))).Background(accent).Bold(true),
		boxDim:         s().Foreground(ld(c("8"), c("7"))).Background(boxBg),
		boxError:       s().Foreground(ld(c("1"), c("9"))).Background(boxBg).Bold(true),
		boxButton:      s().Foreground(c("0")).Background(c("11")).Bold(true),
	}
}

// cached is one piece of chrome, rendered again only when its key changes.
type cached struct {
	key string
	buf *uv.Buffer
	at  placed // where buf was last copied into the frame
}

// get returns the cells of render() for key at w×h, rendering only when
// key, w or h changed since the last call.
func (c *cached) get(key string, w, h int, render func() string) *uv.Buffer {
	if w <= 0 || h <= 0 {
		return nil
	}
	if c.buf != nil && c.key == key && c.buf.Width() == w && c.buf.Height() == h {
		return c.buf
	}
	c.key = key
	sb := uv.NewScreenBuffer(w, h)
	canvas := lipgloss.NewCanvas(w, h)
	canvas.Compose(lipgloss.NewLayer(render()))
	canvas.Draw(sb, sb.Bounds())
	c.buf = sb.Buffer
	return c.buf
}

// line renders text in st exactly w cells wide (cut or padded).
func line(st lipgloss.Style, text string, w int) string {
	if w <= 0 {
		return ""
	}
	return st.Width(w).MaxHeight(1).Render(ansi.Truncate(text, w, ""))
}

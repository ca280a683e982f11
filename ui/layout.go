package ui

// layout.go tiles panes by count: 1, 2 side by side, 4 as 2×2, 6 as 3×2, 9 as
// 3×3; more than 9 go on pages of 9.

// maxPerPage is the most panes shown at once.
const maxPerPage = 9

// rect is a box on the screen, in cells.
type rect struct{ X, Y, W, H int }

// grid returns columns × rows for n panes on one page.
func grid(n int) (cols, rows int) {
	switch {
	case n <= 1:
		return 1, 1
	case n == 2:
		return 2, 1
	case n <= 4:
		return 2, 2
	case n <= 6:
		return 3, 2
	default:
		return 3, 3
	}
}

// tile splits a width × height area into boxes for n panes (n ≤ maxPerPage),
// in reading order, with one column between neighbours for a separator. Extra
// cells go to the last column and row.
func tile(n, width, height int) []rect {
	if n <= 0 || width <= 0 || height <= 0 {
		return nil
	}
	cols, rows := grid(n)
	out := make([]rect, 0, n)
	colW := (width - (cols - 1)) / cols
	rowH := height / rows
	for i := 0; i < n; i++ {
		c, r := i%cols, i/cols
		x := c * (colW + 1)
		w := colW
		if c == cols-1 {
			w = width - x
		}
		y := r * rowH
		h := rowH
		if r == rows-1 {
			h = height - y
		}
		// The last row may hold fewer panes: let them share its width.
		if r == (n-1)/cols {
			inRow := n - r*cols
			if inRow < cols {
				cw := (width - (inRow - 1)) / inRow
				x = c * (cw + 1)
				w = cw
				if c == inRow-1 {
					w = width - x
				}
			}
		}
		if w < 1 {
			w = 1
		}
		if h < 2 {
			h = 2
		}
		out = append(out, rect{X: x, Y: y, W: w, H: h})
	}
	return out
}

package ui

// styles.go holds the chrome's colours. The chrome is ASCII and box-drawing
// only (plus the middle dot of the title form), so redraws stay cheap.

import "office/pool"

// style is the SGR state of the output stream: colours and attributes.
type style struct {
	fg, bg pool.Color
	attr   pool.Attr
}

// The styles of the frame.
var (
	plain          = style{fg: pool.DefaultFG, bg: pool.DefaultBG}
	titleFocused   = style{fg: pool.Color(0), bg: pool.Color(14), attr: pool.AttrBold}
	titleOther     = style{fg: pool.Color(15), bg: pool.Color(8)}
	titleAttention = style{fg: pool.Color(0), bg: pool.Color(11), attr: pool.AttrBold}
	statusStyle    = style{fg: pool.Color(15), bg: pool.Color(4)}
	statusAlert    = style{fg: pool.Color(0), bg: pool.Color(11), attr: pool.AttrBold}
	sepStyle       = style{fg: pool.Color(8), bg: pool.DefaultBG}
	rosterStyle    = style{fg: pool.DefaultFG, bg: pool.DefaultBG}
	rosterFocused  = style{fg: pool.Color(0), bg: pool.Color(14), attr: pool.AttrBold}
	rosterHead     = style{fg: pool.Color(14), bg: pool.DefaultBG, attr: pool.AttrBold}
	boxStyle       = style{fg: pool.Color(14), bg: pool.Color(0)}
	boxText        = style{fg: pool.Color(15), bg: pool.Color(0)}
	boxSelected    = style{fg: pool.Color(0), bg: pool.Color(14), attr: pool.AttrBold}
	boxDim         = style{fg: pool.Color(8), bg: pool.Color(0)}
	boxError       = style{fg: pool.Color(9), bg: pool.Color(0), attr: pool.AttrBold}
	boxButton      = style{fg: pool.Color(0), bg: pool.Color(11), attr: pool.AttrBold}
)

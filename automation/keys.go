package automation

// How one piece of the person's input acts on the line model (seed 002 §4.4,
// docs/design.md §3). Written as data: a chunk that is exactly one key is looked up
// in loneKeys; anything else is decoded rune by rune, each rune is given an
// input class, and keyActions maps (in paste?, class) to an action.

// keyAction is what one key or rune does to the line model.
type keyAction int

const (
	actIgnore       keyAction = iota // no effect
	actAppend                        // append the rune to the line
	actNewline                       // append '\n' (a newline inside a paste)
	actPop                           // remove the last rune of the line
	actSubmit                        // Enter: submit the line, maybe latch or release the picker
	actStopScan                      // an escape sequence: the rest of the chunk is not typing
	actClear                         // clear the line, keep the picker latch (Ctrl-U)
	actClearRelease                  // clear the line and release the picker latch (lone Esc, lone Ctrl-C)
)

// loneKeys are chunks that are exactly one control key. They act the same in
// and out of a paste (they are the person's keypresses; terminals do not paste
// bare control keys); Esc and Ctrl-C also end a paste whose end marker was lost.
// A Ctrl-U, Esc or Ctrl-C inside a longer chunk is not one of these.
var loneKeys = map[string]keyAction{
	"\x1b": actClearRelease, // Esc: closes a picker, clears the line
	"\x03": actClearRelease, // Ctrl-C: the same
	"\x15": actClear,        // Ctrl-U: kills the input line; a picker stays open (seed 002 §3.2)
	// The same keys in the kitty keyboard protocol, as the UI sends them to
	// an agent that pushed its flags (Codex).
	"\x1b[27u":    actClearRelease,
	"\x1b[99;5u":  actClearRelease,
	"\x1b[117;5u": actClear,
}

// inputClass is the kind of a rune in a chunk of the person's input.
type inputClass int

const (
	classText    inputClass = iota // printable rune or tab
	classEnter                     // CR or LF
	classErase                     // DEL or BS
	classEscape                    // ESC that does not start a paste marker
	classControl                   // any other C0 or C1 control
	numClasses
)

// keyActions is the line model's transition table, indexed by [in paste][class].
// Outside a paste Enter submits and an escape sequence (arrow keys, Alt-combos)
// ends the scan of the chunk; inside a paste a newline is text and only the
// end marker leaves the paste.
var keyActions = [2][numClasses]keyAction{
	// typed
	{
		classText:    actAppend,
		classEnter:   actSubmit,
		classErase:   actPop,
		classEscape:  actStopScan,
		classControl: actIgnore,
	},
	// pasted
	{
		classText:    actAppend,
		classEnter:   actNewline,
		classErase:   actIgnore,
		classEscape:  actIgnore,
		classControl: actIgnore,
	},
}

// classify returns the input class of r.
func classify(r rune) inputClass {
	switch {
	case r == '\r' || r == '\n':
		return classEnter
	case r == 0x7f || r == 0x08:
		return classErase
	case r == 0x1b:
		return classEscape
	case r == '\t':
		return classText
	case r < 0x20 || (r >= 0x80 && r <= 0x9f):
		return classControl
	}
	return classText
}

// Bracketed-paste markers: the terminal wraps pasted text in them.
const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

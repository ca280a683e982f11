package configs

// The nesting bound, checked on the source before the TOML decoder sees it.
// The decoder keeps, for every key, the full key path of where it stands and
// copies it at each level, so its cost grows with the square of the depth:
// `x = {a={a={...1}}}` 4,000 levels deep (16 KB) took 708 MB and 2.7 s, and
// 50,000 levels (well under MaxFileBytes) took all of a 24 GB machine. Dotted
// keys (`a.a.a... = 1`) and headers (`[a.a.a...]`) deepen that path the same
// way. checkNesting counts the depth as the decoder would build it and
// refuses the file at the first line past MaxNesting, in time and memory
// linear in the file and without decoding anything.

import (
	"fmt"
	"strings"
)

// nestFrame is one open inline table or array.
type nestFrame struct {
	table bool // an inline table {...}; else an array [...]
	depth int  // the depth of the keys (table) or values (array) inside it
}

// What checkNesting expects next.
const (
	nestLineStart = iota // a header, a key or nothing (top level, new line)
	nestKey              // a key, or the '}' of an inline table
	nestValue            // a value, or the ']' of an array
	nestAfter            // the rest of a value, ',' or a closing bracket
)

// checkNesting returns an *Error at the first line of data whose key path or
// value nesting goes past MaxNesting, or nil. The depth of a key is the
// number of parts of its table's header, plus those of every key whose
// inline table it sits in, plus one for every array it sits in, plus its
// own parts. Text it cannot read ends the scan with errUnread: a syntax
// error the decoder reports, or (decodeTOML refuses the file then) text the
// decoder reads and this scan does not, which must not pass unchecked.
func checkNesting(name string, data []byte) error {
	s := string(data)
	line := 1
	header := 0           // parts of the current [table] header
	var stack []nestFrame // open inline tables and arrays
	mode := nestLineStart
	depth := 0 // the depth of the value expected (mode nestValue)
	refuse := func() error {
		return &Error{File: name, Line: line, Err: fmt.Errorf("nested more than %d levels deep (keys, tables and arrays together; an office file needs a few)", MaxNesting)}
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch c {
		case '\n':
			line++
			i++
			if len(stack) == 0 {
				mode = nestLineStart
			}
			continue
		case ' ', '\t', '\r':
			i++
			continue
		case '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			continue
		}
		switch mode {
		case nestLineStart:
			if c != '[' {
				mode = nestKey
				continue
			}
			closing := "]"
			if strings.HasPrefix(s[i:], "[[") {
				closing = "]]"
			}
			parts, after, ok := parseKeyPath(s[i+len(closing):])
			if !ok {
				return errUnread{line}
			}
			if len(parts) > MaxNesting {
				return refuse()
			}
			after = strings.TrimLeft(after, " \t")
			if !strings.HasPrefix(after, closing) {
				return errUnread{line}
			}
			header = len(parts)
			i = len(s) - len(after) + len(closing)
			mode = nestAfter
		case nestKey:
			base := header
			if n := len(stack); n > 0 {
				base = stack[n-1].depth
				if c == '}' && stack[n-1].table {
					stack = stack[:n-1]
					i++
					mode = nestAfter
					continue
				}
			}
			parts, after, ok := parseKeyPath(s[i:])
			if !ok {
				return errUnread{line}
			}
			if base+len(parts) > MaxNesting {
				return refuse()
			}
			after = strings.TrimLeft(after, " \t")
			if !strings.HasPrefix(after, "=") {
				return errUnread{line}
			}
			i = len(s) - len(after) + 1
			depth, mode = base+len(parts), nestValue
		case nestValue:
			switch c {
			case '{':
				stack = append(stack, nestFrame{table: true, depth: depth})
				i++
				mode = nestKey
			case '[':
				if depth+1 > MaxNesting {
					return refuse()
				}
				depth++
				stack = append(stack, nestFrame{depth: depth})
				i++
			case ']':
				if n := len(stack); n > 0 && !stack[n-1].table {
					stack = stack[:n-1]
					i++
					mode = nestAfter
					continue
				}
				return errUnread{line}
			default:
				if !skipScalar(s, &i, &line) {
					return errUnread{line}
				}
				mode = nestAfter
			}
		case nestAfter:
			n := len(stack)
			switch {
			case c == ',' && n > 0 && stack[n-1].table:
				i++
				mode = nestKey
			case c == ',' && n > 0:
				i++
				depth, mode = stack[n-1].depth, nestValue
			case c == ']' || c == '}':
				if n == 0 || stack[n-1].table != (c == '}') {
					return errUnread{line}
				}
				stack = stack[:n-1]
				i++
			default:
				if !skipScalar(s, &i, &line) {
					return nil
				}
			}
		}
	}
	return nil
}

// skipScalar skips one string, or one byte of any other scalar, at s[*i:],
// counting the newlines of a multi-line string. It reports false for an
// unterminated string.
func skipScalar(s string, i, line *int) bool {
	c := s[*i]
	if c != '"' && c != '\'' {
		*i++
		return true
	}
	delim := strings.Repeat(string(c), 3)
	if strings.HasPrefix(s[*i:], delim) {
		rest := s[*i+3:]
		end := -1
		for j := 0; j+3 <= len(rest); j++ {
			if c == '"' && rest[j] == '\\' {
				j++
				continue
			}
			if strings.HasPrefix(rest[j:], delim) {
				end = j
				break
			}
		}
		if end < 0 {
			return false
		}
		// The closing delimiter may follow up to two quotes of the text.
		n := end + 3
		for n < len(rest) && n < end+5 && rest[n] == c {
			n++
		}
		*line += strings.Count(rest[:end], "\n")
		*i += 3 + n
		return true
	}
	end := closingQuote(s[*i+1:], c, c == '"')
	if end < 0 {
		return false
	}
	*i += end + 2
	return true
}

// errUnread is checkNesting's answer for text it could not read from its
// line on: the nesting past that line is unknown.
type errUnread struct{ line int }

func (e errUnread) Error() string {
	return fmt.Sprintf("line %d: not read by the nesting check", e.line)
}

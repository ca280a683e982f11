package configs

// Key positions. BurntSushi/toml keeps no public positions for keys, and its
// private ones name an array of tables once, not per element. srcIndex scans
// the source itself: every [table] and [[array]] header, and every `key =`
// line, attributed to the header it sits under. The scan follows TOML's
// lexical structure closely enough not to be fooled by brackets or "key ="
// text inside strings, multi-line strings or multi-line arrays. Positions are
// for messages only; a key it cannot place (say, one inside an inline table)
// reports the nearest enclosing key or header, or line 0.

import (
	"strings"
)

// srcIndex maps the keys of one TOML source to their lines.
type srcIndex struct {
	top    *srcTable   // keys before the first header; path empty
	tables []*srcTable // every header, in file order
}

// srcTable is one header and the keys written under it (including, for an
// array-of-tables element, the keys of its sub-tables like [agent.env]).
type srcTable struct {
	path  []string
	array bool
	line  int
	keys  map[string]int // relative key path joined by keySep -> first line
}

// keySep joins key parts; it cannot occur in a TOML key we care about.
const keySep = "\x00"

// indexSource scans src. It never fails: text it cannot read is skipped.
func indexSource(src string) *srcIndex {
	ix := &srcIndex{top: &srcTable{keys: map[string]int{}}}
	sink, prefix := ix.top, []string(nil)
	var lastArray *srcTable
	var open string // closing delimiter of a multi-line string, or ""
	depth := 0      // brackets and braces open in a value spanning lines

	for n, line := range strings.Split(src, "\n") {
		lineNo := n + 1
		if open != "" || depth > 0 {
			open, depth = scanValue(line, open, depth)
			continue
		}
		s := strings.TrimLeft(line, " \t\r\ufeff")
		switch {
		case s == "" || s[0] == '#':
		case strings.HasPrefix(s, "[["):
			path, rest, ok := parseKeyPath(s[2:])
			if !ok || !strings.HasPrefix(strings.TrimLeft(rest, " \t"), "]]") {
				continue
			}
			t := &srcTable{path: path, array: true, line: lineNo, keys: map[string]int{}}
			ix.tables = append(ix.tables, t)
			sink, prefix, lastArray = t, nil, t
		case s[0] == '[':
			path, rest, ok := parseKeyPath(s[1:])
			if !ok || !strings.HasPrefix(strings.TrimLeft(rest, " \t"), "]") {
				continue
			}
			if lastArray != nil && len(path) > len(lastArray.path) && hasPrefix(path, lastArray.path) {
				// A sub-table of the current array element, e.g. [agent.env].
				rel := path[len(lastArray.path):]
				lastArray.note(rel, lineNo)
				sink, prefix = lastArray, rel
				continue
			}
			t := &srcTable{path: path, line: lineNo, keys: map[string]int{}}
			ix.tables = append(ix.tables, t)
			sink, prefix = t, nil
		default:
			key, rest, ok := parseKeyPath(s)
			rest = strings.TrimLeft(rest, " \t")
			if !ok || !strings.HasPrefix(rest, "=") {
				continue
			}
			sink.note(append(append([]string(nil), prefix...), key...), lineNo)
			open, depth = scanValue(rest[1:], "", 0)
		}
	}
	return ix
}

// note records rel at line, keeping the first line a key is seen on.
func (t *srcTable) note(rel []string, line int) {
	k := strings.Join(rel, keySep)
	if _, ok := t.keys[k]; !ok {
		t.keys[k] = line
	}
}

// lookup returns the line of key (relative to t), else of the first key
// under it (a dotted `key.sub =` or a sub-table), else of its nearest
// enclosing key, else t's header line (0 for the top level).
func (t *srcTable) lookup(key []string) int {
	for n := len(key); n > 0; n-- {
		k := strings.Join(key[:n], keySep)
		if line, ok := t.keys[k]; ok {
			return line
		}
		best := 0
		for other, line := range t.keys {
			if strings.HasPrefix(other, k+keySep) && (best == 0 || line < best) {
				best = line
			}
		}
		if best > 0 {
			return best
		}
	}
	return t.line
}

// line returns the line of a key given by its full path from the top level,
// such as ("prefix") or ("profile", "claude", "busy"), looked up under the
// standard table with the longest matching path. Keys of [[array]] elements
// are found with elem.
func (ix *srcIndex) line(path ...string) int {
	best := ix.top
	for _, t := range ix.tables {
		if !t.array && len(t.path) <= len(path) && len(t.path) > len(best.path) && hasPrefix(path, t.path) {
			best = t
		}
	}
	return best.lookup(path[len(best.path):])
}

// elem returns the line of key in the i-th (0-based) element of the array of
// tables named array, or the element's header line when key is empty. When
// the file has no such [[array]] header (say, an inline array), it returns
// the line of the array's key.
func (ix *srcIndex) elem(array string, i int, key ...string) int {
	for _, t := range ix.tables {
		if t.array && len(t.path) == 1 && t.path[0] == array {
			if i == 0 {
				if len(key) == 0 {
					return t.line
				}
				return t.lookup(key)
			}
			i--
		}
	}
	return ix.line(array)
}

// hasPrefix reports whether path starts with prefix.
func hasPrefix(path, prefix []string) bool {
	if len(prefix) > len(path) {
		return false
	}
	for i := range prefix {
		if path[i] != prefix[i] {
			return false
		}
	}
	return true
}

// parseKeyPath reads a dotted TOML key (bare, "basic" or 'literal' parts,
// with optional spaces around dots) from the start of s, and returns its
// parts and the text after it.
func parseKeyPath(s string) (parts []string, rest string, ok bool) {
	for {
		s = strings.TrimLeft(s, " \t")
		var part string
		switch {
		case s == "":
			return nil, "", false
		case s[0] == '"':
			end := closingQuote(s[1:], '"', true)
			if end < 0 {
				return nil, "", false
			}
			part, s = unescapeKey(s[1:1+end]), s[2+end:]
		case s[0] == '\'':
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				return nil, "", false
			}
			part, s = s[1:1+end], s[2+end:]
		default:
			n := 0
			for n < len(s) && isBareKeyByte(s[n]) {
				n++
			}
			if n == 0 {
				return nil, "", false
			}
			part, s = s[:n], s[n:]
		}
		parts = append(parts, part)
		t := strings.TrimLeft(s, " \t")
		if !strings.HasPrefix(t, ".") {
			return parts, s, true
		}
		s = t[1:]
	}
}

// isBareKeyByte reports whether c may appear in a bare TOML key.
func isBareKeyByte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// closingQuote returns the index in s of the first q not escaped by a
// backslash (when escapes is true), or -1.
func closingQuote(s string, q byte, escapes bool) int {
	for i := 0; i < len(s); i++ {
		switch {
		case escapes && s[i] == '\\':
			i++
		case s[i] == q:
			return i
		}
	}
	return -1
}

// unescapeKey undoes the simple escapes \" and \\ of a quoted key; other
// escapes are kept as written (names with them are refused later anyway).
func unescapeKey(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	return strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(s)
}

// scanValue scans one line of a value, starting inside a multi-line string
// when open holds a multi-line string's delimiter (three double or three
// single quotes), with depth brackets or braces open. It
// returns the state at the end of the line.
func scanValue(s, open string, depth int) (string, int) {
	for i := 0; i < len(s); i++ {
		if open != "" {
			if open == `"""` && s[i] == '\\' {
				i++
				continue
			}
			if strings.HasPrefix(s[i:], open) {
				i += len(open) - 1
				open = ""
			}
			continue
		}
		switch c := s[i]; c {
		case '#':
			return "", depth
		case '"', '\'':
			delim := strings.Repeat(string(c), 3)
			if strings.HasPrefix(s[i:], delim) {
				open = delim
				i += 2
				continue
			}
			end := closingQuote(s[i+1:], c, c == '"')
			if end < 0 {
				return "", depth // unterminated: the parser reports it
			}
			i += end + 1
		case '[', '{':
			depth++
		case ']', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return open, depth
}

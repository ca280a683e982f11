package configs

// table.go reads the keys of one top-level table of the office file ([web],
// [cluster]) the same way for each: unknown keys refused with the known
// ones named, strings that must not be blank, each problem at its own line
// as "TABLE: KEY: ...", and whether the table is to be dropped.

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// tableReader reads one [NAME] table.
type tableReader struct {
	name  string
	t     map[string]any
	line  int // the line of the [NAME] header
	ix    *srcIndex
	probs *problems
	bad   bool // a problem was found: the table is not used
}

// readTable starts reading the value of top-level key name as a table with
// the known keys (each other key is a problem at its line); nil when v is
// not a table (a problem too).
func readTable(name string, v any, known []string, ix *srcIndex, probs *problems) *tableReader {
	t, ok := v.(map[string]any)
	if !ok {
		probs.add(ix.line(name), "%s: want a [%s] table, got %s", name, name, tomlType(v))
		return nil
	}
	tb := &tableReader{name: name, t: t, line: ix.line(name), ix: ix, probs: probs}
	for _, key := range slices.Sorted(maps.Keys(t)) {
		if !slices.Contains(known, key) {
			tb.bad = true
			probs.add(ix.line(name, key), "%s: unknown key %q (known: %s)", name, key, strings.Join(known, ", "))
		}
	}
	return tb
}

// has reports whether the table sets key.
func (tb *tableReader) has(key string) bool {
	_, ok := tb.t[key]
	return ok
}

// fail is a problem with key, at its line.
func (tb *tableReader) fail(key, format string, args ...any) {
	tb.bad = true
	tb.probs.add(tb.ix.line(tb.name, key), "%s: %s: %s", tb.name, key, fmt.Sprintf(format, args...))
}

// failTable is a problem of the whole table, at its header's line.
func (tb *tableReader) failTable(format string, args ...any) {
	tb.bad = true
	tb.probs.add(tb.line, "%s: %s", tb.name, fmt.Sprintf(format, args...))
}

// str reads key, when set, into dst: a string, not blank.
func (tb *tableReader) str(key string, dst *string) {
	if !tb.has(key) {
		return
	}
	s, err := asString(tb.t[key])
	if err == nil && strings.TrimSpace(s) == "" {
		err = fmt.Errorf("is blank")
	}
	if err != nil {
		tb.fail(key, "%v", err)
		return
	}
	*dst = s
}

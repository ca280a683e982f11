package configs

// Errors about a config file: where the problem is (file and line) and what
// it is. Parse reports every problem it finds, in line order, not only the
// first, so one edit round fixes a file.

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// Error is one problem with a config file. Its message is
// "FILE:LINE: PROBLEM", or "FILE: PROBLEM" when the line is unknown (for
// example a key written inside an inline table). Parse, Load and Default
// return an *Error, or several joined with errors.Join; errors.As finds them.
type Error struct {
	// File is the name the config was parsed under (the path given to Load).
	File string
	// Line is the 1-based line of the problem, 0 when unknown.
	Line int
	// Err says what is wrong, starting with its subject (`agent "x": ...`).
	Err error
}

// Error returns "FILE:LINE: PROBLEM", or "FILE: PROBLEM" when Line is 0.
func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// problems collects the errors found in one file.
type problems struct {
	file string
	list []*Error
}

// add records a problem at line (0: unknown).
func (p *problems) add(line int, format string, args ...any) {
	p.list = append(p.list, &Error{File: p.file, Line: line, Err: fmt.Errorf(format, args...)})
}

// err returns nil, the one problem, or all of them joined in line order
// (problems with no line last).
func (p *problems) err() error {
	switch len(p.list) {
	case 0:
		return nil
	case 1:
		return p.list[0]
	}
	sorted := slices.Clone(p.list)
	slices.SortStableFunc(sorted, func(a, b *Error) int {
		return cmp.Compare(lineOrder(a.Line), lineOrder(b.Line))
	})
	errs := make([]error, len(sorted))
	for i, e := range sorted {
		errs[i] = e
	}
	return errors.Join(errs...)
}

// lineOrder sorts unknown lines (0) after every known one.
func lineOrder(line int) int {
	if line <= 0 {
		return int(^uint(0) >> 1)
	}
	return line
}

// Package testbin builds the project's own programs (the office binary, the
// fake agent) once for a test package, so tests run the real executables.
package testbin

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
)

// Build compiles each Go package (an import path such as
// "office/test/fakeagent") into dir and returns the binaries' paths keyed by
// the import path's last element ("fakeagent"). The error carries the
// compiler's output.
func Build(dir string, pkgs ...string) (map[string]string, error) {
	// One go build for all: it loads the package graph and links the
	// binaries once, concurrently, instead of once a package.
	args := append([]string{"build", "-o", dir + string(filepath.Separator)}, pkgs...)
	if msg, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("testbin: build %v: %v\n%s", pkgs, err, msg)
	}
	out := make(map[string]string, len(pkgs))
	for _, pkg := range pkgs {
		out[path.Base(pkg)] = filepath.Join(dir, path.Base(pkg))
	}
	return out, nil
}

// Main builds pkgs into a temporary directory, runs the tests with the
// binaries' paths (see Build) and exits with their status, removing the
// directory. Call it from TestMain; it does not return.
func Main(run func(bins map[string]string) int, pkgs ...string) {
	dir, err := os.MkdirTemp("", "office-testbin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bins, err := Build(dir, pkgs...)
	if err != nil {
		os.RemoveAll(dir)
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := run(bins)
	os.RemoveAll(dir)
	os.Exit(code)
}

// Parallel sets how many parallel tests run at once (-test.parallel) to n,
// unless the command line set it. testing's default is GOMAXPROCS, right for
// tests that compute; tests that mostly wait on real processes (PTYs, tmux,
// sockets, an agent's boot) finish sooner with more of them at once. Call it
// from TestMain before m.Run; it parses the command line's flags.
func Parallel(n int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", fmt.Sprint(n))
	}
}

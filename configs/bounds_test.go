package configs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An office file past MaxFileBytes is refused naming the file and the
// bound, by Load (which reads no more than the bound) and by Parse.
func TestFileTooLarge(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.toml")
	src := "[[agent]]\nname = \"a\"\nprofile = \"shell\"\n# " + strings.Repeat("x", MaxFileBytes) + "\n"
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	var ce *Error
	if !errors.As(err, &ce) || ce.File != path || !strings.Contains(err.Error(), fmt.Sprint(MaxFileBytes)) {
		t.Fatalf("Load of a %d-byte file: %v, want an *Error naming %s and %d", len(src), err, path, MaxFileBytes)
	}
	if _, err := Parse("big.toml", []byte(src)); !errors.As(err, &ce) || !strings.Contains(err.Error(), "big.toml: the file is larger than") {
		t.Fatalf("Parse of a %d-byte file: %v", len(src), err)
	}
	// At the bound exactly, the file is read.
	ok := "[[agent]]\nname = \"a\"\nprofile = \"shell\"\n#"
	ok += strings.Repeat("x", MaxFileBytes-len(ok))
	if _, err := Parse("ok.toml", []byte(ok)); err != nil {
		t.Fatalf("Parse of a file of exactly MaxFileBytes: %v", err)
	}
}

// More than MaxAgents [[agent]] tables are refused at the first table past
// the bound; MaxAgents are accepted.
func TestTooManyAgents(t *testing.T) {
	file := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "[[agent]]\nname = \"a%d\"\nprofile = \"shell\"\n", i)
		}
		return b.String()
	}
	if c, err := Parse("office.toml", []byte(file(MaxAgents))); err != nil || len(c.Agents) != MaxAgents {
		t.Fatalf("%d agents: %v", MaxAgents, err)
	}
	_, err := Parse("office.toml", []byte(file(MaxAgents+1)))
	want := fmt.Sprintf("office.toml:%d: agent #%d: more than %d agents", 3*MaxAgents+1, MaxAgents+1, MaxAgents)
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("%d agents: error %v, want %q...", MaxAgents+1, err, want)
	}
}

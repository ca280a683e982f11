package configs

import (
	"errors"
	"testing"
)

// FuzzParse: any input either parses or fails with *Error values; it never
// panics, and a parsed config's agents all have an argv.
func FuzzParse(f *testing.F) {
	f.Add([]byte(lineSrc))
	f.Add(defaultTOML)
	f.Add(profilesTOML)
	f.Add([]byte("[[agent]]\nname = \"a\"\nparent = \"a\"\n"))
	f.Add([]byte("agent = [{ name = \"x\", command = [\"y\"] }]\n"))
	f.Add([]byte("x = '''\n[[agent]]\n'''\n[profile.a]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("f.toml", data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *Error", err)
			}
			return
		}
		for _, a := range c.Agents {
			if _, err := c.Argv(a); err != nil {
				t.Fatalf("parsed agent %q has no argv: %v", a.Name, err)
			}
		}
	})
}

package configs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const nestAgent = "[[agent]]\nname = \"a\"\nprofile = \"shell\"\n"

// A file nested past MaxNesting, in any of the ways the decoder's key path
// deepens, is refused at the line where it goes past the bound; text that
// only looks nested (brackets in strings and comments) and nesting at the
// bound are not.
func TestNestingRefused(t *testing.T) {
	t.Parallel()
	deep := MaxNesting + 1
	refused := []struct{ name, src string }{
		{"inline tables", "x = " + strings.Repeat("{a=", deep) + "1" + strings.Repeat("}", deep)},
		{"arrays", "x = " + strings.Repeat("[", deep) + "1" + strings.Repeat("]", deep)},
		{"dotted key", strings.Repeat("a.", deep) + "a = 1"},
		{"header", "[" + strings.Repeat("a.", deep) + "a]\nb = 1"},
		{"array header", "[[" + strings.Repeat("a.", deep) + "a]]\nb = 1"},
		{"dotted keys in inline tables", "x = " + strings.Repeat("{a.a.a.a=", deep/4+1) + "1" + strings.Repeat("}", deep/4+1)},
		{"keys under a deep header", "[" + strings.Repeat("a.", MaxNesting-2) + "a]\nb.c = 1"},
		{"arrays of inline tables", "x = " + strings.Repeat("[{a=", deep/2+1) + "1" + strings.Repeat("}]", deep/2+1)},
		{"the second element", "x = [1, " + strings.Repeat("[", deep) + strings.Repeat("]", deep) + "]"},
		{"the second key", "x = {b=1, " + strings.Repeat("a.", deep) + "a=1}"},
	}
	for _, c := range refused {
		// A string and a multi-line string with brackets and newlines in
		// them, a multi-line array: the deep value is on line 8 (9 for the
		// key under a deep header).
		src := "s = \"{{[[\"\nm = '''\n[[[\n'''\nt = [\n  1,\n]\n" + c.src + "\n" + nestAgent
		_, err := Parse("office.toml", []byte(src))
		want := fmt.Sprintf("office.toml:%d: nested more than %d levels deep", 8+strings.Count(c.src, "b.c"), MaxNesting)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want %q...", c.name, err, want)
		}
	}
	accepted := []struct{ name, src string }{
		{"inline tables", "x = " + strings.Repeat("{a=", MaxNesting-1) + "1" + strings.Repeat("}", MaxNesting-1)},
		{"arrays", "x = " + strings.Repeat("[", MaxNesting-1) + "1" + strings.Repeat("]", MaxNesting-1)},
		{"dotted key", strings.Repeat("a.", MaxNesting-1) + "a = 1"},
		{"header", "[" + strings.Repeat("a.", MaxNesting-2) + "a]\nb = 1"},
		{"brackets in strings", "x = \"" + strings.Repeat("{[", 2*MaxNesting) + "\""},
		{"brackets in a comment", "x = 1 # " + strings.Repeat("{[", 2*MaxNesting)},
		{"quoted dots", "\"" + strings.Repeat("a.", 2*MaxNesting) + "\" = 1"},
		{"many shallow values", "x = [" + strings.Repeat("[1], {a=1}, ", 4*MaxNesting) + "]"},
	}
	for _, c := range accepted {
		if err := checkNesting("office.toml", []byte(c.src+"\n"+nestAgent)); err != nil {
			t.Errorf("%s at the bound: %v", c.name, err)
		}
	}
	// The office files people write pass, and so does the scan of the
	// embedded ones.
	for name, src := range map[string][]byte{"lineSrc": []byte(lineSrc), "default": defaultTOML, "profiles": profilesTOML} {
		if err := checkNesting(name, src); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A file 5,000 inline tables deep (25 KB; 4,000 took 708 MB and 50,000 all
// of a 24 GB machine before the bound): Load refuses it at its line having
// allocated a few times the file. (Not 50,000 here: without the bound the
// test would take the machine down instead of failing.) Not parallel: the
// allocation is read from the process's counters.
func TestNestingBoundedMemory(t *testing.T) {
	const n = 5000
	src := nestAgent + "x = " + strings.Repeat("{a=", n) + "1" + strings.Repeat("}", n) + "\n"
	path := filepath.Join(t.TempDir(), "office.toml")
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Load(path)
	runtime.ReadMemStats(&after)
	var ce *Error
	if !errors.As(err, &ce) || ce.File != path || ce.Line != 4 || !strings.Contains(err.Error(), "nested more than") {
		t.Fatalf("Load of %d nested tables: %v, want an *Error at %s:4", n, err, path)
	}
	if got, bound := after.TotalAlloc-before.TotalAlloc, uint64(8*len(src)); got > bound {
		t.Fatalf("refusing a %d-byte file allocated %d bytes, want at most %d", len(src), got, bound)
	}
}

// FuzzNesting: whatever passes the scan and decodes is no deeper than
// MaxNesting, so the scan cannot be talked out of counting a level.
func FuzzNesting(f *testing.F) {
	f.Add([]byte("x = {a={b=[1,{c=2}]}}\n"))
	f.Add([]byte("a.b.c = 1\n[d.e]\nf = [[1], [2]]\n"))
	f.Add([]byte("x = \"\"\"a\"\"\"\"\ny = [\n# ]\n[\n]]\n"))
	f.Add([]byte("x = '''{'''''\n[t]\n'k.e' . y = {}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if checkNesting("f.toml", data) != nil {
			return
		}
		doc, err := decodeTOML("f.toml", data)
		if err != nil {
			return
		}
		if d := valueDepth(doc); d > MaxNesting+1 {
			t.Fatalf("passed the scan, decoded %d levels deep", d)
		}
	})
}

// valueDepth is the nesting of a decoded value: a table or array counts one
// more than its deepest element.
func valueDepth(v any) int {
	d := 0
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			d = max(d, valueDepth(e))
		}
		return d + 1
	case []map[string]any:
		for _, e := range v {
			d = max(d, valueDepth(e))
		}
		return d + 1
	case []any:
		for _, e := range v {
			d = max(d, valueDepth(e))
		}
		return d + 1
	}
	return 0
}

// A byte-order mark does not hide a deep file from the bound (the decoder
// skips a UTF-8 one, so the check must too), a UTF-16 file is refused at
// line 1, and valid TOML in every ordinary form still decodes.
func TestNestingSeesThroughAByteOrderMark(t *testing.T) {
	t.Parallel()
	deep := "x = " + strings.Repeat("{a=", MaxNesting+4) + "1" + strings.Repeat("}", MaxNesting+4) + "\n"
	var e *Error
	if _, err := decodeTOML("o.toml", []byte("\xef\xbb\xbf"+deep)); !errors.As(err, &e) || e.Line != 1 || !strings.Contains(err.Error(), "nested more than") {
		t.Fatalf("a deep file behind a UTF-8 BOM: %v, want refused at line 1 for its nesting", err)
	}
	for _, bom := range []string{"\xff\xfe", "\xfe\xff"} {
		if _, err := decodeTOML("o.toml", []byte(bom+deep)); !errors.As(err, &e) || e.Line != 1 || !strings.Contains(err.Error(), "UTF-16") {
			t.Fatalf("a UTF-16 file: %v, want refused at line 1 as UTF-16", err)
		}
	}
	if doc, err := decodeTOML("o.toml", []byte("\xef\xbb\xbfa = 1\n")); err != nil || doc["a"] != int64(1) {
		t.Fatalf("a shallow file behind a UTF-8 BOM: %v %v, want it decoded", doc, err)
	}
	ordinary := []string{
		"a = \"\"\"multi\nline \"quoted\" \"\"\"\nb = 1\n",
		"a = '''lit\n[x]'''\n",
		"a = 1979-05-27T07:32:00Z\nb = 07:32:00\nc = 1979-05-27\n",
		"a = [ [1,2], [\"a\", 'b'] ]\n",
		"\"quoted key\" = 1\n'lit key' = 2\na.\"b c\".d = 3\n",
		"[ a . b ]\nc = 1\n[[ arr ]]\nx = 1\n",
		"a = { b = 1, c = [ 1, 2 ], d = { e = \"}\" } }\n",
		"a = [\n  1, # comment ]\n  2,\n]\n",
		"a = +inf\nb = nan\nc = 0x1F\nd = 1_000\ne = -3.5e+2\nf = true\n",
		"x = [ { a = 1 }, { b = 2 } ]\n",
	}
	for _, src := range ordinary {
		if _, err := decodeTOML("o.toml", []byte(src)); err != nil {
			t.Errorf("%q: %v, want decoded (the nesting check reads every ordinary form)", src, err)
		}
	}
}

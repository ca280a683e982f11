package engine

import (
	"bytes"
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"testing"
)

// A socket request is read at most maxRequest bytes: a valid request past
// the bound (here whitespace first, which JSON allows) is refused as a bad
// request instead of being read whole; one within it is answered.
func TestSocketRequestIsReadBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ln, err := net.Listen("unix", filepath.Join(dir, "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go serve(ln, func(r Request) (any, error) { return map[string]string{"op": r.Op}, nil })
	call := func(pad int) Response {
		t.Helper()
		c, err := net.Dial("unix", filepath.Join(dir, "s"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		go func() {
			var b bytes.Buffer
			b.WriteString(strings.Repeat(" ", pad))
			b.WriteString(`{"op":"status"}`)
			_, _ = c.Write(b.Bytes()) // the server may close before all is written
		}()
		var resp Response
		if err := json.NewDecoder(c).Decode(&resp); err != nil {
			t.Fatal(err)
		}
		return resp
	}
	if r := call(1000); r.Error != "" || !strings.Contains(string(r.Data), "status") {
		t.Fatalf("a small request: %+v", r)
	}
	if r := call(maxRequest); !r.Input || !strings.Contains(r.Error, "bad request") {
		t.Fatalf("a request past maxRequest: %+v, want a bad request", r)
	}
}

package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"office/configs"
)

// `office mail send --title` past mail_title_bytes is refused, exit 2,
// naming the bound and storing nothing; the office file's
// mail_title_bytes raises the bound.
func TestMailTitleBound(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	limit := configs.Defaults().MailTitleBytes
	long := strings.Repeat("t", limit+1)
	r := o.cmd("", "mail", "send", "--to", "a1", "--title", long, "text")
	want := fmt.Sprintf("--title is %d bytes, at most %d (mail_title_bytes)", limit+1, limit)
	if r.code != 2 || !strings.Contains(r.stderr, want) || r.stdout != "" {
		t.Fatalf("a %d-byte title: exit %d, stdout %q, stderr %q; want exit 2 saying %q", limit+1, r.code, r.stdout, cut(r.stderr), want)
	}
	if r := o.cmd("", "mail", "list", "--json"); r.code != 0 || strings.Contains(r.stdout, "ttt") {
		t.Fatalf("the refused mail was stored: exit %d, %q", r.code, cut(r.stdout))
	}
	body, err := os.ReadFile(o.config)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(o.config, []byte(fmt.Sprintf("mail_title_bytes = %d\n", 2*limit)+string(body)), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := o.cmd("", "mail", "send", "--to", "a1", "--title", long, "text"); r.code != 0 {
		t.Fatalf("a %d-byte title with mail_title_bytes = %d: exit %d, %q", limit+1, 2*limit, r.code, cut(r.stderr))
	}
}

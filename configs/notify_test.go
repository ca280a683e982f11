package configs

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestNotifyTableAndAgentOverride(t *testing.T) {
	t.Parallel()
	src := `notify_gap = "2m"

[notify]
on = ["dialog", "failed"]
command = ["notify-send", "{title}", "{body}"]
url = "https://ntfy.example/office"

[[agent]]
name = "a1"
profile = "shell"

[[agent]]
name = "quiet"
profile = "shell"
notify = []
`
	c, err := Parse("office.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	n := c.Notify
	if n.Line != 3 || !slices.Equal(n.On, []string{"dialog", "failed"}) || n.URL != "https://ntfy.example/office" || len(n.Command) != 3 {
		t.Fatalf("notify = %+v", n)
	}
	if !slices.Equal(n.Sinks, []string{SinkTerminal, SinkCommand, SinkURL}) {
		t.Fatalf("sinks %v: want the terminals, the command and the url given", n.Sinks)
	}
	if got := c.NotifyOn(c.Agents[0]); !slices.Equal(got, n.On) {
		t.Fatalf("a1 notifies on %v, want the table's", got)
	}
	if got := c.NotifyOn(c.Agents[1]); len(got) != 0 {
		t.Fatalf("quiet notifies on %v, want nothing", got)
	}
	if c.Settings.NotifyGap.String() != "2m0s" {
		t.Fatalf("notify_gap = %v", c.Settings.NotifyGap)
	}
	d, err := Parse("office.toml", []byte("[[agent]]\nname = \"a\"\nprofile = \"shell\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Notify.On, DefaultNotifyOn) || !slices.Equal(d.Notify.Sinks, []string{SinkTerminal}) {
		t.Fatalf("no table: %+v, want the default transitions to the terminals", d.Notify)
	}
}

func TestNotifyBadInputRefusedAtItsLine(t *testing.T) {
	t.Parallel()
	agent := "[[agent]]\nname = \"a\"\nprofile = \"shell\"\n"
	for _, c := range []struct{ src, want string }{
		{"[notify]\non = [\"dialog\", \"coffee\"]\n", `office.toml:2: notify: on: element 1: unknown transition "coffee"`},
		{"[notify]\nsinks = [\"terminal\", \"pager\"]\n", `office.toml:2: notify: sinks: element 1: unknown sink "pager"`},
		{"[notify]\nurl = \"ftp://example.com/x\"\n", `office.toml:2: notify: url: "ftp://example.com/x": want an http:// or https:// URL`},
		{"[notify]\n\nurl = \"http://\"\n", `office.toml:3: notify: url: "http://": no host`},
		{"[notify]\ncommand = \"notify-send hi\"\n", `office.toml:2: notify: command: want an array of strings like ["notify-send", "hi"], got a string`},
		{"[notify]\nsinks = [\"url\"]\n", `office.toml:2: notify: sinks: sink "url" without a url`},
		{"[notify]\nloud = true\n", `office.toml:2: notify: unknown key "loud"`},
		{"notify = 3\n", `office.toml:1: notify: want a [notify] table`},
	} {
		_, err := Parse("office.toml", []byte(c.src+"\n"+agent))
		var ce *Error
		if err == nil || !errors.As(err, &ce) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v, want %q", c.src, err, c.want)
		}
	}
	_, err := Parse("office.toml", []byte(agent+"notify = [\"turn done\", \"bell\"]\n"))
	if err == nil || !strings.Contains(err.Error(), `office.toml:4: agent "a": notify: element 1: unknown transition "bell"`) {
		t.Errorf("agent notify: err %v", err)
	}
}

package configs

import (
	"strings"
	"testing"
	"time"
)

func TestDurationUnmarshalText(t *testing.T) {
	good := []struct {
		in   string
		want time.Duration
	}{
		{"400ms", 400 * time.Millisecond},
		{"2h", 2 * time.Hour},
		{"1h30m", 90 * time.Minute},
		{"1.5s", 1500 * time.Millisecond},
		{"0", 0},
		{"0s", 0},
	}
	for _, c := range good {
		var d Duration
		if err := d.UnmarshalText([]byte(c.in)); err != nil || d.Duration != c.want {
			t.Errorf("UnmarshalText(%q) = %v, %v; want %v", c.in, d.Duration, err, c.want)
		}
	}
	bad := []struct{ in, msg string }{
		{"", "empty duration"},
		{"5", `bad duration "5"`},
		{"7d", `bad duration "7d"`},
		{"fast", `bad duration "fast"`},
		{"-1s", `duration "-1s" is negative`},
	}
	for _, c := range bad {
		d := Duration{time.Minute}
		err := d.UnmarshalText([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("UnmarshalText(%q) error %v, want one containing %q", c.in, err, c.msg)
		}
		if d.Duration != time.Minute {
			t.Errorf("UnmarshalText(%q) changed the value to %v on failure", c.in, d.Duration)
		}
	}
}

func TestDurationRoundTrip(t *testing.T) {
	for _, v := range []time.Duration{0, 140 * time.Millisecond, 30 * time.Minute, 168 * time.Hour} {
		text, err := Duration{v}.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Duration
		if err := back.UnmarshalText(text); err != nil || back.Duration != v {
			t.Errorf("%v -> %q -> %v, %v", v, text, back.Duration, err)
		}
	}
}

func TestDurationOr(t *testing.T) {
	if got := (Duration{}).Or(12 * time.Second); got != 12*time.Second {
		t.Errorf("zero.Or(12s) = %v", got)
	}
	if got := (Duration{time.Second}).Or(12 * time.Second); got != time.Second {
		t.Errorf("1s.Or(12s) = %v", got)
	}
}

func TestDurationInTOML(t *testing.T) {
	c, err := Parse("office.toml", []byte("mail_timeout = \"45m\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Settings.MailTimeout != 45*time.Minute {
		t.Errorf("mail_timeout = %v, want 45m", c.Settings.MailTimeout)
	}
	_, err = Parse("office.toml", []byte("\nmail_timeout = 45\n"))
	want := `office.toml:2: mail_timeout: want a duration string like "30m", got an integer`
	if err == nil || err.Error() != want {
		t.Errorf("integer duration: error %v, want %q", err, want)
	}
}

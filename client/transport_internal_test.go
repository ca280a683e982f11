package client

import (
	"slices"
	"strings"
	"testing"
)

// TestSSHArgs: OpenSSH gets the timeouts on every dial and BatchMode on a
// quiet one (a redial under the UI), after the user's own words; the far
// side gets --start, --state and --config quoted; another program gets
// none of ssh's options.
func TestSSHArgs(t *testing.T) {
	t.Parallel()
	tr := SSHTo(SSHRemote{Command: []string{"/usr/bin/ssh", "-p", "2222"}, Host: "me@b", Office: "/opt/office",
		State: "/srv/st ate", Config: "/srv/o'ffice.toml", Start: true})
	args := tr.(sshTransport).args()
	want := "-p 2222 -o ConnectTimeout=10 -o ServerAliveInterval=5 -o ServerAliveCountMax=3 me@b " +
		`/opt/office attach --stdio --start --state '/srv/st ate' --config '/srv/o'\''ffice.toml'`
	if got := strings.Join(args, " "); got != want {
		t.Errorf("first dial:\n got %s\nwant %s", got, want)
	}
	if slices.Contains(args, "BatchMode=yes") {
		t.Error("the first dial is in BatchMode: the person could not type a password before the UI starts")
	}
	quiet := Quiet(tr).(sshTransport).args()
	if i, j := slices.Index(quiet, "BatchMode=yes"), slices.Index(quiet, "me@b"); i < 0 || i > j || quiet[i-1] != "-o" {
		t.Errorf("redial %v: want -o BatchMode=yes before the host", quiet)
	}
	other := SSHTo(SSHRemote{Command: []string{"tsh", "ssh"}, Host: "b"}).(sshTransport)
	if got := strings.Join(other.quiet().(sshTransport).args(), " "); got != "ssh b office attach --stdio" {
		t.Errorf("another program: %s", got)
	}
	if Quiet(Local("/x")) != Local("/x") {
		t.Error("Quiet changed a local transport")
	}
}

package client

// transport.go opens the byte stream a connection runs on: the local socket,
// or ssh running `office attach --stdio` on another host.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"office/wire"
)

// ErrNoServer says no office server answers on a state directory.
var ErrNoServer = errors.New("no office is running on this state directory")

// Transport opens connections to one office server.
type Transport interface {
	// Dial opens a new byte stream to the server.
	Dial(ctx context.Context) (io.ReadWriteCloser, error)
	// String names the server for messages ("state dir X", "host H").
	String() string
}

// Local reaches the server of a state directory on this machine.
func Local(stateDir string) Transport { return local{stateDir} }

type local struct{ dir string }

func (l local) Dial(ctx context.Context) (io.ReadWriteCloser, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", filepath.Join(l.dir, wire.SocketFile))
	if err != nil {
		return nil, fmt.Errorf("%w (%s): %v", ErrNoServer, l.dir, err)
	}
	return c, nil
}

func (l local) String() string { return "state directory " + l.dir }

// SSH reaches the server on host by running the user's own ssh: argv is the
// ssh command (nil: "ssh"; OFFICE_SSH_COMMAND or --ssh-command replace it),
// then host, then `office attach --stdio` and, if stateDir is set, `--state
// stateDir`. remoteOffice is the office command on the far side ("" means
// "office"). Nothing listens on TCP: the stream is ssh's stdin and stdout.
func SSH(argv []string, host, remoteOffice, stateDir string) Transport {
	return SSHTo(SSHRemote{Command: argv, Host: host, Office: remoteOffice, State: stateDir})
}

// SSHRemote says how to reach an office server through ssh.
type SSHRemote struct {
	// Command is the ssh command line (nil: "ssh").
	Command []string
	// Host is ssh's destination ("user@host", an alias of ~/.ssh/config).
	Host string
	// Office is the office command on the far side ("" means "office").
	Office string
	// State and Config, when set, are the far side's state directory and
	// office file (its `--state` and `--config`).
	State, Config string
	// Start: the far side starts its server when none runs (`attach
	// --stdio --start`, in the background, as `office start`).
	Start bool
}

// SSHTo reaches the server r says through ssh. When the command is OpenSSH's
// own (its program is named ssh) every dial adds sshOptions after the
// user's words (ssh takes the first value of an option, so the user's own
// -o win), and a redial is quiet (BatchMode): by then the UI holds
// the terminal in raw mode, and a password or host-key prompt would garble
// the screen and could never be answered. Another program is run with the
// user's words only. A redial of either runs in a session of its own, with
// no controlling terminal to prompt on.
func SSHTo(r SSHRemote) Transport {
	if len(r.Command) == 0 {
		r.Command = []string{"ssh"}
	}
	if r.Office == "" {
		r.Office = "office"
	}
	return sshTransport{r: r}
}

// sshOptions are the OpenSSH options of a dial: give up connecting after
// 10 s, and find a dead link within 15 s (three unanswered keep-alives 5 s
// apart) instead of waiting on TCP for minutes. A quiet dial adds BatchMode:
// ssh asks nothing (no password, no passphrase, no unknown host key) and
// fails instead; the session tries again later and the UI says the host is
// unreachable. Use keys (an ssh-agent) for hosts you attach to.
func sshOptions(quiet bool) []string {
	o := []string{"-o", "ConnectTimeout=10", "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3"}
	if quiet {
		o = append(o, "-o", "BatchMode=yes")
	}
	return o
}

// SSHCommand splits an ssh command line such as "ssh -p 2222 -i key" (from
// OFFICE_SSH_COMMAND or --ssh-command) into its words; quotes are not
// interpreted.
func SSHCommand(s string) []string { return strings.Fields(s) }

// SSHStarting is SSH whose far side starts the office's server there
// (`office attach --stdio --start`, in the background, as `office start`)
// when none runs, as a local `office` does.
func SSHStarting(argv []string, host, remoteOffice, stateDir string) Transport {
	return SSHTo(SSHRemote{Command: argv, Host: host, Office: remoteOffice, State: stateDir, Start: true})
}

// Quiet returns tr as it dials without asking the person anything (for
// ssh: BatchMode), or tr itself when it never asks. A Session redials with
// it; a client dialling while a UI holds the terminal uses it too.
func Quiet(tr Transport) Transport {
	if q, ok := tr.(interface{ quiet() Transport }); ok {
		return q.quiet()
	}
	return tr
}

type sshTransport struct {
	r     SSHRemote
	batch bool // a quiet dial (Quiet)
}

func (t sshTransport) String() string { return "host " + t.r.Host }

func (t sshTransport) quiet() Transport { t.batch = true; return t }

// args is the command line of a dial.
func (t sshTransport) args() []string {
	remote := []string{t.r.Office, "attach", "--stdio"}
	if t.r.Start {
		remote = append(remote, "--start")
	}
	if t.r.State != "" {
		remote = append(remote, "--state", shellQuote(t.r.State))
	}
	if t.r.Config != "" {
		remote = append(remote, "--config", shellQuote(t.r.Config))
	}
	args := append([]string(nil), t.r.Command[1:]...)
	if filepath.Base(t.r.Command[0]) == "ssh" {
		args = append(args, sshOptions(t.batch)...)
	}
	return append(args, t.r.Host, strings.Join(remote, " "))
}

func (t sshTransport) Dial(ctx context.Context) (io.ReadWriteCloser, error) {
	cmd := exec.Command(t.r.Command[0], t.args()...)
	if t.batch {
		// No controlling terminal either: whatever the program, it
		// cannot prompt on the terminal the UI holds.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	// ssh's stdin is a pipe of office's own (not exec's StdinPipe) so
	// that its end here is an *os.File the runtime polls: the person's
	// keys are written on the UI's goroutine when the pipe has room
	// (Conn.TryInput).
	inR, stdin, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("run %s: a pipe for its input: %w", t.r.Command[0], err)
	}
	cmd.Stdin = inR
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		inR.Close()
		stdin.Close()
		return nil, err
	}
	var stderr tail
	cmd.Stderr = &stderr
	err = cmd.Start()
	inR.Close() // ssh has its copy
	if err != nil {
		stdin.Close()
		return nil, fmt.Errorf("run %s: %w", t.r.Command[0], err)
	}
	p := &sshPipe{cmd: cmd, in: stdin, out: stdout, stderr: &stderr, waited: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.waited) }()
	return p, nil
}

// sshExitWait bounds how long a read that found ssh's output closed waits
// for ssh to exit and say why.
const sshExitWait = 2 * time.Second

// shellQuote quotes s for the remote shell ssh hands the command to.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// sshPipe is a running ssh as a byte stream.
type sshPipe struct {
	cmd    *exec.Cmd
	in     *os.File
	out    io.ReadCloser
	stderr *tail
	waited chan struct{}
	err    error
	once   sync.Once
}

func (p *sshPipe) Read(b []byte) (int, error) {
	n, err := p.out.Read(b)
	if err != nil && n == 0 {
		return 0, p.failure(err)
	}
	return n, err
}

func (p *sshPipe) Write(b []byte) (int, error) {
	n, err := p.in.Write(b)
	if err != nil {
		return n, p.failure(err)
	}
	return n, nil
}

// SyscallConn is ssh's stdin pipe's, for Conn.TryInput's writes.
func (p *sshPipe) SyscallConn() (syscall.RawConn, error) { return p.in.SyscallConn() }

// failure is the error of a read or write that found ssh's pipes closed: ssh
// is exiting, and what it said on stderr (host unreachable, no office there)
// is the real error.
func (p *sshPipe) failure(err error) error {
	select {
	case <-p.waited:
	case <-time.After(sshExitWait):
	}
	if msg := p.stderr.String(); msg != "" {
		return fmt.Errorf("%s: %s", p.cmd.Path, msg)
	}
	return err
}

// Close ends ssh (it takes the remote `attach --stdio` with it).
func (p *sshPipe) Close() error {
	p.once.Do(func() {
		p.in.Close()
		if p.cmd.Process != nil {
			_ = p.cmd.Process.Kill()
		}
		<-p.waited
	})
	return nil
}

// tail keeps the last bytes of ssh's stderr for error messages.
type tail struct {
	mu sync.Mutex
	b  []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 2048 {
		t.b = t.b[len(t.b)-2048:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}

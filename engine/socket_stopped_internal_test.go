package engine

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// A call to an office whose server process is stopped (SIGSTOP) answers at
// once with ErrStopped (`office send` waited 5 s for the poke, 5 more for
// its status question); a running process is asked as usual.
func TestCallToAStoppedServerAnswersAtOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lock, err := lockState(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer unlockState(lock)
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Skipf("no sleep to stand for the server: %v", err)
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
	// The lock is held (by this process); the pid it records is the child's.
	if err := os.WriteFile(filepath.Join(dir, LockFile), []byte(strconv.Itoa(child.Process.Pid)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if processStopped(child.Process.Pid) {
		t.Fatal("a running sleep reads as stopped")
	}
	if err := Call(context.Background(), dir, Request{Op: "poke"}, nil); !errors.Is(err, ErrNoEngine) {
		t.Fatalf("Call with the server running but no socket: %v, want ErrNoEngine", err)
	}
	if err := child.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !processStopped(child.Process.Pid) {
		if time.Now().After(deadline) {
			t.Fatal("the child never read as stopped")
		}
		time.Sleep(5 * time.Millisecond)
	}
	err = Call(context.Background(), dir, Request{Op: "poke"}, nil)
	if !errors.Is(err, ErrStopped) || errors.Is(err, ErrNoEngine) {
		t.Fatalf("Call to a stopped server: %v, want ErrStopped", err)
	}
	_ = child.Process.Signal(syscall.SIGCONT)
}

// A server that accepts a call and never answers holds the caller only as
// long as the caller's context allows, not the whole callTimeout.
func TestCallEndsWithItsContext(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ln, err := net.Listen("unix", filepath.Join(dir, ClientSocketFile))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // accepted, never answered
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := Call(ctx, dir, Request{Op: "poke"}, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Call to a server that never answers: %v, want the context's deadline", err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel2)
	if err := Call(ctx2, dir, Request{Op: "poke"}, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("Call cancelled while waiting: %v, want context.Canceled", err)
	}
}

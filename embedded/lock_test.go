package embedded

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// holderEnv names the data directory a re-executed test binary holds.
const holderEnv = "OIDKIT_TEST_LOCK_HOLDER"

// TestLockHolderProcess is the body of the child process of
// TestLockReleasedOnKill: it holds a server until it is killed.
func TestLockHolderProcess(t *testing.T) {
	dir := os.Getenv(holderEnv)
	if dir == "" {
		t.Skip("runs only as the child of TestLockReleasedOnKill")
	}
	s, err := Start(Options{DataDir: dir})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("ready")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // blocks until killed
	_ = s.Close()
	os.Exit(0)
}

// Two servers in one process conflict: flock locks belong to open file
// descriptions, and each Start opens its own.
func TestLockSecondStartFails(t *testing.T) {
	dir := t.TempDir()
	s, err := Start(Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Start(Options{DataDir: dir})
	var le *LockedError
	if !errors.As(err, &le) {
		_ = s.Close()
		t.Fatalf("second Start over %s: err = %v, want *LockedError", dir, err)
	}
	if le.PID != os.Getpid() || !strings.Contains(le.Command, os.Args[0]) || le.Dir == "" {
		t.Errorf("LockedError = %+v, want PID %d and command with %q", le, os.Getpid(), os.Args[0])
	}
	if le.URI != s.URI() {
		t.Errorf("LockedError.URI = %q, want %q", le.URI, s.URI())
	}
	if !strings.Contains(err.Error(), fmt.Sprint(os.Getpid())) {
		t.Errorf("message %q does not name the holder's PID", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Close releases the lock.
	s2, err := Start(Options{DataDir: dir})
	if err != nil {
		t.Fatalf("Start after Close: %v", err)
	}
	_ = s2.Close()
}

// A failed Start (bad listen address) does not keep the directory locked.
func TestLockReleasedOnFailedStart(t *testing.T) {
	dir := t.TempDir()
	if _, err := Start(Options{DataDir: dir, Listen: "nonsense"}); err == nil {
		t.Fatal("want error for listen address without port")
	}
	s, err := Start(Options{DataDir: dir})
	if err != nil {
		t.Fatalf("Start after a failed Start: %v", err)
	}
	_ = s.Close()
}

// The kernel releases the lock of a process killed with SIGKILL.
func TestLockReleasedOnKill(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHolderProcess$")
	cmd.Env = append(os.Environ(), holderEnv+"="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "ready\n" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("holder: %q, %v", line, err)
	}
	_, err = Start(Options{DataDir: dir})
	var le *LockedError
	if !errors.As(err, &le) || le.PID != cmd.Process.Pid {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("Start while held by %d: err = %v, want *LockedError naming it", cmd.Process.Pid, err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	s, err := Start(Options{DataDir: dir})
	if err != nil {
		t.Fatalf("Start after the holder was killed: %v", err)
	}
	_ = s.Close()
}

//go:build unix

package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/oidkit/oidkit/embedded"
)

// proc is a running oidkit command.
type proc struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	stderr bytes.Buffer
	done   chan struct{}
}

func start(t *testing.T, bin string, stdin io.Reader, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(bin, args...), done: make(chan struct{})}
	p.cmd.Stdin = stdin
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// wait returns the exit code, failing the test if the command runs longer
// than limit.
func (p *proc) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(limit):
		_ = p.cmd.Process.Kill()
		<-p.done
		t.Fatalf("%v still running after %v; stderr %q", p.cmd.Args[1:], limit, p.stderr.String())
		return -1
	}
}

// stop sends sig and requires the command to end within a second with
// exit 1 and "interrupted" on stderr.
func (p *proc) stop(t *testing.T, sig syscall.Signal) {
	t.Helper()
	select {
	case <-p.done:
		t.Fatalf("%v ended before %v: exit %d, stderr %q", p.cmd.Args[1:], sig, p.cmd.ProcessState.ExitCode(), p.stderr.String())
	default:
	}
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	code := p.wait(t, 10*time.Second)
	took := time.Since(sent)
	if took > time.Second || code != 1 || !strings.Contains(p.stderr.String(), ": interrupted\n") {
		t.Fatalf("%v after %v: ended in %v with exit %d, stderr %q; want within 1s, exit 1, \"interrupted\"", p.cmd.Args[1:], sig, took, code, p.stderr.String())
	}
}

// lockHeld reports whether a process holds the data-dir lock of dir.
func lockHeld(t *testing.T, dir string) bool {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, embedded.LockFile), os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return true
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

// waitLocked returns once the command holds the lock of dir.
func (p *proc) waitLocked(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !lockHeld(t, dir) {
		select {
		case <-p.done:
			t.Fatalf("%v ended before it took the lock: exit %d, stderr %q", p.cmd.Args[1:], p.cmd.ProcessState.ExitCode(), p.stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the data-dir lock was not taken")
		}
	}
	time.Sleep(300 * time.Millisecond) // into the read
}

// runBin runs a command to its end.
func runBin(t *testing.T, bin string, args ...string) (int, string) {
	t.Helper()
	p := start(t, bin, nil, args...)
	return p.wait(t, 2*time.Minute), p.stderr.String()
}

// mkfifo makes a FIFO in dir.
func mkfifo(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return path
}

// stalledWriter opens the FIFO for writing (which waits for the command to
// open it), writes a document and half of the next, and stalls.
func stalledWriter(t *testing.T, fifo string) {
	t.Helper()
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		t.Cleanup(func() { f.Close() })
		_, _ = f.WriteString("{\"_id\":1}\n{\"_id\":")
	}()
}

// TestUnstoppableInputs is issue 24's reads that could not be stopped, on
// the built binary: /dev/zero is refused at once (exit 2); a FIFO without
// a writer, a FIFO whose writer stalls mid-line and a standard input that
// never ends are interrupted by SIGINT or SIGTERM within a second (exit 1,
// "interrupted") and leave the data-dir lock free for the next command.
func TestUnstoppableInputs(t *testing.T) {
	bin := oidkitBinary(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	good := filepath.Join(dir, "good.ndjson")
	if err := os.WriteFile(good, []byte("{\"_id\":1}\n{\"_id\":2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The data dir exists (audit and verify db want one) and works.
	if code, stderr := runBin(t, bin, "load", "--quiet", "--data-dir", data, good); code != 0 {
		t.Fatalf("load: exit %d, stderr %q", code, stderr)
	}
	// next runs a command on the data dir, which must not be locked.
	next := func(t *testing.T) {
		t.Helper()
		if lockHeld(t, data) {
			t.Fatal("the data-dir lock is still held")
		}
		// The point is the released lock, not how fast the server
		// answers on a busy machine: the wait is a minute, not 10 s.
		if code, stderr := runBin(t, bin, "load", "--quiet", "--mode", "upsert", "--timeout", "1m", "--data-dir", data, good); code != 0 {
			t.Fatalf("the next command on the data dir: exit %d, stderr %q", code, stderr)
		}
	}

	t.Run("dev zero", func(t *testing.T) {
		zeros := filepath.Join(dir, "zeros.ndjson") // a regular file of NULs
		if err := os.WriteFile(zeros, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(zeros, 1<<30); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"load", "--data-dir", data, "/dev/zero"}, "oidkit: /dev/zero:1: invalid JSON: a NUL byte at column 1"},
			{[]string{"load", "--data-dir", data, zeros}, zeros + ":1: invalid JSON: a NUL byte at column 1"},
			{[]string{"audit", "/dev/zero"}, "oidkit: audit: /dev/zero:1: invalid JSON: a NUL byte at column 1"},
			{[]string{"verify", "db", "--data-dir", data, "--fixture", "/dev/zero"}, `oidkit: --fixture "/dev/zero": a character device, expected a regular file`},
			{[]string{"verify", "db", "--data-dir", data, "--fixture", zeros}, zeros + ":1: invalid JSON: a NUL byte at column 1"},
		} {
			p := start(t, bin, nil, c.args...)
			if code := p.wait(t, 20*time.Second); code != 2 || !strings.Contains(p.stderr.String(), c.want) {
				t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, p.stderr.String(), c.want)
			}
		}
		next(t)
	})

	t.Run("FIFO without writer", func(t *testing.T) {
		fifo := mkfifo(t, dir, "nowriter.ndjson")
		for _, args := range [][]string{
			{"load", "--data-dir", data, fifo},
			{"audit", fifo},
		} {
			p := start(t, bin, nil, args...)
			time.Sleep(time.Second) // waiting in open(2)
			if lockHeld(t, data) {
				t.Errorf("%v holds the data-dir lock while it waits for the FIFO's writer", args)
			}
			p.stop(t, syscall.SIGTERM)
			next(t)
		}
		p := start(t, bin, nil, "verify", "db", "--data-dir", data, "--fixture", fifo)
		if code := p.wait(t, 20*time.Second); code != 2 || !strings.Contains(p.stderr.String(), "a FIFO, expected a regular file") {
			t.Errorf("verify db --fixture FIFO: exit %d, stderr %q; want exit 2 at once", code, p.stderr.String())
		}
	})

	t.Run("FIFO whose writer stalls", func(t *testing.T) {
		fifo := mkfifo(t, dir, "stalled.ndjson")
		stalledWriter(t, fifo)
		p := start(t, bin, nil, "load", "--data-dir", data, fifo)
		p.waitLocked(t, data)
		p.stop(t, syscall.SIGINT)
		next(t)

		stalledWriter(t, fifo)
		p = start(t, bin, nil, "audit", fifo)
		time.Sleep(time.Second)
		p.stop(t, syscall.SIGINT)
	})

	// A FIFO is read once (its writer is gone after it), so load keeps a
	// copy of it for the writing pass, as it does for standard input.
	t.Run("FIFO whose writer finishes", func(t *testing.T) {
		fifo := mkfifo(t, dir, "whole.ndjson")
		go func() {
			f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			_, _ = f.WriteString("{\"_id\":1}\n{\"_id\":2}\n{\"_id\":3}\n")
			f.Close()
		}()
		p := start(t, bin, nil, "load", "--quiet", "--data-dir", data, fifo)
		if code := p.wait(t, time.Minute); code != 0 || !strings.Contains(p.stdout.String(), "3 documents: inserted 3") {
			t.Fatalf("load FIFO: exit %d, stdout %q, stderr %q", code, p.stdout.String(), p.stderr.String())
		}
	})

	t.Run("stdin that never ends", func(t *testing.T) {
		for _, c := range []struct {
			args  []string
			first string
			lock  bool
		}{
			{[]string{"load", "--data-dir", data, "--collection", "c", "-"}, "{\"_id\":1}\n", true},
			{[]string{"audit", "-"}, "65a1b2c3d4e5f60718293a4b\n", false},
			{[]string{"inspect"}, "65a1b2c3d4e5f60718293a4b\n", false},
		} {
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			p := start(t, bin, pr, c.args...)
			pr.Close()
			t.Cleanup(func() { pw.Close() })
			if _, err := pw.WriteString(c.first); err != nil {
				t.Fatal(err)
			}
			if c.lock {
				p.waitLocked(t, data)
			} else {
				time.Sleep(time.Second)
			}
			p.stop(t, syscall.SIGTERM)
			next(t)
		}
	})

	// Every other file a command reads (plans, templates, index sidecars)
	// is small: a FIFO or a device is refused before it is opened.
	t.Run("other inputs", func(t *testing.T) {
		fifo := mkfifo(t, dir, "other.json")
		side := filepath.Join(dir, "side")
		if err := os.Mkdir(side, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(side, "users.ndjson"), []byte("{\"_id\":1}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		mkfifo(t, side, "users.metadata.json")
		out := t.TempDir()
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"seed", "--data-dir", data, "--template", fifo}, "expected a regular file"},
			{[]string{"seed", "--data-dir", data, "--template", "/dev/zero"}, "expected a regular file"},
			{[]string{"seed", "--data-dir", data, "--plan", fifo}, "expected a regular file"},
			{[]string{"fixtures", "--plan", fifo, "--out", out}, "expected a regular file"},
			{[]string{"fixtures", "--plan", "/dev/zero", "--out", out}, "expected a regular file"},
			{[]string{"verify", "db", "--data-dir", data, "--seed", "1", "--template", fifo}, "expected a regular file"},
			{[]string{"load", "--data-dir", data, filepath.Join(side, "users.ndjson")}, "not a regular file; expected an index sidecar"},
			{[]string{"inspect"}, "no ID given"}, // stdin /dev/null: the harness gives no stdin
		} {
			p := start(t, bin, nil, c.args...)
			if code := p.wait(t, 20*time.Second); code != 2 || !strings.Contains(p.stderr.String(), c.want) {
				t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, p.stderr.String(), c.want)
			}
		}
		zero, err := os.Open("/dev/zero")
		if err != nil {
			t.Fatal(err)
		}
		defer zero.Close()
		for _, args := range [][]string{{"inspect"}, {"audit", "-"}, {"load", "--data-dir", data, "--collection", "c", "-"}} {
			p := start(t, bin, zero, args...)
			if code := p.wait(t, 20*time.Second); code != 2 {
				t.Errorf("%v < /dev/zero: exit %d, stderr %q; want exit 2", args, code, p.stderr.String())
			}
		}
		next(t)
	})
}

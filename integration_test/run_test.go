package integration

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// result is what one run of the binary produced.
type result struct {
	args    []string
	code    int
	stdout  string
	stderr  string
	elapsed time.Duration
}

func (r result) String() string {
	return "oidkit " + strings.Join(r.args, " ") + "\nexit " + strconv.Itoa(r.code) +
		"\nstdout:\n" + clip(r.stdout) + "\nstderr:\n" + clip(r.stderr)
}

func clip(s string) string {
	if len(s) > 4000 {
		return s[:2000] + "\n...\n" + s[len(s)-2000:]
	}
	return s
}

// proc is a running oidkit process.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	args   []string
	stdout *syncBuffer
	stderr *syncBuffer
	start  time.Time
	done   chan struct{}
	res    result
	cancel context.CancelFunc
}

// syncBuffer lets the test read a running process's output.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// baseEnv is the environment of every run: the caller's, without any OIDKIT_
// variable that could point the binary somewhere else.
func baseEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "OIDKIT_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// start runs the binary in the background with a hard deadline; the process
// is killed if it is still running at the deadline or when the test ends.
func start(t *testing.T, deadline time.Duration, env []string, args ...string) *proc {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	cmd := exec.CommandContext(ctx, suite.bin, args...)
	cmd.Dir = t.TempDir() // the embedded default .oidkit/ never lands in the tree
	cmd.Env = append(baseEnv(), env...)
	p := &proc{t: t, cmd: cmd, args: args, stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan struct{}), cancel: cancel}
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	cmd.WaitDelay = 5 * time.Second
	p.start = time.Now()
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("starting %s: %v", suite.bin, err)
	}
	go func() {
		defer close(p.done)
		defer cancel()
		err := cmd.Wait()
		p.res = result{args: args, stdout: p.stdout.String(), stderr: p.stderr.String(), elapsed: time.Since(p.start), code: cmd.ProcessState.ExitCode()}
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			p.res.code = -1
			p.res.stderr += "\n[run error: " + err.Error() + "]"
		}
		if ctx.Err() == context.DeadlineExceeded {
			p.res.code = -1
			p.res.stderr += "\n[killed: still running after " + deadline.String() + "]"
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-p.done
	})
	return p
}

// Wait waits for the process and returns its result.
func (p *proc) Wait() result {
	<-p.done
	return p.res
}

// Interrupt sends SIGINT, as a user's Ctrl-C would.
func (p *proc) Interrupt() { _ = p.cmd.Process.Signal(syscall.SIGINT) }

// run runs the binary to completion with a deadline.
func run(t *testing.T, deadline time.Duration, env []string, args ...string) result {
	t.Helper()
	return start(t, deadline, env, args...).Wait()
}

// ok runs the binary and fails the test unless it exits 0.
func ok(t *testing.T, args ...string) result {
	t.Helper()
	r := run(t, 5*time.Minute, nil, args...)
	if r.code != 0 {
		t.Fatalf("expected exit 0:\n%s", r)
	}
	return r
}

// notBuilt skips the test when the binary says a command is not built yet,
// so the suite can land before every command has.
func notBuilt(t *testing.T, r result) {
	t.Helper()
	name := r.args[0]
	if name == "verify" && len(r.args) > 1 {
		name += " " + r.args[1]
	}
	if suite.stubs[name] || strings.Contains(r.stderr, "not built yet") {
		t.Skipf("skipped: %q is not built yet (%s)", name, strings.TrimSpace(r.stderr))
	}
}

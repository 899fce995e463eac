package embedded

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// LockFile is the name of the file in a data directory that a running server
// holds an exclusive lock on. Two servers over one directory would write
// over each other's files and lose data; the lock makes the second one fail
// before it touches anything.
const LockFile = "oidkit.lock"

// LockedError is returned by Start when another server (in this process or
// another) holds the data directory.
type LockedError struct {
	Dir     string // the data directory, absolute
	PID     int    // the holder's process id; 0 if it did not say
	Command string // the holder's command line; empty if it did not say
	URI     string // where the holder's server listens; empty if not yet known
}

func (e *LockedError) Error() string {
	holder := "another process"
	if e.PID > 0 {
		holder = fmt.Sprintf("process %d", e.PID)
	}
	if e.Command != "" {
		holder += fmt.Sprintf(" (%s)", e.Command)
	}
	return fmt.Sprintf("data directory %q is in use by %s", e.Dir, holder)
}

// dirLock is a held lock on a data directory. The kernel releases a flock
// when its file is closed, so the lock also ends when the holder dies.
type dirLock struct{ f *os.File }

// lockDir takes the lock of dir without waiting, and records this process in
// the lock file for the message a second server shows.
func lockDir(dir string) (*dirLock, error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock file %q: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, holderOf(dir, f)
		}
		return nil, fmt.Errorf("lock file %q: %w", path, err)
	}
	l := &dirLock{f: f}
	if err := l.record(""); err != nil {
		l.release()
		return nil, fmt.Errorf("lock file %q: %w", path, err)
	}
	return l, nil
}

// record writes this process and the server's URI into the lock file: one
// line each for PID, command line and URI.
func (l *dirLock) record(uri string) error {
	rec := fmt.Sprintf("%d\n%s\n%s\n", os.Getpid(), strings.Join(os.Args, " "), uri)
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	_, err := l.f.WriteAt([]byte(rec), 0)
	return err
}

// holderOf reads what the holder wrote into the lock file. The holder may not
// have written yet; the error then names no process.
func holderOf(dir string, f *os.File) *LockedError {
	e := &LockedError{Dir: dir}
	buf := make([]byte, 4096)
	n, _ := f.ReadAt(buf, 0)
	lines := strings.SplitN(string(buf[:n]), "\n", 4)
	if p, err := strconv.Atoi(strings.TrimSpace(lines[0])); err == nil && p > 0 && len(lines) >= 2 {
		e.PID = p
		e.Command = strings.TrimSpace(lines[1])
		if len(lines) >= 3 {
			e.URI = strings.TrimSpace(lines[2])
		}
	}
	return e
}

func (l *dirLock) release() {
	if l != nil && l.f != nil {
		_ = l.f.Close()
		l.f = nil
	}
}

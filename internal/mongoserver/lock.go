package mongoserver

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
// holds an exclusive lock on. FerretDB's SQLite backend drops a database file
// whose creation fails, so two servers over one directory lose data; the lock
// makes the second one fail before it touches anything.
const LockFile = "oidkit.lock"

// LockedError is returned by Start when another server (in this process or
// another) holds the data directory.
type LockedError struct {
	Dir     string // the data directory, absolute
	PID     int    // the holder's process id; 0 if it did not say
	Command string // the holder's command line; empty if it did not say
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
	record := fmt.Sprintf("%d\n%s\n", os.Getpid(), strings.Join(os.Args, " "))
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(record), 0)
	}
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("lock file %q: %w", path, err)
	}
	return &dirLock{f: f}, nil
}

// holderOf reads what the holder wrote into the lock file. The holder may not
// have written yet; the error then names no process.
func holderOf(dir string, f *os.File) *LockedError {
	e := &LockedError{Dir: dir}
	buf := make([]byte, 4096)
	n, _ := f.ReadAt(buf, 0)
	pid, cmd, _ := strings.Cut(string(buf[:n]), "\n")
	if p, err := strconv.Atoi(strings.TrimSpace(pid)); err == nil && p > 0 {
		e.PID = p
		e.Command = strings.TrimSpace(cmd)
	}
	return e
}

func (l *dirLock) release() {
	if l != nil && l.f != nil {
		_ = l.f.Close()
		l.f = nil
	}
}

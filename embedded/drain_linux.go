package embedded

import (
	"net"
	"os"
	"strconv"
	"syscall"
	"time"
)

// drain stops the server taking new connections and ends every client
// connection once its request in flight, if any, is answered, waiting up
// to grace for them to end. FerretDB cancels the requests still running
// 3 s after its context is cancelled and then answers the client with an
// internal error naming its own source lines; drained first, no request is
// running when that happens. FerretDB takes no listener from its caller,
// so the server's sockets are found among the process's descriptors by
// their local address, and shut for reading: a connection waiting for a
// request reads end of file and closes, one handling a request writes its
// answer first.
func (s *Server) drain(grace time.Duration) {
	local := s.localAddr()
	if local == nil {
		return
	}
	deadline := time.Now().Add(grace)
	for {
		conns := 0
		for _, fd := range descriptors() {
			sa, err := syscall.Getsockname(fd)
			if err != nil || !local(sa) {
				continue
			}
			if _, err := syscall.Getpeername(fd); err != nil {
				// The listening socket: Linux stops listening on it.
				_ = syscall.Shutdown(fd, syscall.SHUT_RD)
				continue
			}
			conns++
			_ = syscall.Shutdown(fd, syscall.SHUT_RD)
		}
		if conns == 0 || time.Now().After(deadline) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// localAddr is a test of whether a socket address is the server's own
// listening address (the port and, unless it listens on every address, the
// IP; or the Unix socket path); nil when the address is not known.
func (s *Server) localAddr() func(syscall.Sockaddr) bool {
	if s.socket != "" {
		return func(sa syscall.Sockaddr) bool {
			u, ok := sa.(*syscall.SockaddrUnix)
			return ok && u.Name == s.socket
		}
	}
	host, port, err := net.SplitHostPort(s.addr)
	if err != nil {
		return nil
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return nil
	}
	ip := net.ParseIP(host)
	every := ip == nil || ip.IsUnspecified()
	return func(sa syscall.Sockaddr) bool {
		switch a := sa.(type) {
		case *syscall.SockaddrInet4:
			return a.Port == p && (every || ip.Equal(net.IP(a.Addr[:])))
		case *syscall.SockaddrInet6:
			return a.Port == p && (every || ip.Equal(net.IP(a.Addr[:])))
		}
		return false
	}
}

// descriptors are the process's open file descriptors.
func descriptors() []int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil
	}
	fds := make([]int, 0, len(entries))
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil {
			fds = append(fds, fd)
		}
	}
	return fds
}

//go:build !linux

package embedded

import "time"

// drain does nothing here: FerretDB cancels requests still running 3 s
// after Close.
func (s *Server) drain(time.Duration) {}

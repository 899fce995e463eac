//go:build !(linux && amd64)

package oid

import "time"

// wallSeconds is the Unix time in seconds.
func wallSeconds() int64 { return time.Now().Unix() }

package mongowrite

import (
	"context"
	"errors"
	"testing"
)

func TestServerMessage(t *testing.T) {
	cases := []struct{ in, want string }{
		{"[msg_insert.go:168 handler.(*Handler).MsgInsert] [insert.go:12 sqlite.insert] invalid key: \"$bad\"", "invalid key: \"$bad\""},
		{"write failed: [unknown] boom", "write failed: boom"},
		{"E11000 duplicate key error collection: db.c index: _id_", "E11000 duplicate key error collection: db.c index: _id_"},
		{"value [1, 2] out of range", "value [1, 2] out of range"},
	}
	for _, c := range cases {
		if got := ServerMessage(c.in); got != c.want {
			t.Errorf("ServerMessage(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// A stopped write says how far it got and why, in the words every command
// uses.
func TestWriteErrorReachedAndCause(t *testing.T) {
	cases := []struct {
		we             *WriteError
		reached, cause string
	}{
		{&WriteError{Written: 3, Total: 10, Err: context.Canceled}, "3 of 10 documents", "interrupted"},
		{&WriteError{Written: 3, Total: 10, AtLeast: true, Err: errors.New("[msg_insert.go:168 handler.(*Handler).MsgInsert] boom")}, "at least 3 of 10 documents", "boom"},
		{&WriteError{Written: 1, Total: -1, Err: context.DeadlineExceeded}, "1 document", "timed out: context deadline exceeded"},
	}
	for _, c := range cases {
		if got := c.we.Reached(); got != c.reached {
			t.Errorf("Reached = %q, want %q", got, c.reached)
		}
		if got := c.we.Cause(); got != c.cause {
			t.Errorf("Cause = %q, want %q", got, c.cause)
		}
	}
}

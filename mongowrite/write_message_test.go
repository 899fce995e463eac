package mongowrite

import "testing"

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

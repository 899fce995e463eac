package target

import (
	"errors"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Options Open cannot use are *OptionError naming the option, and no
// error shows the password of the connection string.
func TestOpenErrors(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	unreachable := closed.Addr().String()
	_ = closed.Close()
	cases := []struct {
		o      Options
		option string // "" for a *ConnectError
		reason int
	}{
		{Options{URI: "mongodb://a:Pa55w0rd@h/", Timeout: -time.Second}, OptionTimeout, 0},
		{Options{URI: "mongdb://a:Pa55w0rd@h/", Timeout: time.Second}, OptionURI, 0},
		{Options{URI: "mongodb://a:Pa55w0rd@h:99999/", Timeout: time.Second}, OptionURI, 0},
		{Options{DataDir: filepath.Join(t.TempDir(), "missing"), ExistingDataDir: true, Timeout: time.Second}, OptionDataDir, 0},
		{Options{URI: "mongodb://a:Pa55w0rd@" + unreachable + "/", Timeout: 300 * time.Millisecond}, "", Unreachable},
	}
	for _, c := range cases {
		tg, err := Open(t.Context(), c.o)
		if err == nil {
			tg.Close()
			t.Errorf("%+v: opened", c.o)
			continue
		}
		if strings.Contains(err.Error(), "Pa55w0rd") {
			t.Errorf("%+v: %v shows the password", c.o, err)
		}
		var oe *OptionError
		var ce *ConnectError
		switch {
		case c.option != "" && (!errors.As(err, &oe) || oe.Option != c.option):
			t.Errorf("%+v: %v, want an *OptionError of %s", c.o, err, c.option)
		case c.option == "" && (!errors.As(err, &ce) || ce.Reason != c.reason):
			t.Errorf("%+v: %v, want a *ConnectError of reason %d", c.o, err, c.reason)
		}
	}
}

// The zero Options.Timeout is DefaultTimeout: a program need not name one.
func TestOpenZeroTimeoutIsDefault(t *testing.T) {
	tg, err := Open(t.Context(), Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if tg.Timeout != DefaultTimeout {
		t.Errorf("Timeout %v; want %v", tg.Timeout, DefaultTimeout)
	}
}

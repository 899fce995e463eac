package integration

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Scenario 5: bad input end to end. Each run exits with the code of the CLI
// contract (2 bad usage or input, 1 a failure at run time), says what was
// wrong naming the value, and leaves the collection exactly as it was.
func TestBadInput(t *testing.T) {
	if suite.stubs["seed"] {
		t.Skip(`skipped: "seed" is not built yet`)
	}
	s := newServer(t)
	c := s.Client()
	// A collection with known contents that every bad run must leave alone.
	g := gen{db: s.DB, coll: "keep", kind: "user", n: 300, seed: 77}
	ok(t, append([]string{"seed", "--uri", s.URI(), "--quiet"}, g.flags()...)...)
	coll := s.Coll(c, "keep")
	before := readAll(t, coll)
	if len(before) != 300 {
		t.Fatalf("setup: %d documents, want 300", len(before))
	}
	unchanged := func(t *testing.T) {
		t.Helper()
		after := readAll(t, coll)
		if len(after) != len(before) {
			t.Fatalf("the collection changed: %d documents, was %d", len(after), len(before))
		}
		bs := map[string]bson.Raw{}
		for _, d := range before {
			bs[idKey(d.Lookup("_id"))] = d
		}
		for _, d := range after {
			if !bytes.Equal(bs[idKey(d.Lookup("_id"))], d) {
				t.Fatalf("the collection changed: document %s", d.Lookup("_id"))
			}
		}
	}
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	seedInto := []string{"--db", s.DB, "--collection", "keep", "-n", "50", "--seed", "78", "--quiet"}

	t.Run("uri_not_mongodb", func(t *testing.T) {
		r := run(t, time.Minute, nil, append([]string{"seed", "--uri", "http://127.0.0.1:27017/"}, seedInto...)...)
		expectFail(t, r, 2, "http://127.0.0.1:27017/", "mongodb://")
		unchanged(t)
	})

	t.Run("unreachable_server", func(t *testing.T) {
		port := closedPort(t)
		uri := "mongodb://alice:s3cr3t-pw@127.0.0.1:" + port + "/"
		// The three commands wait out their --timeout side by side: each
		// is a process of its own, waiting on a port nobody listens on.
		var procs []*proc
		for _, cmd := range [][]string{
			append([]string{"seed"}, seedInto...),
			{"load", "--db", s.DB, write("keep.ndjson", "{\"_id\": 1}\n")},
			append([]string{"verify", "db"}, g.flags()...),
		} {
			args := append(append([]string{}, cmd...), "--uri", uri, "--timeout", "2s")
			if cmd[0] == "load" {
				// flags before the file arguments
				args = append([]string{"load", "--uri", uri, "--timeout", "2s"}, cmd[1:]...)
			}
			procs = append(procs, start(t, time.Minute, nil, args...))
		}
		for _, p := range procs {
			r, args := p.Wait(), p.args
			if strings.Contains(r.stderr, "(being built)") || suite.stubs[cmdName(args)] {
				continue
			}
			expectFail(t, r, 1, "127.0.0.1:"+port)
			if strings.Contains(r.stderr, "s3cr3t-pw") {
				t.Errorf("%s prints the password of the URI:\n%s", cmdName(args), r)
			}
			if !regexp.MustCompile(`(?i)unreachable|timed? ?out|timeout|refused`).MatchString(r.stderr) {
				t.Errorf("%s does not say the server is unreachable:\n%s", cmdName(args), r)
			}
			if r.elapsed > 2*time.Second+15*time.Second {
				t.Errorf("%s took %v to give up with --timeout 2s", cmdName(args), r.elapsed)
			}
		}
	})

	t.Run("malformed_template", func(t *testing.T) {
		bad := write("bad.json", `{"name": "{firstname}", "address": {"street": "{street}", "city": "{nosuchfunction}"}, "tags": ["{word}"]}`)
		r := run(t, time.Minute, nil, append([]string{"seed", "--uri", s.URI(), "--template", bad}, seedInto...)...)
		expectFail(t, r, 2, "bad.json", "address.city", "nosuchfunction")
		unchanged(t)

		broken := write("broken.json", `{"name": "{firstname}", "age": `)
		r = run(t, time.Minute, nil, append([]string{"seed", "--uri", s.URI(), "--template", broken}, seedInto...)...)
		expectFail(t, r, 2, "broken.json")
		unchanged(t)
	})

	t.Run("malformed_fixture_line", func(t *testing.T) {
		if suite.stubs["fixtures"] || suite.stubs["load"] {
			t.Skip(`skipped: "fixtures" or "load" is not built yet`)
		}
		// Twenty good documents (new _ids), with line 7 broken three ways.
		fix := filepath.Join(dir, "fix.ndjson")
		ok(t, "fixtures", "--kind", "user", "-n", "20", "--seed", "79", "--mode", "canonical", "--out", fix, "--quiet")
		data, err := os.ReadFile(fix)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		if len(lines) != 20 {
			t.Fatalf("fixtures wrote %d lines, want 20", len(lines))
		}
		oidRe := regexp.MustCompile(`\{"\$oid":"[0-9a-f]{24}"\}`)
		for _, bc := range []struct{ name, line string }{
			{"truncated", lines[6][:len(lines[6])/2]},
			{"bad_oid", oidRe.ReplaceAllLiteralString(lines[6], `{"$oid":"not-an-object-id"}`)},
			{"not_an_object", `[1, 2, 3]`},
		} {
			t.Run(bc.name, func(t *testing.T) {
				if bc.line == lines[6] {
					t.Fatal("the broken line is the same as the good one")
				}
				broken := append(append(append([]string{}, lines[:6]...), bc.line), lines[7:]...)
				name := "keep_" + bc.name + ".ndjson"
				p := write(name, strings.Join(broken, "\n")+"\n")
				r := run(t, time.Minute, nil, "load", "--uri", s.URI(), "--db", s.DB, "--collection", "keep", "--quiet", p)
				expectFail(t, r, 2, name+":7")
				unchanged(t)
			})
		}
	})
}

// expectFail requires exit code want and every one of msgs in stderr.
func expectFail(t *testing.T, r result, want int, msgs ...string) {
	t.Helper()
	notBuilt(t, r)
	if r.code != want {
		t.Fatalf("want exit %d:\n%s", want, r)
	}
	for _, m := range msgs {
		if !strings.Contains(r.stderr, m) {
			t.Errorf("stderr should name %q:\n%s", m, r)
		}
	}
	if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") {
		t.Errorf("the binary panicked:\n%s", r)
	}
}

func cmdName(args []string) string {
	if args[0] == "verify" {
		return "verify " + args[1]
	}
	return args[0]
}

// closedPort is a local TCP port nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return strconv.Itoa(port)
}

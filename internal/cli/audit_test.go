package cli

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/audit"
	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
)

// legacyHex is an ObjectID as the drivers before 2018 made them: time,
// 3-byte machine hash, 2-byte PID, counter. Written here, apart from oid.
func legacyHex(secs uint32, machine [3]byte, pid uint16, ctr uint32) string {
	var b [12]byte
	binary.BigEndian.PutUint32(b[:4], secs)
	copy(b[4:7], machine[:])
	binary.BigEndian.PutUint16(b[7:9], pid)
	b[9], b[10], b[11] = byte(ctr>>16), byte(ctr>>8), byte(ctr)
	return hex.EncodeToString(b[:])
}

func auditJSON(t *testing.T, stdin string, args ...string) *audit.Report {
	t.Helper()
	out, errs, code := runApp(t, t.Context(), stdin, append([]string{"audit", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("audit %v: exit %d\n%s", args, code, errs)
	}
	var r audit.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return &r
}

// TestAuditStdinLegacyPID1: two legacy hosts whose processes are both PID 1.
func TestAuditStdinLegacyPID1(t *testing.T) {
	var in strings.Builder
	base := uint32(time.Date(2016, 3, 1, 0, 0, 0, 0, time.UTC).Unix())
	for i := range uint32(30) {
		in.WriteString(legacyHex(base+i, [3]byte{1, 2, 3}, 1, 10+i) + "\n")
		in.WriteString("  " + legacyHex(base+i, [3]byte{4, 5, 6}, 1, 70+i) + "\n\n")
	}
	r := auditJSON(t, in.String(), "-")
	if r.Total != 60 || r.Layout.Kind != audit.LayoutLegacy || len(r.Layout.PIDsSharedByMachines) != 1 ||
		r.Layout.PIDsSharedByMachines[0].PID != 1 || r.Layout.PIDsSharedByMachines[0].IDs != 60 {
		t.Errorf("report: total %d, layout %+v", r.Total, r.Layout)
	}
	out, _, code := runApp(t, t.Context(), in.String(), "audit", "-")
	if code != 0 || !strings.Contains(out, "PID 1 is on machines 010203, 040506 (60 IDs)") || !strings.Contains(out, "layout: legacy") {
		t.Errorf("exit %d, text:\n%s", code, out)
	}
}

func TestAuditStdinBadLine(t *testing.T) {
	_, errs, code := runApp(t, t.Context(), "507f1f77bcf86cd799439011\n507f1f77bcf86cd79943901z\n", "audit", "-")
	if code != ExitUsage || !strings.Contains(errs, `line 2: oid: invalid ObjectID "507f1f77bcf86cd79943901z"`) {
		t.Errorf("exit %d, stderr %s", code, errs)
	}
}

func TestAuditUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"audit"}, "expected --collection C"},
		{[]string{"audit", "--collection", "users", "x.json"}, `unexpected argument "x.json"`},
		{[]string{"audit", "--field", "a..b", "-"}, `--field "a..b"`},
		{[]string{"audit", "--time-field", "$x", "-"}, `--time-field "$x"`},
		{[]string{"audit", filepath.Join(t.TempDir(), "missing.json")}, "missing.json"},
		{[]string{"audit", t.TempDir()}, "is a directory, expected a fixture file"},
		{[]string{"audit", "--collection", "users", "--data-dir", filepath.Join(t.TempDir(), "none")}, "--data-dir"},
	} {
		_, errs, code := runApp(t, t.Context(), "", tc.args...)
		if code != ExitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestAuditFixtureFile: a fixture file with mixed _id types.
func TestAuditFixtureFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mixed.ndjson")
	lines := `{"_id":{"$oid":"507f1f77bcf86cd799439011"}}
{"_id":{"$oid":"507f1f77bcf86cd799439012"}}
{"_id":7}
{"_id":"alice"}
{"_id":{"$binary":{"base64":"AAAAAAAAAAAAAAAAAAAAAA==","subType":"04"}}}
{"name":"no id"}
`
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	r := auditJSON(t, "", path)
	want := map[audit.Kind]int64{audit.KindObjectID: 2, audit.KindInt: 1, audit.KindString: 1, audit.KindUUID: 1}
	if r.Total != 5 || len(r.Types) != len(want) {
		t.Fatalf("types %+v", r.Types)
	}
	for _, ts := range r.Types {
		if want[ts.Kind] != ts.Count {
			t.Errorf("%s: %d, want %d", ts.Kind, ts.Count, want[ts.Kind])
		}
	}
}

// TestAuditCollection audits a collection on the embedded server: oidkit's
// seeded users, then a collection another program filled with a skewed
// writer and explicit-time IDs, with its time field; and writes the HTML.
func TestAuditCollection(t *testing.T) {
	uri, client := mongotest.Start(t)
	vdbSeed(t, uri, "--db", "s", "-n", "300", "--seed", "5")
	r := auditJSON(t, "", "--uri", uri, "--db", "s", "--collection", "users", "--time-field", "createdAt")
	if r.Total != 300 || r.Layout.Kind != audit.LayoutModern || !r.Shard.Monotonic || r.Shard.Ascending != 299 ||
		r.Clock.Timed != 300 || r.Clock.SkewedWriters.Count != 0 || r.Random.Count != 0 {
		t.Errorf("seeded users: %+v", r)
	}

	coll := client.Database("x").Collection("events")
	base := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	var docs []any
	for i := range 40 {
		at := base.Add(time.Duration(i) * time.Second)
		var id [12]byte
		binary.BigEndian.PutUint32(id[:4], uint32(at.Unix())-300) // 5 minutes slow
		copy(id[4:9], "skew!")
		id[11] = byte(i)
		docs = append(docs, bson.D{{Key: "_id", Value: bson.ObjectID(id)}, {Key: "createdAt", Value: at}, {Key: "payload", Value: strings.Repeat("x", 100)}})
	}
	for i := range 3 { // createFromTime-style
		var id [12]byte
		binary.BigEndian.PutUint32(id[:4], uint32(base.Unix())+uint32(i)*86400)
		docs = append(docs, bson.D{{Key: "_id", Value: bson.ObjectID(id)}})
	}
	docs = append(docs, bson.D{{Key: "_id", Value: int32(1)}}, bson.D{{Key: "_id", Value: "k"}})
	if _, err := coll.InsertMany(t.Context(), docs); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(t.TempDir(), "r.html")
	r = auditJSON(t, "", "--uri", uri, "--db", "x", "-c", "events", "--time-field", "createdAt", "--html", page)
	if r.Total != 45 || r.Time.Findings["zeroTailed"].Count != 3 || r.Clock.SkewedWriters.Count != 1 ||
		r.Clock.SkewedIDs != 40 || r.Clock.Timed != 40 || r.Clock.Untimed != 3 || r.Writers.Tracked != 1 {
		t.Errorf("events: total %d, time %+v, clock %+v, writers %d", r.Total, r.Time.Findings, r.Clock, r.Writers.Tracked)
	}
	if w := r.Writers.Top[0]; w.Random != hex.EncodeToString([]byte("skew!")) || w.Skew == nil || w.Skew.Mean != -300 {
		t.Errorf("skewed writer %+v", w)
	}
	if b, err := os.ReadFile(page); err != nil || !strings.Contains(string(b), "<svg ") {
		t.Errorf("html: %v", err)
	}
}

// TestAuditStdinMixed: legacy hosts on PID 1, a modern process and a faker
// library's random hex on one stdin: the layout is mixed, each kind counted
// on its own, and the only PID shared by machines is the hosts' PID 1.
func TestAuditStdinMixed(t *testing.T) {
	var in strings.Builder
	base := uint32(time.Date(2016, 3, 1, 0, 0, 0, 0, time.UTC).Unix())
	r := rand.New(rand.NewPCG(19, 1))
	for i := range uint32(30) {
		in.WriteString(legacyHex(base+i, [3]byte{1, 2, 3}, 1, 10+i) + "\n")
		in.WriteString(legacyHex(base+i, [3]byte{4, 5, 6}, 1, 70+i) + "\n")
		if i < 20 { // the same layout of bytes: time, 5 random bytes, counter
			in.WriteString(legacyHex(base+86400*3000+i, [3]byte{0x38, 0x76, 0xf6}, 0x899e, 0xfffff6+i) + "\n")
		}
		for range 17 {
			var b [12]byte
			binary.BigEndian.PutUint64(b[:8], r.Uint64())
			binary.BigEndian.PutUint32(b[8:], r.Uint32())
			in.WriteString(hex.EncodeToString(b[:]) + "\n")
		}
	}
	rep := auditJSON(t, in.String(), "-")
	want := audit.Mix{Modern: 20, ModernWriters: 1, Legacy: 60, LegacyWriters: 2, RandomHex: 30 * 17}
	if rep.Layout.Kind != audit.LayoutMixed || rep.Layout.Mix == nil || *rep.Layout.Mix != want {
		t.Fatalf("layout %s, mix %+v; want mixed %+v", rep.Layout.Kind, rep.Layout.Mix, want)
	}
	if l := rep.Layout; l.Machines != 2 || l.PIDs != 1 || len(l.PIDsSharedByMachines) != 1 || l.PIDsSharedByMachines[0].PID != 1 ||
		l.PIDsSharedByMachines[0].IDs != 60 || rep.Random.Count != 510 {
		t.Errorf("layout %+v, random hex %d", l, rep.Random.Count)
	}
	out, _, code := runApp(t, t.Context(), in.String(), "audit", "-")
	for _, w := range []string{"layout: mixed\n", "  legacy              60 IDs of 2 writers (machines 2, PIDs 1)\n", "  random hex         510 IDs", "  PID 1 is on machines 010203, 040506 (60 IDs)\n"} {
		if code != 0 || !strings.Contains(out, w) {
			t.Errorf("exit %d, text lacks %q:\n%s", code, w, out)
		}
	}
	if strings.Count(out, " is on machines ") != 1 {
		t.Errorf("a PID shared by machines other than the hosts':\n%s", out)
	}
}

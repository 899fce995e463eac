package oid_test

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/quick"
	"time"

	"github.com/oidkit/oidkit/oid"
)

func fixedClock(sec int64) func() time.Time {
	return func() time.Time { return time.Unix(sec, 0) }
}

func gen(t testing.TB, sec int64, random string, counter uint32) *oid.Generator {
	t.Helper()
	r, err := hex.DecodeString(random)
	if err != nil || len(r) != 5 {
		t.Fatalf("bad random %q", random)
	}
	return oid.NewGenerator(oid.Config{Clock: fixedClock(sec), Random: (*[5]byte)(r), CounterStart: &counter})
}

// The worked example of the ObjectID generator pages.
func TestWorkedExample(t *testing.T) {
	g := gen(t, 1700000000, "3f2a91c8d4", 12345)
	if got := g.New().Hex(); got != "6553f1003f2a91c8d4003039" {
		t.Errorf("first ID %s, want 6553f1003f2a91c8d4003039", got)
	}
	if got := g.New().Hex(); got != "6553f1003f2a91c8d400303a" {
		t.Errorf("second ID %s, want 6553f1003f2a91c8d400303a", got)
	}
	// The batch path gives the same IDs.
	g = gen(t, 1700000000, "3f2a91c8d4", 12345)
	ids := make([]oid.ID, 2)
	g.Fill(ids)
	if ids[0].Hex() != "6553f1003f2a91c8d4003039" || ids[1].Hex() != "6553f1003f2a91c8d400303a" {
		t.Errorf("Fill gave %v", ids)
	}
}

// Decoding vectors: the spec's examples, the bson-corpus ObjectId vectors
// and the timestamp edges.
var vectors = []struct {
	hex     string
	time    string
	unix    int64
	random  string
	counter uint32
}{
	{"507f1f77bcf86cd799439011", "2012-10-17T21:13:27Z", 1350508407, "bcf86cd799", 0x439011},
	{"6553f1003f2a91c8d4003039", "2023-11-14T22:13:20Z", 1700000000, "3f2a91c8d4", 12345},
	{"000000000000000000000000", "1970-01-01T00:00:00Z", 0, "0000000000", 0},                 // corpus: all zeroes
	{"ffffffffffffffffffffffff", "2106-02-07T06:28:15Z", 1<<32 - 1, "ffffffffff", 0xFFFFFF},  // corpus: all ones
	{"56e1fc72e0c917e9c4714161", "2016-03-10T23:00:02Z", 1457650802, "e0c917e9c4", 0x714161}, // corpus: random
	{"7fffffff0000000000000000", "2038-01-19T03:14:07Z", 1<<31 - 1, "0000000000", 0},
	{"800000000000000000000000", "2038-01-19T03:14:08Z", 1 << 31, "0000000000", 0},
	{"ffffffff0000000000ffffff", "2106-02-07T06:28:15Z", 1<<32 - 1, "0000000000", 0xFFFFFF},
}

func TestVectors(t *testing.T) {
	for _, v := range vectors {
		id, err := oid.Parse(v.hex)
		if err != nil {
			t.Fatalf("Parse(%q): %v", v.hex, err)
		}
		r := id.Random()
		if got := id.Timestamp().Format(time.RFC3339); got != v.time {
			t.Errorf("%s: Timestamp %s, want %s", v.hex, got, v.time)
		}
		if id.Timestamp().Location() != time.UTC {
			t.Errorf("%s: Timestamp not in UTC", v.hex)
		}
		if id.Unix() != v.unix || hex.EncodeToString(r[:]) != v.random || id.Counter() != v.counter {
			t.Errorf("%s: unix %d random %x counter %d, want %d %s %d", v.hex, id.Unix(), r, id.Counter(), v.unix, v.random, v.counter)
		}
		if id.Hex() != v.hex || id.String() != v.hex {
			t.Errorf("%s: Hex %s String %s", v.hex, id.Hex(), id.String())
		}
		if up, err := oid.Parse(strings.ToUpper(v.hex)); err != nil || up != id {
			t.Errorf("upper case %s: %v %v", strings.ToUpper(v.hex), up, err)
		}
		if v.hex[8:] == "0000000000000000" {
			from, err := oid.FromTime(id.Timestamp())
			if err != nil || from != id {
				t.Errorf("FromTime(%s) = %s, %v; want %s", v.time, from, err, v.hex)
			}
		}
	}
}

// bson-corpus oid.json: the ID is bytes 7..18 of canonical_bson (after the
// length, the type 0x07 and the key "a\x00").
func TestBSONCorpus(t *testing.T) {
	valid := []struct{ bson, extjson string }{
		{"1400000007610000000000000000000000000000", `{"a" : {"$oid" : "000000000000000000000000"}}`},
		{"14000000076100FFFFFFFFFFFFFFFFFFFFFFFF00", `{"a" : {"$oid" : "ffffffffffffffffffffffff"}}`},
		{"1400000007610056E1FC72E0C917E9C471416100", `{"a" : {"$oid" : "56e1fc72e0c917e9c4714161"}}`},
	}
	for _, v := range valid {
		raw, _ := hex.DecodeString(v.bson)
		fromBSON, err := oid.FromBytes(raw[7:19])
		if err != nil {
			t.Fatal(err)
		}
		var doc struct{ A oid.ID }
		if err := json.Unmarshal([]byte(v.extjson), &doc); err != nil {
			t.Fatalf("%s: %v", v.extjson, err)
		}
		if doc.A != fromBSON {
			t.Errorf("%s: extjson gives %s, bson gives %s", v.extjson, doc.A, fromBSON)
		}
		if got := `{"$oid" : "` + fromBSON.Hex() + `"}`; !strings.Contains(v.extjson, got) {
			t.Errorf("canonical extjson %s lacks %s", v.extjson, got)
		}
	}
	truncated, _ := hex.DecodeString("1200000007610056E1FC72E0C917E9C471")
	if _, err := oid.FromBytes(truncated[7:]); !errors.Is(err, oid.ErrInvalidLength) {
		t.Errorf("truncated OID: err %v, want ErrInvalidLength", err)
	}
}

func TestTimeRange(t *testing.T) {
	ok := []time.Time{oid.MinTime, oid.MaxTime, time.Unix(1<<31-1, 0), time.Unix(1<<31, 0), time.Unix(1<<32-1, 999999999)}
	for _, tm := range ok {
		if err := oid.CheckTime(tm); err != nil {
			t.Errorf("CheckTime(%v): %v", tm, err)
		}
	}
	bad := []time.Time{time.Unix(-1, 0), time.Unix(0, -1), time.Unix(1<<32, 0), time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)}
	g := gen(t, 0, "0000000000", 0)
	for _, tm := range bad {
		if err := oid.CheckTime(tm); !errors.Is(err, oid.ErrTimeRange) || !strings.Contains(err.Error(), tm.UTC().Format(time.RFC3339Nano)) {
			t.Errorf("CheckTime(%v) = %v, want ErrTimeRange naming the time", tm, err)
		}
		if _, err := oid.FromTime(tm); !errors.Is(err, oid.ErrTimeRange) {
			t.Errorf("FromTime(%v) = %v", tm, err)
		}
		if _, err := oid.NewWithTime(tm); !errors.Is(err, oid.ErrTimeRange) {
			t.Errorf("NewWithTime(%v) = %v", tm, err)
		}
		if err := g.FillWithTime(make([]oid.ID, 3), tm); !errors.Is(err, oid.ErrTimeRange) {
			t.Errorf("FillWithTime(%v) = %v", tm, err)
		}
	}
	// Sub-second parts are dropped, not rounded.
	id, _ := oid.FromTime(time.Unix(1700000000, 999999999))
	if id.Unix() != 1700000000 {
		t.Errorf("FromTime rounds: %d", id.Unix())
	}
}

// The clock-driven path wraps modulo 2^32, as the specification says.
func TestClockWraps(t *testing.T) {
	g := gen(t, 1<<32+5, "0102030405", 0)
	if id := g.New(); id.Unix() != 5 || id.Hex() != "000000050102030405000000" {
		t.Errorf("clock 2^32+5 gave %s", id)
	}
	g = gen(t, -1, "0102030405", 0)
	if id := g.New(); id.Unix() != 1<<32-1 {
		t.Errorf("clock -1 gave %s", id)
	}
}

func TestCounterWrap(t *testing.T) {
	g := gen(t, 1700000000, "3f2a91c8d4", 0xFFFFFE)
	want := []uint32{0xFFFFFE, 0xFFFFFF, 0, 1}
	for i, w := range want {
		if c := g.New().Counter(); c != w {
			t.Errorf("ID %d: counter %#x, want %#x", i, c, w)
		}
	}
	g = gen(t, 1700000000, "3f2a91c8d4", 0xFFFFFD)
	ids := make([]oid.ID, 5)
	g.Fill(ids)
	for i, w := range []uint32{0xFFFFFD, 0xFFFFFE, 0xFFFFFF, 0, 1} {
		if ids[i].Counter() != w {
			t.Errorf("Fill %d: counter %#x, want %#x", i, ids[i].Counter(), w)
		}
	}
	if n := g.New().Counter(); n != 2 {
		t.Errorf("after Fill: counter %d, want 2", n)
	}
	// CounterStart is taken modulo 2^24.
	g = gen(t, 0, "0000000000", 0x12FFFFFF)
	if c := g.New().Counter(); c != 0xFFFFFF {
		t.Errorf("CounterStart 0x12FFFFFF: %#x", c)
	}
}

func TestFillSharesRandomAndCounts(t *testing.T) {
	g := oid.NewGenerator(oid.Config{})
	ids := make([]oid.ID, 1000)
	before := time.Now().Unix()
	g.Fill(ids)
	after := time.Now().Unix()
	for i, id := range ids {
		if id.Random() != g.Random() || id.Unix() < before || id.Unix() > after {
			t.Fatalf("ID %d %s: random %x (gen %x), unix %d not in %d..%d", i, id, id.Random(), g.Random(), id.Unix(), before, after)
		}
		if i > 0 && id.Counter() != (ids[i-1].Counter()+1)&0xFFFFFF {
			t.Fatalf("ID %d: counter %d after %d", i, id.Counter(), ids[i-1].Counter())
		}
	}
	g.Fill(nil) // no-op, no panic
	a, b := oid.NewGenerator(oid.Config{}), oid.NewGenerator(oid.Config{})
	if a.Random() == b.Random() {
		t.Error("two generators share a random value")
	}
}

func TestUniqueConcurrent(t *testing.T) {
	const workers, per = 4, 1_000_000
	n := per
	if testing.Short() {
		n = 50_000
	}
	g := oid.NewGenerator(oid.Config{})
	out := make([][]oid.ID, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids := make([]oid.ID, n)
			for i := range ids {
				if w%2 == 0 {
					ids[i] = g.New()
				} else {
					ids[i] = oid.New()
				}
			}
			out[w] = ids
		}()
	}
	wg.Wait()
	all := slices.Concat(out...)
	slices.SortFunc(all, oid.ID.Compare)
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			t.Fatalf("duplicate ID %s among %d", all[i], len(all))
		}
	}
	if len(all) != workers*n {
		t.Fatalf("%d IDs", len(all))
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		in, msg string
		kind    error
		pos     int
	}{
		{"", `oid: invalid ObjectID "": length 0, expected 24 hex characters`, oid.ErrInvalidLength, -1},
		{"507f1f77bcf86cd79943901", `length 23`, oid.ErrInvalidLength, -1},
		{"507f1f77bcf86cd7994390111", `length 25`, oid.ErrInvalidLength, -1},
		{"507f1f7zbcf86cd799439011", `oid: invalid ObjectID "507f1f7zbcf86cd799439011": invalid character 'z' at position 7, expected 0-9, a-f or A-F`, oid.ErrInvalidChar, 7},
		{"z07f1f77bcf86cd799439011", `invalid character 'z' at position 0`, oid.ErrInvalidChar, 0},
		{"507f1f77bcf86cd79943901g", `invalid character 'g' at position 23`, oid.ErrInvalidChar, 23},
		{" 07f1f77bcf86cd799439011", `invalid character ' ' at position 0`, oid.ErrInvalidChar, 0},
		{"507f1f77bcf86cd79943901\n", `invalid character 0x0a at position 23`, oid.ErrInvalidChar, 23},
		{"507f1f77bcf86cd7994390\xff1", `invalid character 0xff at position 22`, oid.ErrInvalidChar, 22},
		{"0x7f1f77bcf86cd799439011", `invalid character 'x' at position 1`, oid.ErrInvalidChar, 1},
		{strings.Repeat("a", 1000), `"...: length 1000`, oid.ErrInvalidLength, -1},
	}
	for _, c := range cases {
		_, err := oid.Parse(c.in)
		if err == nil {
			t.Errorf("Parse(%q) accepted", c.in)
			continue
		}
		if !errors.Is(err, oid.ErrInvalidHex) || !errors.Is(err, c.kind) {
			t.Errorf("Parse(%q): %v does not match ErrInvalidHex and %v", c.in, err, c.kind)
		}
		var pe *oid.ParseError
		if !errors.As(err, &pe) || pe.Pos != c.pos || pe.Input != c.in {
			t.Errorf("Parse(%q): ParseError %+v, want pos %d", c.in, pe, c.pos)
		}
		if !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Parse(%q): message %q lacks %q", c.in, err, c.msg)
		}
		if oid.IsValid(c.in) {
			t.Errorf("IsValid(%q)", c.in)
		}
		var id oid.ID
		if err := id.UnmarshalText([]byte(c.in)); c.in != "" && !errors.Is(err, c.kind) {
			t.Errorf("UnmarshalText(%q): %v", c.in, err)
		}
	}
	// A long input is quoted shortened, not in full.
	long := strings.Repeat("a", 1000)
	if _, err := oid.Parse(long); err == nil || len(err.Error()) > 200 || strings.Contains(err.Error(), long[:200]) {
		t.Errorf("message for a 1000-byte input: %v", err)
	}
}

func TestMustParse(t *testing.T) {
	if oid.MustParse("507f1f77bcf86cd799439011").Hex() != "507f1f77bcf86cd799439011" {
		t.Fatal("MustParse")
	}
	defer func() {
		if r := recover(); r == nil || !errors.Is(r.(error), oid.ErrInvalidHex) {
			t.Errorf("MustParse(bad) recovered %v", r)
		}
	}()
	oid.MustParse("nope")
}

func TestFromBytesAndBinary(t *testing.T) {
	want := oid.MustParse("507f1f77bcf86cd799439011")
	b, _ := want.MarshalBinary()
	got, err := oid.FromBytes(b)
	if err != nil || got != want {
		t.Fatalf("FromBytes: %v %v", got, err)
	}
	for _, n := range []int{0, 11, 13, 24} {
		if _, err := oid.FromBytes(make([]byte, n)); !errors.Is(err, oid.ErrInvalidLength) || !strings.Contains(err.Error(), "expected 12") {
			t.Errorf("FromBytes(%d bytes): %v", n, err)
		}
		id := want
		if err := id.UnmarshalBinary(make([]byte, n)); err == nil || id != want {
			t.Errorf("UnmarshalBinary(%d bytes): %v, id changed to %s", n, err, id)
		}
	}
	app, _ := want.AppendBinary([]byte{1})
	if string(app[1:]) != string(b) || app[0] != 1 {
		t.Errorf("AppendBinary %x", app)
	}
}

func TestText(t *testing.T) {
	id := oid.MustParse("507f1f77bcf86cd799439011")
	txt, _ := id.MarshalText()
	app, _ := id.AppendText([]byte("x="))
	if string(txt) != id.Hex() || string(app) != "x="+id.Hex() {
		t.Errorf("MarshalText %s AppendText %s", txt, app)
	}
	if got := id.AppendHex(make([]byte, 0, 100)); string(got) != id.Hex() {
		t.Errorf("AppendHex %s", got)
	}
	var back oid.ID
	if err := back.UnmarshalText([]byte("507F1F77BCF86CD799439011")); err != nil || back != id {
		t.Errorf("UnmarshalText upper: %v %v", back, err)
	}
	if err := back.UnmarshalText(nil); err != nil || !back.IsZero() {
		t.Errorf("UnmarshalText empty: %v %v", back, err)
	}
	// As a JSON map key.
	m := map[oid.ID]int{id: 1}
	j, err := json.Marshal(m)
	if err != nil || string(j) != `{"507f1f77bcf86cd799439011":1}` {
		t.Fatalf("map key: %s %v", j, err)
	}
	var m2 map[oid.ID]int
	if err := json.Unmarshal(j, &m2); err != nil || m2[id] != 1 {
		t.Errorf("map key back: %v %v", m2, err)
	}
	if got := fmtGo(id); got != `oid.MustParse("507f1f77bcf86cd799439011")` {
		t.Errorf("GoString %s", got)
	}
}

func TestJSON(t *testing.T) {
	id := oid.MustParse("507f1f77bcf86cd799439011")
	out, err := json.Marshal(struct {
		ID oid.ID `json:"_id"`
	}{id})
	if err != nil || string(out) != `{"_id":"507f1f77bcf86cd799439011"}` {
		t.Fatalf("Marshal: %s %v", out, err)
	}
	good := []string{
		`"507f1f77bcf86cd799439011"`,
		`"507F1F77BCF86CD799439011"`,
		`{"$oid":"507f1f77bcf86cd799439011"}`,
		`{ "$oid" : "507f1f77bcf86cd799439011" }`,
		"\t\"507f1f77bcf86cd799439011\" ",
		`"507f1f77bcf86cd79943901\u0031"`,
		`{"$oid":"507f1f77bcf86cd79943901\u0031"}`,
	}
	for _, in := range good {
		var got oid.ID
		if err := got.UnmarshalJSON([]byte(in)); err != nil || got != id {
			t.Errorf("UnmarshalJSON(%s) = %s, %v", in, got, err)
		}
	}
	// null is a no-op, as encoding/json expects; "" is the nil ID.
	for _, in := range []string{`null`, ` null `} {
		got := id
		if err := got.UnmarshalJSON([]byte(in)); err != nil || got != id {
			t.Errorf("UnmarshalJSON(%s) changed %s: %v", in, got, err)
		}
	}
	got := id
	if err := got.UnmarshalJSON([]byte(`""`)); err != nil || !got.IsZero() {
		t.Errorf(`UnmarshalJSON("") = %s, %v`, got, err)
	}
	var p struct{ ID *oid.ID }
	if err := json.Unmarshal([]byte(`{"ID":null}`), &p); err != nil || p.ID != nil {
		t.Errorf("null pointer field: %v %v", p.ID, err)
	}
	bad := map[string]error{
		`"507f1f77bcf86cd79943901z"`:                oid.ErrInvalidChar,
		`"507f1f77bcf86cd79943901"`:                 oid.ErrInvalidLength,
		`{"$oid":"507f1f77bcf86cd79943901z"}`:       oid.ErrInvalidChar,
		`{"$oid":""}`:                               oid.ErrInvalidLength,
		`{"$oid":"507f1f77bcf86cd799439011","x":1}`: oid.ErrInvalidJSON,
		`{"$OID":"507f1f77bcf86cd799439011"}`:       oid.ErrInvalidJSON,
		`{"$oid":507}`:                              oid.ErrInvalidJSON,
		`{"$oid":null}`:                             oid.ErrInvalidJSON,
		`{}`:                                        oid.ErrInvalidJSON,
		`123456789012`:                              oid.ErrInvalidJSON,
		`"0123456789"`:                              oid.ErrInvalidLength,
		`[1,2]`:                                     oid.ErrInvalidJSON,
		`"507f1f77bcf86cd799439011`:                 oid.ErrInvalidJSON,
		``:                                          oid.ErrInvalidJSON,
		`{"$oid":"507f1f77bcf86cd799439011"`:        oid.ErrInvalidJSON,
		`{"$oid":"507f1f77bcf86cd799439011"}{}`:     oid.ErrInvalidJSON,
		`{"$date":"507f1f77bcf86cd799439011"}`:      oid.ErrInvalidJSON,
		"\"507f1f77bcf86cd79943901\\\"\"":           oid.ErrInvalidChar,
		`{"$oid":"507f1f77bcf86cd79943901\u0031\u0031"}`: oid.ErrInvalidLength,
	}
	for in, kind := range bad {
		got := id
		err := got.UnmarshalJSON([]byte(in))
		if !errors.Is(err, kind) {
			t.Errorf("UnmarshalJSON(%s) = %v, want %v", in, err, kind)
		}
		if got != id {
			t.Errorf("UnmarshalJSON(%s) changed the value on error to %s", in, got)
		}
	}
}

func TestQuickRoundTrips(t *testing.T) {
	f := func(b [12]byte) bool {
		id := oid.ID(b)
		p, err := oid.Parse(id.Hex())
		if err != nil || p != id || !oid.IsValid(id.Hex()) {
			return false
		}
		if u, err := oid.Parse(strings.ToUpper(id.Hex())); err != nil || u != id {
			return false
		}
		var t1, t2, t3 oid.ID
		txt, _ := id.MarshalText()
		bin, _ := id.MarshalBinary()
		js, _ := id.MarshalJSON()
		if t1.UnmarshalText(txt) != nil || t2.UnmarshalBinary(bin) != nil || t3.UnmarshalJSON(js) != nil {
			return false
		}
		var t4 oid.ID
		if t4.UnmarshalJSON([]byte(`{"$oid":"`+id.Hex()+`"}`)) != nil {
			return false
		}
		from, err := oid.FromTime(id.Timestamp())
		return t1 == id && t2 == id && t3 == id && t4 == id && err == nil &&
			from.Unix() == id.Unix() && from.Compare(id) <= 0 &&
			id.Compare(p) == 0 && id.IsZero() == (id == oid.Nil)
	}
	if err := quick.Check(f, &quick.Config{MaxCount: 20000}); err != nil {
		t.Error(err)
	}
	// Compare agrees with byte order.
	cmp := func(a, b [12]byte) bool {
		return oid.ID(a).Compare(oid.ID(b)) == strings.Compare(string(a[:]), string(b[:]))
	}
	if err := quick.Check(cmp, nil); err != nil {
		t.Error(err)
	}
}

func TestFromParts(t *testing.T) {
	id := oid.FromParts(0x507f1f77, 0xbcf86cd799, 0x439011)
	if want := oid.MustParse("507f1f77bcf86cd799439011"); id != want {
		t.Fatalf("FromParts = %s, want %s", id, want)
	}
	// Higher bits are ignored: a running counter wraps, a wide random is cut.
	id = oid.FromParts(1, 0xAB_0000000001, 0x1_000002)
	if id.Unix() != 1 || id.Random() != [5]byte{0, 0, 0, 0, 1} || id.Counter() != 2 {
		t.Fatalf("FromParts with high bits = %s", id)
	}
	// It agrees with a Generator given the same parts.
	start := uint32(0xFFFFFE)
	g := oid.NewGenerator(oid.Config{Random: &[5]byte{1, 2, 3, 4, 5}, CounterStart: &start})
	at := time.Unix(1700000000, 0)
	for k := range uint32(3) {
		got, err := g.NewWithTime(at)
		if err != nil {
			t.Fatal(err)
		}
		if want := oid.FromParts(1700000000, 0x0102030405, start+k); got != want {
			t.Errorf("Generator ID %d = %s, FromParts = %s", k, got, want)
		}
	}
}

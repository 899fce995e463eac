package crosscheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/internal/driverdiff"
	"github.com/oidkit/oidkit/oid"
	"github.com/oidkit/oidkit/verify"
)

// checkVectors checks the fixed expectations: decoded times of the timestamp
// edges and the spec example, and the worked example of the generator pages.
func checkVectors(row *verify.Row) {
	times := []struct {
		hex  string
		want string
	}{
		{"507f1f77bcf86cd799439011", "2012-10-17T21:13:27Z"},
		{"000000000000000000000000", "1970-01-01T00:00:00Z"},
		{"7fffffff0000000000000000", "2038-01-19T03:14:07Z"},
		{"800000000000000000000000", "2038-01-19T03:14:08Z"},
		{"ffffffff0000000000000000", "2106-02-07T06:28:15Z"},
	}
	for _, tc := range times {
		id := oid.MustParse(tc.hex)
		d2, _ := bson.ObjectIDFromHex(tc.hex)
		d1, _ := primitive.ObjectIDFromHex(tc.hex)
		got := []string{id.Timestamp().Format(time.RFC3339), d2.Timestamp().Format(time.RFC3339), d1.Timestamp().Format(time.RFC3339)}
		row.Check(got[0] == tc.want && got[1] == tc.want && got[2] == tc.want,
			"%s: oid %s, v2 %s, v1 %s; want %s", tc.hex, got[0], got[1], got[2], tc.want)
	}
	start := uint32(12345)
	g := oid.NewGenerator(oid.Config{
		Clock:        func() time.Time { return time.Unix(1700000000, 0) },
		Random:       &[5]byte{0x3f, 0x2a, 0x91, 0xc8, 0xd4},
		CounterStart: &start,
	})
	for _, want := range []string{"6553f1003f2a91c8d4003039", "6553f1003f2a91c8d400303a"} {
		got := g.New().Hex()
		row.Check(got == want, "worked example (1700000000, 3f2a91c8d4, 12345): got %s, want %s", got, want)
	}
	// The driver's NewObjectIDFromTimestamp puts the same 4 bytes first.
	for _, sec := range []int64{0, 1<<31 - 1, 1 << 31, 1<<32 - 1, 1700000000} {
		tm := time.Unix(sec, 0)
		ours, err := g.NewWithTime(tm)
		d2 := bson.NewObjectIDFromTimestamp(tm)
		d1 := primitive.NewObjectIDFromTimestamp(tm)
		row.Check(err == nil && bytes.Equal(ours[:4], d2[:4]) && bytes.Equal(ours[:4], d1[:4]),
			"NewWithTime(%d): oid %s (%v), v2 %s, v1 %s", sec, ours, err, d2.Hex(), d1.Hex())
	}
}

// driverRows are one driver's rows of one worker, looked up once.
type driverRows struct {
	bytes, hex, ts, jsonOut, oidIn, length, badChar, upper, space *verify.Row
}

type idRows struct {
	drivers [len(drivers)]driverRows // as drivers
	errors  *verify.Row
	all     rows
}

func newIDRows(r rows) *idRows {
	ir := &idRows{errors: r.get(rowErrors), all: r}
	for k, d := range drivers {
		get := func(row string) *verify.Row { return r.get(d.name + ": " + row) }
		ir.drivers[k] = driverRows{
			bytes: get(rowBytes), hex: get(rowHex), ts: get(rowTimestamp), jsonOut: get(rowJSONOut), oidIn: get(rowOidIn),
			length: get(rowLength), badChar: get(rowBadChar), upper: get(rowUpper), space: get(rowSpace),
		}
	}
	return ir
}

// kindRow picks the parse row of a mutation kind.
func (d *driverRows) kindRow(kind int) *verify.Row {
	switch kind {
	case kindLength:
		return d.length
	case kindBadChar:
		return d.badChar
	case kindUpper:
		return d.upper
	default:
		return d.space
	}
}

// checkID runs the per-ID checks against both drivers. deep adds the slower
// ones. i varies the mutations from ID to ID. On the hot path rows are
// counted with if/else rather than Row.Check, so that the message arguments
// are only built for a mismatch.
func checkID(ir *idRows, al allowed, id oid.ID, deep bool, i int) {
	h := id.Hex()
	var jsonBuf [64]byte
	forms := [3][]byte{
		append(append(append(jsonBuf[:0:0], `{"$oid":"`...), h...), `"}`...),
		append(append(append([]byte(nil), '"'), h...), '"'),
		append(append(append([]byte(nil), `{"$oid":"`...), strings.ToUpper(h)...), `"}`...),
	}
	jo, _ := id.MarshalJSON()
	for k := range drivers {
		checkDriver(&ir.drivers[k], &drivers[k], id, h, jo, &forms)
	}

	// Mutated strings: both drivers must accept and reject exactly the same.
	for _, m := range mutations(h, i) {
		checkParse(ir, m.kind, m.s)
	}

	if !deep {
		return
	}
	checkBSON(ir.all, id)
	for _, s := range jsonMutations(h, i) {
		checkJSONIn(ir.all, al, []byte(s), driverdiff.JSONDifferences)
	}
}

func sameTime(a, b time.Time) bool {
	return a.Equal(b) && a.Location() == time.UTC && b.Location() == time.UTC && a.Unix() == b.Unix()
}

// Mutation kinds, each a parse row.
const (
	kindLength = iota
	kindBadChar
	kindUpper
	kindSpace
)

type mutation struct {
	kind int
	s    string
}

// mutations of a valid hex string, by kind. i varies the positions.
func mutations(h string, i int) []mutation {
	p := i % 24
	q := (i*7 + 3) % 24
	bad := []byte{'g', 'z', 'G', 'x', '-', ' ', 0, 0x7f, 0xff, '/', ':', '@', '`'}
	c := bad[i%len(bad)]
	mixed := []byte(h)
	for j := range mixed {
		if (i>>(j%16))&1 == 1 && mixed[j] >= 'a' {
			mixed[j] -= 'a' - 'A'
		}
	}
	return []mutation{
		{kindLength, h[:23]}, {kindLength, h[:p]}, {kindLength, h + h[p:p+1]}, {kindLength, h[1:]},
		{kindLength, h + h}, {kindLength, ""}, {kindLength, h[:p] + h[p+1:]},
		{kindBadChar, h[:p] + string(c) + h[p+1:]}, {kindBadChar, h[:q] + "g" + h[q+1:]},
		{kindBadChar, "0x" + h[2:]}, {kindBadChar, h[:p%23] + "é" + h[p%23+2:]}, {kindBadChar, h[:q] + "\x00" + h[q+1:]},
		{kindUpper, strings.ToUpper(h)}, {kindUpper, string(mixed)},
		{kindSpace, " " + h}, {kindSpace, h + " "}, {kindSpace, h + "\n"}, {kindSpace, "\t" + h},
		{kindSpace, h[:p] + " " + h[p+1:]}, {kindSpace, " " + h[1:]}, {kindSpace, h[:23] + "\n"}, {kindSpace, h + "\r\n"},
	}
}

// checkDriver checks one ID against one driver: bytes, hex, time, JSON out
// and the accepted JSON forms in. h is the ID's hex, jo its JSON.
func checkDriver(r *driverRows, d *driver, id oid.ID, h string, jo []byte, forms *[3][]byte) {
	dh := d.hex(id)
	p, err := d.fromHex(h)
	back, err2 := oid.Parse(dh)
	if err == nil && p == id && err2 == nil && back == id {
		r.bytes.Pass()
	} else {
		r.bytes.Failf("%s: driver parses it as %s (%v); oid parses the driver's hex as %s (%v)", h, d.hex(p), err, back, err2)
	}
	var buf [24]byte
	if dh == h && string(d.text(id)) == h && string(id.AppendHex(buf[:0])) == h {
		r.hex.Pass()
	} else {
		r.hex.Failf("%x: oid %s, driver %s", id[:], h, dh)
	}
	if sameTime(id.Timestamp(), d.timestamp(id)) {
		r.ts.Pass()
	} else {
		r.ts.Failf("%s: oid %v, driver %v", h, id.Timestamp(), d.timestamp(id))
	}
	if jd := d.json(id); bytes.Equal(jo, jd) {
		r.jsonOut.Pass()
	} else {
		r.jsonOut.Failf("%s: oid %s, driver %s", h, jo, jd)
	}
	for _, s := range forms {
		var o oid.ID
		eo := o.UnmarshalJSON(s)
		dd, ed := d.unmarshalJSON(oid.Nil, s)
		if eo == nil && ed == nil && o == id && dd == id {
			r.oidIn.Pass()
		} else {
			r.oidIn.Failf("%s: oid %s (%v), driver %s (%v)", s, o, eo, d.hex(dd), ed)
		}
	}
}

// checkParse compares acceptance and bytes of Parse with each driver's
// ObjectIDFromHex (and its own validity test), and checks oid's error.
func checkParse(ir *idRows, kind int, s string) {
	ours, err := oid.Parse(s)
	for k := range drivers {
		d := &drivers[k]
		p, pe := d.fromHex(s)
		if row := ir.drivers[k].kindRow(kind); (err == nil) == (pe == nil) && (err != nil || p == ours) && (d.isValid == nil || d.isValid(s) == oid.IsValid(s)) {
			row.Pass()
		} else {
			row.Failf("%q: oid %s (%v), driver %s (%v)", s, ours, errText(err), d.hex(p), errText(pe))
		}
	}
	if err != nil {
		pe, ok := err.(*oid.ParseError)
		if ok && pe.Input == s && errors.Is(err, oid.ErrInvalidHex) && (errors.Is(err, oid.ErrInvalidLength) || errors.Is(err, oid.ErrInvalidChar)) {
			ir.errors.Pass()
		} else {
			ir.errors.Failf("%q: error %v", s, err)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return "accepted"
	}
	return err.Error()
}

// checkBSON compares each driver's BSON and Extended JSON encoding of the ID
// with oid's bytes and decoding.
func checkBSON(r rows, id oid.ID) {
	for k := range drivers {
		d := &drivers[k]
		raw, err := d.bson(id)
		ext, errx := d.extJSON(id)
		var doc struct {
			ID oid.ID `json:"_id"`
		}
		errj := json.Unmarshal(ext, &doc)
		r.get(d.name+": "+rowBSON).Check(err == nil && errx == nil && errj == nil && len(raw) == 20 && bytes.Equal(raw[7:19], id[:]) && doc.ID == id,
			"%s: BSON %x (%v), Extended JSON %s read by oid as %s (%v)", id, raw, err, ext, doc.ID, errj)
	}
}

// jsonMutations are JSON inputs around a valid hex string: the accepted
// forms, their near misses, and the inputs of the documented differences.
func jsonMutations(h string, i int) []string {
	p := i % 24
	return []string{
		`"` + h + `"`, `{"$oid":"` + h + `"}`, `{ "$oid" : "` + h + `" }`, `{"$oid":"` + strings.ToUpper(h) + `"}`,
		`null`, `""`, `{"$oid":""}`, `{"$oid":null}`, `{"$oid":1}`, `{}`, `[]`, `true`,
		`"` + h[:23] + `"`, `{"$oid":"` + h[:p] + `"}`, `"` + h[:p] + "z" + h[p+1:] + `"`, `{"$oid":"` + h + `0"}`,
		`{"$oid":"` + h + `","x":1}`, `{"$OID":"` + h + `"}`, `{"$Oid":"` + h + `"}`, `{"oid":"` + h + `"}`,
		`"` + h[:10] + `"`, `123456789012`, `"` + h[:23] + `\u00` + hexOf(h[23]) + `"`, ` "` + h + `" `,
		`"` + h + `x`, `"` + h, `{"$oid":"` + h + `"`, `{"$oid":"` + h + `"}x`,
	}
}

func hexOf(c byte) string { return fmt.Sprintf("%02x", c) }

// checkJSONIn compares UnmarshalJSON with both drivers' on one input. Where a
// documented difference applies the input is tallied under its name instead.
func checkJSONIn(r rows, al allowed, b []byte, classify func([]byte) []string) {
	set := oid.MustParse("0102030405060708090a0b0c")
	o := set
	eo := o.UnmarshalJSON(b)
	names := classify(b)
	differed := false
	for k := range drivers {
		d := &drivers[k]
		val, err := d.unmarshalJSON(set, b)
		same := (eo == nil) == (err == nil) && (eo != nil || o == val)
		if !same && len(names) > 0 {
			r.get(d.name + ": " + rowJSONMutated).Pass()
			differed = true
			continue
		}
		r.get(d.name+": "+rowJSONMutated).Check(same, "%s: oid %s (%v), driver %s (%v)", b, o, errText(eo), val, errText(err))
	}
	if differed {
		al[names[0]]++
	}
	if eo != nil && o != set {
		r.get(rowErrors).Failf("%s: UnmarshalJSON changed the value on error to %s", b, o)
	}
}

// checkGeneration checks IDs made by oid and by the drivers, n of each.
func checkGeneration(r rows, n int) {
	n = max(n, 1000)
	before := time.Now().Unix()
	// Start near the top of the counter so that the wrap is crossed.
	start := uint32(0xFFFFFF - n/2)
	g := oid.NewGenerator(oid.Config{CounterStart: &start})
	batch := make([]oid.ID, 4096)
	var prev oid.ID
	first := true
	shared, counters := r.get(rowSharedRandom), r.get(rowCounters)
	var parse [len(drivers)]*verify.Row
	for k, d := range drivers {
		parse[k] = r.get(d.name + ": " + rowOursParse)
	}
	window := r.get(rowWindow)
	inWindow := func(ids []oid.ID) {
		after := time.Now().Unix() // read after the IDs were made
		for _, id := range ids {
			window.Check(id.Unix() >= before && id.Unix() <= after, "%s: %v outside the run's window %v..%v", id, id.Timestamp(),
				time.Unix(before, 0).UTC(), time.Unix(after, 0).UTC())
		}
	}
	for left := n; left > 0; left -= len(batch) {
		batch = batch[:min(left, cap(batch))]
		if left%3 == 0 {
			g.Fill(batch)
		} else {
			for i := range batch {
				batch[i] = g.New()
			}
		}
		inWindow(batch)
		for _, id := range batch {
			shared.Check(id.Random() == g.Random(), "%s: random %x, generator's %x", id, id.Random(), g.Random())
			if !first {
				counters.Check(id.Counter() == (prev.Counter()+1)&0xFFFFFF, "%s after %s: counter %#x after %#x", id, prev, id.Counter(), prev.Counter())
			}
			first, prev = false, id
			h := id.Hex()
			for k := range drivers {
				d := &drivers[k]
				p, err := d.fromHex(h)
				parse[k].Check(err == nil && p == id && sameTime(d.timestamp(p), id.Timestamp()), "%s: driver %s (%v)", h, d.hex(p), err)
			}
		}
	}
	// The package-level generator too, against the current driver.
	current := &drivers[0]
	sample := make([]oid.ID, 1000)
	for i := range sample {
		id := oid.New()
		p, err := current.fromHex(id.Hex())
		parse[0].Check(err == nil && p == id, "oid.New() %s: driver %s (%v)", id, current.hex(p), err)
		sample[i] = id
	}
	inWindow(sample)

	// Driver IDs parse in oid with the same bytes and time.
	var from [len(drivers)]*verify.Row
	for k, d := range drivers {
		from[k] = r.get(d.name + ": " + rowDriverParse)
	}
	for range n {
		for k := range drivers {
			d := &drivers[k]
			x := d.newID()
			o, err := oid.Parse(d.hex(x))
			from[k].Check(err == nil && o == x && sameTime(o.Timestamp(), d.timestamp(x)), "%s: oid %s (%v)", d.hex(x), o, err)
		}
	}
}

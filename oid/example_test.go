package oid_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/oidkit/oidkit/oid"
)

func ExampleParse() {
	id, err := oid.Parse("507f1f77bcf86cd799439011")
	if err != nil {
		panic(err)
	}
	fmt.Println(id.Timestamp().Format(time.RFC3339), id.Unix())
	fmt.Printf("random %x counter %d\n", id.Random(), id.Counter())
	// Output:
	// 2012-10-17T21:13:27Z 1350508407
	// random bcf86cd799 counter 4427793
}

func ExampleParse_error() {
	_, err := oid.Parse("507f1f7zbcf86cd799439011")
	fmt.Println(err)
	fmt.Println(errors.Is(err, oid.ErrInvalidHex), errors.Is(err, oid.ErrInvalidChar))
	_, err = oid.Parse("507f1f77")
	fmt.Println(err)
	// Output:
	// oid: invalid ObjectID "507f1f7zbcf86cd799439011": invalid character 'z' at position 7, expected 0-9, a-f or A-F
	// true true
	// oid: invalid ObjectID "507f1f77": length 8, expected 24 hex characters
}

func ExampleNewGenerator() {
	// A deterministic generator: fixed clock, random value and counter start.
	start := uint32(12345)
	g := oid.NewGenerator(oid.Config{
		Clock:        func() time.Time { return time.Unix(1700000000, 0) },
		Random:       &[5]byte{0x3f, 0x2a, 0x91, 0xc8, 0xd4},
		CounterStart: &start,
	})
	fmt.Println(g.New())
	fmt.Println(g.New())
	// Output:
	// 6553f1003f2a91c8d4003039
	// 6553f1003f2a91c8d400303a
}

func ExampleGenerator_Fill() {
	start := uint32(0xFFFFFE)
	g := oid.NewGenerator(oid.Config{Random: &[5]byte{1, 2, 3, 4, 5}, CounterStart: &start})
	ids := make([]oid.ID, 3)
	if err := g.FillWithTime(ids, time.Date(2038, 1, 19, 3, 14, 8, 0, time.UTC)); err != nil {
		panic(err)
	}
	for _, id := range ids {
		fmt.Println(id, id.Counter())
	}
	// Output:
	// 800000000102030405fffffe 16777214
	// 800000000102030405ffffff 16777215
	// 800000000102030405000000 0
}

func ExampleFromTime() {
	from, _ := oid.FromTime(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	to, _ := oid.FromTime(time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC))
	fmt.Printf(`{"_id":{"$gte":{"$oid":"%s"},"$lt":{"$oid":"%s"}}}`+"\n", from, to)
	_, err := oid.FromTime(time.Date(2106, 2, 7, 6, 28, 16, 0, time.UTC))
	fmt.Println(err)
	// Output:
	// {"_id":{"$gte":{"$oid":"659200800000000000000000"},"$lt":{"$oid":"659352000000000000000000"}}}
	// oid: time outside the ObjectID range 1970-01-01T00:00:00Z..2106-02-07T06:28:15Z: 2106-02-07T06:28:16Z
}

func ExampleID_UnmarshalJSON() {
	var doc struct {
		ID    oid.ID  `json:"_id"`
		Ref   oid.ID  `json:"ref"`
		Maybe *oid.ID `json:"maybe"`
	}
	in := `{"_id":{"$oid":"507f1f77bcf86cd799439011"},"ref":"6553f1003f2a91c8d4003039","maybe":null}`
	if err := json.Unmarshal([]byte(in), &doc); err != nil {
		panic(err)
	}
	out, _ := json.Marshal(doc)
	fmt.Println(string(out))
	// Output:
	// {"_id":"507f1f77bcf86cd799439011","ref":"6553f1003f2a91c8d4003039","maybe":null}
}

func ExampleID_AppendHex() {
	id := oid.MustParse("507f1f77bcf86cd799439011")
	buf := make([]byte, 0, 64)
	buf = append(buf, "id="...)
	buf = id.AppendHex(buf)
	fmt.Println(string(buf))
	// Output:
	// id=507f1f77bcf86cd799439011
}

// FromParts lays out an ID from numbers a caller derived itself; a running
// counter wraps at 2^24 by itself.
func ExampleFromParts() {
	id := oid.FromParts(1700000000, 0x0102030405, 0x1000007)
	fmt.Println(id, id.Timestamp().Format(time.RFC3339), id.Counter())
	// Output: 6553f1000102030405000007 2023-11-14T22:13:20Z 7
}

// A window of creation times becomes the _id bounds and a filter ready for a
// query; a fractional end is rounded up to the next whole second.
func ExampleNewWindow() {
	w, err := oid.NewWindow(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 1, 1, 23, 59, 59, 500, time.UTC))
	if err != nil {
		panic(err)
	}
	fmt.Println(w.From, w.ToOperator(), w.To)
	fmt.Println(w.Filter())
	_, err = oid.NewWindow(time.Unix(100, 0), time.Unix(100, 0))
	fmt.Println(errors.Is(err, oid.ErrEmptyWindow))
	// Output:
	// 659200800000000000000000 $lt 659352000000000000000000
	// {"_id":{"$gte":{"$oid":"659200800000000000000000"},"$lt":{"$oid":"659352000000000000000000"}}}
	// true
}

// Without an end the window has a lower bound only.
func ExampleWindowFrom() {
	w, _ := oid.WindowFrom(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	fmt.Println(w.Filter())
	// Output: {"_id":{"$gte":{"$oid":"659200800000000000000000"}}}
}

// ParsePasted reads the forms shells, drivers and articles print; Parse
// reads only the 24 hex characters.
func ExampleParsePasted() {
	for _, s := range []string{
		`ObjectId("507f1f77bcf86cd799439011")`,
		`{"$oid":"507f1f77bcf86cd799439011"}`,
		"ObjectId(\u201c507F1F77BCF86CD799439011\u201d)",
	} {
		id, err := oid.ParsePasted(s)
		fmt.Println(id, err)
	}
	_, err := oid.ParsePasted(`ObjectId("507f1f77")`)
	fmt.Println(err)
	var pe *oid.PasteError
	fmt.Println(errors.As(err, &pe), pe.Reason(), errors.Is(err, oid.ErrInvalidLength))
	// Output:
	// 507f1f77bcf86cd799439011 <nil>
	// 507f1f77bcf86cd799439011 <nil>
	// 507f1f77bcf86cd799439011 <nil>
	// oid: invalid ObjectID "ObjectId(\"507f1f77\")": length 8, expected 24 hex characters
	// true length 8, expected 24 hex characters true
}

// A seeded generator makes the same IDs on every run and machine, given the
// time.
func ExampleNewSeededGenerator() {
	g := oid.NewSeededGenerator(7)
	ids := make([]oid.ID, 2)
	if err := g.FillWithTime(ids, time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		panic(err)
	}
	fmt.Println(ids[0])
	fmt.Println(ids[1])
	// Output:
	// 65920080565d24a1ed57220e
	// 65920080565d24a1ed57220f
}

// Write IDs one per line, as oidkit gen does: a seeded generator and a
// fixed time give the same lines on every run.
func ExampleGenerator_Write() {
	g := oid.NewSeededGenerator(1)
	at := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := g.Write(os.Stdout, 2, oid.WriteOptions{At: at, EJSON: true}); err != nil {
		fmt.Println(err)
	}
	err := g.Write(os.Stdout, 1, oid.WriteOptions{At: time.Unix(-1, 0)})
	fmt.Println(errors.Is(err, oid.ErrTimeRange))
	// Output:
	// {"$oid":"659200803876f6899ef68f43"}
	// {"$oid":"659200803876f6899ef68f44"}
	// true
}

// The parts of an ID, as oidkit inspect prints them.
func ExampleID_AppendPartsJSON() {
	id := oid.MustParse("507f1f77bcf86cd799439011")
	os.Stdout.Write(id.AppendPartsJSON(nil))
	os.Stdout.Write(id.AppendPartsText(nil))
	// Output:
	// {"id":"507f1f77bcf86cd799439011","timestamp":"2012-10-17T21:13:27Z","unix":1350508407,"random":"bcf86cd799","counter":4427793}
	// 507f1f77bcf86cd799439011  time 2012-10-17T21:13:27Z  unix 1350508407  random bcf86cd799  counter 4427793
}

// A window's bounds in words, as oidkit range prints them.
func ExampleWindow_AppendText() {
	w, _ := oid.NewWindow(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC))
	os.Stdout.Write(w.AppendText(nil))
	// Output:
	// from    2024-01-01T00:00:00Z  659200800000000000000000  inclusive ($gte)
	// to      2024-02-01T00:00:00Z  65badf000000000000000000  exclusive ($lt)
	// filter  {"_id":{"$gte":{"$oid":"659200800000000000000000"},"$lt":{"$oid":"65badf000000000000000000"}}}
}

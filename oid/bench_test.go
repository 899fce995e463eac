package oid_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/oid"
)

// Benchmarks side by side with the driver's, for benchstat:
//
//	go test -run '^$' -bench . -count 5 ./oid/ | benchstat -col /impl -

var (
	sinkID  oid.ID
	sinkDID bson.ObjectID
	sinkStr string
	sinkB   []byte
	sinkErr error
)

const benchHex = "507f1f77bcf86cd799439011"

func BenchmarkNew(b *testing.B) {
	b.Run("impl=oid", func(b *testing.B) {
		b.ReportAllocs()
		c := startCPU(b)
		for b.Loop() {
			sinkID = oid.New()
		}
		c.stop()
	})
	b.Run("impl=driver", func(b *testing.B) {
		b.ReportAllocs()
		c := startCPU(b)
		for b.Loop() {
			sinkDID = bson.NewObjectID()
		}
		c.stop()
	})
}

// BenchmarkFillPerID reports the time per ID (ns/id) of a batch of 1,024:
// one Fill for oid, 1,024 NewObjectID calls for the driver, which has no batch call.
func BenchmarkFillPerID(b *testing.B) {
	b.Run("impl=oid", func(b *testing.B) {
		b.ReportAllocs()
		g := oid.NewGenerator(oid.Config{})
		ids := make([]oid.ID, 1024)
		n := 0
		c := startCPU(b)
		for b.Loop() {
			g.Fill(ids)
			n++
		}
		used := c.stop()
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*len(ids)), "ns/id")
		if used > 0 {
			b.ReportMetric(float64(used.Nanoseconds())/float64(n*len(ids)), "cpu-ns/id")
		}
	})
	b.Run("impl=driver", func(b *testing.B) {
		b.ReportAllocs()
		ids := make([]bson.ObjectID, 1024)
		n := 0
		c := startCPU(b)
		for b.Loop() {
			for i := range ids {
				ids[i] = bson.NewObjectID()
			}
			n++
		}
		used := c.stop()
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*len(ids)), "ns/id")
		if used > 0 {
			b.ReportMetric(float64(used.Nanoseconds())/float64(n*len(ids)), "cpu-ns/id")
		}
	})
}

// BenchmarkHex compares oid's AppendHex into a reused buffer (what a writer
// of many IDs does) with the driver's Hex, its only way to get the text.
func BenchmarkHex(b *testing.B) {
	id := oid.MustParse(benchHex)
	b.Run("impl=oid", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 24)
		c := startCPU(b)
		for b.Loop() {
			buf = id.AppendHex(buf[:0])
		}
		c.stop()
		sinkB = buf
	})
	b.Run("impl=driver", func(b *testing.B) {
		b.ReportAllocs()
		d := bson.ObjectID(id)
		c := startCPU(b)
		for b.Loop() {
			sinkStr = d.Hex()
		}
		c.stop()
	})
}

// BenchmarkHexString compares the two Hex methods, both returning a string.
func BenchmarkHexString(b *testing.B) {
	id := oid.MustParse(benchHex)
	b.Run("impl=oid", func(b *testing.B) {
		b.ReportAllocs()
		c := startCPU(b)
		for b.Loop() {
			sinkStr = id.Hex()
		}
		c.stop()
	})
	b.Run("impl=driver", func(b *testing.B) {
		b.ReportAllocs()
		d := bson.ObjectID(id)
		c := startCPU(b)
		for b.Loop() {
			sinkStr = d.Hex()
		}
		c.stop()
	})
}

func BenchmarkParse(b *testing.B) {
	b.Run("impl=oid", func(b *testing.B) {
		b.ReportAllocs()
		c := startCPU(b)
		for b.Loop() {
			sinkID, sinkErr = oid.Parse(benchHex)
		}
		c.stop()
	})
	b.Run("impl=driver", func(b *testing.B) {
		b.ReportAllocs()
		c := startCPU(b)
		for b.Loop() {
			sinkDID, sinkErr = bson.ObjectIDFromHex(benchHex)
		}
		c.stop()
	})
}

func BenchmarkUnmarshalJSONOid(b *testing.B) {
	in := []byte(`{"$oid":"507f1f77bcf86cd799439011"}`)
	b.Run("impl=oid", func(b *testing.B) {
		b.ReportAllocs()
		c := startCPU(b)
		for b.Loop() {
			sinkErr = sinkID.UnmarshalJSON(in)
		}
		c.stop()
	})
	b.Run("impl=driver", func(b *testing.B) {
		b.ReportAllocs()
		c := startCPU(b)
		for b.Loop() {
			sinkErr = sinkDID.UnmarshalJSON(in)
		}
		c.stop()
	})
}

func BenchmarkMarshalJSON(b *testing.B) {
	id := oid.MustParse(benchHex)
	b.Run("impl=oid", func(b *testing.B) {
		b.ReportAllocs()
		c := startCPU(b)
		for b.Loop() {
			sinkB, sinkErr = id.MarshalJSON()
		}
		c.stop()
	})
	b.Run("impl=driver", func(b *testing.B) {
		b.ReportAllocs()
		d := bson.ObjectID(id)
		c := startCPU(b)
		for b.Loop() {
			sinkB, sinkErr = d.MarshalJSON()
		}
		c.stop()
	})
}

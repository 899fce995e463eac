package ejson

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// benchDocs are what oidkit's fixture files hold: a seeded user in relaxed
// and in canonical Extended JSON.
var benchDocs = []string{
	`{"_id":{"$oid":"65f1a2b3c4d5e6f708192a3b"},"createdAt":{"$date":"2024-03-13T10:20:30Z"},"name":"Ada Lovelace","email":"ada.lovelace@example.com","age":36,` +
		`"address":{"street":"12 Analytical Way","city":"London","zip":"N1 9GU","geo":{"lat":51.5362,"lng":-0.1036}},"tags":["math","engines","poetry"],` +
		`"active":true,"score":98.25,"visits":{"$numberLong":"12345678901"},"notes":"Wrote the first program \u2014 for the Analytical Engine."}`,
	`{"_id":{"$oid":"65f1a2b3c4d5e6f708192a3b"},"createdAt":{"$date":{"$numberLong":"1710325230000"}},"name":"Ada Lovelace","email":"ada.lovelace@example.com","age":{"$numberInt":"36"},` +
		`"address":{"street":"12 Analytical Way","city":"London","zip":"N1 9GU","geo":{"lat":{"$numberDouble":"51.5362"},"lng":{"$numberDouble":"-0.1036"}}},"tags":["math","engines","poetry"],` +
		`"active":true,"score":{"$numberDouble":"98.25"},"visits":{"$numberLong":"12345678901"},"notes":"Wrote the first program \u2014 for the Analytical Engine."}`,
}

// BenchmarkDecode reads the same documents with ejson and with the driver's
// bson.UnmarshalExtJSON, side by side (compare with benchstat).
func BenchmarkDecode(b *testing.B) {
	for _, c := range []struct {
		mode string
		src  []byte
	}{{"relaxed", []byte(benchDocs[0])}, {"canonical", []byte(benchDocs[1])}} {
		b.Run("mode="+c.mode+"/impl=ejson", func(b *testing.B) {
			var d Decoder
			buf := make([]byte, 0, 1024)
			b.ReportAllocs()
			b.SetBytes(int64(len(c.src)))
			for b.Loop() {
				var err error
				if buf, err = d.AppendDocument(buf[:0], c.src); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("mode="+c.mode+"/impl=driver", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.src)))
			for b.Loop() {
				var raw bson.Raw
				if err := bson.UnmarshalExtJSON(c.src, false, &raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

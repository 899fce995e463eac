package query

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkIn matches 1,000 documents against an $in of 1,000 values:
// integers, found by a binary search of the sorted values, beside the same
// numbers as doubles, which are tried one after the other (as every value
// was before).
func BenchmarkIn(b *testing.B) {
	for _, kind := range []string{"int64", "double"} {
		b.Run(kind, func(b *testing.B) {
			vals := make([]string, 1000)
			for i := range vals {
				vals[i] = fmt.Sprintf(`{"$numberLong": "%d"}`, i*3)
				if kind == "double" {
					vals[i] = fmt.Sprintf(`{"$numberDouble": "%d.0"}`, i*3)
				}
			}
			f, err := Compile(ext(b, `{"a": {"$in": [`+strings.Join(vals, ", ")+`]}}`), nil)
			if err != nil {
				b.Fatal(err)
			}
			docs := make([][]byte, 1000)
			for i := range docs {
				docs[i] = ext(b, fmt.Sprintf(`{"a": %d}`, i))
			}
			for b.Loop() {
				n := 0
				for _, d := range docs {
					if f.Match(d) {
						n++
					}
				}
				if n != 334 {
					b.Fatal(n)
				}
			}
		})
	}
}

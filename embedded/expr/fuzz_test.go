package expr

import (
	"math/rand/v2"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// FuzzArrayStringExprs compiles and evaluates the array, set and string
// operators on random arguments and documents: errors are fine, panics
// and hangs are not.
func FuzzArrayStringExprs(f *testing.F) {
	for _, s := range []uint64{1, 2, 3, 42, 1 << 40} {
		f.Add(s, s*7)
	}
	ops := []string{"$reduce", "$range", "$zip", "$indexOfArray", "$reverseArray", "$sortArray", "$slice",
		"$firstN", "$lastN", "$maxN", "$minN", "$allElementsTrue", "$anyElementTrue",
		"$setUnion", "$setIntersection", "$setDifference", "$setEquals", "$setIsSubset",
		"$trim", "$ltrim", "$rtrim", "$indexOfBytes", "$indexOfCP", "$strcasecmp", "$replaceOne", "$replaceAll",
		"$regexMatch", "$regexFind", "$regexFindAll"}
	keys := []string{"input", "initialValue", "in", "inputs", "useLongestLength", "defaults", "sortBy", "n",
		"chars", "find", "replacement", "regex", "options", "a"}
	f.Fuzz(func(t *testing.T, seed1, seed2 uint64) {
		r := rand.New(rand.NewPCG(seed1, seed2))
		var value func(depth int) any
		value = func(depth int) any {
			switch r.IntN(14) {
			case 0:
				return nil
			case 1:
				return int32(r.IntN(7) - 2)
			case 2:
				return int64(r.IntN(1<<20)) - 1<<19
			case 3:
				return []float64{0, 1.5, -1, 2, 1e300}[r.IntN(5)]
			case 4:
				return []string{"", "a", "abc", "é日本", " \u00a0x\u3000", "a.b", "(a)|(b)", "[", "x*", "\xff", "AbC"}[r.IntN(11)]
			case 5:
				return []string{"$a", "$b", "$$this", "$$value", "$c.d"}[r.IntN(5)]
			case 6:
				return r.IntN(2) == 0
			case 7:
				return bson.Regex{Pattern: []string{"a", "(b)?c", "^$", "."}[r.IntN(4)], Options: []string{"", "i", "mx", "z"}[r.IntN(4)]}
			case 8:
				return []string{"i", "msx", "u", "q", ""}[r.IntN(5)]
			}
			if depth > 2 {
				return int32(1)
			}
			if r.IntN(2) == 0 {
				var a bson.A
				for i := r.IntN(4); i > 0; i-- {
					a = append(a, value(depth+1))
				}
				return a
			}
			var d bson.D
			for i := r.IntN(4); i > 0; i-- {
				k := keys[r.IntN(len(keys))]
				if r.IntN(3) == 0 {
					k = ops[r.IntN(len(ops))]
				}
				d = append(d, bson.E{Key: k, Value: value(depth + 1)})
			}
			return d
		}
		for i := 0; i < 8; i++ {
			o := ops[r.IntN(len(ops))]
			spec, err := bson.Marshal(bson.D{{Key: o, Value: value(0)}})
			if err != nil {
				continue
			}
			docb, err := bson.Marshal(bson.D{{Key: "a", Value: value(0)}, {Key: "b", Value: value(0)}, {Key: "c", Value: value(0)}})
			if err != nil {
				continue
			}
			e, err := Compile(bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: spec}, nil)
			if err != nil {
				continue
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, _ = e.Eval(docb, nil)
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("%s on %s did not finish", bson.Raw(spec), bson.Raw(docb))
			}
		}
	})
}

package seed

import (
	"encoding/json"
	"strings"
	"sync"

	"github.com/brianvoe/gofakeit/v7"
)

const shapePool = "$pool"

// maxPool bounds the values of a $pool.
const maxPool = 1 << 16

// pool is a $pool shape's values: Size values of its element, made once,
// value r's own draw from the stratum perm(r) of [0, 1) so that the values
// follow the element's distribution, and their cumulative weights by rank
// (Weights: the mean weight of each of len(Weights) equal parts of the
// values, ranked ascending, as a reference's perTarget).
type pool struct {
	size    int
	weights []float64
	once    sync.Once
	vals    []any
	cum     []float64
}

// parsePool reads {"$pool": ELEMENT, "$size": N, "$weights": [...]}.
func (p *tparser) parsePool(path string, s *tshape, fields map[string]json.RawMessage, bad func(string, ...any) error) error {
	n, err := p.sub(path+".$pool", fields[shapePool])
	if err != nil {
		return err
	}
	s.elem = n
	pl := &pool{}
	if err := json.Unmarshal(fields["$size"], &pl.size); err != nil || pl.size < 1 || pl.size > maxPool {
		return bad("$size %s: expected a number of values from 1 to %d", fields["$size"], maxPool)
	}
	if raw, ok := fields["$weights"]; ok {
		if err := json.Unmarshal(raw, &pl.weights); err != nil {
			return bad("$weights %s: expected a list of numbers", raw)
		}
		if err := checkShares(pl.weights); err != nil {
			return bad("$weights: %v", err)
		}
	}
	s.pool = pl
	return nil
}

// values makes the pool's values and weights on first use.
func (pl *pool) values(s *tshape, sb *strings.Builder) ([]any, []float64) {
	pl.once.Do(func() {
		key := hashString(string(s.raw))
		perm := newShuffle(uint64(pl.size), key)
		total := 0.0
		for r := range pl.size {
			f := gofakeit.New(derive(key, tagStrata, int64(r)))
			u := (float64(perm.index(uint64(r))) + 0.5) / float64(pl.size)
			if s.elem.kind == tShape {
				pl.vals = append(pl.vals, s.elem.shape.buildWith(f, int64(r), sb, firstThen(u, f), nil))
			} else {
				pl.vals = append(pl.vals, s.elem.build(f, int64(r), sb))
			}
			w := 1.0
			if len(pl.weights) > 0 {
				w = pl.weights[r*len(pl.weights)/pl.size]
			}
			total += w
			pl.cum = append(pl.cum, total)
		}
	})
	return pl.vals, pl.cum
}

// pick is the value for a draw u of [0, 1).
func (pl *pool) pick(s *tshape, u float64, sb *strings.Builder) any {
	vals, cum := pl.values(s, sb)
	if cum[len(cum)-1] <= 0 {
		return vals[0]
	}
	return vals[firstAbove(cum, u*cum[len(cum)-1])]
}

package seed

import (
	"math"
	"slices"
	"strings"

	"github.com/brianvoe/gofakeit/v7"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/oid"
)

// quantile draws from the piecewise linear quantile function through q.
func quantile(q []float64, u float64) float64 {
	if len(q) == 1 {
		return q[0]
	}
	pos := u * float64(len(q)-1)
	k := int(pos)
	if k >= len(q)-1 {
		return q[len(q)-1]
	}
	return q[k] + (q[k+1]-q[k])*(pos-float64(k))
}

// build is the shape's value for document i: a value, or missingValue.
func (s *tshape) build(f *gofakeit.Faker, i int64, sb *strings.Builder) any {
	return s.buildWith(f, i, sb, f.Float64, nil)
}

// buildWith is build with the shape's own draw (the choice of a mix, the
// number, date, time, string length or array length) taken from u and,
// when el is set, the own draw of an array's element j from el (strata.el).
func (s *tshape) buildWith(f *gofakeit.Faker, i int64, sb *strings.Builder, u func() float64, el func(j int, r reach) float64) any {
	switch s.op {
	case shapeMix:
		// The option's own draw is where u fell within the option's
		// part of [0, 1): uniform again, and stratified when u is.
		x := u() * s.cum[len(s.cum)-1]
		k := firstAbove(s.cum, x)
		if s.missing[k] {
			return missingValue{}
		}
		if o := s.options[k]; o.kind == tShape {
			before := 0.0
			if k > 0 {
				before = s.cum[k-1]
			}
			return o.shape.buildWith(f, i, sb, firstThen(min(max((x-before)/(s.cum[k]-before), 0), math.Nextafter(1, 0)), f), el)
		}
		return s.options[k].build(f, i, sb)
	case shapeNumber:
		x := quantile(s.q, u())
		switch s.typ {
		case "int":
			return int32(math.Round(x))
		case "long":
			return int64(math.Round(x))
		case "cents":
			return math.Round(x*100) / 100
		}
		return x
	case shapeDate:
		return bson.DateTime(math.Round(quantile(s.q, u())))
	case shapeObjectID:
		sec := uint32(math.Floor(quantile(s.q, u()) / 1000))
		return bson.ObjectID(oid.FromParts(sec, f.Uint64()&(1<<40-1), uint32(f.Uint64())))
	case shapeString:
		return s.text(f, i, int(math.Round(quantile(s.q, u()))))
	case shapePool:
		return s.pool.pick(s, u(), sb)
	case shapeArray:
		ul := u()
		n := s.lengths[firstAbove(s.cum, ul*s.cum[len(s.cum)-1])]
		a := make(bson.A, 0, n)
		for j := range n {
			var v any
			if el != nil && s.elem.kind == tShape {
				v = s.elem.shape.buildWith(f, i, sb, firstThen(el(j, s.reach(j, ul)), f), nil)
			} else {
				v = s.elem.build(f, i, sb)
			}
			if v != (missingValue{}) {
				a = append(a, v)
			}
		}
		return a
	}
	return nil
}

// reach is where an array's length draw ul fell among the arrays that reach
// element j (hold more than j elements): at t of them, a share of them all;
// ok is false when the lengths are not ascending, so that those arrays are
// not the top part of the draws.
type reach struct {
	t, share float64
	ok       bool
}

func (s *tshape) reach(j int, ul float64) reach {
	if !slices.IsSorted(s.lengths) {
		return reach{}
	}
	total := s.cum[len(s.cum)-1]
	below := 0.0 // the weight of the lengths of at most j elements
	for k, l := range s.lengths {
		if l <= j {
			below = s.cum[k]
		}
	}
	c := below / total
	if c >= 1 {
		return reach{}
	}
	return reach{t: min(max((ul-c)/(1-c), 0), math.Nextafter(1, 0)), share: 1 - c, ok: true}
}

package pipeline

import (
	"math"
	"math/bits"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// The preferred number series of $bucketAuto's granularity: the Renard
// series R5 to R80, 1-2-5 and the E series E6 to E192, each one decade of
// the series written as integers; the series repeats in every power of
// ten (R80's decade runs from 1.03 to 9.75, so 10.3 is its next value
// after 9.75).
var preferredSeries = map[string][]float64{
	"R5":  {10, 16, 25, 40, 63},
	"R10": {100, 125, 160, 200, 250, 315, 400, 500, 630, 800},
	"R20": {100, 112, 125, 140, 160, 180, 200, 224, 250, 280, 315, 355, 400, 450, 500, 560, 630, 710, 800, 900},
	"R40": {100, 106, 112, 118, 125, 132, 140, 150, 160, 170, 180, 190, 200, 212, 224, 236, 250, 265, 280, 300,
		315, 355, 375, 400, 425, 450, 475, 500, 530, 560, 600, 630, 670, 710, 750, 800, 850, 900, 950},
	"R80": {103, 109, 115, 122, 128, 136, 145, 155, 165, 175, 185, 195, 206, 218, 230, 243, 258, 272, 290, 307,
		325, 345, 365, 387, 412, 437, 462, 487, 515, 545, 575, 615, 650, 690, 730, 775, 825, 875, 925, 975},
	"1-2-5": {10, 20, 50},
	"E6":    {10, 15, 22, 33, 47, 68},
	"E12":   {10, 12, 15, 18, 22, 27, 33, 39, 47, 56, 68, 82},
	"E24":   {10, 11, 12, 13, 15, 16, 18, 20, 22, 24, 27, 30, 33, 36, 39, 43, 47, 51, 56, 62, 68, 75, 82, 91},
	"E48": {100, 105, 110, 115, 121, 127, 133, 140, 147, 154, 162, 169, 178, 187, 196, 205, 215, 226, 237, 249,
		261, 274, 287, 301, 316, 332, 348, 365, 383, 402, 422, 442, 464, 487, 511, 536, 562, 590, 619, 649,
		681, 715, 750, 787, 825, 866, 909, 953},
	"E96": {100, 102, 105, 107, 110, 113, 115, 118, 121, 124, 127, 130, 133, 137, 140, 143, 147, 150, 154, 158,
		162, 165, 169, 174, 178, 182, 187, 191, 196, 200, 205, 210, 215, 221, 226, 232, 237, 243, 249, 255,
		261, 267, 274, 280, 287, 294, 301, 309, 316, 324, 332, 340, 348, 357, 365, 374, 383, 392, 402, 412,
		422, 432, 442, 453, 464, 475, 487, 499, 511, 523, 536, 549, 562, 576, 590, 604, 619, 634, 649, 665,
		681, 698, 715, 732, 750, 768, 787, 806, 825, 845, 866, 887, 909, 931, 953, 976},
	"E192": {100, 101, 102, 104, 105, 106, 107, 109, 110, 111, 113, 114, 115, 117, 118, 120, 121, 123, 124, 126,
		127, 129, 130, 132, 133, 135, 137, 138, 140, 142, 143, 145, 147, 149, 150, 152, 154, 156, 158, 160,
		162, 164, 165, 167, 169, 172, 174, 176, 178, 180, 182, 184, 187, 189, 191, 193, 196, 198, 200, 203,
		205, 208, 210, 213, 215, 218, 221, 223, 226, 229, 232, 234, 237, 240, 243, 246, 249, 252, 255, 258,
		261, 264, 267, 271, 274, 277, 280, 284, 287, 291, 294, 298, 301, 305, 309, 312, 316, 320, 324, 328,
		332, 336, 340, 344, 348, 352, 357, 361, 365, 370, 374, 379, 383, 388, 392, 397, 402, 407, 412, 417,
		422, 427, 432, 437, 442, 448, 453, 459, 464, 470, 475, 481, 487, 493, 499, 505, 511, 517, 523, 530,
		536, 542, 549, 556, 562, 569, 576, 583, 590, 597, 604, 612, 619, 626, 634, 642, 649, 657, 665, 673,
		681, 690, 698, 706, 715, 723, 732, 741, 750, 759, 768, 777, 787, 796, 806, 816, 825, 835, 845, 856,
		866, 876, 887, 898, 909, 920, 931, 942, 953, 965, 976, 988},
}

// rounder rounds a non-negative number up to the next value of a
// granularity (strictly greater) or down to the previous one (strictly
// less); 0 stays 0.
type rounder func(v bsoncore.Value, up bool) (bsoncore.Value, error)

func granularityRounder(name string) (rounder, bool) {
	round := roundPowerOf2
	if name != "POWERSOF2" {
		series, ok := preferredSeries[name]
		if !ok {
			return nil, false
		}
		round = func(v bsoncore.Value, up bool) (bsoncore.Value, error) {
			r := roundSeriesDown(series, bsonval.NumberFloat(v))
			if up {
				r = roundSeriesUp(series, bsonval.NumberFloat(v))
			}
			if v.Type == bsoncore.TypeDecimal128 {
				d, _ := bson.ParseDecimal128(strconv.FormatFloat(r, 'g', 15, 64))
				return bsonval.Decimal(d), nil
			}
			return bsonval.Double(r), nil
		}
	}
	return func(v bsoncore.Value, up bool) (bsoncore.Value, error) {
		x := bsonval.NumberFloat(v)
		switch {
		case x == 0:
			return v, nil
		case math.IsInf(x, 0):
			return bsonval.Missing, mongoerr.New(mongoerr.Location(11785400), "A granularity rounder cannot round an infinite value")
		}
		return round(v, up)
	}, true
}

// roundSeriesUp scales the series by powers of ten until x falls within
// a decade of it, then takes the first value above x.
func roundSeriesUp(series []float64, x float64) float64 {
	first, last := series[0], series[len(series)-1]
	mult := 1.0
	for x >= last*mult {
		mult *= 10
	}
	for x < first*mult {
		prevMin := first * mult
		mult /= 10
		if x >= last*mult || mult == 0 {
			return prevMin // between two decades: the next one's first value
		}
	}
	for _, s := range series {
		if x < s*mult {
			return s * mult
		}
	}
	return last * mult
}

// roundSeriesDown is roundSeriesUp's mirror: the last value below x.
func roundSeriesDown(series []float64, x float64) float64 {
	first, last := series[0], series[len(series)-1]
	mult := 1.0
	for x <= first*mult {
		mult /= 10
		if mult == 0 {
			return 0 // below the smallest double the series reaches
		}
	}
	for x > last*mult {
		prevMax := last * mult
		mult *= 10
		if x <= first*mult {
			return prevMax
		}
	}
	for j := len(series) - 1; j >= 0; j-- {
		if series[j]*mult < x {
			return series[j] * mult
		}
	}
	return first * mult
}

// roundPowerOf2 rounds to a power of two: 2 to an integer power, which is
// an integer for a non-negative power (as $pow gives it) and a double
// otherwise; a decimal for a decimal.
func roundPowerOf2(v bsoncore.Value, up bool) (bsoncore.Value, error) {
	x := bsonval.NumberFloat(v)
	var exp int
	if n, ok := bsonval.IntOf(v); ok {
		lz := bits.LeadingZeros64(uint64(n))
		switch {
		case up:
			exp = 64 - lz
		case bits.OnesCount64(uint64(n)) == 1:
			exp = 62 - lz
		default:
			exp = 63 - lz
		}
	} else if up {
		exp = int(math.Floor(math.Log2(x))) + 1
	} else {
		exp = int(math.Ceil(math.Log2(x))) - 1
	}
	p := math.Ldexp(1, exp)
	switch {
	case v.Type == bsoncore.TypeDecimal128:
		d, _ := bson.ParseDecimal128(strconv.FormatFloat(p, 'g', -1, 64))
		return bsonval.Decimal(d), nil
	case exp >= 0 && exp <= 62:
		return bsonval.Int(int64(1) << exp), nil
	}
	return bsonval.Double(p), nil
}

package seed

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/brianvoe/gofakeit/v7"
)

// oidkit's own template placeholders, which take precedence over gofakeit
// functions of the same name:
//
//	{weighted:[a,b,c],[3,1,1]}   a, b or c with probabilities 3/5, 1/5, 1/5
//	{normal:mean,stddev}         a float64 from the normal distribution
//	{normal:mean,stddev,min,max} the same, clamped to [min, max]
//	{normalint:mean,stddev[,min,max]} the same, rounded to an integer
//	{zipf:s,v,imax}              an integer k in [0, imax] with probability
//	                             proportional to (v+k)^-s (s > 1, v >= 1)
//
// Options of weighted are bare text (no comma, bracket or quote; spaces
// around are dropped) or JSON strings ("a, b"). As a whole string value, a
// weighted placeholder whose options are all bare integers becomes an
// integer, all bare numbers a float64, all true/false a boolean; normalint
// and zipf become integers and normal a float64.
const (
	genWeighted = "weighted"
	genNormal   = "normal"
	genNormInt  = "normalint"
	genZipf     = "zipf"
)

// maxExact bounds the integers normalint and zipf give: 2^53, below which
// every integer is a float64.
const maxExact = 1 << 53

// tgen is a parsed own placeholder.
type tgen struct {
	kind  string
	typed string // "int", "float", "bool" or "" (string)
	// weighted
	texts []string
	vals  []any
	cum   []float64
	// normal, normalint
	mean, sd, lo, hi float64
	// zipf
	zipf *zipfDist
}

func isOwnPlaceholder(body string) bool {
	name, _, _ := strings.Cut(body, ":")
	switch name {
	case genWeighted, genNormal, genNormInt, genZipf:
		return true
	}
	return false
}

// parseOwn parses the body of an own placeholder (without braces).
func parseOwn(body string) (*tgen, error) {
	name, params, ok := strings.Cut(body, ":")
	g := &tgen{kind: name}
	usage := map[string]string{
		genWeighted: "{weighted:[a,b,c],[3,1,1]}",
		genNormal:   "{normal:mean,stddev} or {normal:mean,stddev,min,max}",
		genNormInt:  "{normalint:mean,stddev} or {normalint:mean,stddev,min,max}",
		genZipf:     "{zipf:s,v,imax}",
	}[name]
	if !ok {
		return nil, fmt.Errorf("no parameters: expected %s", usage)
	}
	var err error
	switch name {
	case genWeighted:
		err = g.parseWeighted(params)
	case genNormal, genNormInt:
		err = g.parseNormal(params)
	case genZipf:
		err = g.parseZipf(params)
	}
	if err != nil {
		return nil, fmt.Errorf("%v (expected %s)", err, usage)
	}
	return g, nil
}

func (g *tgen) parseWeighted(params string) error {
	rest := strings.TrimSpace(params)
	opts, quoted, rest, err := parseList(rest, "options")
	if err != nil {
		return err
	}
	rest = strings.TrimSpace(rest)
	if !strings.HasPrefix(rest, ",") {
		return errors.New("expected a list of options, a comma and a list of weights")
	}
	weights, _, rest, err := parseList(strings.TrimSpace(rest[1:]), "weights")
	if err != nil {
		return err
	}
	if strings.TrimSpace(rest) != "" {
		return fmt.Errorf("unexpected %q after the weights", strings.TrimSpace(rest))
	}
	if len(opts) != len(weights) {
		return fmt.Errorf("%d options but %d weights: expected one weight per option", len(opts), len(weights))
	}
	total := 0.0
	for k, w := range weights {
		v, err := strconv.ParseFloat(w, 64)
		switch {
		case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
			return fmt.Errorf("weight %q: expected a finite number", w)
		case v <= 0:
			return fmt.Errorf("weight %q of option %q: expected a number above 0", w, opts[k])
		}
		total += v
		if math.IsInf(total, 0) {
			return fmt.Errorf("weights add up to more than %g", math.MaxFloat64)
		}
		g.cum = append(g.cum, total)
	}
	g.texts = opts
	g.typed = commonKind(opts, quoted)
	for _, o := range opts {
		v, _ := typedValue(g.typed, o)
		g.vals = append(g.vals, v)
	}
	return nil
}

// commonKind is the BSON kind every option has when all are bare: "int",
// "float", "bool", else "" (strings).
func commonKind(opts []string, quoted bool) string {
	if quoted {
		return ""
	}
	for _, kind := range []string{"int", "float", "bool"} {
		all := true
		for _, o := range opts {
			_, err := typedValue(kind, o)
			if err != nil || (kind == "int" && !isDecimalInt(o)) || (kind == "bool" && o != "true" && o != "false") {
				all = false
				break
			}
		}
		if all {
			return kind
		}
	}
	return ""
}

// isDecimalInt reports whether s is an integer that fits int64 (typedValue
// also takes larger ones, as float64).
func isDecimalInt(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

// parseList reads "[item, item, ...]" at the start of s and returns the
// items, whether any was a JSON string, and what follows the list.
func parseList(s, what string) (items []string, quoted bool, rest string, err error) {
	if !strings.HasPrefix(s, "[") {
		return nil, false, s, fmt.Errorf("%s: expected a list in brackets such as [a,b,c]", what)
	}
	s = s[1:]
	for {
		s = strings.TrimLeft(s, " ")
		var item string
		if strings.HasPrefix(s, `"`) {
			end := jsonStringEnd(s)
			if end < 0 {
				return nil, false, s, fmt.Errorf("%s: unterminated string %s", what, s)
			}
			if err := json.Unmarshal([]byte(s[:end]), &item); err != nil {
				return nil, false, s, fmt.Errorf("%s: string %s: %v", what, s[:end], err)
			}
			quoted = true
			s = s[end:]
		} else {
			end := strings.IndexAny(s, ",]\"[")
			if end < 0 {
				return nil, false, s, fmt.Errorf("%s: missing ]", what)
			}
			item = strings.TrimSpace(s[:end])
			if s[end] == '"' || s[end] == '[' {
				return nil, false, s, fmt.Errorf("%s: item %q: a quote or [ inside an item: expected a JSON string such as \"a [b]\"", what, s[:end+1])
			}
			if item == "" {
				return nil, false, s, fmt.Errorf("%s: empty item: expected text or a JSON string such as \"\"", what)
			}
			s = s[end:]
		}
		items = append(items, item)
		s = strings.TrimLeft(s, " ")
		switch {
		case strings.HasPrefix(s, ","):
			s = s[1:]
		case strings.HasPrefix(s, "]"):
			return items, quoted, s[1:], nil
		default:
			return nil, false, s, fmt.Errorf("%s: expected , or ] after %q", what, item)
		}
	}
}

// jsonStringEnd is the index after the closing quote of the JSON string at
// the start of s, or -1.
func jsonStringEnd(s string) int {
	for k := 1; k < len(s); k++ {
		switch s[k] {
		case '\\':
			k++
		case '"':
			return k + 1
		}
	}
	return -1
}

// parseNumbers reads n comma-separated finite numbers named names.
func parseNumbers(params string, names ...string) ([]float64, error) {
	fields := strings.Split(params, ",")
	if len(fields) != len(names) {
		return nil, fmt.Errorf("%d parameters: expected %d (%s)", len(fields), len(names), strings.Join(names, ", "))
	}
	out := make([]float64, len(fields))
	for k, f := range fields {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s %q: expected a finite number", names[k], strings.TrimSpace(f))
		}
		out[k] = v
	}
	return out, nil
}

func (g *tgen) parseNormal(params string) error {
	names := []string{"mean", "stddev"}
	switch strings.Count(params, ",") {
	case 1:
	case 3:
		names = append(names, "min", "max")
	default:
		return fmt.Errorf("%d parameters: expected 2 (mean, stddev) or 4 (mean, stddev, min, max)", strings.Count(params, ",")+1)
	}
	v, err := parseNumbers(params, names...)
	if err != nil {
		return err
	}
	g.mean, g.sd = v[0], v[1]
	g.lo, g.hi = math.Inf(-1), math.Inf(1)
	if len(v) == 4 {
		g.lo, g.hi = v[2], v[3]
	}
	limit := math.MaxFloat64
	g.typed = "float"
	if g.kind == genNormInt {
		limit, g.typed = maxExact, "int"
		g.lo, g.hi = math.Max(math.Ceil(g.lo), -maxExact), math.Min(math.Floor(g.hi), maxExact)
	}
	switch {
	case g.sd < 0:
		return fmt.Errorf("stddev %v: expected a number >= 0", g.sd)
	case g.lo > g.hi && g.kind == genNormInt:
		return fmt.Errorf("min %v max %v: expected an integer between them", v[2], v[3])
	case g.lo > g.hi:
		return fmt.Errorf("min %v is above max %v: expected min <= max", g.lo, g.hi)
	case len(v) == 2 && !(math.Abs(g.mean)+9*g.sd <= limit):
		// Box-Muller's deviates stay within 9 standard deviations.
		return fmt.Errorf("mean %v stddev %v: values could exceed %g; expected smaller ones, or min and max", g.mean, g.sd, limit)
	case len(v) == 4 && math.IsInf(math.Abs(g.mean)+9*g.sd, 0):
		return fmt.Errorf("mean %v stddev %v: values could overflow; expected smaller ones", g.mean, g.sd)
	}
	return nil
}

func (g *tgen) parseZipf(params string) error {
	v, err := parseNumbers(params, "s", "v", "imax")
	if err != nil {
		return err
	}
	s, vv, imax := v[0], v[1], v[2]
	switch {
	case !(s > 1):
		return fmt.Errorf("s %v: expected a number above 1", s)
	case !(vv >= 1):
		return fmt.Errorf("v %v: expected a number >= 1", vv)
	case imax < 0 || imax > maxExact || imax != math.Trunc(imax):
		return fmt.Errorf("imax %v: expected an integer from 0 to %d", imax, int64(maxExact))
	}
	g.zipf = newZipf(s, vv, uint64(imax))
	g.typed = "int"
	return nil
}

// draw is the placeholder's next value as a float64 (normal, normalint,
// zipf) or the index of an option (weighted).
func (g *tgen) draw(f *gofakeit.Faker) (float64, int) {
	switch g.kind {
	case genWeighted:
		return 0, weightedIndex(g.cum, f.Float64)
	case genZipf:
		return float64(g.zipf.draw(f.Float64)), 0
	}
	x := normal(g.mean, g.sd, f.Float64)
	if g.kind == genNormInt {
		x = math.Round(x)
	}
	return math.Min(math.Max(x, g.lo), g.hi), 0
}

// value is the placeholder as a whole string value: typed as g.typed.
func (g *tgen) value(f *gofakeit.Faker) any {
	x, k := g.draw(f)
	switch {
	case g.kind == genWeighted:
		return g.vals[k]
	case g.typed == "int":
		return intValue(int64(x))
	}
	return x
}

// appendText writes the placeholder's next value as text.
func (g *tgen) appendText(sb *strings.Builder, f *gofakeit.Faker) {
	x, k := g.draw(f)
	switch {
	case g.kind == genWeighted:
		sb.WriteString(g.texts[k])
	case g.typed == "int":
		sb.WriteString(strconv.FormatInt(int64(x), 10))
	default:
		sb.WriteString(strconv.FormatFloat(x, 'f', -1, 64))
	}
}

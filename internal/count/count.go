// Package count owns counts as people write them on a command line
// (1000, 10k, 1.5k, 1M, 1e6) and the flag type that reads them.
package count

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v2"
)

// Expected is what every count flag says it expected.
const Expected = "a whole number such as 10, 50k, 1.5k, 1M or 1e6"

// countForm is the shape of a count: digits with an optional fraction and
// exponent, then an optional suffix k (thousand) or M (million). A sign is
// allowed so that each command's own range check names a negative count.
var countForm = regexp.MustCompile(`^([+-]?[0-9]+(?:\.[0-9]+)?(?:[eE]\+?[0-9]{1,2})?)([kM]?)$`)

// Parse reads a count as people write it: 1000, 10k, 1.5k (1500), 1M,
// 1e6. The value must be a whole number that fits in an int64: 1.2345k
// (1234.5) and 1.5 are refused, as is a lower-case m (milli or mega?).
func Parse(s string) (int64, error) {
	m := countForm.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, errors.New("not a number")
	}
	num, suffix := m[1], m[2]
	if suffix == "" && !strings.ContainsAny(num, ".eE") {
		v, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("above %d", int64(math.MaxInt64))
		}
		return v, nil
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return 0, errors.New("not a number")
	}
	switch suffix {
	case "k":
		r.Mul(r, big.NewRat(1_000, 1))
	case "M":
		r.Mul(r, big.NewRat(1_000_000, 1))
	}
	if !r.IsInt() {
		f, _ := r.Float64()
		if v := strconv.FormatFloat(f, 'f', -1, 64); v != m[0] {
			return 0, fmt.Errorf("%s is %s, not a whole number", m[0], v)
		}
		return 0, errors.New("not a whole number")
	}
	if !r.Num().IsInt64() {
		return 0, fmt.Errorf("above %d", int64(math.MaxInt64))
	}
	return r.Num().Int64(), nil
}

// value is the flag.Value of a count flag. String is the count in
// decimal, so the CLI library's Int and Int64 getters read it.
type value struct{ n int64 }

func (v *value) Set(s string) error {
	n, err := Parse(s)
	if err != nil {
		return err
	}
	v.n = n
	return nil
}

func (v *value) String() string { return strconv.FormatInt(v.n, 10) }

// Flag is a flag that holds a count, read with c.Int or c.Int64.
// Every count flag of every command is one, so that all of them read counts
// with Parse.
type Flag struct {
	ucli.GenericFlag
	def int64
}

// Apply starts every run from the default: the flag's value is shared by the
// runs of one app.
func (f *Flag) Apply(set *flag.FlagSet) error {
	f.Value = &value{n: f.def}
	return f.GenericFlag.Apply(set)
}

// NewFlag is a count flag named name with default def.
func NewFlag(name string, def int64, usage string) *Flag {
	return &Flag{GenericFlag: ucli.GenericFlag{Name: name, Value: &value{n: def}, Usage: usage}, def: def}
}

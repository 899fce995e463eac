package seed

// The template parser: JSON text to a tree of literal and placeholder
// nodes, with every placeholder checked.

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/brianvoe/gofakeit/v7"
)

type tparser struct {
	dec      *json.Decoder
	name     string
	probe    *gofakeit.Faker
	unstable []string
	paths    []string
}

func (p *tparser) errf(path, format string, args ...any) error {
	return &TemplateError{Name: p.name, Path: path, Err: fmt.Errorf(format, args...)}
}

func (p *tparser) object(path string) (*tnode, error) {
	n := &tnode{kind: tObject}
	seen := map[string]bool{}
	for p.dec.More() {
		tok, err := p.dec.Token()
		if err != nil {
			return nil, p.errf(path, "%v", err)
		}
		key, _ := tok.(string)
		kpath := path + "." + key
		if len(n.keys) == 0 && isShapeKey(key) {
			return p.shape(path, key)
		}
		if seen[key] {
			return nil, p.errf(kpath, "duplicate key %q", key)
		}
		if key == "" || strings.HasPrefix(key, "$") || strings.ContainsRune(key, 0) {
			return nil, p.errf(kpath, "field name %q: expected a name that does not start with $", key)
		}
		seen[key] = true
		v, err := p.value(kpath)
		if err != nil {
			return nil, err
		}
		n.keys = append(n.keys, key)
		n.children = append(n.children, v)
	}
	if _, err := p.dec.Token(); err != nil {
		return nil, p.errf(path, "%v", err)
	}
	return n, nil
}

func (p *tparser) array(path string) (*tnode, error) {
	n := &tnode{kind: tArray}
	for i := 0; p.dec.More(); i++ {
		v, err := p.value(fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			return nil, err
		}
		n.children = append(n.children, v)
	}
	if _, err := p.dec.Token(); err != nil {
		return nil, p.errf(path, "%v", err)
	}
	return n, nil
}

func (p *tparser) value(path string) (*tnode, error) {
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.errf(path, "%v", err)
	}
	switch v := tok.(type) {
	case json.Delim:
		if v == '{' {
			return p.object(path)
		}
		return p.array(path)
	case string:
		return p.pattern(path, v)
	case json.Number:
		num, err := jsonNumber(v)
		if err != nil {
			return nil, p.errf(path, "%v", err)
		}
		return &tnode{kind: tConst, value: num}, nil
	case bool:
		return &tnode{kind: tConst, value: v}, nil
	case nil:
		return &tnode{kind: tConst, value: nil}, nil
	}
	return nil, p.errf(path, "unexpected %v", tok)
}

func jsonNumber(n json.Number) (any, error) {
	s := n.String()
	if !strings.ContainsAny(s, ".eE") {
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("number %s: expected an integer within 64 bits", s)
		}
		return intValue(i), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, fmt.Errorf("number %s: expected a finite float64", s)
	}
	return f, nil
}

// intValue is the smallest BSON integer that holds i, so that relaxed
// Extended JSON reads it back with the same type.
func intValue(i int64) any {
	if i >= math.MinInt32 && i <= math.MaxInt32 {
		return int32(i)
	}
	return i
}

func (p *tparser) pattern(path, s string) (*tnode, error) {
	var parts []tpart
	rest := s
	for rest != "" {
		start := strings.IndexByte(rest, '{')
		if start < 0 {
			parts = append(parts, tpart{lit: rest})
			break
		}
		if start > 0 {
			parts = append(parts, tpart{lit: rest[:start]})
		}
		end, depth := -1, 0
		for j := start; j < len(rest); j++ {
			if rest[j] == '{' {
				depth++
			} else if rest[j] == '}' {
				depth--
				if depth == 0 {
					end = j
					break
				}
			}
		}
		if end < 0 {
			return nil, p.errf(path, "%q: unclosed placeholder %q: expected {name} or {name:params}", s, rest[start:])
		}
		body := rest[start+1 : end]
		switch {
		case body == "":
			parts = append(parts, tpart{lit: "{}"})
		case body == "index":
			parts = append(parts, tpart{index: true})
		case isOwnPlaceholder(body):
			g, err := parseOwn(body)
			if err != nil {
				return nil, p.errf(path, "%q: placeholder {%s}: %v", s, body, err)
			}
			parts = append(parts, tpart{ph: "{" + body + "}", gen: g})
		default:
			before := len(p.unstable)
			if err := p.checkPlaceholder(body); err != nil {
				return nil, p.errf(path, "%q: placeholder {%s}: %v", s, body, err)
			}
			if len(p.unstable) > before {
				p.paths = append(p.paths, path)
			}
			parts = append(parts, tpart{ph: "{" + body + "}"})
		}
		rest = rest[end+1:]
	}
	if len(parts) == 0 {
		return &tnode{kind: tConst, value: ""}, nil
	}
	if len(parts) == 1 && parts[0].ph == "" && !parts[0].index {
		return &tnode{kind: tConst, value: parts[0].lit}, nil
	}
	n := &tnode{kind: tPattern, parts: parts}
	if len(parts) == 1 {
		if parts[0].index {
			n.typed = "int"
		} else if parts[0].gen != nil {
			n.typed = parts[0].gen.typed
		} else {
			name, _, _ := strings.Cut(strings.Trim(parts[0].ph, "{}"), ":")
			n.typed = outputKind(gofakeit.GetFuncLookup(name).Output)
		}
	}
	return n, nil
}

// outputKind maps a gofakeit output type to the BSON value kind a whole-string
// placeholder becomes.
func outputKind(out string) string {
	switch out {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32":
		return "int"
	case "float32", "float64":
		return "float"
	case "bool":
		return "bool"
	}
	return ""
}

// checkPlaceholder runs a placeholder once so that an unknown function or bad
// parameters are found at parse time.
func (p *tparser) checkPlaceholder(body string) (err error) {
	name, _, _ := strings.Cut(body, ":")
	info := gofakeit.GetFuncLookup(name)
	if info == nil {
		return fmt.Errorf("unknown function %q: expected a gofakeit function such as {firstname}, {email} or {number:1,100}, or {index}", name)
	}
	if err := checkMinMax(info, body); err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("gofakeit failed: %v", r)
		}
	}()
	out, err := p.probe.Generate("{" + body + "}")
	if err != nil {
		return err
	}
	// Two fakers with the same seed must agree, or a seeded run could not
	// be reproduced (some functions read the clock).
	a, _ := gofakeit.New(7).Generate("{" + body + "}")
	b, _ := gofakeit.New(7).Generate("{" + body + "}")
	if a != b {
		p.unstable = append(p.unstable, "{"+body+"}")
	}
	if out == "{"+body+"}" {
		return fmt.Errorf("gofakeit left it unexpanded")
	}
	if k := outputKind(info.Output); k != "" {
		if _, err := typedValue(k, out); err != nil {
			return err
		}
	}
	return nil
}

// checkMinMax refuses a range given upside down, such as {number:5,1}:
// gofakeit then returns the minimum every time, which would pass for a
// working placeholder.
func checkMinMax(info *gofakeit.Info, body string) error {
	_, params, ok := strings.Cut(body, ":")
	if !ok {
		return nil
	}
	vals := strings.Split(params, ",")
	var lo, hi float64
	var haveLo, haveHi bool
	for i, prm := range info.Params {
		if i >= len(vals) {
			break
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(vals[i]), 64)
		if err != nil {
			continue
		}
		switch prm.Field {
		case "min":
			lo, haveLo = v, true
		case "max":
			hi, haveHi = v, true
		}
	}
	if haveLo && haveHi && lo > hi {
		return fmt.Errorf("min %v is above max %v: expected min <= max", lo, hi)
	}
	return nil
}

func typedValue(kind, s string) (any, error) {
	switch kind {
	case "int":
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			u, uerr := strconv.ParseUint(s, 10, 64)
			if uerr != nil {
				return nil, fmt.Errorf("value %q: expected an integer", s)
			}
			return float64(u), nil
		}
		return intValue(i), nil
	case "float":
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("value %q: expected a finite number", s)
		}
		return f, nil
	case "bool":
		b, err := strconv.ParseBool(s)
		if err != nil {
			return nil, fmt.Errorf("value %q: expected true or false", s)
		}
		return b, nil
	}
	return s, nil
}

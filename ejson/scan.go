package ejson

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// tokType is a JSON token: a structural character, a number, a string, a
// literal or the end of the input.
type tokType uint8

// structural are the structural characters, each at the index of its
// tokType.
const structural = "{}[]:,"

const (
	tBeginObject tokType = iota
	tEndObject
	tBeginArray
	tEndArray
	tColon
	tComma
	tInt32
	tInt64
	tDouble
	tString
	tBool
	tNull
	tEOF
)

// token is the last token scanned. s is the text of a string: a slice of
// the input when it has no escape, else of the scanner's arena.
type token struct {
	t tokType
	p int // offset of its first byte
	s []byte
	i int64
	f float64
	b bool
}

// scanner cuts the input into tokens the way the driver's scanner does:
// raw control characters and invalid UTF-8 pass through strings, \u with
// bad hex digits and a lone surrogate become U+FFFD, and a number or
// literal must be followed by , } ] white space or the end.
type scanner struct {
	src    []byte
	pos    int
	arena  []byte // unescaped strings; never grows past len(src)
	strict bool   // also refuse what RFC 8259 refuses (raw control characters, bad \u)
}

func (sc *scanner) reset(src []byte, strict bool) {
	sc.src, sc.pos, sc.strict = src, 0, strict
	// An unescaped string is never longer than its text, so slices of the
	// arena stay valid for the whole parse.
	if cap(sc.arena) < len(src) {
		sc.arena = make([]byte, 0, len(src))
	}
	sc.arena = sc.arena[:0]
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isTerminator(c byte) bool { return c == ',' || c == '}' || c == ']' || isSpace(c) }

// next scans the next token into t.
func (sc *scanner) next(t *token) error {
	src := sc.src
	for sc.pos < len(src) && isSpace(src[sc.pos]) {
		sc.pos++
	}
	if sc.pos >= len(src) {
		t.t, t.p = tEOF, sc.pos
		return nil
	}
	c := src[sc.pos]
	t.p = sc.pos
	sc.pos++
	if i := strings.IndexByte(structural, c); i >= 0 {
		t.t = tokType(i)
		return nil
	}
	switch {
	case c == '"':
		return sc.scanString(t)
	case c == '-' || isDigit(c):
		return sc.scanNumber(t)
	case c == 't' || c == 'f' || c == 'n':
		return sc.scanLiteral(t)
	}
	return &Error{Offset: t.p, Found: "the character " + quoteByte(c), Expected: "a JSON value, or { } [ ] : ,"}
}

func getu4(s []byte) rune {
	var r rune
	for _, c := range s[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// u4 reads the 4 hexadecimal digits of a \u escape at pos: -1 when they
// are not hexadecimal digits (U+FFFD for the driver; strict refuses it).
func (sc *scanner) u4(pos int) (rune, error) {
	src := sc.src
	if pos+4 > len(src) {
		return 0, &Error{Offset: pos - 2, Found: "\\u" + string(src[pos:]) + " at the end of the input", Expected: "\\u and 4 hexadecimal digits"}
	}
	r := getu4(src[pos:])
	if r < 0 && sc.strict {
		return 0, &Error{Offset: pos - 2, Found: "the escape \\u" + string(src[pos:pos+4]), Expected: "\\u and 4 hexadecimal digits"}
	}
	return r, nil
}

func (sc *scanner) errEndInString(start int) error {
	return &Error{Offset: start, Found: "a string not closed before the end of the input", Expected: "a closing \""}
}

// scanString reads a string whose opening quote was at t.p.
func (sc *scanner) scanString(t *token) error {
	src, start := sc.src, sc.pos
	i := start
	for i < len(src) {
		c := src[i]
		if c == '"' {
			t.t, t.s = tString, src[start:i]
			sc.pos = i + 1
			return nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 && sc.strict {
			return &Error{Offset: i, Found: "the control character " + quoteByte(c) + " in a string", Expected: "it escaped (\\u00XX), as JSON requires"}
		}
		i++
	}
	if i >= len(src) {
		return sc.errEndInString(t.p)
	}
	return sc.unescapeString(t, start, i)
}

// escapes[c] is the character \c stands for, 0 where \c is not an
// escape (\u aside).
var escapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// unescapeString reads a string that starts at start and has an escape at
// i: unescaped into the arena, from the start.
func (sc *scanner) unescapeString(t *token, start, i int) error {
	src := sc.src
	out := append(sc.arena, src[start:i]...)
	from := len(sc.arena)
	pos := i
	var c byte
	for {
		if pos >= len(src) {
			return sc.errEndInString(t.p)
		}
		c = src[pos]
		pos++
		switch c {
		case '\\':
			if pos >= len(src) {
				return sc.errEndInString(t.p)
			}
			c = src[pos]
			pos++
			switch c {
			case 'u':
				rn, err := sc.u4(pos)
				if err != nil {
					return err
				}
				pos += 4
				if utf16.IsSurrogate(rn) {
					if pos+1 >= len(src) || src[pos] != '\\' || src[pos+1] != 'u' {
						// Not followed by \u: U+FFFD, and what follows
						// is read as any other character (the end of the
						// input, an escape, a quote).
						out = utf8.AppendRune(out, utf8.RuneError)
						continue
					}
					pos += 2
					rn2, err := sc.u4(pos)
					if err != nil {
						return err
					}
					pos += 4
					out = appendPair(out, rn, rn2)
					break
				}
				out = utf8.AppendRune(out, rn)
			default:
				e := escapes[c]
				if e == 0 {
					return &Error{Offset: pos - 2, Found: "the escape \\" + string(rune(c)), Expected: "one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX"}
				}
				out = append(out, e)
			}
		case '"':
			sc.arena = out
			sc.pos = pos
			t.t, t.s = tString, out[from:]
			return nil
		default:
			if c < 0x20 && sc.strict {
				return &Error{Offset: pos - 1, Found: "the control character " + quoteByte(c) + " in a string", Expected: "it escaped (\\u00XX), as JSON requires"}
			}
			out = append(out, c)
		}
	}
}

// appendPair appends the character of the UTF-16 surrogates r1 and r2, or
// U+FFFD and r2 when they are not a pair.
func appendPair(out []byte, r1, r2 rune) []byte {
	if pair := utf16.DecodeRune(r1, r2); pair != utf8.RuneError {
		return utf8.AppendRune(out, pair)
	}
	out = utf8.AppendRune(out, utf8.RuneError)
	return utf8.AppendRune(out, r2)
}

// scanLiteral reads true, false or null, whose first byte was at t.p.
func (sc *scanner) scanLiteral(t *token) error {
	src, p := sc.src, t.p
	if p+4 > len(src) {
		return &Error{Offset: p, Found: strconv.Quote(string(src[p:])) + " at the end of the input", Expected: "true, false or null"}
	}
	lit := src[p : p+4]
	end := func(at int) bool { return at >= len(src) || isTerminator(src[at]) }
	switch {
	case string(lit) == "true" && end(p+4):
		t.t, t.b = tBool, true
		sc.pos = p + 4
		return nil
	case string(lit) == "null" && end(p+4):
		t.t = tNull
		sc.pos = p + 4
		return nil
	case string(lit) == "fals" && p+4 < len(src) && src[p+4] == 'e' && end(p+5):
		t.t, t.b = tBool, false
		sc.pos = p + 5
		return nil
	}
	n := p + 4
	for n < len(src) && n < p+12 && !isTerminator(src[n]) {
		n++
	}
	return &Error{Offset: p, Found: strconv.Quote(string(src[p:n])), Expected: "true, false or null, then , } ] or white space"}
}

// scanNumber reads an RFC 8259 number whose first byte was at t.p. An
// integer that int64 holds is an int32 or int64 token, any other number a
// double.
func (sc *scanner) scanNumber(t *token) error {
	src, start := sc.src, t.p
	i := start
	if src[i] == '-' {
		i++
	}
	bad := func(at int) error {
		n := at + 1
		if n > len(src) {
			n = len(src)
		}
		return &Error{Offset: start, Found: "the number " + strconv.Quote(string(src[start:n])), Expected: "an RFC 8259 number followed by , } ] or white space"}
	}
	double := false
	switch {
	case i < len(src) && src[i] == '0':
		i++
	case i < len(src) && isDigit(src[i]):
		for i < len(src) && isDigit(src[i]) {
			i++
		}
	default:
		return bad(i)
	}
	if i < len(src) && src[i] == '.' {
		double = true
		i++
		if i >= len(src) || !isDigit(src[i]) {
			return bad(i)
		}
		for i < len(src) && isDigit(src[i]) {
			i++
		}
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		double = true
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		if i >= len(src) || !isDigit(src[i]) {
			return bad(i)
		}
		for i < len(src) && isDigit(src[i]) {
			i++
		}
	}
	if i < len(src) && !isTerminator(src[i]) {
		return bad(i)
	}
	sc.pos = i
	lit := src[start:i]
	if !double {
		if v, ok := parseInt64(lit); ok {
			if v < -1<<31 || v > 1<<31-1 {
				t.t, t.i = tInt64, v
			} else {
				t.t, t.i = tInt32, v
			}
			return nil
		}
	}
	f, err := strconv.ParseFloat(unsafeString(lit), 64)
	if err != nil {
		return &Error{Offset: start, Found: "the number " + string(lit), Expected: "a number within the range of a double (up to 1.7976931348623157e308)"}
	}
	t.t, t.f = tDouble, f
	return nil
}

// parseInt64 is strconv.ParseInt(s, 10, 64) without its error value.
func parseInt64(s []byte) (int64, bool) {
	if len(s) == 0 {
		return 0, false
	}
	neg := false
	switch s[0] {
	case '-':
		neg = true
		s = s[1:]
	case '+':
		s = s[1:]
	}
	if len(s) == 0 {
		return 0, false
	}
	var u uint64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		if u > (1<<63)/10 {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
		if u > 1<<63 {
			return 0, false
		}
	}
	if neg {
		return -int64(u), true // -(1<<63) wraps to itself
	}
	if u > 1<<63-1 {
		return 0, false
	}
	return int64(u), true
}

// unsafeString views b as a string for a call that does not keep it.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return "0x" + strconv.FormatUint(uint64(c), 16)
}

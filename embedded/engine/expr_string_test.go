package engine

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The string operators on the manual's examples and their edge cases:
// unicode, null and missing, type errors.
func TestStringExprs(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("strs")
	doc := bson.D{
		{Key: "s", Value: "cafétéria"},
		{Key: "ws", Value: " \u00a0\t ggr8 \n\u3000\x00"},
		{Key: "n", Value: nil},
		{Key: "i", Value: 7},
	}
	trim := func(name string, input any, chars ...any) bson.D {
		d := bson.D{{Key: "input", Value: input}}
		if len(chars) > 0 {
			d = append(d, bson.E{Key: "chars", Value: chars[0]})
		}
		return op(name, d)
	}
	repl := func(name string, input, find, r any) bson.D {
		return op(name, bson.D{{Key: "input", Value: input}, {Key: "find", Value: find}, {Key: "replacement", Value: r}})
	}
	re := func(name string, input, regex any, opts ...any) bson.D {
		d := bson.D{{Key: "input", Value: input}, {Key: "regex", Value: regex}}
		if len(opts) > 0 {
			d = append(d, bson.E{Key: "options", Value: opts[0]})
		}
		return op(name, d)
	}
	checkExprs(t, coll, doc, []exprCase{
		// $trim, $ltrim, $rtrim
		{expr: trim("$trim", "$ws"), want: `{"x":"ggr8"}`},
		{expr: trim("$ltrim", "$ws"), want: "{\"x\":\"ggr8 \\n\u3000\\u0000\"}"},
		{expr: trim("$rtrim", "$ws"), want: "{\"x\":\" \u00a0\\t ggr8\"}"},
		{expr: trim("$trim", "  product  ", " pt"), want: `{"x":"roduc"}`},
		{expr: trim("$ltrim", "xxaxx", "x"), want: `{"x":"axx"}`},
		{expr: trim("$rtrim", "éaé", "é"), want: `{"x":"éa"}`},
		{expr: trim("$trim", "ab", ""), want: `{"x":"ab"}`},
		{expr: trim("$trim", "   "), want: `{"x":""}`},
		{expr: trim("$trim", "$n"), want: `{"x":null}`},
		{expr: trim("$trim", "$nope"), want: `{"x":null}`},
		{expr: trim("$trim", "a", nil), want: `{"x":null}`},
		{expr: trim("$trim", "$i"), code: 50699, msg: "$trim requires its input to be a string, got 7 (of type int) instead."},
		{expr: trim("$trim", "a", 1), code: 50700},
		{expr: op("$trim", "a"), code: 50696},
		{expr: op("$trim", bson.D{{Key: "chars", Value: "a"}}), code: 50695},
		{expr: op("$trim", bson.D{{Key: "input", Value: "a"}, {Key: "x", Value: 1}}), code: 50694},
		// $indexOfBytes, $indexOfCP
		{expr: op("$indexOfBytes", bson.A{"cafeteria", "e"}), want: `{"x":3}`},
		{expr: op("$indexOfBytes", bson.A{"$s", "t"}), want: `{"x":5}`},
		{expr: op("$indexOfCP", bson.A{"$s", "t"}), want: `{"x":4}`},
		{expr: op("$indexOfCP", bson.A{"$s", "é", 4}), want: `{"x":5}`},
		{expr: op("$indexOfBytes", bson.A{"foo.bar.fi", ".", 5}), want: `{"x":7}`},
		{expr: op("$indexOfBytes", bson.A{"vanilla", "ll", 0, 2}), want: `{"x":-1}`},
		{expr: op("$indexOfBytes", bson.A{"vanilla", "ll", -1}), code: 40097},
		{expr: op("$indexOfBytes", bson.A{"vanilla", "ll", 12}), want: `{"x":-1}`},
		{expr: op("$indexOfBytes", bson.A{"vanilla", "ll", 5, 2}), want: `{"x":-1}`},
		{expr: op("$indexOfBytes", bson.A{"vanilla", "nothing"}), want: `{"x":-1}`},
		{expr: op("$indexOfBytes", bson.A{"abc", ""}), want: `{"x":0}`},
		{expr: op("$indexOfCP", bson.A{"abc", "", 3}), want: `{"x":3}`},
		{expr: op("$indexOfCP", bson.A{"abc", "", 4}), want: `{"x":-1}`},
		{expr: op("$indexOfCP", bson.A{"$n", "a"}), want: `{"x":null}`},
		{expr: op("$indexOfBytes", bson.A{"$nope", "a"}), want: `{"x":null}`},
		{expr: op("$indexOfBytes", bson.A{"$i", "a"}), code: 40091},
		{expr: op("$indexOfBytes", bson.A{"a", "$n"}), code: 40092},
		{expr: op("$indexOfCP", bson.A{"$i", "a"}), code: 40093},
		{expr: op("$indexOfCP", bson.A{"a", 1}), code: 40094},
		{expr: op("$indexOfCP", bson.A{"a", "a", 0.5}), code: 40096},
		{expr: op("$indexOfCP", bson.A{"a"}), code: 28667},
		// $strcasecmp
		{expr: op("$strcasecmp", bson.A{"ABC", "abc"}), want: `{"x":0}`},
		{expr: op("$strcasecmp", bson.A{"abc", "abd"}), want: `{"x":-1}`},
		{expr: op("$strcasecmp", bson.A{"b", "A"}), want: `{"x":1}`},
		{expr: op("$strcasecmp", bson.A{"$n", ""}), want: `{"x":0}`},
		{expr: op("$strcasecmp", bson.A{"$nope", "a"}), want: `{"x":-1}`},
		{expr: op("$strcasecmp", bson.A{"$i", "7"}), want: `{"x":0}`},
		{expr: op("$strcasecmp", bson.A{bson.A{1}, "7"}), code: 16007},
		{expr: op("$strcasecmp", bson.A{"a"}), code: 16020},
		// $replaceOne, $replaceAll
		{expr: repl("$replaceOne", "blue paint with blue paintbrush", "blue paint", "red paint"), want: `{"x":"red paint with blue paintbrush"}`},
		{expr: repl("$replaceAll", "blue paint with blue paintbrush", "blue paint", "red paint"), want: `{"x":"red paint with red paintbrush"}`},
		{expr: repl("$replaceAll", "$s", "é", "e"), want: `{"x":"cafeteria"}`},
		{expr: repl("$replaceOne", "abc", "x", "y"), want: `{"x":"abc"}`},
		{expr: repl("$replaceOne", "abc", "", "-"), want: `{"x":"-abc"}`},
		{expr: repl("$replaceAll", "aaa", "aa", "b"), want: `{"x":"ba"}`},
		{expr: repl("$replaceOne", "$n", "a", "b"), want: `{"x":null}`},
		{expr: repl("$replaceAll", "a", "$nope", "b"), want: `{"x":null}`},
		{expr: repl("$replaceAll", "a", "a", nil), want: `{"x":null}`},
		{expr: repl("$replaceOne", "$i", "a", "b"), code: 51746},
		{expr: repl("$replaceOne", "$n", 1, "b"), code: 51745},
		{expr: repl("$replaceAll", "a", "a", 1), code: 51744},
		{expr: op("$replaceAll", bson.D{{Key: "input", Value: "a"}, {Key: "find", Value: "a"}}), code: 51747},
		{expr: op("$replaceAll", bson.D{{Key: "input", Value: "a"}, {Key: "x", Value: "a"}}), code: 51750},
		{expr: op("$replaceAll", "a"), code: 51751},
		// $regexMatch, $regexFind, $regexFindAll
		{expr: re("$regexMatch", "Single LINE description.", "line"), want: `{"x":false}`},
		{expr: re("$regexMatch", "Single LINE description.", "line", "i"), want: `{"x":true}`},
		{expr: re("$regexMatch", "Single LINE description.", bson.Regex{Pattern: "line", Options: "i"}), want: `{"x":true}`},
		{expr: re("$regexMatch", "First line\nsecond line", "^s", "m"), want: `{"x":true}`},
		{expr: re("$regexMatch", "First line\nsecond line", "^s"), want: `{"x":false}`},
		{expr: re("$regexMatch", "a\nb", "a.b", "s"), want: `{"x":true}`},
		{expr: re("$regexMatch", "abc", " a b # comment\n c", "x"), want: `{"x":true}`},
		{expr: re("$regexMatch", "$n", "a"), want: `{"x":false}`},
		{expr: re("$regexMatch", "a", "$nope"), want: `{"x":false}`},
		{expr: re("$regexFind", "$s", "t(é)"), want: `{"x":{"match":"té","idx":4,"captures":["é"]}}`},
		{expr: re("$regexFind", "$s", "(x)?é"), want: `{"x":{"match":"é","idx":3,"captures":[null]}}`},
		{expr: re("$regexFind", "abc", "z"), want: `{"x":null}`},
		{expr: re("$regexFind", "$n", "a"), want: `{"x":null}`},
		{expr: re("$regexFindAll", "$s", "[éa]"), want: `{"x":[{"match":"a","idx":1,"captures":[]},{"match":"é","idx":3,"captures":[]},{"match":"é","idx":5,"captures":[]},{"match":"a","idx":8,"captures":[]}]}`},
		{expr: re("$regexFindAll", "Ab ab", "(a)(b)", "i"), want: `{"x":[{"match":"Ab","idx":0,"captures":["A","b"]},{"match":"ab","idx":3,"captures":["a","b"]}]}`},
		{expr: re("$regexFindAll", "b", "a*"), want: `{"x":[{"match":"","idx":0,"captures":[]}]}`},
		{expr: re("$regexFindAll", "aab", "a*"), want: `{"x":[{"match":"aa","idx":0,"captures":[]},{"match":"","idx":2,"captures":[]}]}`},
		{expr: re("$regexFindAll", "baaa", "a*"), want: `{"x":[{"match":"","idx":0,"captures":[]},{"match":"aaa","idx":1,"captures":[]}]}`},
		{expr: re("$regexFindAll", "", "x?"), want: `{"x":[{"match":"","idx":0,"captures":[]}]}`},
		{expr: re("$regexFindAll", "aaa", "^a"), want: `{"x":[{"match":"a","idx":0,"captures":[]}]}`},
		{expr: re("$regexFindAll", "a\nb", "^(.)", "m"), want: `{"x":[{"match":"a","idx":0,"captures":["a"]},{"match":"b","idx":2,"captures":["b"]}]}`},
		{expr: re("$regexFindAll", "bb b", "\\bb"), want: `{"x":[{"match":"b","idx":0,"captures":[]},{"match":"b","idx":3,"captures":[]}]}`},
		{expr: re("$regexFindAll", "éb", "\\bb"), want: `{"x":[{"match":"b","idx":1,"captures":[]}]}`},
		{expr: re("$regexFindAll", "ééé", "é(x)?"), want: `{"x":[{"match":"é","idx":0,"captures":[null]},{"match":"é","idx":1,"captures":[null]},{"match":"é","idx":2,"captures":[null]}]}`},
		{expr: re("$regexFindAll", "a)a)", "\\Qa)"), want: `{"x":[{"match":"a)","idx":0,"captures":[]},{"match":"a)","idx":2,"captures":[]}]}`},
		{expr: re("$regexFindAll", "abc", "z"), want: `{"x":[]}`},
		{expr: re("$regexFindAll", "$nope", "z"), want: `{"x":[]}`},
		{expr: re("$regexFindAll", "a", nil), want: `{"x":[]}`},
		{expr: re("$regexMatch", "$i", "a"), code: 51104},
		{expr: re("$regexMatch", "a", 1), code: 51105},
		{expr: re("$regexMatch", "a", "a", 1), code: 51106},
		{expr: re("$regexMatch", "a", bson.Regex{Pattern: "a", Options: "i"}, "i"), code: 51107, msg: "$regexMatch: found regex option(s) specified in both 'regex' and 'option' fields"},
		{expr: re("$regexMatch", "a", "a", "q"), code: 51108},
		{expr: re("$regexMatch", "a", "a\x00"), code: 51109},
		{expr: re("$regexFind", "a", "(a"), code: 51111},
		{expr: re("$regexFind", "$n", "(a"), code: 51111},
		{expr: re("$regexMatch", 1, 1), code: 51104},
		{expr: re("$regexMatch", "a", 1, 1), code: 51105},
		{expr: re("$regexMatch", "a", bson.Regex{Pattern: "a", Options: "i"}, ""), code: 51107},
		{expr: re("$regexMatch", "a", bson.Regex{Pattern: "A", Options: "i"}, nil), want: `{"x":true}`},
		{expr: re("$regexMatch", "a", "a", "i\x00"), code: 51110},
		{expr: op("$regexMatch", bson.D{{Key: "regex", Value: "a"}}), code: 31022},
		{expr: op("$regexMatch", bson.D{{Key: "input", Value: "a"}}), code: 31023},
		{expr: op("$regexFind", bson.D{{Key: "input", Value: "a"}, {Key: "regex", Value: "a"}, {Key: "flags", Value: "i"}}), code: 31024},
		{expr: op("$regexFindAll", "a"), code: 51103},
	})
}

// A regex operator whose pattern changes from document to document
// compiles each and keeps a bounded number of them.
func TestRegexExprPerDocument(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("res")
	var docs []any
	for i := 0; i < 100; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "p", Value: string(rune('a' + i%26))}, {Key: "s", Value: "xyz"}})
	}
	if _, err := coll.InsertMany(t.Context(), docs); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	rows := aggregateM(t, coll, []bson.D{
		{{Key: "$project", Value: bson.D{{Key: "m", Value: op("$regexMatch", bson.D{{Key: "input", Value: "$s"}, {Key: "regex", Value: "$p"}})}}}},
		{{Key: "$match", Value: bson.D{{Key: "m", Value: true}}}},
	})
	// x, y and z: _id 23, 24, 25, 49, 50, 51, 75, 76, 77
	if len(rows) != 9 {
		t.Errorf("%d documents matched; want 9", len(rows))
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("took %v", time.Since(start))
	}
}

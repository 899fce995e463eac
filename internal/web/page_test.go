package web

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/oidkit/oidkit/oid"
)

// typeInto replaces the text of an input by typing, as a user would.
func typeInto(t *testing.T, ctx context.Context, id, text string) {
	t.Helper()
	do(t, ctx, "typing "+text+" into #"+id,
		// Like selecting all and typing over it. chromedp.Clear resets only
		// the value attribute, not what was typed.
		chromedp.Evaluate[chromedp.Void](`document.getElementById(`+strconv.Quote(id)+`).value = ""`),
		chromedp.SendKeys(chromedp.ID(id), text),
	)
}

func listedIDs(t *testing.T, ctx context.Context) []string {
	t.Helper()
	return eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#ids li code")).map((e) => e.textContent)`)
}

func waitListLen(t *testing.T, ctx context.Context, n int) {
	t.Helper()
	js := fmt.Sprintf(`document.querySelectorAll("#ids li").length === %d`, n)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("waiting for %d IDs in the list (have %d): %v", n, len(listedIDs(t, ctx)), err)
	}
}

// checkBatch checks IDs made by one page load: valid, one shared random
// value, consecutive counters (mod 2^24) from want0 when want0 >= 0, and
// timestamps within [from, to].
func checkBatch(t *testing.T, hexes []string, random string, want0 int64, from, to int64) {
	t.Helper()
	seen := map[oid.ID]bool{}
	var first uint32
	for i, h := range hexes {
		id, err := oid.Parse(h)
		if err != nil {
			t.Fatalf("ID %d from the page: %v", i, err)
		}
		if id.Hex() != h {
			t.Errorf("ID %d: %q is not lower-case hex (%s)", i, h, id.Hex())
		}
		if seen[id] {
			t.Errorf("ID %d %s appears twice", i, h)
		}
		seen[id] = true
		r := id.Random()
		if got := hex.EncodeToString(r[:]); got != random {
			t.Errorf("ID %d %s: random value %s, want the page's %s", i, h, got, random)
		}
		if i == 0 {
			first = id.Counter()
			if want0 >= 0 && int64(first) != want0 {
				t.Errorf("first counter %#06x, want %#06x (the previous batch's last + 1)", first, want0)
			}
		} else if want := (first + uint32(i)) & 0xFFFFFF; id.Counter() != want {
			t.Errorf("ID %d %s: counter %#06x, want %#06x", i, h, id.Counter(), want)
		}
		if s := id.Unix(); s < from || s > to {
			t.Errorf("ID %d %s: timestamp %d (%s) outside the test's window %d..%d", i, h, s, id.Timestamp().Format(time.RFC3339), from, to)
		}
	}
}

func TestPageGenerates100(t *testing.T) {
	ctx := openPage(t, "")
	random := eval[string](t, ctx, `oidkit.random()`)
	if len(random) != 10 {
		t.Fatalf("page random value %q, want 10 hex characters", random)
	}

	typeInto(t, ctx, "count", "100")
	from := time.Now().Unix()
	do(t, ctx, "pressing Generate", chromedp.Click(chromedp.ID("generate")))
	waitListLen(t, ctx, 100)
	to := time.Now().Unix()
	ids := listedIDs(t, ctx)
	checkBatch(t, ids, random, -1, from, to)
	if s := eval[string](t, ctx, `document.getElementById("gen-status").textContent`); s != "Generated 100 IDs." {
		t.Errorf("status %q, want %q", s, "Generated 100 IDs.")
	}

	// A second batch, started from the keyboard, continues the counter.
	last := oid.MustParse(ids[99]).Counter()
	typeInto(t, ctx, "count", "7"+kb.Enter)
	waitListLen(t, ctx, 7)
	to = time.Now().Unix()
	checkBatch(t, listedIDs(t, ctx), random, int64((last+1)&0xFFFFFF), from, to)
}

func TestPageRefusesOutOfRangeCounts(t *testing.T) {
	ctx := openPage(t, "")
	for _, tt := range []struct{ in, msg string }{
		{"101", "count 101: expected a whole number from 1 to 100"},
		{"0", "count 0: expected a whole number from 1 to 100"},
		{"-5", `count "-5": expected a whole number from 1 to 100`},
		{"2.5", `count "2.5": expected a whole number from 1 to 100`},
		{"ten", `count "ten": expected a whole number from 1 to 100`},
		{"", "Enter how many IDs to make: a whole number from 1 to 100."},
	} {
		typeInto(t, ctx, "count", tt.in)
		do(t, ctx, "pressing Generate", chromedp.Click(chromedp.ID("generate")))
		got := eval[map[string]any](t, ctx, `({
			msg: document.getElementById("count-error").textContent,
			shown: !document.getElementById("count-error").hidden,
			invalid: document.getElementById("count").getAttribute("aria-invalid"),
			ids: document.querySelectorAll("#ids li").length,
		})`)
		if got["msg"] != tt.msg || got["shown"] != true || got["invalid"] != "true" || got["ids"] != float64(0) {
			t.Errorf("count %q: got %v; want the message %q shown, aria-invalid, no IDs", tt.in, got, tt.msg)
		}
	}
	// A valid count clears the message and generates.
	typeInto(t, ctx, "count", "1"+kb.Enter)
	waitListLen(t, ctx, 1)
	if shown := eval[bool](t, ctx, `!document.getElementById("count-error").hidden`); shown {
		t.Error("the error stays shown after a valid count")
	}
}

type decoded struct {
	UTC, Local, Unix, Random, Counter string
	Parts                             []string
	Colors                            []string
	Shown                             bool
	Error                             string
}

const readDecodedJS = `(() => {
	const t = (id) => document.getElementById(id).textContent;
	const c = (id) => getComputedStyle(document.getElementById(id)).color;
	return {
		UTC: t("decode-utc"), Local: t("decode-local"), Unix: t("decode-unix"),
		Random: t("decode-random"), Counter: t("decode-counter"),
		Parts: [t("hex-ts"), t("hex-rnd"), t("hex-ctr")],
		Colors: [c("hex-ts"), c("hex-rnd"), c("hex-ctr")],
		Shown: !document.getElementById("decode-result").hidden,
		Error: document.getElementById("decode-error").hidden ? "" : t("decode-error"),
	};
})()`

func TestPageDecodes(t *testing.T) {
	ctx := openPage(t, "Asia/Tokyo") // UTC+09:00, no daylight saving time
	for _, tt := range []struct {
		in   string
		want decoded
	}{
		{"507f1f77bcf86cd799439011", decoded{
			UTC: "2012-10-17T21:13:27Z", Local: "2012-10-18 06:13:27 UTC+09:00 (Asia/Tokyo)", Unix: "1350508407",
			Random: "bcf86cd799", Counter: "4427793 (0x439011)", Parts: []string{"507f1f77", "bcf86cd799", "439011"}}},
		{"ffffffffffffffffffffffff", decoded{
			UTC: "2106-02-07T06:28:15Z", Local: "2106-02-07 15:28:15 UTC+09:00 (Asia/Tokyo)", Unix: "4294967295",
			Random: "ffffffffff", Counter: "16777215 (0xffffff)", Parts: []string{"ffffffff", "ffffffffff", "ffffff"}}},
		{"80000000" + "0000000000" + "000000", decoded{
			UTC: "2038-01-19T03:14:08Z", Local: "2038-01-19 12:14:08 UTC+09:00 (Asia/Tokyo)", Unix: "2147483648",
			Random: "0000000000", Counter: "0 (0x000000)", Parts: []string{"80000000", "0000000000", "000000"}}},
		// Upper case and a pasted ObjectId("...") wrapper are accepted.
		{` ObjectId("6553F1003F2A91C8D4003039") `, decoded{
			UTC: "2023-11-14T22:13:20Z", Local: "2023-11-15 07:13:20 UTC+09:00 (Asia/Tokyo)", Unix: "1700000000",
			Random: "3f2a91c8d4", Counter: "12345 (0x003039)", Parts: []string{"6553f100", "3f2a91c8d4", "003039"}}},
	} {
		typeInto(t, ctx, "decode-input", tt.in)
		got := eval[decoded](t, ctx, readDecodedJS)
		if !got.Shown || got.Error != "" {
			t.Errorf("decode %q: result shown %v, error %q", tt.in, got.Shown, got.Error)
			continue
		}
		if got.UTC != tt.want.UTC || got.Local != tt.want.Local || got.Unix != tt.want.Unix ||
			got.Random != tt.want.Random || got.Counter != tt.want.Counter ||
			strings.Join(got.Parts, " ") != strings.Join(tt.want.Parts, " ") {
			t.Errorf("decode %q:\n got %+v\nwant %+v", tt.in, got, tt.want)
		}
		if got.Colors[0] == got.Colors[1] || got.Colors[1] == got.Colors[2] || got.Colors[0] == got.Colors[2] {
			t.Errorf("decode %q: the three parts are not in three colours: %v", tt.in, got.Colors)
		}
	}
}

func TestPageDecodeErrors(t *testing.T) {
	ctx := openPage(t, "")
	for _, in := range []string{
		"507f1f77bcf86cd79943901",   // 23 characters
		"507f1f77bcf86cd7994390111", // 25
		"507f1f77bcf86cd79943901g",  // bad last character
		"x07f1f77bcf86cd799439011",  // bad first character
		"507f1f77bcf86cd7-9439011",  // bad character in the middle
		"507f1f77 bcf86cd79943901",  // a space inside
	} {
		typeInto(t, ctx, "decode-input", in+kb.Enter)
		got := eval[decoded](t, ctx, readDecodedJS)
		_, err := oid.Parse(in)
		if err == nil {
			t.Fatalf("oid.Parse(%q) accepted it; the test input is wrong", in)
		}
		want := strings.TrimPrefix(err.Error(), "oid: ")
		if got.Error != want || got.Shown {
			t.Errorf("decode %q: error %q (result shown %v), want %q and no result", in, got.Error, got.Shown, want)
		}
		if inv := eval[string](t, ctx, `document.getElementById("decode-input").getAttribute("aria-invalid") || ""`); inv != "true" {
			t.Errorf("decode %q: aria-invalid %q, want true", in, inv)
		}
	}
	// Spot-check the wording a user reads.
	typeInto(t, ctx, "decode-input", "abc"+kb.Enter)
	if got := eval[decoded](t, ctx, readDecodedJS).Error; !strings.Contains(got, `"abc": length 3, expected 24 hex characters`) {
		t.Errorf("length error %q", got)
	}
	typeInto(t, ctx, "decode-input", "507f1f77bcf86cd79943901z")
	if got := eval[decoded](t, ctx, readDecodedJS).Error; !strings.Contains(got, "invalid character 'z' at position 23") {
		t.Errorf("character error %q", got)
	}
}

// The page's generator, given a random value, counter start and time, makes
// the same IDs as oid.Generator given the same, across the counter wrap, for
// a counter start beyond 24 bits and for seconds >= 0x80000000.
func TestPageGeneratorAgreesWithOid(t *testing.T) {
	ctx := openPage(t, "")
	type genCase struct {
		N       int    `json:"n"`
		Random  string `json:"random"`
		Counter uint32 `json:"counter"`
		Seconds uint32 `json:"seconds"`
	}
	cases := []genCase{
		{5, "3f2a91c8d4", 12345, 1700000000},
		{6, "0000000000", 0xFFFFFD, 0x80000000},
		{4, "ffffffffff", 0xFFFFFF, 0xFFFFFFFF},
		{3, "0123456789", 0xFFFFFFFF, 0x7FFFFFFF}, // counter start taken mod 2^24
		{3, "abcdef0123", 0x01000005, 0},
		{100, "1a2b3c4d5e", 0xFFFFC0, 0xFEDCBA98},
	}
	rng := rand.New(rand.NewPCG(6, 2026))
	for range 30 {
		var r [5]byte
		for i := range r {
			r[i] = byte(rng.UintN(256))
		}
		cases = append(cases, genCase{1 + rng.IntN(100), hex.EncodeToString(r[:]), rng.Uint32(), rng.Uint32()})
	}
	js, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	got := eval[[][]string](t, ctx, `(`+string(js)+`).map((c) => oidkit.generate(c.n, {random: c.random, counter: c.counter, seconds: c.seconds}))`)
	if len(got) != len(cases) {
		t.Fatalf("page returned %d batches, want %d", len(got), len(cases))
	}
	for i, c := range cases {
		var r [5]byte
		if _, err := hex.Decode(r[:], []byte(c.Random)); err != nil {
			t.Fatal(err)
		}
		start := c.Counter
		secs := int64(c.Seconds)
		g := oid.NewGenerator(oid.Config{
			Clock:        func() time.Time { return time.Unix(secs, 0) },
			Random:       &r,
			CounterStart: &start,
		})
		if len(got[i]) != c.N {
			t.Errorf("case %+v: page made %d IDs, want %d", c, len(got[i]), c.N)
			continue
		}
		for j := range c.N {
			if want := g.New().Hex(); got[i][j] != want {
				t.Errorf("case %+v, ID %d: page %s, oid %s", c, j, got[i][j], want)
				break
			}
		}
	}
	// The worked example of the layout text.
	if got[0][0] != "6553f1003f2a91c8d4003039" || got[0][1] != "6553f1003f2a91c8d400303a" {
		t.Errorf("worked example: %v", got[0][:2])
	}

	// Bad options are refused, not wrapped.
	errs := eval[[]string](t, ctx, `[
		{seconds: 2 ** 32}, {seconds: -1}, {seconds: 1.5}, {counter: 2 ** 32},
		{random: "3f2a91c8d"}, {random: "3f2a91c8dz"},
	].map((o) => { try { oidkit.generate(1, o); return "accepted"; } catch (e) { return e.message; } })`)
	for _, e := range errs {
		if e == "accepted" || !strings.Contains(e, "expected") {
			t.Errorf("bad option: %q, want a refusal naming what is expected", e)
		}
	}
}

// The page's decoder reads the same fields as oid, and its parse errors are
// oid.Parse's messages for any ASCII input.
func TestPageDecodeAgreesWithOid(t *testing.T) {
	ctx := openPage(t, "")
	rng := rand.New(rand.NewPCG(11, 2026))
	inputs := []string{"000000000000000000000000", "7fffffffffffffffffffffff", "80000000ffffffffff000000", "FFFFFFFFFFFFFFFFFFFFFFFF"}
	for range 200 {
		var id oid.ID
		for i := range id {
			id[i] = byte(rng.UintN(256))
		}
		inputs = append(inputs, id.Hex())
	}
	bad := []string{"", "0", "507f1f77bcf86cd79943901", "507f1f77bcf86cd7994390111",
		"507f1f77bcf86cd79943901\"", "507f1f77bcf86cd79943901\\", "507f1f77bcf86cd79943901'",
		"507f1f77bcf86cd79943901\x00", "\t07f1f77bcf86cd799439011", "507f1f77bcf86cd79943901\x7f",
		"G07f1f77bcf86cd799439011", "507f1f77bcf86cd7994390 1", "0x7f1f77bcf86cd79943901a",
		strings.Repeat("507f1f77bcf86cd799439011", 3), strings.Repeat("z", 64), strings.Repeat("z", 65)}
	const printable = "0123456789abcdefABCDEFghxyzGHXYZ -_:\"'\\{}"
	for range 200 {
		n := 24
		if rng.IntN(4) == 0 {
			n = rng.IntN(30)
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = printable[rng.IntN(len(printable))]
		}
		bad = append(bad, string(b))
	}
	all := append(append([]string{}, inputs...), bad...)
	js, _ := json.Marshal(all)
	type res struct {
		OK        bool   `json:"ok"`
		Error     string `json:"error"`
		ID        string `json:"id"`
		Timestamp string `json:"timestamp"`
		Unix      int64  `json:"unix"`
		Random    string `json:"random"`
		Counter   uint32 `json:"counter"`
	}
	got := eval[[]res](t, ctx, `(`+string(js)+`).map((s) => { const p = oidkit.parse(s); return p.ok ? oidkit.decode(p.hex) : p; })`)
	for i, s := range all {
		id, err := oid.Parse(s)
		g := got[i]
		if err != nil {
			if want := strings.TrimPrefix(err.Error(), "oid: "); g.OK || g.Error != want {
				t.Errorf("%q: page ok=%v %q, oid.Parse %q", s, g.OK, g.Error, want)
			}
			continue
		}
		r := id.Random()
		if !g.OK || g.ID != id.Hex() || g.Timestamp != id.Timestamp().Format(time.RFC3339) || g.Unix != id.Unix() ||
			g.Random != hex.EncodeToString(r[:]) || g.Counter != id.Counter() {
			t.Errorf("%q: page %+v; oid %s %s %d %x %d", s, g, id.Hex(), id.Timestamp().Format(time.RFC3339), id.Unix(), r, id.Counter())
		}
	}
}

func TestPageCreatedBetween(t *testing.T) {
	ctx := openPage(t, "")
	lo, _ := oid.FromTime(time.Unix(1700000000, 0))
	hi, _ := oid.FromTime(time.Unix(1700086400, 0))
	wantFilter := `{"_id":{"$gte":{"$oid":"` + lo.Hex() + `"},"$lt":{"$oid":"` + hi.Hex() + `"}}}`

	typeInto(t, ctx, "range-from", "2023-11-15T01:13:20+03:00") // = 1700000000
	typeInto(t, ctx, "range-to", "1700086400")
	do(t, ctx, "pressing the range button", chromedp.Click(chromedp.ID("range-go")))
	got := eval[map[string]string](t, ctx, `({
		lo: document.getElementById("range-lo").textContent,
		hi: document.getElementById("range-hi").textContent,
		filter: document.getElementById("range-filter").value,
		shell: document.getElementById("range-shell").value,
	})`)
	if got["lo"] != lo.Hex()+" (2023-11-14T22:13:20Z, inclusive: $gte)" || got["hi"] != hi.Hex()+" (2023-11-15T22:13:20Z, exclusive: $lt)" {
		t.Errorf("bounds %q, %q; want %s and %s", got["lo"], got["hi"], lo.Hex(), hi.Hex())
	}
	if got["filter"] != wantFilter {
		t.Errorf("filter\n got %s\nwant %s", got["filter"], wantFilter)
	}
	var f map[string]map[string]map[string]string
	if err := json.Unmarshal([]byte(got["filter"]), &f); err != nil || f["_id"]["$gte"]["$oid"] != lo.Hex() {
		t.Errorf("filter %s is not the Extended JSON range: %v", got["filter"], err)
	}
	if !strings.Contains(got["shell"], `$gte: ObjectId("`+lo.Hex()+`")`) {
		t.Errorf("mongosh query %q", got["shell"])
	}

	// Edge bounds and refusals, through the same function the form uses; the
	// window rules are oidkit range's: [from, to) in whole seconds, from
	// rounded down, a fractional to rounded up, no to = no upper bound.
	max, _ := oid.FromTime(oid.MaxTime)
	type rr struct {
		OK     bool   `json:"ok"`
		Error  string `json:"error"`
		Gte    string `json:"gte"`
		Lt     string `json:"lt"`
		Lte    string `json:"lte"`
		Filter string `json:"filter"`
	}
	at := func(s int64) string { id, _ := oid.FromTime(time.Unix(s, 0)); return id.Hex() }
	for _, tt := range []struct {
		from, to string
		want     rr
	}{
		{"1970-01-01T00:00:00Z", "2106-02-07T06:28:15Z", rr{OK: true, Gte: oid.Nil.Hex(), Lt: max.Hex()}},
		{"0", "4294967295", rr{OK: true, Gte: oid.Nil.Hex(), Lt: max.Hex()}},
		{"2023-11-14T22:13:20.9Z", "2023-11-14T22:13:21.000000001Z", rr{OK: true, Gte: at(1700000000), Lt: at(1700000002)}},
		{"2023-11-14T22:13:20.5Z", "2023-11-14T22:13:20.7Z", rr{OK: true, Gte: at(1700000000), Lt: at(1700000001)}},
		{"2023-11-14T22:13:20Z", "2023-11-14T22:13:21.0000000001Z", rr{OK: true, Gte: at(1700000000), Lt: at(1700000001)}},
		{"1700000000", "", rr{OK: true, Gte: at(1700000000),
			Filter: `{"_id":{"$gte":{"$oid":"` + at(1700000000) + `"}}}`}},
		{"1700000000", "2106-02-07T06:28:15.5Z", rr{OK: true, Gte: at(1700000000), Lte: "ffffffffffffffffffffffff",
			Filter: `{"_id":{"$gte":{"$oid":"` + at(1700000000) + `"},"$lte":{"$oid":"ffffffffffffffffffffffff"}}}`}},
		{"yesterday", "1700000000", rr{Error: `from "yesterday": expected RFC 3339`}},
		{"1700000000", "4294967296", rr{Error: `to "4294967296": outside the ObjectID range`}},
		{"1700000000", "1700000000", rr{Error: `to "1700000000": expected a time after from "1700000000"`}},
		{"1700000000", "1699999999", rr{Error: `to "1699999999": expected a time after from "1700000000"`}},
		{"2023-02-29T00:00:00Z", "1700000000", rr{Error: `from "2023-02-29T00:00:00Z": expected RFC 3339`}},
		{"2023-11-14 22:13:20Z", "1700000000", rr{Error: `from "2023-11-14 22:13:20Z": expected RFC 3339`}},
		{"1969-12-31T23:59:59Z", "1700000000", rr{Error: `from "1969-12-31T23:59:59Z": outside the ObjectID range`}},
		{"1970-01-01T02:00:00+03:00", "1700000000", rr{Error: `outside the ObjectID range`}},
		{"1700000000.5", "", rr{Error: `from "1700000000.5": expected RFC 3339`}},
	} {
		got := eval[rr](t, ctx, `oidkit.range(`+jsString(tt.from)+`, `+jsString(tt.to)+`)`)
		w := tt.want
		if w.Error != "" {
			if got.OK || !strings.Contains(got.Error, w.Error) {
				t.Errorf("range(%q, %q) = %+v, want an error containing %q", tt.from, tt.to, got, w.Error)
			}
			continue
		}
		if !got.OK || got.Gte != w.Gte || got.Lt != w.Lt || got.Lte != w.Lte || (w.Filter != "" && got.Filter != w.Filter) {
			t.Errorf("range(%q, %q) = %+v, want %+v", tt.from, tt.to, got, w)
		}
	}

	// A bad time shows its error inline.
	typeInto(t, ctx, "range-from", "next week")
	do(t, ctx, "pressing the range button", chromedp.Click(chromedp.ID("range-go")))
	if msg := eval[string](t, ctx, `document.getElementById("range-error").hidden ? "" : document.getElementById("range-error").textContent`); !strings.Contains(msg, `from "next week"`) {
		t.Errorf("range error %q", msg)
	}
}

// checkPNG decodes a screenshot and checks it shows more than a blank page.
func checkPNG(t *testing.T, b []byte, minWidth int) image.Image {
	t.Helper()
	if len(b) == 0 {
		t.Fatal("empty screenshot")
	}
	if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("screenshot is not a PNG (starts %q)", b[:min(8, len(b))])
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("decoding the screenshot: %v", err)
	}
	bounds := img.Bounds()
	if bounds.Dx() < minWidth || bounds.Dy() < 400 {
		t.Errorf("screenshot is %dx%d, want at least %dx400", bounds.Dx(), bounds.Dy(), minWidth)
	}
	colors := map[[3]uint32]bool{}
	for y := bounds.Min.Y; y < bounds.Max.Y; y += 3 {
		for x := bounds.Min.X; x < bounds.Max.X; x += 3 {
			r, g, b, _ := img.At(x, y).RGBA()
			colors[[3]uint32{r >> 8, g >> 8, b >> 8}] = true
		}
	}
	if len(colors) < 32 {
		t.Errorf("screenshot has only %d colours; the page looks blank", len(colors))
	}
	return img
}

func TestPageScreenshot(t *testing.T) {
	ctx := openPage(t, "UTC")
	do(t, ctx, "setting a desktop viewport", chromedp.EmulateViewport(1000, 900))
	typeInto(t, ctx, "count", "8"+kb.Enter)
	waitListLen(t, ctx, 8)
	typeInto(t, ctx, "decode-input", "507f1f77bcf86cd799439011")
	typeInto(t, ctx, "range-from", "2023-11-14T00:00:00Z")
	typeInto(t, ctx, "range-to", "2023-11-15T00:00:00Z")
	do(t, ctx, "pressing the range button", chromedp.Click(chromedp.ID("range-go")))
	do(t, ctx, "scrolling to the top", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0); document.activeElement.blur()`))

	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100 = PNG
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	checkPNG(t, shot, 1000)
	path := filepath.Join(t.TempDir(), "web.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Fatalf("screenshot file %s: %v", path, err)
	}
	// OIDKIT_WEB_SCREENSHOT=path also writes it there (the README's picture).
	if dst := os.Getenv("OIDKIT_WEB_SCREENSHOT"); dst != "" {
		if err := os.WriteFile(dst, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d bytes)", dst, len(shot))
	}
}

// At phone width nothing scrolls sideways, and every control has a label.
func TestPagePhoneWidthAndLabels(t *testing.T) {
	ctx := openPage(t, "")
	do(t, ctx, "emulating a phone", chromedp.EmulateViewport(360, 740, chromedp.EmulateMobile))
	typeInto(t, ctx, "count", "100"+kb.Enter)
	waitListLen(t, ctx, 100)
	typeInto(t, ctx, "decode-input", "507f1f77bcf86cd799439011")
	do(t, ctx, "pressing the range button", chromedp.Click(chromedp.ID("range-go")))
	typeInto(t, ctx, "decode-input", "507f1f77bcf86cd79943901zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz")

	w := eval[map[string]float64](t, ctx, `({scroll: document.documentElement.scrollWidth, view: window.innerWidth})`)
	if w["scroll"] > w["view"] {
		t.Errorf("at 360px the page is %vpx wide: it scrolls sideways", w["scroll"])
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	checkPNG(t, shot, 360)
	if dst := os.Getenv("OIDKIT_WEB_SCREENSHOT_PHONE"); dst != "" {
		if err := os.WriteFile(dst, shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	unlabelled := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("input, textarea, select, button"))
		.filter((e) => e.type === "button" || e.type === "submit" || e.tagName === "BUTTON"
			? !(e.getAttribute("aria-label") || e.textContent.trim())
			: !(e.labels && e.labels.length > 0) && !e.getAttribute("aria-label"))
		.map((e) => e.outerHTML.slice(0, 80))`)
	for _, u := range unlabelled {
		t.Errorf("control without a label: %s", u)
	}
	if lang := eval[string](t, ctx, `document.documentElement.lang`); lang != "en" {
		t.Errorf("html lang %q", lang)
	}
}

// The generator works from the keyboard alone: Tab reaches the language
// switch, then the count field,
// typing and Enter generate, and Tab moves on to the copy buttons.
func TestPageKeyboard(t *testing.T) {
	ctx := openPage(t, "")
	do(t, ctx, "focusing the page", chromedp.Evaluate[chromedp.Void](`document.activeElement.blur()`))
	var order []string
	for range 4 {
		do(t, ctx, "pressing Tab", chromedp.KeyEvent(kb.Tab))
		order = append(order, eval[string](t, ctx, `document.activeElement.id || document.activeElement.className`))
	}
	if strings.Join(order, ",") != "skip,lang,count,generate" {
		t.Errorf("Tab order %v, want skip, lang, count, generate", order)
	}
	do(t, ctx, "pressing Shift+Tab", chromedp.KeyEvent(kb.Tab, chromedp.KeyModifiers(chromedp.ModifierShift)))
	if id := eval[string](t, ctx, `document.activeElement.id`); id != "count" {
		t.Fatalf("after Shift+Tab the focus is on %q, want count", id)
	}
	do(t, ctx, "selecting the count", chromedp.Evaluate[chromedp.Void](`document.getElementById("count").select()`))
	do(t, ctx, "typing 12 and Enter", chromedp.KeyEvent("12"+kb.Enter))
	waitListLen(t, ctx, 12)
	do(t, ctx, "pressing Tab", chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Tab))
	if id := eval[string](t, ctx, `document.activeElement.id`); id != "copy-all" {
		t.Errorf("after the Generate button, Tab goes to %q, want copy-all", id)
	}
}

// With a dark colour scheme the page turns dark and keeps its three part
// colours distinct.
func TestPageDarkScheme(t *testing.T) {
	ctx := openPage(t, "")
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}},
	}); err != nil {
		t.Fatalf("emulating a dark scheme: %v", err)
	}
	typeInto(t, ctx, "decode-input", "507f1f77bcf86cd799439011")
	bg := eval[[]float64](t, ctx, `getComputedStyle(document.body).backgroundColor.match(/\d+/g).slice(0, 3).map(Number)`)
	if len(bg) != 3 || bg[0]+bg[1]+bg[2] > 3*64 {
		t.Errorf("dark scheme: body background %v, want a dark colour", bg)
	}
	got := eval[decoded](t, ctx, readDecodedJS)
	if got.Colors[0] == got.Colors[1] || got.Colors[1] == got.Colors[2] || got.Colors[0] == got.Colors[2] {
		t.Errorf("dark scheme: the three parts are not in three colours: %v", got.Colors)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	checkPNG(t, shot, 1000)
	if dst := os.Getenv("OIDKIT_WEB_SCREENSHOT_DARK"); dst != "" {
		if err := os.WriteFile(dst, shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

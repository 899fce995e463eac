package seed

import (
	"context"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/rules"
)

// Independent knowledge of postal systems, by country and region: the
// format of a code, and the leading digits or letters each state,
// province or region's codes have (USPS sectional centres, Canada Post's
// province letters, Australia Post's state ranges, the French
// département, the Turkish province plate code, ...). It is written at
// region level, not from the city table, so a city given another
// region's codes fails here.
var postalOracle = map[string]struct {
	format  *regexp.Regexp
	regions map[string][]string // region -> accepted prefixes of the code
}{
	"United States": {regexp.MustCompile(`^[0-9]{5}$`), map[string][]string{
		"New York": prefixRange(100, 149, 3), "California": prefixRange(900, 961, 3), "Illinois": prefixRange(600, 629, 3),
		"Texas": append(prefixRange(750, 799, 3), "885"), "Arizona": prefixRange(850, 865, 3), "Pennsylvania": prefixRange(150, 196, 3),
		"Florida": prefixRange(320, 349, 3), "Washington": prefixRange(980, 994, 3), "Massachusetts": prefixRange(10, 27, 3),
		"Colorado": prefixRange(800, 816, 3), "Georgia": append(prefixRange(300, 319, 3), "398", "399"), "Ohio": prefixRange(430, 458, 3),
		"Michigan": prefixRange(480, 499, 3), "North Carolina": prefixRange(270, 289, 3), "Oregon": prefixRange(970, 979, 3),
		"Minnesota": prefixRange(550, 567, 3), "Tennessee": prefixRange(370, 385, 3), "Nevada": prefixRange(889, 898, 3),
		"District of Columbia": prefixRange(200, 205, 3), "Missouri": prefixRange(630, 658, 3), "Wisconsin": prefixRange(530, 549, 3),
		"Louisiana": prefixRange(700, 714, 3), "Utah": prefixRange(840, 847, 3),
	}},
	"Canada": {regexp.MustCompile(`^[ABCEGHJ-NPRSTVXY][0-9][ABCEGHJ-NPRSTV-Z] [0-9][ABCEGHJ-NPRSTV-Z][0-9]$`), map[string][]string{
		"Newfoundland and Labrador": {"A"}, "Nova Scotia": {"B"}, "Quebec": {"G", "H", "J"}, "Ontario": {"K", "L", "M", "N", "P"},
		"Manitoba": {"R"}, "Saskatchewan": {"S"}, "Alberta": {"T"}, "British Columbia": {"V"},
	}},
	"United Kingdom": {regexp.MustCompile(`^[A-Z]{1,2}[0-9][0-9A-Z]? [0-9][ABD-HJLNP-UW-Z]{2}$`), map[string][]string{
		// Postcode areas by nation.
		"England":          {"B1", "B2", "B3", "B5", "M", "LS", "L1", "L2", "L3", "S1", "S2", "S3", "BS", "NE", "E1", "EC", "N1", "NW", "SE", "SW", "W1", "WC"},
		"Scotland":         {"G1", "G2", "G3", "G4", "EH"},
		"Wales":            {"CF"},
		"Northern Ireland": {"BT"},
	}},
	"Germany": {regexp.MustCompile(`^[0-9]{5}$`), map[string][]string{
		"Berlin": {"10", "12", "13", "14"}, "Hamburg": {"20", "21", "22"}, "Bavaria": append(prefixRange(80, 87, 2), prefixRange(90, 97, 2)...),
		"North Rhine-Westphalia": append(prefixRange(40, 53, 2), prefixRange(57, 59, 2)...), "Hesse": append(prefixRange(60, 65, 2), "34", "35", "36"),
		"Baden-Württemberg": append(prefixRange(68, 79, 2), "88", "89"), "Saxony": {"01", "02", "04", "08", "09"},
		"Lower Saxony": {"26", "27", "29", "30", "31", "37", "38", "49"}, "Bremen": {"28"},
	}},
	"France": {regexp.MustCompile(`^[0-9]{5}$`), map[string][]string{
		// Départements by région.
		"Île-de-France": {"75", "77", "78", "91", "92", "93", "94", "95"}, "Provence-Alpes-Côte d'Azur": {"04", "05", "06", "13", "83", "84"},
		"Auvergne-Rhône-Alpes": {"01", "03", "07", "15", "26", "38", "42", "43", "63", "69", "73", "74"}, "Occitanie": {"09", "11", "12", "30", "31", "32", "34", "46", "48", "65", "66", "81", "82"},
		"Pays de la Loire": {"44", "49", "53", "72", "85"}, "Grand Est": {"08", "10", "51", "52", "54", "55", "57", "67", "68", "88"},
		"Nouvelle-Aquitaine": {"16", "17", "19", "23", "24", "33", "40", "47", "64", "79", "86", "87"}, "Hauts-de-France": {"02", "59", "60", "62", "80"},
		"Brittany": {"22", "29", "35", "56"},
	}},
	"Japan": {regexp.MustCompile(`^[0-9]{3}-[0-9]{4}$`), map[string][]string{
		"Tokyo": prefixRange(100, 208, 3), "Kanagawa": prefixRange(210, 259, 3), "Osaka": prefixRange(530, 599, 3), "Aichi": prefixRange(440, 498, 3),
		"Hokkaido": prefixRange(40, 99, 3), "Fukuoka": prefixRange(800, 839, 3), "Hyogo": prefixRange(650, 679, 3), "Kyoto": prefixRange(600, 629, 3),
	}},
	"Brazil": {regexp.MustCompile(`^[0-9]{5}-[0-9]{3}$`), map[string][]string{
		"São Paulo": prefixRange(1, 19, 2), "Rio de Janeiro": prefixRange(20, 28, 2), "Distrito Federal": prefixRange(70, 73, 2),
		"Bahia": prefixRange(40, 48, 2), "Minas Gerais": prefixRange(30, 39, 2), "Ceará": prefixRange(60, 63, 2), "Paraná": prefixRange(80, 87, 2),
		"Pernambuco": prefixRange(50, 56, 2), "Rio Grande do Sul": prefixRange(90, 99, 2), "Amazonas": {"690", "691", "692", "694", "695", "696", "697", "698"},
	}},
	"India": {regexp.MustCompile(`^[1-9][0-9]{5}$`), map[string][]string{
		"Maharashtra": prefixRange(40, 44, 2), "Delhi": {"110"}, "Karnataka": prefixRange(56, 59, 2), "Telangana": prefixRange(500, 509, 3),
		"Tamil Nadu": prefixRange(60, 66, 2), "West Bengal": prefixRange(70, 74, 2), "Gujarat": prefixRange(36, 39, 2),
		"Rajasthan": prefixRange(30, 34, 2), "Uttar Pradesh": prefixRange(20, 28, 2),
	}},
	"Turkey": {regexp.MustCompile(`^[0-9]{5}$`), map[string][]string{
		// Province plate codes.
		"Istanbul": {"34"}, "Ankara": {"06"}, "Izmir": {"35"}, "Bursa": {"16"}, "Antalya": {"07"}, "Adana": {"01"},
		"Konya": {"42"}, "Gaziantep": {"27"}, "Eskişehir": {"26"}, "Trabzon": {"61"},
	}},
	"Australia": {regexp.MustCompile(`^[0-9]{4}$`), map[string][]string{
		"New South Wales": prefixRange(2000, 2599, 4), "Victoria": prefixRange(3000, 3999, 4), "Queensland": prefixRange(4000, 4999, 4),
		"Western Australia": prefixRange(6000, 6797, 4), "South Australia": prefixRange(5000, 5799, 4),
		"Australian Capital Territory": append(prefixRange(2600, 2618, 4), prefixRange(2900, 2920, 4)...),
		"Tasmania":                     prefixRange(7000, 7799, 4), "Northern Territory": prefixRange(800, 899, 4),
	}},
}

// prefixRange lists lo..hi zero-padded to width digits.
func prefixRange(lo, hi, width int) []string {
	var out []string
	for v := lo; v <= hi; v++ {
		out = append(out, fmt.Sprintf("%0*d", width, v))
	}
	return out
}

// streetOracle is what a street line looks like in each country.
var streetOracle = map[string]*regexp.Regexp{
	"United States":  regexp.MustCompile(`^[1-9][0-9]{0,3} [A-Z][a-z]+ (Street|Avenue|Road|Drive|Lane|Boulevard|Court|Place|Way|Terrace)$`),
	"Canada":         regexp.MustCompile(`^[1-9][0-9]{0,3} [A-Z][a-z]+ (Street|Avenue|Road|Drive|Crescent|Boulevard|Way)$`),
	"Australia":      regexp.MustCompile(`^[1-9][0-9]{0,2} [A-Z][a-z]+ (Street|Road|Avenue|Parade|Crescent|Drive|Place|Terrace|Highway)$`),
	"United Kingdom": regexp.MustCompile(`^[1-9][0-9]{0,2} [A-Z][a-z']+ (Road|Street|Lane|Close|Avenue|Gardens|Crescent|Way|Terrace|Drive)$`),
	"India":          regexp.MustCompile(`^[1-9][0-9]{0,2}, [A-Z][A-Za-z]+ (Road|Marg|Street|Lane)$`),
	"Germany":        regexp.MustCompile(`^[A-Z][a-z]+(straße|weg|allee|gasse|ring) [1-9][0-9]{0,2}$`),
	"France":         regexp.MustCompile(`^[1-9][0-9]{0,2} (rue|avenue|boulevard|place|allée|chemin) \S.*$`),
	"Turkey":         regexp.MustCompile(`^\S.* (Caddesi|Sokak|Bulvarı) No: [1-9][0-9]{0,2}$`),
	"Brazil":         regexp.MustCompile(`^(Rua|Avenida|Travessa|Alameda) \S.*, [1-9][0-9]{0,3}$`),
	"Japan":          regexp.MustCompile(`^[1-9]-[1-9][0-9]?-[1-9][0-9]? [A-Z][a-z]+$`),
}

// placePatterns is the city table as regular expressions: country -> city
// -> (region, postal code patterns).
type placeEntry struct {
	region string
	postal *regexp.Regexp
}

func placePatterns(t testing.TB) map[string]map[string]placeEntry {
	out := map[string]map[string]placeEntry{}
	for _, co := range countries {
		cities := map[string]placeEntry{}
		for _, ci := range co.cities {
			var alts []string
			for _, p := range ci.postal {
				var re strings.Builder
				for _, r := range p {
					switch r {
					case '#':
						re.WriteString("[0-9]")
					case '@':
						re.WriteString("[" + co.letters + "]")
					default:
						re.WriteString(regexp.QuoteMeta(string(r)))
					}
				}
				alts = append(alts, re.String())
			}
			if _, dup := cities[ci.name]; dup {
				t.Fatalf("%s: city %q twice", co.name, ci.name)
			}
			cities[ci.name] = placeEntry{ci.region, regexp.MustCompile("^(" + strings.Join(alts, "|") + ")$")}
		}
		out[co.name] = cities
	}
	return out
}

// Every country and region of the table is known to the oracles, and every
// pattern of the table, filled with each digit, passes them: the table
// itself is consistent before any document is drawn from it.
func TestPlaceTableAgreesWithOracles(t *testing.T) {
	for _, co := range countries {
		orc, ok := postalOracle[co.name]
		if !ok || streetOracle[co.name] == nil {
			t.Fatalf("no oracle for %s", co.name)
		}
		for _, ci := range co.cities {
			_, ok := orc.regions[ci.region]
			if !ok {
				t.Fatalf("%s: region %q of %s unknown to the oracle", co.name, ci.region, ci.name)
			}
			for _, p := range ci.postal {
				for d := '0'; d <= '9'; d++ {
					letter := "?"
					if co.letters != "" {
						letter = string(co.letters[int(d-'0')%len(co.letters)])
					}
					code := strings.NewReplacer("#", string(d), "@", letter).Replace(p)
					if err := checkPostal(co.name, ci.region, code); err != nil {
						t.Errorf("%s, %s: pattern %q: %v", ci.name, co.name, p, err)
					}
				}
			}
		}
	}
}

func checkPostal(countryName, region, code string) error {
	orc := postalOracle[countryName]
	if !orc.format.MatchString(code) {
		return fmt.Errorf("postal code %q: not in %s's format %s", code, countryName, orc.format)
	}
	for _, p := range orc.regions[region] {
		if strings.HasPrefix(code, p) {
			return nil
		}
	}
	return fmt.Errorf("postal code %q is not one of %s's (%s)", code, region, countryName)
}

// coherence checks every rule of a generated document that can be checked
// within it, plus references to the other collections of its plan.
type coherence struct {
	t      testing.TB
	places map[string]map[string]placeEntry
	base   time.Time
	ds     *Dataset
	prices map[int64]int64 // product number -> price in cents, as the product documents hold it
	// orders per user number, for the skew
	ordersOf map[int64]int
	byID     map[*Collection]map[string]int64
}

// index is the number of the document of c whose _id is id: by
// Collection.Index where it applies, else by regenerating every _id of c.
func (h *coherence) index(c *Collection, id bson.RawValue) (int64, bool) {
	if j, ok := c.Index(id); ok {
		return j, true
	}
	if c.spec.ID.Kind != IDUUID && c.spec.ID.Kind != IDField {
		return 0, false
	}
	m := h.byID[c]
	if m == nil {
		m = map[string]int64{}
		for j := range c.Len() {
			_, v, err := bson.MarshalValue(c.ID(j))
			if err != nil {
				h.t.Fatal(err)
			}
			m[string(v)] = j
		}
		h.byID[c] = m
	}
	j, ok := m[string(id.Value)]
	return j, ok
}

func newCoherence(t testing.TB, ds *Dataset) *coherence {
	return &coherence{t: t, places: placePatterns(t), base: ds.Base, ds: ds, prices: map[int64]int64{}, ordersOf: map[int64]int{}, byID: map[*Collection]map[string]int64{}}
}

// exactCents reads a money amount as whole cents, failing unless the double
// is exactly the one nearest to that decimal amount.
func exactCents(t testing.TB, what string, v float64) int64 {
	t.Helper()
	c := int64(math.Round(v * 100))
	if back, _ := strconv.ParseFloat(strconv.FormatInt(c/100, 10)+"."+fmt.Sprintf("%02d", c%100), 64); back != v {
		t.Fatalf("%s %v is not a whole number of cents", what, v)
	}
	return c
}

func (h *coherence) check(c *Collection, i int64, raw bson.Raw) {
	t := h.t
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s[%d] %s: %s", c.Name(), i, raw, fmt.Sprintf(format, args...))
	}
	for _, p := range []rules.Profile{rules.MongoDB, rules.FerretDB} {
		if err := p.Check(raw); err != nil {
			fail("%s refuses it: %v", p.Name(), err)
		}
	}
	created := raw.Lookup("createdAt").Time().UTC()
	if !created.Equal(c.Time(i)) {
		fail("createdAt %v; want the document's time %v", created, c.Time(i))
	}
	if up, ok := raw.Lookup("updatedAt").TimeOK(); ok {
		if up.Before(created) || up.After(h.base) {
			fail("updatedAt %v outside [createdAt %v, base %v]", up.UTC(), created, h.base)
		}
	} else if c.spec.Kind != KindEmployee {
		fail("no updatedAt")
	}
	switch c.spec.Kind {
	case KindUser:
		h.user(raw, i, created, fail)
	case KindEmployee:
		name := raw.Lookup("EmployeeName").StringValue()
		first, last, _ := strings.Cut(name, " ")
		if strings.Count(name, " ") == 1 {
			if want := fmt.Sprintf("%s.%s.%d@example.com", slugRef(first), slugRef(last), i); raw.Lookup("email").StringValue() != want {
				fail("email %q; want %q", raw.Lookup("email").StringValue(), want)
			}
		}
	case KindProduct:
		price := exactCents(t, "price", raw.Lookup("price").Double())
		if price < 100 || price >= 50000 {
			fail("price %d cents outside 1.00..499.99", price)
		}
	case KindOrder:
		h.order(c, raw, fail)
	}
}

func (h *coherence) user(raw bson.Raw, i int64, created time.Time, fail func(string, ...any)) {
	first, last := raw.Lookup("firstName").StringValue(), raw.Lookup("lastName").StringValue()
	if got := raw.Lookup("name").StringValue(); got != first+" "+last {
		fail("name %q; want %q", got, first+" "+last)
	}
	email := raw.Lookup("email").StringValue()
	okEmail := false
	for _, d := range []string{"example.com", "example.net", "example.org"} {
		okEmail = okEmail || email == fmt.Sprintf("%s.%s.%d@%s", slugRef(first), slugRef(last), i, d)
	}
	if !okEmail {
		fail("email %q is not first.last.%d@example.* of %q %q", email, i, first, last)
	}
	birth := raw.Lookup("birthDate").Time().UTC()
	if birth.Hour() != 0 || birth.Minute() != 0 || birth.Second() != 0 || birth.Nanosecond() != 0 {
		fail("birthDate %v is not a midnight UTC", birth)
	}
	age := int(raw.Lookup("age").Int32())
	// age whole years: the age-th birthday has passed, the next has not.
	if birth.AddDate(age, 0, 0).After(created) || !birth.AddDate(age+1, 0, 0).After(created) {
		fail("age %d does not match birthDate %v at createdAt %v", age, birth, created)
	}
	if age < 18 || age > 90 {
		fail("age %d outside 18..90", age)
	}
	addr := raw.Lookup("address").Document()
	country := addr.Lookup("country").StringValue()
	city := addr.Lookup("city").StringValue()
	state := addr.Lookup("state").StringValue()
	zip := addr.Lookup("zip").StringValue()
	place, ok := h.places[country][city]
	switch {
	case !ok:
		fail("city %q is not a city of %q", city, country)
	case place.region != state:
		fail("%s, %s lies in %q, not %q", city, country, place.region, state)
	case !place.postal.MatchString(zip):
		fail("postal code %q is not one of %s's (%s)", zip, city, place.postal)
	}
	if err := checkPostal(country, state, zip); err != nil {
		fail("%v", err)
	}
	if street := addr.Lookup("street").StringValue(); !streetOracle[country].MatchString(street) {
		fail("street %q does not look like a street of %s", street, country)
	}
}

func (h *coherence) order(c *Collection, raw bson.Raw, fail func(string, ...any)) {
	users, products := h.ds.Collection(c.ref("userId").To), h.ds.Collection(c.ref("productIds").To)
	u, ok := h.index(users, raw.Lookup("userId"))
	if !ok {
		fail("userId %v is no user's _id", raw.Lookup("userId"))
	}
	h.ordersOf[u]++
	ids, _ := raw.Lookup("productIds").Array().Values()
	items, _ := raw.Lookup("items").Array().Values()
	if len(items) != len(ids) || len(items) == 0 {
		fail("%d items for %d products", len(items), len(ids))
	}
	var sum int64
	for k, it := range items {
		item := it.Document()
		if !item.Lookup("productId").Equal(ids[k]) {
			fail("item %d: productId %v; productIds[%d] is %v", k, item.Lookup("productId"), k, ids[k])
		}
		j, ok := h.index(products, ids[k])
		if !ok {
			fail("productIds[%d] %v is no product's _id", k, ids[k])
		}
		price, seen := h.prices[j]
		if !seen {
			b, err := bson.Marshal(products.Doc(j))
			if err != nil {
				h.t.Fatal(err)
			}
			price = exactCents(h.t, "product price", bson.Raw(b).Lookup("price").Double())
			h.prices[j] = price
		}
		unit := exactCents(h.t, "unitPrice", item.Lookup("unitPrice").Double())
		if unit != price {
			fail("item %d: unitPrice %d cents; its product costs %d", k, unit, price)
		}
		qty := int64(item.Lookup("quantity").Int32())
		if qty < 1 || qty > 4 {
			fail("item %d: quantity %d", k, qty)
		}
		sum += qty * unit
	}
	if total := exactCents(h.t, "total", raw.Lookup("total").Double()); total != sum {
		fail("total %d cents; the items add up to %d", total, sum)
	}
}

// checkAll streams every written collection of ds and checks each document.
func (h *coherence) checkAll() int64 {
	var n int64
	for _, c := range h.ds.Collections() {
		s := c.Stream(context.Background(), StreamOptions{Workers: 2})
		for {
			b, err := s.Next()
			if err == io.EOF {
				break
			} else if err != nil {
				h.t.Fatal(err)
			}
			for k, raw := range b.Docs {
				h.check(c, b.From+int64(k), raw)
				n++
			}
		}
		s.Close()
	}
	return n
}

// TestCoherence checks every rule of coherent documents on every document
// of every built-in kind and of the shop plan: 100,000 documents of each
// (shop: 100,000 users, 10,000 products, 300,000 orders), 5,000 with
// -short.
func TestCoherence(t *testing.T) {
	// 100,000 documents a case; under the race detector, which makes each
	// check several times slower, 20,000: every document is checked on its
	// own, so the properties do not depend on the count.
	n := int64(100_000)
	switch {
	case testing.Short():
		n = 5_000
	case raceEnabled:
		n = 20_000
	}
	span := 2 * 365 * 24 * time.Hour
	cases := []struct {
		name string
		plan func() *Plan
	}{
		{"shop", func() *Plan { p, _ := BuiltinPlan("shop", n); return p }},
		{"employee", func() *Plan {
			return &Plan{Collections: []CollectionSpec{{Name: "employees", Kind: KindEmployee, Count: n}}}
		}},
		{"product/int", func() *Plan {
			return &Plan{Collections: []CollectionSpec{{Name: "products", Kind: KindProduct, Count: n, ID: IDStrategy{Kind: IDInt}}}}
		}},
		{"user/uuid", func() *Plan {
			return &Plan{Collections: []CollectionSpec{{Name: "users", Kind: KindUser, Count: n, ID: IDStrategy{Kind: IDUUID}}}}
		}},
		// Orders into other collections than the default ones, with other
		// _id strategies.
		{"order/custom-refs", func() *Plan {
			return &Plan{Collections: []CollectionSpec{
				{Name: "customers", Kind: KindUser, Count: n / 7, ID: IDStrategy{Kind: IDInt}, IDStart: 1000, RefOnly: true},
				{Name: "catalog", Kind: KindProduct, Count: 37, ID: IDStrategy{Kind: IDUUID}, RefOnly: true},
				{Name: "orders", Kind: KindOrder, Count: n, Refs: []Ref{{Field: "userId", To: "customers"}, {Field: "productIds", To: "catalog", Min: 1, Max: 5}}},
			}}
		}},
	}
	for _, tc := range cases {
		for _, at := range []time.Time{{}, time.Date(1970, 3, 1, 0, 0, 0, 0, time.UTC)} {
			name := tc.name
			if !at.IsZero() {
				name += "/1970"
			}
			t.Run(name, func(t *testing.T) {
				p := tc.plan()
				p.Seed, p.Seeded, p.At = 3, true, at
				if at.IsZero() {
					p.Span = span
				}
				ds, err := p.Build()
				if err != nil {
					t.Fatal(err)
				}
				st := time.Now()
				h := newCoherence(t, ds)
				docs := h.checkAll()
				t.Logf("%d documents checked in %v", docs, time.Since(st).Round(time.Millisecond))
			})
		}
	}
}

package seed

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Built-in kinds.
const (
	KindUser     = "user"
	KindEmployee = "employee"
	KindProduct  = "product"
	KindOrder    = "order"
)

// Kinds lists the built-in kinds.
func Kinds() []string { return []string{KindUser, KindEmployee, KindProduct, KindOrder} }

// kind builds the fields of a built-in document kind after its _id.
type kind interface {
	// fields lists the top-level fields the kind produces, in order.
	fields() []string
	// unique lists the fields that are unique by construction (they embed
	// the document number), usable as field:NAME _id.
	unique() []string
	// refs lists the reference fields the kind fills itself, with their
	// default target collections.
	refs() []Ref
	// build writes the fields after _id, drawing from w's random stream
	// in the order of the fields (the stream is the output format).
	build(w *Worker, i int64, o *docOut)
}

// KindFields lists the top-level fields of a built-in kind (after _id), and
// the ones unique by construction, usable as field:NAME.
func KindFields(name string) (fields, unique []string, ok bool) {
	k, ok := kindByName(name)
	if !ok {
		return nil, nil, false
	}
	return k.fields(), k.unique(), true
}

var exampleDomains = [...]string{"example.com", "example.net", "example.org"}

// appendSlug appends s lowercased with only ASCII letters and digits kept
// ("x" when none is left), for e-mail addresses and user names built from
// real-looking names.
func appendSlug(dst []byte, s string) []byte {
	n := len(dst)
	for k := 0; k < len(s); k++ {
		c := s[k]
		if c >= utf8.RuneSelf {
			// Some non-ASCII letters lower to ASCII ones (the Kelvin
			// sign to k): take the whole string the Unicode way.
			dst = dst[:n]
			for _, r := range strings.ToLower(s) {
				if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
					dst = append(dst, byte(r))
				}
			}
			break
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') {
			dst = append(dst, c)
		}
	}
	if len(dst) == n {
		dst = append(dst, 'x')
	}
	return dst
}

// appendNumber appends i in decimal, zero-padded to width digits (the
// bytes of fmt's %0*d).
func appendNumber(dst []byte, i int64, width int) []byte {
	if i < 0 {
		return fmt.Appendf(dst, "%0*d", width, i)
	}
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], i, 10)
	for range width - len(d) {
		dst = append(dst, '0')
	}
	return append(dst, d...)
}

// appendEmail appends first.last.i@domain, slugged.
func appendEmail(dst []byte, first, last string, i int64, domain string) []byte {
	dst = append(appendSlug(dst, first), '.')
	dst = append(appendSlug(dst, last), '.')
	dst = append(appendNumber(dst, i, 0), '@')
	return append(dst, domain...)
}

type userKind struct{}

func (userKind) fields() []string {
	return []string{"firstName", "lastName", "name", "username", "email", "birthDate", "age", "phone", "active", "address", "createdAt", "updatedAt"}
}
func (userKind) unique() []string { return []string{"username", "email"} }
func (userKind) refs() []Ref      { return nil }

func (userKind) build(w *Worker, i int64, o *docOut) {
	f := w.f
	first, last := w.firstName(), w.lastName()
	domain := exampleDomains[f.IntN(len(exampleDomains))]
	o.str("firstName", first)
	o.str("lastName", last)
	w.buf = append(append(append(w.buf[:0], first...), ' '), last...)
	o.strBytes("name", w.buf)
	w.buf = appendNumber(appendSlug(appendSlug(w.buf[:0], first[:1]), last), i, 0)
	o.strBytes("username", w.buf)
	w.buf = appendEmail(w.buf[:0], first, last, i, domain)
	o.strBytes("email", w.buf)
	created := w.c.createdAt(i)
	birth := w.birthDate(created)
	o.date("birthDate", birth)
	o.int32("age", ageAt(birth, created))
	w.buf = w.appendPhone(w.buf[:0])
	o.strBytes("phone", w.buf)
	o.boolean("active", f.IntN(10) < 8)
	co, ci := w.drawPlace()
	o.open("address", false, 5)
	w.buf = w.appendStreet(w.buf[:0], &co.street)
	o.strBytes("street", w.buf)
	o.str("city", ci.name)
	o.str("state", ci.region)
	w.buf = w.appendPostal(w.buf[:0], co, ci.postal[f.IntN(len(ci.postal))])
	o.strBytes("zip", w.buf)
	o.str("country", co.name)
	o.close()
	o.date("createdAt", created)
	o.date("updatedAt", w.updatedAt(created))
}

const msPerDay = 24 * 60 * 60 * 1000

// Birth dates lie from minBirthDays to maxBirthDays before the day of
// createdAt: 18 years have at most 18*365+5 days, and 91 years at least
// 91*365+22, so every age is 18 to 90.
const (
	minBirthDays = 18*365 + 6
	maxBirthDays = 91*365 + 22 - 1
)

// birthDate draws a birth date (midnight UTC) for someone 18 to 90 years
// old at created.
func (w *Worker) birthDate(created bson.DateTime) bson.DateTime {
	day := floorDiv(int64(created), msPerDay)
	back := int64(minBirthDays + w.f.IntN(maxBirthDays-minBirthDays+1))
	return bson.DateTime((day - back) * msPerDay)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// ageAt is the age at time at of someone born at birth: the whole years
// between them, a year counting once at's month and day (UTC) reach
// birth's (someone born on 29 February is a year older on 1 March in
// other years).
func ageAt(birth, at bson.DateTime) int32 {
	by, bm, bd := birth.Time().UTC().Date()
	ay, am, ad := at.Time().UTC().Date()
	age := ay - by
	if am < bm || (am == bm && ad < bd) {
		age--
	}
	return int32(age)
}

// updatedAt draws the last change of a document created at created: never
// before it and never after the time base; three documents in ten were
// never changed (updatedAt equals createdAt).
func (w *Worker) updatedAt(created bson.DateTime) bson.DateTime {
	f := w.f
	never := f.IntN(10) < 3
	window := w.c.baseSec*1000 - int64(created)
	if never || window <= 0 {
		return created
	}
	return created + bson.DateTime(f.Uint64()%uint64(window+1))
}

type employeeKind struct{}

var departments = [...]string{"Engineering", "Sales", "Marketing", "Finance", "Support", "Operations", "Legal", "People"}

func (employeeKind) fields() []string {
	return []string{"EmployeeName", "employeeNumber", "email", "department", "title", "salary", "createdAt"}
}
func (employeeKind) unique() []string { return []string{"employeeNumber", "email"} }
func (employeeKind) refs() []Ref      { return nil }

func (employeeKind) build(w *Worker, i int64, o *docOut) {
	f := w.f
	first, last := w.firstName(), w.lastName()
	w.buf = append(append(append(w.buf[:0], first...), ' '), last...)
	o.strBytes("EmployeeName", w.buf)
	w.buf = appendNumber(append(w.buf[:0], 'E'), i, 7)
	o.strBytes("employeeNumber", w.buf)
	w.buf = appendEmail(w.buf[:0], first, last, i, exampleDomains[0])
	o.strBytes("email", w.buf)
	o.str("department", departments[f.IntN(len(departments))])
	o.str("title", f.JobTitle())
	o.int32("salary", int32(f.IntRange(30, 250)*1000))
	o.date("createdAt", w.c.createdAt(i))
}

type productKind struct{}

func (productKind) fields() []string {
	return []string{"code", "name", "category", "price", "stock", "tags", "createdAt", "updatedAt"}
}
func (productKind) unique() []string { return []string{"code"} }
func (productKind) refs() []Ref      { return nil }

func (productKind) build(w *Worker, i int64, o *docOut) {
	f := w.f
	category := f.ProductCategory()
	tags := w.strs[:0]
	for range 1 + f.IntN(3) {
		tags = append(tags, f.Adjective())
	}
	w.strs = tags
	w.buf = append(appendCodePrefix(w.buf[:0], category), '-')
	w.buf = appendNumber(w.buf, i, 7)
	o.strBytes("code", w.buf)
	o.str("name", f.ProductName())
	o.str("category", category)
	o.double("price", centsValue(w.c.priceCents(i)))
	o.int32("stock", int32(f.IntN(1000)))
	o.open("tags", true, len(tags))
	for k, tag := range tags {
		o.str(indexKey(k), tag)
	}
	o.close()
	created := w.c.createdAt(i)
	o.date("createdAt", created)
	o.date("updatedAt", w.updatedAt(created))
}

// Prices are whole cents: an amount is computed in int64 cents and becomes
// a double only when written, as cents/100, the double nearest to the
// decimal amount (what parsing "12.34" gives).
func centsValue(c int64) float64 { return float64(c) / 100 }

// priceBands are the dollar ranges of prices with their weights, and
// priceEndings the cents prices end with: most prices are small, few are
// large, and they end as shop prices do (9.99, 24.49, 120.00).
var (
	priceBands   = [...]struct{ lo, hi, weight int64 }{{1, 10, 30}, {10, 50, 35}, {50, 200, 25}, {200, 500, 10}}
	priceEndings = [...]int64{99, 99, 99, 49, 95, 0, 0, 50}
)

// priceCents is the price of product i in cents, from 1.00 to 499.99. It
// has its own stream (not the document's), so an order can look up the
// price of the products it refers to without building them.
func (c *Collection) priceCents(i int64) int64 {
	r := derive(c.key, tagPrice, i)
	pick := int64(r % 100)
	r /= 100
	for _, b := range priceBands {
		if pick < b.weight {
			dollars := b.lo + int64(r%uint64(b.hi-b.lo))
			r /= uint64(b.hi - b.lo)
			return dollars*100 + priceEndings[r%uint64(len(priceEndings))]
		}
		pick -= b.weight
	}
	return 100 // unreachable: the weights add up to 100
}

// appendCodePrefix appends the first three letters of a category,
// upper-cased and padded with X: the readable part of a product code.
func appendCodePrefix(dst []byte, category string) []byte {
	n := len(dst)
	dst = appendSlug(dst, category)
	for len(dst)-n < 3 {
		dst = append(dst, 'x')
	}
	dst = dst[:n+3]
	for k := n; k < len(dst); k++ {
		if c := dst[k]; c >= 'a' && c <= 'z' {
			dst[k] = c - ('a' - 'A')
		}
	}
	return dst
}

type orderKind struct{}

var orderStatuses = [...]string{"pending", "paid", "shipped", "delivered", "cancelled"}

func (orderKind) fields() []string {
	return []string{"number", "userId", "productIds", "items", "total", "status", "createdAt", "updatedAt"}
}
func (orderKind) unique() []string { return []string{"number"} }
func (orderKind) refs() []Ref {
	return []Ref{
		{Field: "userId", To: "users"},
		{Field: "productIds", To: "products", Min: 1, Max: 5},
	}
}

func (orderKind) build(w *Worker, i int64, o *docOut) {
	f := w.f
	user := w.refValue("userId")
	products := w.refValue("productIds").(bson.A)
	// The unit price of an item is its product's price when the
	// references point at products; otherwise one drawn like it.
	var catalog *Collection
	if r := w.c.ref("productIds"); r != nil && r.to != nil {
		if _, ok := r.to.kind.(productKind); ok {
			catalog = r.to
		}
	}
	w.buf = appendNumber(append(w.buf[:0], "ORD-"...), i, 8)
	o.strBytes("number", w.buf)
	o.value("userId", user)
	o.value("productIds", products)
	o.open("items", true, len(products))
	var total int64 // cents
	for k, p := range products {
		qty := int64(1 + f.IntN(4))
		var price int64
		if catalog != nil {
			price = catalog.priceCents(w.picked[k])
		} else {
			price = w.c.priceCents(int64(f.Uint64() >> 1))
		}
		total += qty * price
		o.open(indexKey(k), false, 3)
		o.value("productId", p)
		o.int32("quantity", int32(qty))
		o.double("unitPrice", centsValue(price))
		o.close()
	}
	o.close()
	o.double("total", centsValue(total))
	o.str("status", orderStatuses[f.IntN(len(orderStatuses))])
	created := w.c.createdAt(i)
	o.date("createdAt", created)
	o.date("updatedAt", w.updatedAt(created))
}

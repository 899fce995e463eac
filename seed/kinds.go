package seed

import (
	"fmt"
	"math"
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

func kindByName(name string) (kind, bool) {
	switch name {
	case KindUser:
		return userKind{}, true
	case KindEmployee:
		return employeeKind{}, true
	case KindProduct:
		return productKind{}, true
	case KindOrder:
		return orderKind{}, true
	}
	return nil, false
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

func cents(x float64) float64 { return math.Round(x*100) / 100 }

type userKind struct{}

func (userKind) fields() []string {
	return []string{"firstName", "lastName", "name", "username", "email", "age", "phone", "active", "address", "createdAt"}
}
func (userKind) unique() []string { return []string{"username", "email"} }
func (userKind) refs() []Ref      { return nil }

func (userKind) build(w *Worker, i int64, o *docOut) {
	f := w.f
	first, last := f.FirstName(), f.LastName()
	domain := exampleDomains[f.IntN(len(exampleDomains))]
	o.str("firstName", first)
	o.str("lastName", last)
	w.buf = append(append(append(w.buf[:0], first...), ' '), last...)
	o.strBytes("name", w.buf)
	w.buf = appendNumber(appendSlug(appendSlug(w.buf[:0], first[:1]), last), i, 0)
	o.strBytes("username", w.buf)
	w.buf = appendEmail(w.buf[:0], first, last, i, domain)
	o.strBytes("email", w.buf)
	o.int32("age", int32(f.IntRange(18, 90)))
	o.str("phone", f.Phone())
	o.boolean("active", f.IntN(10) < 8)
	o.open("address", false, 5)
	o.str("street", f.Street())
	o.str("city", f.City())
	o.str("state", f.State())
	o.str("zip", f.Zip())
	o.str("country", f.Country())
	o.close()
	o.date("createdAt", w.c.createdAt(i))
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
	first, last := f.FirstName(), f.LastName()
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
	return []string{"code", "name", "category", "price", "stock", "tags", "createdAt"}
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
	o.double("price", cents(f.Float64Range(1, 500)))
	o.int32("stock", int32(f.IntN(1000)))
	o.open("tags", true, len(tags))
	for k, tag := range tags {
		o.str(indexKey(k), tag)
	}
	o.close()
	o.date("createdAt", w.c.createdAt(i))
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
	return []string{"number", "userId", "productIds", "items", "total", "status", "createdAt"}
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
	w.buf = appendNumber(append(w.buf[:0], "ORD-"...), i, 8)
	o.strBytes("number", w.buf)
	o.value("userId", user)
	o.value("productIds", products)
	o.open("items", true, len(products))
	total := 0.0
	for k, p := range products {
		qty := int32(1 + f.IntN(4))
		price := cents(f.Float64Range(1, 500))
		total += float64(qty) * price
		o.open(indexKey(k), false, 3)
		o.value("productId", p)
		o.int32("quantity", qty)
		o.double("unitPrice", price)
		o.close()
	}
	o.close()
	o.double("total", cents(total))
	o.str("status", orderStatuses[f.IntN(len(orderStatuses))])
	o.date("createdAt", w.c.createdAt(i))
}

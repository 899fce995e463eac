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
	build(w *Worker, i int64, d bson.D) bson.D
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

func (userKind) build(w *Worker, i int64, d bson.D) bson.D {
	f := w.f
	first, last := f.FirstName(), f.LastName()
	domain := exampleDomains[f.IntN(len(exampleDomains))]
	w.buf = appendNumber(appendSlug(appendSlug(w.buf[:0], first[:1]), last), i, 0)
	username := string(w.buf)
	w.buf = appendEmail(w.buf[:0], first, last, i, domain)
	email := string(w.buf)
	// Drawn in the order of the fields: the random stream is the format.
	age, phone, active := int32(f.IntRange(18, 90)), f.Phone(), f.IntN(10) < 8
	address := append(w.newD(5),
		bson.E{Key: "street", Value: f.Street()},
		bson.E{Key: "city", Value: f.City()},
		bson.E{Key: "state", Value: f.State()},
		bson.E{Key: "zip", Value: f.Zip()},
		bson.E{Key: "country", Value: f.Country()},
	)
	return append(d,
		bson.E{Key: "firstName", Value: first},
		bson.E{Key: "lastName", Value: last},
		bson.E{Key: "name", Value: first + " " + last},
		bson.E{Key: "username", Value: username},
		bson.E{Key: "email", Value: email},
		bson.E{Key: "age", Value: age},
		bson.E{Key: "phone", Value: phone},
		bson.E{Key: "active", Value: active},
		bson.E{Key: "address", Value: address},
		bson.E{Key: "createdAt", Value: w.c.createdAt(i)},
	)
}

type employeeKind struct{}

var departments = [...]string{"Engineering", "Sales", "Marketing", "Finance", "Support", "Operations", "Legal", "People"}

func (employeeKind) fields() []string {
	return []string{"EmployeeName", "employeeNumber", "email", "department", "title", "salary", "createdAt"}
}
func (employeeKind) unique() []string { return []string{"employeeNumber", "email"} }
func (employeeKind) refs() []Ref      { return nil }

func (employeeKind) build(w *Worker, i int64, d bson.D) bson.D {
	f := w.f
	first, last := f.FirstName(), f.LastName()
	w.buf = appendNumber(append(w.buf[:0], 'E'), i, 7)
	number := string(w.buf)
	w.buf = appendEmail(w.buf[:0], first, last, i, exampleDomains[0])
	email := string(w.buf)
	return append(d,
		bson.E{Key: "EmployeeName", Value: first + " " + last},
		bson.E{Key: "employeeNumber", Value: number},
		bson.E{Key: "email", Value: email},
		bson.E{Key: "department", Value: departments[f.IntN(len(departments))]},
		bson.E{Key: "title", Value: f.JobTitle()},
		bson.E{Key: "salary", Value: int32(f.IntRange(30, 250) * 1000)},
		bson.E{Key: "createdAt", Value: w.c.createdAt(i)},
	)
}

type productKind struct{}

func (productKind) fields() []string {
	return []string{"code", "name", "category", "price", "stock", "tags", "createdAt"}
}
func (productKind) unique() []string { return []string{"code"} }
func (productKind) refs() []Ref      { return nil }

func (productKind) build(w *Worker, i int64, d bson.D) bson.D {
	f := w.f
	category := f.ProductCategory()
	tags := w.newA(1 + f.IntN(3))
	for k := range tags {
		tags[k] = f.Adjective()
	}
	w.buf = append(appendCodePrefix(w.buf[:0], category), '-')
	w.buf = appendNumber(w.buf, i, 7)
	code := string(w.buf)
	return append(d,
		bson.E{Key: "code", Value: code},
		bson.E{Key: "name", Value: f.ProductName()},
		bson.E{Key: "category", Value: category},
		bson.E{Key: "price", Value: cents(f.Float64Range(1, 500))},
		bson.E{Key: "stock", Value: int32(f.IntN(1000))},
		bson.E{Key: "tags", Value: tags},
		bson.E{Key: "createdAt", Value: w.c.createdAt(i)},
	)
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

func (orderKind) build(w *Worker, i int64, d bson.D) bson.D {
	f := w.f
	user := w.refValue("userId")
	products := w.refValue("productIds").(bson.A)
	items := w.newA(len(products))
	total := 0.0
	for k, p := range products {
		qty := int32(1 + f.IntN(4))
		price := cents(f.Float64Range(1, 500))
		total += float64(qty) * price
		items[k] = append(w.newD(3),
			bson.E{Key: "productId", Value: p},
			bson.E{Key: "quantity", Value: qty},
			bson.E{Key: "unitPrice", Value: price},
		)
	}
	w.buf = appendNumber(append(w.buf[:0], "ORD-"...), i, 8)
	number := string(w.buf)
	return append(d,
		bson.E{Key: "number", Value: number},
		bson.E{Key: "userId", Value: user},
		bson.E{Key: "productIds", Value: products},
		bson.E{Key: "items", Value: items},
		bson.E{Key: "total", Value: cents(total)},
		bson.E{Key: "status", Value: orderStatuses[f.IntN(len(orderStatuses))]},
		bson.E{Key: "createdAt", Value: w.c.createdAt(i)},
	)
}

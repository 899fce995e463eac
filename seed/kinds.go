package seed

import (
	"fmt"
	"math"
	"strings"

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

// slug lowercases s and keeps only ASCII letters and digits, for e-mail
// addresses and user names built from real-looking names.
func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "x"
	}
	return b.String()
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
	return append(d,
		bson.E{Key: "firstName", Value: first},
		bson.E{Key: "lastName", Value: last},
		bson.E{Key: "name", Value: first + " " + last},
		bson.E{Key: "username", Value: fmt.Sprintf("%s%s%d", slug(first[:1]), slug(last), i)},
		bson.E{Key: "email", Value: fmt.Sprintf("%s.%s.%d@%s", slug(first), slug(last), i, domain)},
		bson.E{Key: "age", Value: int32(f.IntRange(18, 90))},
		bson.E{Key: "phone", Value: f.Phone()},
		bson.E{Key: "active", Value: f.IntN(10) < 8},
		bson.E{Key: "address", Value: bson.D{
			{Key: "street", Value: f.Street()},
			{Key: "city", Value: f.City()},
			{Key: "state", Value: f.State()},
			{Key: "zip", Value: f.Zip()},
			{Key: "country", Value: f.Country()},
		}},
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
	return append(d,
		bson.E{Key: "EmployeeName", Value: first + " " + last},
		bson.E{Key: "employeeNumber", Value: fmt.Sprintf("E%07d", i)},
		bson.E{Key: "email", Value: fmt.Sprintf("%s.%s.%d@%s", slug(first), slug(last), i, exampleDomains[0])},
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
	tags := make(bson.A, 1+f.IntN(3))
	for k := range tags {
		tags[k] = f.Adjective()
	}
	return append(d,
		bson.E{Key: "code", Value: fmt.Sprintf("%s-%07d", strings.ToUpper(slugPrefix(category)), i)},
		bson.E{Key: "name", Value: f.ProductName()},
		bson.E{Key: "category", Value: category},
		bson.E{Key: "price", Value: cents(f.Float64Range(1, 500))},
		bson.E{Key: "stock", Value: int32(f.IntN(1000))},
		bson.E{Key: "tags", Value: tags},
		bson.E{Key: "createdAt", Value: w.c.createdAt(i)},
	)
}

// slugPrefix is the first three letters of a category, the readable part of
// a product code.
func slugPrefix(s string) string {
	p := slug(s)
	for len(p) < 3 {
		p += "x"
	}
	return p[:3]
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
	items := make(bson.A, len(products))
	total := 0.0
	for k, p := range products {
		qty := int32(1 + f.IntN(4))
		price := cents(f.Float64Range(1, 500))
		total += float64(qty) * price
		items[k] = bson.D{
			{Key: "productId", Value: p},
			{Key: "quantity", Value: qty},
			{Key: "unitPrice", Value: price},
		}
	}
	return append(d,
		bson.E{Key: "number", Value: fmt.Sprintf("ORD-%08d", i)},
		bson.E{Key: "userId", Value: user},
		bson.E{Key: "productIds", Value: products},
		bson.E{Key: "items", Value: items},
		bson.E{Key: "total", Value: cents(total)},
		bson.E{Key: "status", Value: orderStatuses[f.IntN(len(orderStatuses))]},
		bson.E{Key: "createdAt", Value: w.c.createdAt(i)},
	)
}

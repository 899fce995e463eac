package seed

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// ShapeError is a refusal that holds for every document of a collection: it
// comes from its template's keys or nesting, not from generated values.
type ShapeError struct {
	Collection string
	Template   string // the template's name
	Err        error  // the check's error
}

func (e *ShapeError) Error() string {
	return fmt.Sprintf("%s: every document (template %s): %v", e.Collection, e.Template, e.Err)
}

func (e *ShapeError) Unwrap() error { return e.Err }

// CheckShape checks what c's documents have in common before any is
// generated. For a template that is a skeleton document: _id, the
// template's keys and nesting with each placeholder replaced by a value of
// its type (an empty string, 0, false), then createdAt unless the template
// has it. check sees it as it
// would see a generated document, so the target's rules on keys and depth
// are found with the template's path. A built-in kind has nothing to check
// here. The error is a *ShapeError wrapping check's error.
func (c *Collection) CheckShape(check func(bson.Raw) error) error {
	t := c.spec.Template
	if t == nil || check == nil {
		return nil
	}
	d := bson.D{{Key: "_id", Value: int32(0)}}
	for k, key := range t.root.keys {
		d = append(d, bson.E{Key: key, Value: t.root.children[k].skeleton()})
	}
	if !t.owns("createdAt") { // as appendDoc adds it
		d = append(d, bson.E{Key: "createdAt", Value: bson.DateTime(0)})
	}
	raw, err := bson.Marshal(d)
	if err == nil {
		err = check(raw)
	}
	if err != nil {
		return &ShapeError{Collection: c.Name(), Template: t.Name(), Err: err}
	}
	return nil
}

// skeleton is n with every placeholder replaced by a neutral value of its
// type.
func (n *tnode) skeleton() any {
	switch n.kind {
	case tObject:
		d := make(bson.D, len(n.keys))
		for k, key := range n.keys {
			d[k] = bson.E{Key: key, Value: n.children[k].skeleton()}
		}
		return d
	case tArray:
		a := make(bson.A, len(n.children))
		for k, c := range n.children {
			a[k] = c.skeleton()
		}
		return a
	case tShape:
		return n.shape.skeleton()
	case tPattern:
		switch n.typed {
		case "int":
			return int32(0)
		case "float":
			return 0.5
		case "bool":
			return false
		}
		return ""
	}
	return n.value
}

// ReadsClock reports whether some placeholder of t gives different values
// for the same seed (it reads the clock): a run of t cannot be repeated.
func (t *Template) ReadsClock() bool { return len(t.unstable) > 0 }

package engine

import (
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// applyOp applies one operator at its path.
func (u *Update) applyOp(root *mdoc, o updateOp, matchPos int, now time.Time) error {
	if o.op == "$rename" {
		src := getPath(root, o.parts)
		if src == nil {
			return nil
		}
		if err := modifyPath(&mval{doc: root}, o.parts, 0, false, u, matchPos, o.path, func(cur *mval, parent *mval) (*mval, bool, error) {
			return nil, true, nil
		}); err != nil {
			return err
		}
		to := strings.Split(o.arg.StringValue(), ".")
		return modifyPath(&mval{doc: root}, to, 0, true, u, matchPos, o.arg.StringValue(), func(cur *mval, parent *mval) (*mval, bool, error) {
			return src, false, nil
		})
	}
	create := o.op != "$unset" && o.op != "$pop" && o.op != "$pull" && o.op != "$pullAll"
	return modifyPath(&mval{doc: root}, o.parts, 0, create, u, matchPos, o.path, func(cur *mval, parent *mval) (*mval, bool, error) {
		return u.operate(o, cur, now, root)
	})
}

func getPath(d *mdoc, parts []string) *mval {
	cur := &mval{doc: d}
	for _, p := range parts {
		switch {
		case cur.doc != nil:
			v, _ := cur.doc.get(p)
			if v == nil {
				return nil
			}
			cur = v
		case cur.isA:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(cur.arr) {
				return nil
			}
			cur = cur.arr[i]
		default:
			return nil
		}
	}
	return cur
}

// modifyPath walks parts from node and calls fn on the value found there
// (nil if none); fn returns the new value, or remove.
func modifyPath(node *mval, parts []string, depth int, create bool, u *Update, matchPos int, full string,
	fn func(cur, parent *mval) (*mval, bool, error)) error {
	p := parts[depth]
	last := depth == len(parts)-1
	step := func(child *mval, setChild func(*mval), removeChild func()) error {
		if last {
			nv, remove, err := fn(child, node)
			if err != nil {
				return err
			}
			switch {
			case remove:
				if child != nil {
					removeChild()
				}
			case nv != nil:
				setChild(nv)
			}
			return nil
		}
		if child == nil {
			if !create {
				return nil
			}
			child = &mval{doc: &mdoc{}}
			setChild(child)
		}
		if child.doc == nil && !child.isA {
			if !create {
				return nil
			}
			return mongoerr.New(mongoerr.PathNotViable, "Cannot create field '%s' in element {%s: %s}", parts[depth+1], p, bsonval.Shell(child.leaf))
		}
		return modifyPath(child, parts, depth+1, create, u, matchPos, full, fn)
	}
	switch {
	case node.doc != nil:
		if strings.HasPrefix(p, "$") {
			return mongoerr.New(mongoerr.BadValue, "The positional operator did not find the match needed from the query.")
		}
		child, _ := node.doc.get(p)
		return step(child, func(v *mval) { node.doc.set(p, v) }, func() { node.doc.remove(p) })
	case node.isA:
		switch {
		case p == "$":
			if matchPos < 0 {
				return mongoerr.New(mongoerr.BadValue, "The positional operator did not find the match needed from the query.")
			}
			p = strconv.Itoa(matchPos)
		case p == "$[]" || strings.HasPrefix(p, "$["):
			return eachElement(node, strings.TrimSuffix(strings.TrimPrefix(p, "$["), "]"), u, step)
		}
		i, err := strconv.Atoi(p)
		if err != nil || i < 0 {
			if !create {
				return nil
			}
			return mongoerr.New(mongoerr.PathNotViable, "Cannot create field '%s' in element {%s: %s}", p, parentName(parts, depth), bsonval.Shell(node.value()))
		}
		var child *mval
		if i < len(node.arr) {
			child = node.arr[i]
		}
		return step(child, func(v *mval) {
			for len(node.arr) <= i {
				node.arr = append(node.arr, &mval{leaf: bsonval.Null()})
			}
			node.arr[i] = v
		}, func() { node.arr[i] = &mval{leaf: bsonval.Null()} })
	}
	return nil
}

// eachElement takes step into each element of node's array, $[], or each
// that the array filter named id matches, $[id].
func eachElement(node *mval, id string, u *Update, step func(child *mval, setChild func(*mval), removeChild func()) error) error {
	for i := range node.arr {
		if id != "" {
			f := u.filters[id]
			el := bsoncore.NewDocumentBuilder().AppendValue(id, node.arr[i].value()).Build()
			if !f.Match(el) {
				continue
			}
		}
		i := i
		if err := step(node.arr[i], func(v *mval) { node.arr[i] = v }, func() { node.arr[i] = &mval{leaf: bsonval.Null()} }); err != nil {
			return err
		}
	}
	return nil
}

func parentName(parts []string, depth int) string {
	if depth == 0 {
		return ""
	}
	return parts[depth-1]
}

package update

import (
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// applyOp applies one operator at its path.
func (u *Update) applyOp(root *bsonval.MDoc, o updateOp, matchPos int, now time.Time) error {
	if o.op == "$rename" {
		src := bsonval.MutablePath(root, o.parts)
		if src == nil {
			return nil
		}
		if err := modifyPath(&bsonval.MValue{Doc: root}, o.parts, 0, false, u, matchPos, o.path, func(cur *bsonval.MValue, parent *bsonval.MValue) (*bsonval.MValue, bool, error) {
			return nil, true, nil
		}); err != nil {
			return err
		}
		to := strings.Split(o.arg.StringValue(), ".")
		return modifyPath(&bsonval.MValue{Doc: root}, to, 0, true, u, matchPos, o.arg.StringValue(), func(cur *bsonval.MValue, parent *bsonval.MValue) (*bsonval.MValue, bool, error) {
			return src, false, nil
		})
	}
	create := o.op != "$unset" && o.op != "$pop" && o.op != "$pull" && o.op != "$pullAll"
	return modifyPath(&bsonval.MValue{Doc: root}, o.parts, 0, create, u, matchPos, o.path, func(cur *bsonval.MValue, parent *bsonval.MValue) (*bsonval.MValue, bool, error) {
		return u.operate(o, cur, now, root)
	})
}

// modifyPath walks parts from node and calls fn on the value found there
// (nil if none); fn returns the new value, or remove.
func modifyPath(node *bsonval.MValue, parts []string, depth int, create bool, u *Update, matchPos int, full string,
	fn func(cur, parent *bsonval.MValue) (*bsonval.MValue, bool, error)) error {
	p := parts[depth]
	last := depth == len(parts)-1
	step := func(child *bsonval.MValue, setChild func(*bsonval.MValue), removeChild func()) error {
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
			child = &bsonval.MValue{Doc: &bsonval.MDoc{}}
			setChild(child)
		}
		if child.Doc == nil && !child.IsArray {
			if !create {
				return nil
			}
			return mongoerr.New(mongoerr.PathNotViable, "Cannot create field '%s' in element {%s: %s}", parts[depth+1], p, bsonval.Shell(child.Leaf))
		}
		return modifyPath(child, parts, depth+1, create, u, matchPos, full, fn)
	}
	switch {
	case node.Doc != nil:
		if strings.HasPrefix(p, "$") {
			return mongoerr.New(mongoerr.BadValue, "The positional operator did not find the match needed from the query.")
		}
		child, _ := node.Doc.Get(p)
		return step(child, func(v *bsonval.MValue) { node.Doc.Set(p, v) }, func() { node.Doc.Remove(p) })
	case node.IsArray:
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
			return mongoerr.New(mongoerr.PathNotViable, "Cannot create field '%s' in element {%s: %s}", p, parentName(parts, depth), bsonval.Shell(node.Value()))
		}
		var child *bsonval.MValue
		if i < len(node.Arr) {
			child = node.Arr[i]
		}
		return step(child, func(v *bsonval.MValue) {
			for len(node.Arr) <= i {
				node.Arr = append(node.Arr, &bsonval.MValue{Leaf: bsonval.Null()})
			}
			node.Arr[i] = v
		}, func() { node.Arr[i] = &bsonval.MValue{Leaf: bsonval.Null()} })
	}
	return nil
}

// eachElement takes step into each element of node's array, $[], or each
// that the array filter named id matches, $[id].
func eachElement(node *bsonval.MValue, id string, u *Update, step func(child *bsonval.MValue, setChild func(*bsonval.MValue), removeChild func()) error) error {
	for i := range node.Arr {
		if id != "" {
			f := u.filters[id]
			el := bsoncore.NewDocumentBuilder().AppendValue(id, node.Arr[i].Value()).Build()
			if !f.Match(el) {
				continue
			}
		}
		i := i
		if err := step(node.Arr[i], func(v *bsonval.MValue) { node.Arr[i] = v }, func() { node.Arr[i] = &bsonval.MValue{Leaf: bsonval.Null()} }); err != nil {
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

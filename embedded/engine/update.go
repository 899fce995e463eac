package engine

import (
	"bytes"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// Update is a compiled update: operators, a replacement or a pipeline.
type Update struct {
	replacement bsoncore.Document
	pipeline    []bsoncore.Document
	ops         []updateOp
	filters     map[string]*Filter
	vars        *exprVars
}

type updateOp struct {
	op    string
	path  string
	parts []string
	arg   bsoncore.Value
}

var updateOperators = map[string]bool{
	"$set": true, "$unset": true, "$inc": true, "$mul": true, "$min": true, "$max": true,
	"$rename": true, "$currentDate": true, "$setOnInsert": true, "$push": true, "$addToSet": true,
	"$pop": true, "$pull": true, "$pullAll": true, "$bit": true,
}

// compileUpdate compiles an update document or pipeline.
func compileUpdate(u bsoncore.Value, arrayFilters []bsoncore.Value, vars *exprVars) (*Update, error) {
	up := &Update{vars: vars}
	if u.Type == bsoncore.TypeArray {
		for _, s := range arrayValues(u) {
			if s.Type != bsoncore.TypeEmbeddedDocument {
				return nil, mongoerr.New(mongoerr.FailedToParse, "Each element of the 'pipeline' array must be an object")
			}
			st := bsoncore.Document(s.Data)
			els := elements(st)
			if len(els) != 1 {
				return nil, mongoerr.New(mongoerr.Location(40323), "A pipeline stage specification object must contain exactly one field.")
			}
			switch els[0].Key() {
			case "$addFields", "$set", "$project", "$unset", "$replaceRoot", "$replaceWith":
			default:
				return nil, mongoerr.New(mongoerr.InvalidOptions, "%s is not allowed to be used within an update", els[0].Key())
			}
			up.pipeline = append(up.pipeline, st)
		}
		if len(arrayFilters) > 0 {
			return nil, mongoerr.New(mongoerr.FailedToParse, "arrayFilters may not be specified for pipeline-style updates")
		}
		return up, nil
	}
	if u.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.FailedToParse, "Update document must be an object or a pipeline")
	}
	d := bsoncore.Document(u.Data)
	els := elements(d)
	if len(els) == 0 || !strings.HasPrefix(els[0].Key(), "$") {
		for _, e := range els {
			if strings.HasPrefix(e.Key(), "$") {
				return nil, mongoerr.New(mongoerr.DollarPrefixedFieldName, "The dollar ($) prefixed field '%s' in '%s' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith.", e.Key(), e.Key())
			}
		}
		up.replacement = d
		return up, nil
	}
	for _, e := range els {
		op := e.Key()
		if !updateOperators[op] {
			if !strings.HasPrefix(op, "$") {
				return nil, mongoerr.New(mongoerr.FailedToParse, "Unknown modifier: %s. Expected a valid update modifier or pipeline-style update specified as an array", op)
			}
			return nil, mongoerr.New(mongoerr.FailedToParse, "Unknown modifier: %s. Expected a valid update modifier or pipeline-style update specified as an array", op)
		}
		if e.Value().Type != bsoncore.TypeEmbeddedDocument {
			return nil, mongoerr.New(mongoerr.FailedToParse, "Modifiers operate on fields but we found type %s instead. For example: {$mod: {<field>: ...}} not {%s: %s}", typeName(e.Value().Type), op, shell(e.Value()))
		}
		for _, f := range elements(bsoncore.Document(e.Value().Data)) {
			path := f.Key()
			if path == "" || strings.HasPrefix(path, ".") || strings.HasSuffix(path, ".") || strings.Contains(path, "..") {
				return nil, mongoerr.New(mongoerr.EmptyFieldName, "An update path '%s' contains an empty field name, which is not allowed.", path)
			}
			if op == "$rename" {
				if f.Value().Type != bsoncore.TypeString {
					return nil, mongoerr.New(mongoerr.BadValue, "The 'to' field for $rename must be a string: %s: %s", path, shell(f.Value()))
				}
				to := f.Value().StringValue()
				if to == path {
					return nil, mongoerr.New(mongoerr.BadValue, "The source and target field for $rename must differ: %s: %s", path, shell(f.Value()))
				}
			}
			if (op == "$inc" || op == "$mul") && !isNumber(f.Value()) {
				return nil, mongoerr.New(mongoerr.TypeMismatch, "Cannot %s with non-numeric argument: {%s: %s}", strings.TrimPrefix(op, "$")[:3], path, shell(f.Value()))
			}
			up.ops = append(up.ops, updateOp{op: op, path: path, parts: strings.Split(path, "."), arg: f.Value()})
		}
	}
	// conflicting paths
	paths := map[string]string{}
	for _, o := range up.ops {
		ps := []string{o.path}
		if o.op == "$rename" {
			ps = append(ps, o.arg.StringValue())
		}
		for _, p := range ps {
			for q := range paths {
				if p == q || strings.HasPrefix(p, q+".") || strings.HasPrefix(q, p+".") {
					return nil, mongoerr.New(mongoerr.ConflictingUpdateOperators, "Updating the path '%s' would create a conflict at '%s'", p, shorter(p, q))
				}
			}
			paths[p] = o.op
		}
	}
	up.filters = map[string]*Filter{}
	for _, af := range arrayFilters {
		if af.Type != bsoncore.TypeEmbeddedDocument {
			return nil, mongoerr.New(mongoerr.TypeMismatch, "Each array filter must be an object")
		}
		els := elements(bsoncore.Document(af.Data))
		if len(els) == 0 {
			return nil, mongoerr.New(mongoerr.FailedToParse, "Cannot use an expression without a top-level field name in arrayFilters")
		}
		id, _, _ := strings.Cut(els[0].Key(), ".")
		if _, dup := up.filters[id]; dup {
			return nil, mongoerr.New(mongoerr.FailedToParse, "Found multiple array filters with the same top-level field name %s", id)
		}
		f, err := compileFilter(bsoncore.Document(af.Data), vars)
		if err != nil {
			return nil, err
		}
		up.filters[id] = f
	}
	used := map[string]bool{}
	for _, o := range up.ops {
		for _, p := range o.parts {
			if strings.HasPrefix(p, "$[") && p != "$[]" {
				id := strings.TrimSuffix(strings.TrimPrefix(p, "$["), "]")
				if _, ok := up.filters[id]; !ok {
					return nil, mongoerr.New(mongoerr.BadValue, "No array filter found for identifier '%s' in path '%s'", id, o.path)
				}
				used[id] = true
			}
		}
	}
	for id := range up.filters {
		if !used[id] {
			return nil, mongoerr.New(mongoerr.FailedToParse, "The array filter for identifier '%s' was not used in the update %s", id, shell(u))
		}
	}
	return up, nil
}

func shorter(a, b string) string {
	if len(a) < len(b) {
		return a
	}
	return b
}

// isReplacement reports whether u replaces whole documents.
func (u *Update) isReplacement() bool { return u.replacement != nil }

// apply applies u to doc. matchPos is the positional operator's index.
func (u *Update) apply(doc bsoncore.Document, matchPos int, upsert bool) (bsoncore.Document, error) {
	oldID, _ := doc.LookupErr("_id")
	var out bsoncore.Document
	switch {
	case u.replacement != nil:
		b := bsoncore.NewDocumentBuilder()
		if oldID.Type != 0 {
			b.AppendValue("_id", oldID)
		}
		for _, e := range elements(u.replacement) {
			if e.Key() == "_id" {
				if oldID.Type != 0 && !bytes.Equal(e.Value().Data, oldID.Data) || oldID.Type != 0 && e.Value().Type != oldID.Type {
					return nil, immutableID()
				}
				if oldID.Type == 0 {
					b.AppendValue("_id", e.Value())
				}
				continue
			}
			b.AppendValue(e.Key(), e.Value())
		}
		out = b.Build()
	case u.pipeline != nil:
		var err error
		out, err = applyUpdatePipeline(doc, u.pipeline, u.vars)
		if err != nil {
			return nil, err
		}
		// a pipeline that leaves _id out keeps the document's own
		if _, err := out.LookupErr("_id"); err != nil && oldID.Type != 0 {
			b := bsoncore.NewDocumentBuilder().AppendValue("_id", oldID)
			for _, e := range elements(out) {
				b.AppendValue(e.Key(), e.Value())
			}
			out = b.Build()
		}
	default:
		root := toMDoc(doc)
		now := time.Now()
		for _, o := range u.ops {
			if o.op == "$setOnInsert" && !upsert {
				continue
			}
			if err := u.applyOp(root, o, matchPos, now); err != nil {
				return nil, err
			}
		}
		out = root.build()
	}
	newID, err := out.LookupErr("_id")
	if oldID.Type != 0 && (err != nil || newID.Type != oldID.Type || !bytes.Equal(newID.Data, oldID.Data)) {
		return nil, immutableID()
	}
	if err == nil && elements(out)[0].Key() != "_id" {
		out = idFirst(out)
	}
	if len(out) > maxDocSize {
		return nil, mongoerr.New(mongoerr.Location(17419), "Resulting document after update is larger than %d", maxDocSize)
	}
	return out, nil
}

func immutableID() error {
	return mongoerr.New(mongoerr.ImmutableField, "Performing an update on the path '_id' would modify the immutable field '_id'")
}

// idFirst moves _id to the front.
func idFirst(d bsoncore.Document) bsoncore.Document {
	id, err := d.LookupErr("_id")
	if err != nil {
		return d
	}
	b := bsoncore.NewDocumentBuilder().AppendValue("_id", id)
	for _, e := range elements(d) {
		if e.Key() != "_id" {
			b.AppendValue(e.Key(), e.Value())
		}
	}
	return b.Build()
}

const maxDocSize = 16 * 1024 * 1024

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
			return mongoerr.New(mongoerr.PathNotViable, "Cannot create field '%s' in element {%s: %s}", parts[depth+1], p, shell(child.leaf))
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
			id := strings.TrimSuffix(strings.TrimPrefix(p, "$["), "]")
			for i := range node.arr {
				if id != "" {
					f := u.filters[id]
					el := bsoncore.NewDocumentBuilder().AppendValue(id, node.arr[i].value()).Build()
					if !f.Match(el) {
						continue
					}
				}
				i := i
				if err := step(node.arr[i], func(v *mval) { node.arr[i] = v }, func() { node.arr[i] = &mval{leaf: vNull()} }); err != nil {
					return err
				}
			}
			return nil
		}
		i, err := strconv.Atoi(p)
		if err != nil || i < 0 {
			if !create {
				return nil
			}
			return mongoerr.New(mongoerr.PathNotViable, "Cannot create field '%s' in element {%s: %s}", p, parentName(parts, depth), shell(node.value()))
		}
		var child *mval
		if i < len(node.arr) {
			child = node.arr[i]
		}
		return step(child, func(v *mval) {
			for len(node.arr) <= i {
				node.arr = append(node.arr, &mval{leaf: vNull()})
			}
			node.arr[i] = v
		}, func() { node.arr[i] = &mval{leaf: vNull()} })
	}
	return nil
}

func parentName(parts []string, depth int) string {
	if depth == 0 {
		return ""
	}
	return parts[depth-1]
}

// operate computes an operator's new value from the current one (nil if
// the field is missing).
func (u *Update) operate(o updateOp, cur *mval, now time.Time, root *mdoc) (*mval, bool, error) {
	idDoc := func() string {
		if id, _ := root.get("_id"); id != nil {
			return "{_id: " + shell(id.value()) + "}"
		}
		return "{}"
	}
	switch o.op {
	case "$set", "$setOnInsert":
		return toM(o.arg), false, nil
	case "$unset":
		return nil, true, nil
	case "$inc", "$mul":
		if cur == nil {
			if o.op == "$mul" {
				return toM(zeroLike(o.arg)), false, nil
			}
			return toM(o.arg), false, nil
		}
		cv := cur.value()
		if !isNumber(cv) {
			return nil, false, mongoerr.New(mongoerr.TypeMismatch, "Cannot apply %s to a value of non-numeric type. %s has the field '%s' of non-numeric type %s", o.op, idDoc(), o.parts[len(o.parts)-1], typeName(cv.Type))
		}
		if o.op == "$inc" {
			return toM(arith('+', cv, o.arg)), false, nil
		}
		return toM(arith('*', cv, o.arg)), false, nil
	case "$min", "$max":
		if cur == nil {
			return toM(o.arg), false, nil
		}
		c := compareValues(o.arg, cur.value())
		if (o.op == "$min" && c < 0) || (o.op == "$max" && c > 0) {
			return toM(o.arg), false, nil
		}
		return nil, false, nil
	case "$currentDate":
		if o.arg.Type == bsoncore.TypeEmbeddedDocument {
			if t, err := bsoncore.Document(o.arg.Data).LookupErr("$type"); err == nil && toStr(t) == "timestamp" {
				return toM(bsoncore.Value{Type: bsoncore.TypeTimestamp, Data: bsoncore.AppendTimestamp(nil, uint32(now.Unix()), 1)}), false, nil
			}
		}
		return toM(vDate(now.UnixMilli())), false, nil
	case "$push", "$addToSet":
		if cur != nil && !cur.isA {
			return nil, false, mongoerr.New(mongoerr.BadValue, "The field '%s' must be an array but is of type %s in document %s", o.path, typeName(cur.value().Type), idDoc())
		}
		arr := []*mval{}
		if cur != nil {
			arr = append(arr, cur.arr...)
		}
		each := []bsoncore.Value{o.arg}
		var mods bsoncore.Document
		if o.arg.Type == bsoncore.TypeEmbeddedDocument {
			if ev, err := bsoncore.Document(o.arg.Data).LookupErr("$each"); err == nil {
				if ev.Type != bsoncore.TypeArray {
					return nil, false, mongoerr.New(mongoerr.BadValue, "The argument to $each in %s must be an array but it was of type: %s", o.op, typeName(ev.Type))
				}
				each = arrayValues(ev)
				mods = bsoncore.Document(o.arg.Data)
			}
		}
		if o.op == "$addToSet" {
			for _, v := range each {
				dup := false
				for _, x := range arr {
					if valuesEqual(x.value(), v) {
						dup = true
						break
					}
				}
				if !dup {
					arr = append(arr, toM(v))
				}
			}
			return &mval{isA: true, arr: arr}, false, nil
		}
		return pushWith(arr, each, mods)
	case "$pop":
		if cur == nil {
			return nil, false, nil
		}
		if !cur.isA {
			return nil, false, mongoerr.New(mongoerr.TypeMismatch, "Path '%s' contains an element of non-array type '%s'", o.path, typeName(cur.value().Type))
		}
		arr := append([]*mval{}, cur.arr...)
		if len(arr) > 0 {
			if numberFloat(o.arg) < 0 {
				arr = arr[1:]
			} else {
				arr = arr[:len(arr)-1]
			}
		}
		return &mval{isA: true, arr: arr}, false, nil
	case "$pull", "$pullAll":
		if cur == nil {
			return nil, false, nil
		}
		if !cur.isA {
			return nil, false, mongoerr.New(mongoerr.BadValue, "Cannot apply %s to a non-array value", o.op)
		}
		var drop func(v bsoncore.Value) bool
		if o.op == "$pullAll" {
			if o.arg.Type != bsoncore.TypeArray {
				return nil, false, mongoerr.New(mongoerr.BadValue, "$pullAll requires an array argument but was given a %s", typeName(o.arg.Type))
			}
			vals := arrayValues(o.arg)
			drop = func(v bsoncore.Value) bool {
				for _, x := range vals {
					if valuesEqual(x, v) {
						return true
					}
				}
				return false
			}
		} else {
			var err error
			if drop, err = pullPred(o.arg, u.vars); err != nil {
				return nil, false, err
			}
		}
		var arr []*mval
		for _, e := range cur.arr {
			if !drop(e.value()) {
				arr = append(arr, e)
			}
		}
		return &mval{isA: true, arr: arr}, false, nil
	case "$bit":
		if cur == nil {
			cur = &mval{leaf: vInt32(0)}
		}
		cv := cur.value()
		x, ok := intOf(cv)
		if !ok {
			return nil, false, mongoerr.New(mongoerr.BadValue, "Cannot apply $bit to a value of non-integral type. %s has the field %s of non-integer type %s", idDoc(), o.path, typeName(cv.Type))
		}
		wide := cv.Type == bsoncore.TypeInt64
		for _, e := range elements(bsoncore.Document(o.arg.Data)) {
			y, ok := intOf(e.Value())
			if !ok {
				return nil, false, mongoerr.New(mongoerr.BadValue, "The $bit modifier field must be an Integer(32/64 bit); a '%s' is not supported here", typeName(e.Value().Type))
			}
			if e.Value().Type == bsoncore.TypeInt64 {
				wide = true
			}
			switch e.Key() {
			case "and":
				x &= y
			case "or":
				x |= y
			case "xor":
				x ^= y
			default:
				return nil, false, mongoerr.New(mongoerr.BadValue, "The $bit modifier only supports 'and', 'or', and 'xor', not '%s' which is an unknown operator", e.Key())
			}
		}
		if wide {
			return toM(vInt64(x)), false, nil
		}
		return toM(vInt32(int32(x))), false, nil
	}
	return nil, false, nil
}

func zeroLike(v bsoncore.Value) bsoncore.Value {
	switch v.Type {
	case bsoncore.TypeInt64:
		return vInt64(0)
	case bsoncore.TypeDouble:
		return vDouble(0)
	case bsoncore.TypeDecimal128:
		return arith('*', v, vInt32(0))
	}
	return vInt32(0)
}

// pullPred is what $pull removes: values equal to a value, or matching a
// condition (a query on the element, or operators on it).
func pullPred(arg bsoncore.Value, vars *exprVars) (func(bsoncore.Value) bool, error) {
	if arg.Type != bsoncore.TypeEmbeddedDocument {
		if arg.Type == bsoncore.TypeRegex {
			p, err := regexPred(arg)
			return p, err
		}
		return func(v bsoncore.Value) bool { return valuesEqual(v, arg) }, nil
	}
	if isOperatorDoc(arg) {
		wrapped := bsoncore.NewDocumentBuilder().AppendDocument("v", arg.Data).Build()
		f, err := compileFilter(wrapped, vars)
		if err != nil {
			return nil, err
		}
		return func(v bsoncore.Value) bool {
			return f.Match(bsoncore.BuildDocument(nil, bsoncore.AppendValueElement(nil, "v", v)))
		}, nil
	}
	f, err := compileFilter(bsoncore.Document(arg.Data), vars)
	if err != nil {
		return nil, err
	}
	return func(v bsoncore.Value) bool {
		return v.Type == bsoncore.TypeEmbeddedDocument && f.Match(bsoncore.Document(v.Data))
	}, nil
}

// pushWith applies $push with $each, $position, $sort and $slice.
func pushWith(arr []*mval, each []bsoncore.Value, mods bsoncore.Document) (*mval, bool, error) {
	pos := len(arr)
	if mods != nil {
		for _, e := range elements(mods) {
			switch e.Key() {
			case "$each", "$slice", "$sort":
			case "$position":
				n, ok := intOf(e.Value())
				if !ok {
					if e.Value().Type == bsoncore.TypeDouble && e.Value().Double() == math.Trunc(e.Value().Double()) {
						n, ok = int64(e.Value().Double()), true
					}
				}
				if !ok {
					return nil, false, mongoerr.New(mongoerr.BadValue, "The value for $position must be an integer value, not of type: %s", typeName(e.Value().Type))
				}
				if n < 0 {
					n += int64(len(arr))
					if n < 0 {
						n = 0
					}
				}
				if n < int64(pos) {
					pos = int(n)
				}
			default:
				return nil, false, mongoerr.New(mongoerr.BadValue, "Unrecognized clause in $push: %s", e.Key())
			}
		}
	}
	ins := make([]*mval, len(each))
	for i, v := range each {
		ins[i] = toM(v)
	}
	out := append(append(append([]*mval{}, arr[:pos]...), ins...), arr[pos:]...)
	if mods != nil {
		if sv, err := mods.LookupErr("$sort"); err == nil {
			if err := sortArray(out, sv); err != nil {
				return nil, false, err
			}
		}
		if sl, err := mods.LookupErr("$slice"); err == nil {
			if !isNumber(sl) {
				return nil, false, mongoerr.New(mongoerr.BadValue, "The value for $slice must be an integer value but was given type: %s", typeName(sl.Type))
			}
			n := int(numberFloat(sl))
			switch {
			case n >= 0 && n < len(out):
				out = out[:n]
			case n < 0 && -n < len(out):
				out = out[len(out)+n:]
			}
		}
	}
	return &mval{isA: true, arr: out}, false, nil
}

func sortArray(arr []*mval, spec bsoncore.Value) error {
	vals := make([]bsoncore.Value, len(arr))
	for i, a := range arr {
		vals[i] = a.value()
	}
	idx := make([]int, len(arr))
	for i := range idx {
		idx[i] = i
	}
	var less func(a, b bsoncore.Value) bool
	if isNumber(spec) {
		dir := numberFloat(spec)
		if dir != 1 && dir != -1 {
			return mongoerr.New(mongoerr.BadValue, "The $sort element value must be either 1 or -1")
		}
		less = func(a, b bsoncore.Value) bool {
			c := compareValues(a, b)
			if dir < 0 {
				return c > 0
			}
			return c < 0
		}
	} else if spec.Type == bsoncore.TypeEmbeddedDocument {
		s, err := compileSort(bsoncore.Document(spec.Data))
		if err != nil {
			return err
		}
		less = func(a, b bsoncore.Value) bool {
			da, db := docOrEmpty(a), docOrEmpty(b)
			return s.compare(da, db) < 0
		}
	} else {
		return mongoerr.New(mongoerr.BadValue, "The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort embedded fields")
	}
	sort.SliceStable(idx, func(i, j int) bool { return less(vals[idx[i]], vals[idx[j]]) })
	cp := append([]*mval{}, arr...)
	for i, j := range idx {
		arr[i] = cp[j]
	}
	return nil
}

func docOrEmpty(v bsoncore.Value) bsoncore.Document {
	if v.Type == bsoncore.TypeEmbeddedDocument {
		return bsoncore.Document(v.Data)
	}
	return bsoncore.NewDocumentBuilder().Build()
}

// upsertSeed is the document an upsert starts from: the filter's equality
// conditions, dotted paths as nested documents.
func upsertSeed(f *Filter) (bsoncore.Document, error) {
	root := &mdoc{}
	for _, e := range f.eqs {
		if strings.HasPrefix(e.path, "$") {
			continue
		}
		v := e.v
		if v.Type == bsoncore.TypeEmbeddedDocument && isOperatorDoc(v) {
			continue
		}
		parts := strings.Split(e.path, ".")
		err := modifyPath(&mval{doc: root}, parts, 0, true, &Update{}, -1, e.path, func(cur, parent *mval) (*mval, bool, error) {
			return toM(v), false, nil
		})
		if err != nil {
			return nil, err
		}
	}
	return root.build(), nil
}

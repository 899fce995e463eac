package pipeline

import (
	"sort"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/expr"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// groupAccSpec is one output field of $group and its accumulator.
type groupAccSpec struct {
	name, op string
	e        *expr.Expr
	obj      *objAccSpec       // an accumulator with an object argument
	coll     *bsonval.Collator // the command's collation
}

// docGroup is one group of $group: its _id and its accumulators, one per
// groupAccSpec.
type docGroup struct {
	id   bsoncore.Value
	accs []*expr.Accumulator
	objs []*objAcc
}

func compileGroup(arg bsoncore.Value, env *Env) (Stage, error) {
	d, err := needDoc("$group", arg)
	if err != nil {
		return nil, err
	}
	idv, err := d.LookupErr("_id")
	if err != nil {
		return nil, mongoerr.New(mongoerr.Location(15955), "a group specification must include an _id")
	}
	idE, err := expr.Compile(idv, env.Vars)
	if err != nil {
		return nil, err
	}
	accs, err := compileGroupAccs(d, env)
	if err != nil {
		return nil, err
	}
	coll := env.Vars.Collator() // groups strings equal under it together
	return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
		var groups []*docGroup
		index := map[string][]*docGroup{}
		var kb []byte
		for _, doc := range in {
			id, err := idE.Eval(doc, nil)
			if err != nil {
				return nil, err
			}
			if id.Type == 0 {
				id = bsonval.Null()
			}
			kb = coll.AppendKey(kb[:0], id)
			bucket := index[string(kb)]
			var g *docGroup
			for _, c := range bucket {
				if coll.Equal(c.id, id) {
					g = c
					break
				}
			}
			if g == nil {
				g = newDocGroup(id, accs)
				index[string(kb)] = append(bucket, g)
				groups = append(groups, g)
			}
			if err := g.add(doc, accs); err != nil {
				return nil, err
			}
		}
		out := make([]bsoncore.Document, 0, len(groups))
		for _, g := range groups {
			out = append(out, g.build(accs))
		}
		return out, nil
	}, nil
}

// compileGroupAccs compiles the fields of a $group other than _id.
func compileGroupAccs(d bsoncore.Document, env *Env) ([]groupAccSpec, error) {
	var accs []groupAccSpec
	for _, el := range bsonval.Elements(d) {
		if el.Key() == "_id" {
			continue
		}
		if el.Value().Type != bsoncore.TypeEmbeddedDocument || len(bsonval.Elements(bsoncore.Document(el.Value().Data))) != 1 {
			return nil, mongoerr.New(mongoerr.Location(40234), "The field '%s' must be an accumulator object", el.Key())
		}
		a := bsonval.Elements(bsoncore.Document(el.Value().Data))[0]
		if objectAccumulators[a.Key()] {
			obj, err := compileObjectAccumulator(a.Key(), a.Value(), env.Vars)
			if err != nil {
				return nil, err
			}
			accs = append(accs, groupAccSpec{name: el.Key(), op: a.Key(), obj: obj})
			continue
		}
		if !accumulatorOps[a.Key()] {
			return nil, mongoerr.New(mongoerr.Location(15952), "unknown group operator '%s'", a.Key())
		}
		e, err := expr.Compile(a.Value(), env.Vars)
		if err != nil {
			return nil, err
		}
		accs = append(accs, groupAccSpec{name: el.Key(), op: a.Key(), e: e, coll: env.Vars.Collator()})
	}
	return accs, nil
}

func newDocGroup(id bsoncore.Value, accs []groupAccSpec) *docGroup {
	g := &docGroup{id: id}
	for _, a := range accs {
		acc := expr.NewAccumulator(a.op)
		acc.Coll = a.coll
		g.accs = append(g.accs, acc)
		var o *objAcc
		if a.obj != nil {
			o = &objAcc{spec: a.obj}
		}
		g.objs = append(g.objs, o)
	}
	return g
}

// add gives doc to each of the group's accumulators.
func (g *docGroup) add(doc bsoncore.Document, accs []groupAccSpec) error {
	for i, a := range accs {
		if a.obj != nil {
			if err := g.objs[i].add(doc); err != nil {
				return err
			}
			continue
		}
		v, err := a.e.Eval(doc, nil)
		if err != nil {
			return err
		}
		g.accs[i].Add(v)
	}
	return nil
}

// build is the group's output document: its _id and the accumulators'
// results.
func (g *docGroup) build(accs []groupAccSpec) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder().AppendValue("_id", g.id)
	for i, a := range accs {
		if a.obj != nil {
			b.AppendValue(a.name, g.objs[i].result())
			continue
		}
		b.AppendValue(a.name, g.accs[i].Result())
	}
	return b.Build()
}

// compileSortByCount is $sortByCount: a $group counting the documents of
// each value, the largest counts first.
func compileSortByCount(_ string, arg bsoncore.Value, env *Env) (Stage, error) {
	g := bsoncore.NewDocumentBuilder().AppendValue("_id", arg).AppendDocument("count", bsoncore.NewDocumentBuilder().AppendInt32("$sum", 1).Build()).Build()
	gs, err := compileGroup(bsonval.Doc(g), env)
	if err != nil {
		return nil, err
	}
	return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
		out, err := gs(in)
		if err != nil {
			return nil, err
		}
		sort.SliceStable(out, func(i, j int) bool {
			return bsonval.Compare(bsonval.Lookup(out[i], "count"), bsonval.Lookup(out[j], "count")) > 0
		})
		return out, nil
	}, nil
}

// accumulatorOps are the $group accumulators the server has.
var accumulatorOps = map[string]bool{
	"$sum": true, "$avg": true, "$min": true, "$max": true, "$first": true, "$last": true,
	"$push": true, "$addToSet": true, "$count": true, "$stdDevPop": true, "$stdDevSamp": true, "$mergeObjects": true,
}

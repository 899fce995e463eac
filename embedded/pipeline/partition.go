package pipeline

import (
	"slices"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/expr"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// partitionSpec is the partitionBy and sortBy of $setWindowFields and
// $fill.
type partitionSpec struct {
	by   *expr.Expr
	sort *bsonval.Sort
}

func compilePartitionSpec(stageName string, d bsoncore.Document, env *Env) (partitionSpec, error) {
	var p partitionSpec
	if v, err := d.LookupErr("partitionBy"); err == nil {
		if p.by, err = expr.Compile(v, env.Vars); err != nil {
			return p, err
		}
	}
	if v, err := d.LookupErr("sortBy"); err == nil {
		if v.Type != bsoncore.TypeEmbeddedDocument {
			return p, mongoerr.New(mongoerr.TypeMismatch, "%s: sortBy must be an object", stageName)
		}
		if p.sort, err = bsonval.CompileSort(bsoncore.Document(v.Data)); err != nil {
			return p, err
		}
	}
	return p, nil
}

// partition is one partition's key and documents.
type partition struct {
	key  bsoncore.Value
	docs []bsoncore.Document
}

// split cuts in into partitions, in the order they first appear, each
// sorted by sortBy.
func (p partitionSpec) split(in []bsoncore.Document) ([]*partition, error) {
	var parts []*partition
	byKey := map[string][]*partition{}
	var kb []byte
	for _, doc := range in {
		key := bsonval.Null()
		if p.by != nil {
			v, err := p.by.Eval(doc, nil)
			if err != nil {
				return nil, err
			}
			key = nullIfMissing(v)
			if key.Type == bsoncore.TypeArray {
				return nil, mongoerr.New(mongoerr.TypeMismatch, "Cannot 'partitionBy' an expression of type array")
			}
		}
		kb = bsonval.AppendGroupKey(kb[:0], key)
		var pt *partition
		for _, c := range byKey[string(kb)] {
			if bsonval.Equal(c.key, key) {
				pt = c
			}
		}
		if pt == nil {
			pt = &partition{key: key}
			byKey[string(kb)] = append(byKey[string(kb)], pt)
			parts = append(parts, pt)
		}
		pt.docs = append(pt.docs, doc)
	}
	if p.sort != nil {
		for _, pt := range parts {
			slices.SortStableFunc(pt.docs, p.sort.Compare)
		}
	}
	return parts, nil
}

package engine

// Views: read-only collections defined by a pipeline over another
// collection or view (create with viewOn and pipeline). Reads of a view run
// its pipeline, then what was asked; writes to it are refused.

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
	"github.com/oidkit/oidkit/embedded/pipeline"
)

// maxViewDepth is how many views may stand on one another, as MongoDB allows.
const maxViewDepth = 20

// viewDef is what a view stands on and its pipeline; ok is false for a
// collection.
func viewDef(col *collection) (on string, pipeline []bsoncore.Value, ok bool) {
	if col == nil {
		return "", nil, false
	}
	v, err := col.opts.LookupErr("viewOn")
	if err != nil || v.Type != bsoncore.TypeString {
		return "", nil, false
	}
	if p, err := col.opts.LookupErr("pipeline"); err == nil && p.Type == bsoncore.TypeArray {
		pipeline = bsonval.ArrayValues(p)
	}
	return v.StringValue(), pipeline, true
}

// isView reports whether col is a view.
func (col *collection) isView() bool {
	_, _, ok := viewDef(col)
	return ok
}

// checkViewOptions checks create's view options: viewOn a non-empty
// string, pipeline an array of stages without $out or $merge.
func checkViewOptions(c *call) error {
	on := c.arg("viewOn")
	if on.Type != bsoncore.TypeString || on.StringValue() == "" {
		return mongoerr.New(mongoerr.TypeMismatch, "'viewOn' must be a non-empty string")
	}
	pv := c.arg("pipeline")
	if pv.Type == 0 {
		return nil
	}
	if pv.Type != bsoncore.TypeArray {
		return mongoerr.New(mongoerr.TypeMismatch, "'pipeline' must be an array")
	}
	for _, st := range bsonval.ArrayValues(pv) {
		if st.Type != bsoncore.TypeEmbeddedDocument {
			return mongoerr.New(mongoerr.TypeMismatch, "Each element of the 'pipeline' array must be an object")
		}
		switch pipeline.StageName(st) {
		case "$out", "$merge", "$changeStream":
			return mongoerr.New(mongoerr.OptionNotSupportedOnView, "%s cannot be used in a view definition", pipeline.StageName(st))
		}
	}
	return nil
}

// resolveView follows name through the views it names: the collection
// they stand on and the pipeline that makes name's documents from it
// (empty, isView false, for a collection).
func resolveView(st *state, db, name string) (src string, pipeline []bsoncore.Value, isView bool, err error) {
	src = name
	for depth := 0; ; depth++ {
		on, p, ok := viewDef(st.coll(db, src))
		if !ok {
			return src, pipeline, isView, nil
		}
		if depth == maxViewDepth {
			return "", nil, false, mongoerr.New(mongoerr.ViewDepthLimitExceeded, "View depth too deep or view cycle detected; maximum depth is %d", maxViewDepth)
		}
		pipeline = append(append([]bsoncore.Value{}, p...), pipeline...)
		src, isView = on, true
	}
}

// viewDocs runs the view name's pipeline over what it stands on.
func viewDocs(env *pipeline.Env, st *state, db, name string) ([]bsoncore.Document, error) {
	src, stages, _, err := resolveView(st, db, name)
	if err != nil {
		return nil, err
	}
	var docs []bsoncore.Document
	if col := st.coll(db, src); col != nil {
		col.scan(func(r *record) bool { docs = append(docs, r.doc); return true })
	}
	p, err := pipeline.Compile(stages, env)
	if err != nil {
		return nil, err
	}
	return p.Run(docs)
}

// readColl is the collection a read command reads for name: the stored
// one, or for a view a collection of its documents made for this read.
func (c *call) readColl(name string) (*collection, error) {
	st := c.view()
	col := st.coll(c.db, name)
	if !col.isView() {
		return col, nil
	}
	docs, err := viewDocs(c.pipelineEnv(c.vars()), st, c.db, name)
	if err != nil {
		return nil, err
	}
	out := newCollection(c.db, name, nil)
	out.derived = true
	for i, d := range docs {
		// _ids of a view's documents need not be there, nor unique
		r := &record{id: bsonval.Int64(int64(i)), doc: d, seq: uint64(i)}
		out.docs.Set(r)
		out.natural.Set(r)
		out.bytes += int64(len(d))
	}
	return out, nil
}

// notOnView refuses a write to a view.
func notOnView(db, name string) error {
	return mongoerr.New(mongoerr.CommandNotSupportedOnView, "Namespace %s.%s is a view, not a collection", db, name)
}

// checkWritable refuses a write command on a view before it runs.
func (c *call) checkWritable(db, name string) error {
	if c.view().coll(db, name).isView() {
		return notOnView(db, name)
	}
	return nil
}

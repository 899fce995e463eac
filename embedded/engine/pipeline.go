package engine

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/expr"
	"github.com/oidkit/oidkit/embedded/mongoerr"
	"github.com/oidkit/oidkit/embedded/pipeline"
	"github.com/oidkit/oidkit/embedded/update"
)

// The engine's side of aggregation, whose stages package pipeline
// compiles and runs: the Env a command's pipelines run in (the
// collections they read, what $out and $merge write), the stages that
// need the server's own state, and the stages of pipeline updates.

// pipelineEnv is where a command's pipelines read and write.
func (c *call) pipelineEnv(vars *expr.Vars) *pipeline.Env {
	st := c.view()
	var env *pipeline.Env
	env = &pipeline.Env{DB: c.db, Vars: vars, Stage: engineStages(vars),
		Read: func(db, coll string) []bsoncore.Document {
			col := st.coll(db, coll)
			if col == nil {
				return nil
			}
			if col.isView() {
				docs, _ := viewDocs(env, st, db, coll)
				return docs
			}
			out := make([]bsoncore.Document, 0, col.docs.Len())
			col.scan(func(r *record) bool { out = append(out, r.doc); return true })
			return out
		},
		Write: func(db, coll string, docs []bsoncore.Document, mode string) error {
			return c.write(func(t *tx) error {
				if mode == "$out" {
					var keep []bsoncore.Document
					if old := t.st.coll(db, coll); old != nil {
						for _, ix := range old.indexes {
							keep = append(keep, ix.spec)
						}
					}
					t.dropCollection(db, coll)
					col, err := t.mut(db, coll, true)
					if err != nil {
						return err
					}
					for _, s := range keep {
						if _, err := t.createIndex(col, s); err != nil {
							return err
						}
					}
				}
				col, err := t.mut(db, coll, true)
				if err != nil {
					return err
				}
				for _, d := range docs {
					d, err = withID(d)
					if err != nil {
						return err
					}
					id, _ := d.LookupErr("_id")
					old, exists := col.get(id)
					switch {
					case exists && mode == "keepExisting":
						continue
					case exists && mode == "merge":
						d = bsonval.IDFirst(expr.MergeDocs(old, d))
					}
					if err := t.putDoc(col, d, mode == "$out" || mode == "fail"); err != nil {
						return err
					}
				}
				return nil
			})
		},
	}
	return env
}

// engineStages compiles the stages that need the server's state, for
// pipeline.Env.Stage: vars is the command's.
func engineStages(vars *expr.Vars) func(name string, arg bsoncore.Value) (pipeline.Stage, bool, error) {
	return func(name string, _ bsoncore.Value) (pipeline.Stage, bool, error) {
		switch name {
		case "$changeStream":
			return nil, true, mongoerr.New(mongoerr.Location(40602), "$changeStream is only valid as the first stage in a pipeline")
		case "$collStats", "$indexStats":
			return func([]bsoncore.Document) ([]bsoncore.Document, error) {
				return nil, nil // replaced by the aggregate command, which knows the namespace
			}, true, nil
		case "$listLocalSessions":
			return listLocalSessions(vars), true, nil
		case "$search", "$searchMeta", "$vectorSearch", "$listSearchIndexes":
			return nil, true, searchNotEnabled()
		}
		return nil, false, nil
	}
}

// listLocalSessions is $listLocalSessions.
func listLocalSessions(vars *expr.Vars) pipeline.Stage {
	// sessions live in the drivers; the server lists the one asking
	return func([]bsoncore.Document) ([]bsoncore.Document, error) {
		var u [16]byte
		copy(u[:], processID[:])
		id := bsoncore.NewDocumentBuilder().AppendBinary("id", 4, u[:]).Build()
		return []bsoncore.Document{bsoncore.NewDocumentBuilder().AppendDocument("_id", id).AppendDateTime("lastUse", vars.Now.UnixMilli()).Build()}, nil
	}
}

// needDoc is a stage's argument as the document it must be.
func needDoc(name string, arg bsoncore.Value) (bsoncore.Document, error) {
	if arg.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.Location(15955), "the %s stage specification must be an object", name)
	}
	return bsoncore.Document(arg.Data), nil
}

// compileUpdate compiles an update document or pipeline, a pipeline's
// stages run by applyUpdatePipeline.
func compileUpdate(u bsoncore.Value, arrayFilters []bsoncore.Value, vars *expr.Vars) (*update.Update, error) {
	return update.Compile(u, arrayFilters, vars, applyUpdatePipeline)
}

// applyUpdatePipeline runs the stages of a pipeline-style update on doc.
func applyUpdatePipeline(doc bsoncore.Document, stages []bsoncore.Document, vars *expr.Vars) (bsoncore.Document, error) {
	vals := make([]bsoncore.Value, len(stages))
	for i, s := range stages {
		vals[i] = bsonval.Doc(s)
	}
	env := &pipeline.Env{Vars: vars}
	if env.Vars == nil {
		env.Vars = &expr.Vars{}
	}
	p, err := pipeline.Compile(vals, env)
	if err != nil {
		return nil, err
	}
	out, err := p.Run([]bsoncore.Document{doc})
	if err != nil {
		return nil, err
	}
	if len(out) != 1 {
		return doc, nil
	}
	return out[0], nil
}

package engine

import (
	"sort"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/expr"
	"github.com/oidkit/oidkit/embedded/mongoerr"
	"github.com/oidkit/oidkit/embedded/pipeline"
	"github.com/oidkit/oidkit/embedded/query"
)

func cmdFind(c *call) (bsoncore.Document, error) {
	q, err := readQuery(c, c.collName, "filter", "projection")
	if err != nil {
		return nil, err
	}
	name, f, s, proj := q.name, q.f, q.s, q.proj
	skip, limit, bs, single, err := findPaging(c)
	if err != nil {
		return nil, err
	}
	col, err := c.readColl(name)
	if err != nil {
		return nil, err
	}
	if err := checkHint(col, c.arg("hint")); err != nil {
		return nil, err
	}
	tailable := bsonval.Truthy(c.arg("tailable"))
	if tailable && s != nil {
		return nil, mongoerr.New(mongoerr.BadValue, "error processing query: cannot use tailable option with a sort other than {$natural: 1}")
	}
	if src := wholeScan(c, col, q, skip, limit, single, tailable); src != nil {
		return c.scanReply(c.db+"."+name, src, firstBatchSize(c, bs)), nil
	}
	docs, _, err := selectDocs(col, f, s, skip, limit, c.deadline)
	if err != nil {
		return nil, err
	}
	if err := projectAll(docs, f, proj); err != nil {
		return nil, err
	}
	bs = firstBatchSize(c, bs)
	if tailable {
		return openTailable(c, name, col, f, proj, docs, bs)
	}
	if limit > 0 && bs != zeroBatch && limit <= bs {
		single = true
		bs = limit
	}
	return c.cursorReply(c.db+"."+name, docs, bs, single), nil
}

// firstBatchSize is the size of a find's first batch: 101 documents when
// batchSize is not given, none (zeroBatch) when it is 0.
func firstBatchSize(c *call, bs int) int {
	switch {
	case bs == 0 && !c.hasArg("batchSize"):
		return 101
	case bs == 0:
		return zeroBatch
	}
	return bs
}

// findQuery is what find and findAndModify read alike: the collection,
// the variables with its collation, the filter, the sort (under that
// collation) and the projection.
type findQuery struct {
	name string
	vars *expr.Vars
	f    *query.Filter
	s    *bsonval.Sort
	proj *pipeline.Projection
}

// readQuery reads a findQuery: the collection as target names it (find
// reads one, findAndModify writes one), then the arguments filterKey and
// projKey ("filter" and "projection" of find, "query" and "fields" of
// findAndModify) and "sort".
func readQuery(c *call, target func() (string, error), filterKey, projKey string) (q findQuery, err error) {
	if q.name, err = target(); err != nil {
		return q, err
	}
	q.vars = c.vars()
	if q.vars.Coll, err = c.collation(q.name); err != nil {
		return q, err
	}
	fd, err := docArg(c, filterKey)
	if err != nil {
		return q, err
	}
	if q.f, err = compileFilter(fd, q.vars); err != nil {
		return q, err
	}
	if sd, err := docArg(c, "sort"); err != nil {
		return q, err
	} else if sd != nil {
		if q.s, err = bsonval.CompileSort(sd); err != nil {
			return q, err
		}
		q.s.Coll = q.vars.Coll
	}
	if pd, err := docArg(c, projKey); err != nil {
		return q, err
	} else if len(pd) > 5 {
		if q.proj, err = pipeline.CompileProjection(pd, q.vars); err != nil {
			return q, err
		}
	}
	return q, nil
}

// findPaging reads a find's skip, limit (a negative limit is a single
// batch), batchSize and singleBatch.
func findPaging(c *call) (skip, limit, bs int, single bool, err error) {
	if skip, err = intArg(c, "skip"); err != nil {
		return 0, 0, 0, false, err
	}
	if skip < 0 {
		return 0, 0, 0, false, mongoerr.New(mongoerr.BadValue, "Skip value must be non-negative, but received: %d", skip)
	}
	if limit, err = intArg(c, "limit"); err != nil {
		return 0, 0, 0, false, err
	}
	single = bsonval.Truthy(c.arg("singleBatch"))
	if limit < 0 {
		limit, single = -limit, true
	}
	if bs, err = intArg(c, "batchSize"); err != nil {
		return 0, 0, 0, false, err
	}
	if bs < 0 {
		return 0, 0, 0, false, mongoerr.New(mongoerr.BadValue, "BatchSize value must be non-negative, but received: %d", bs)
	}
	return skip, limit, bs, single, nil
}

// projectAll applies proj, when given, to docs in place, with the
// positions of the arrays f matched for a positional projection.
func projectAll(docs []bsoncore.Document, f *query.Filter, proj *pipeline.Projection) error {
	if proj == nil {
		return nil
	}
	for i, d := range docs {
		_, pos := f.MatchPos(d)
		var err error
		if docs[i], err = proj.Project(d, pos, true); err != nil {
			return err
		}
	}
	return nil
}

func cmdCount(c *call) (bsoncore.Document, error) {
	name, err := c.collName()
	if err != nil {
		return nil, err
	}
	col, err := c.readColl(name)
	if err != nil {
		return nil, err
	}
	qd, err := docArg(c, "query")
	if err != nil {
		return nil, err
	}
	skip, err := intArg(c, "skip")
	if err != nil {
		return nil, err
	}
	if skip < 0 {
		return nil, mongoerr.New(mongoerr.Location(51024), "BSON field 'skip' value must be >= 0, actual value '%d'", skip)
	}
	limit, err := intArg(c, "limit")
	if err != nil {
		return nil, err
	}
	if limit < 0 { // a negative limit counts as its absolute value
		limit = -limit
	}
	vars := c.vars()
	if vars.Coll, err = c.collation(name); err != nil {
		return nil, err
	}
	var n int
	if len(qd) <= 5 {
		if col != nil {
			n = col.docs.Len()
		}
		n = max(n-skip, 0)
		if limit > 0 {
			n = min(n, limit)
		}
	} else {
		f, err := compileFilter(qd, vars)
		if err != nil {
			return nil, err
		}
		docs, _, err := selectDocs(col, f, nil, skip, limit, c.deadline)
		if err != nil {
			return nil, err
		}
		n = len(docs)
	}
	return newReply().b.AppendInt32("n", int32(n)).AppendDouble("ok", 1).Build(), nil
}

func cmdDistinct(c *call) (bsoncore.Document, error) {
	name, key, err := c.collArg(c.collName, "key", bsoncore.TypeString, mongoerr.TypeMismatch)
	if err != nil {
		return nil, err
	}
	qd, err := docArg(c, "query")
	if err != nil {
		return nil, err
	}
	vars := c.vars()
	if vars.Coll, err = c.collation(name); err != nil {
		return nil, err
	}
	f, err := compileFilter(qd, vars)
	if err != nil {
		return nil, err
	}
	col, err := c.readColl(name)
	if err != nil {
		return nil, err
	}
	docs, _, err := selectDocs(col, f, nil, 0, 0, c.deadline)
	if err != nil {
		return nil, err
	}
	var vals []bsoncore.Value
	for _, d := range docs {
		for _, v := range bsonval.FanValues(d, key.StringValue()) {
			if v.Type == 0 {
				continue
			}
			vals = append(vals, v)
		}
	}
	sort.SliceStable(vals, func(i, j int) bool { return vars.Coll.Compare(vals[i], vals[j]) < 0 })
	var out []bsoncore.Value
	for _, v := range vals {
		if len(out) > 0 && vars.Coll.Equal(out[len(out)-1], v) {
			continue
		}
		out = append(out, v)
	}
	return newReply().b.AppendArray("values", bsoncore.BuildArray(nil, out...)).AppendDouble("ok", 1).Build(), nil
}

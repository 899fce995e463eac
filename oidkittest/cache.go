package oidkittest

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/oidkittest/tplcache"
	"github.com/oidkit/oidkit/rules"
)

// built counts the templates built from their plan or fixture files rather
// than read from the disk cache (the tests read it).
var built atomic.Int64

// fillTemplate puts c's template into db, on a server of profile p: from
// the disk cache when it holds c's template, otherwise by loading c, and
// then it stores the template there. It returns the template's
// collections when it read them (always with want).
func fillTemplate(ctx context.Context, c *content, db *mongo.Database, p rules.Profile, want bool) ([]tplcache.Collection, error) {
	cache, err := tplcache.FromEnv()
	if err != nil {
		return nil, err
	}
	key := ""
	if !cache.Off && c.cacheable() {
		key = tplcache.Inputs(c.sum, p.Name()).Key()
		if colls, err := fromCache(ctx, cache, key, db, p); err != nil || colls != nil {
			return colls, err
		}
	}
	built.Add(1)
	if err := c.load(ctx, db, p); err != nil {
		return nil, err
	}
	if key == "" && !want {
		return nil, nil
	}
	colls, err := readColls(ctx, db, c.collections())
	if err != nil {
		return nil, err
	}
	if key != "" {
		// A template that cannot be stored (a full disk, one larger than
		// the bound) is built again next time: nothing else is wrong.
		_ = cache.Put(&tplcache.Entry{Key: key, What: c.what, Collections: colls})
	}
	return colls, nil
}

// fromCache copies the entry of key into db and returns its collections;
// nil without an entry. A copy that fails half way is undone, so the
// caller builds the template into the collections as they were.
func fromCache(ctx context.Context, cache *tplcache.Cache, key string, db *mongo.Database, p rules.Profile) ([]tplcache.Collection, error) {
	e, err := cache.Get(key)
	if err != nil {
		return nil, nil // a miss, or an entry removed as unreadable
	}
	err = insertColls(ctx, db, e.Collections, mongowrite.WorkersFor(p))
	if err == nil {
		return e.Collections, nil
	}
	for _, col := range e.Collections {
		if derr := db.Collection(col.Name).Drop(ctx); derr != nil {
			return nil, fmt.Errorf("template from the cache: %w (and dropping collection %s: %v)", err, col.Name, derr)
		}
	}
	return nil, nil
}

// cacheable reports whether c's template may be stored: its documents
// are a function of c alone. An unseeded plan's are not (New refuses
// one; this keeps the cache from ever holding one).
func (c *content) cacheable() bool {
	return c.sum != "" && (c.ds == nil || c.ds.Seeded)
}

// describe says what c holds, for oidkit cache: the plan's seed and
// collections, and the fixture files.
func (c *content) describe() string {
	var parts []string
	if c.ds != nil {
		var cols []string
		for _, col := range c.ds.Written() {
			s := col.Spec()
			what := s.Kind
			if s.Template != nil {
				what = "template " + s.Template.Name()
			}
			cols = append(cols, fmt.Sprintf("%s (%s ×%d, _id %s)", col.Name(), what, col.Len(), s.ID))
		}
		parts = append(parts, fmt.Sprintf("plan seed %d: %s", c.ds.Seed, strings.Join(cols, ", ")))
	}
	var files []string
	for _, g := range c.groups {
		files = append(files, g.Files...)
	}
	if len(files) > 0 {
		parts = append(parts, "fixtures "+strings.Join(files, ", "))
	}
	return strings.Join(parts, "; ")
}

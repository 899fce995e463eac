package indexes

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// RefusedError is an index the collection or the server will not take as
// wanted. Have is the collection's index in the way when it already uses
// the wanted name for another definition, or has the key under another
// name (Create never drops an index to resolve it); Err, when Have is nil,
// is why the server would not create it: an option it does not support,
// or documents already stored that a unique index refuses.
type RefusedError struct {
	DB, Collection string
	Index          Index  // the wanted index
	Have           *Index // the collection's index in the way, nil for a refusal by the server
	Err            error  // the server's error (a mongo.CommandError), or why the index it made differs
}

func (e *RefusedError) Error() string {
	if h := e.Have; h != nil {
		if e.Index.NameOrDefault() != h.NameOrDefault() {
			return fmt.Sprintf("index %q on %s.%s: the collection already has index %q on the same key: %s; wanted %s (indexes are never dropped: drop it or the collection first)",
				e.Index.NameOrDefault(), e.DB, e.Collection, h.NameOrDefault(), h, e.Index)
		}
		return fmt.Sprintf("index %q on %s.%s: the collection has %s, wanted %s (%s; indexes are never dropped: drop it or the collection first)",
			e.Index.NameOrDefault(), e.DB, e.Collection, h, e.Index, Diff(e.Index, *h))
	}
	msg := e.Err.Error()
	var ce mongo.CommandError
	if errors.As(e.Err, &ce) {
		msg = ce.Message
		if ce.Name != "" {
			msg = ce.Name + ": " + msg
		}
	}
	return fmt.Sprintf("index %q on %s.%s: the server refused %s: %s", e.Index.NameOrDefault(), e.DB, e.Collection, e.Index, msg)
}

func (e *RefusedError) Unwrap() error { return e.Err }

// ServerRefused tells whether err holds indexes the collection or the
// server will not take as wanted: a *RefusedError. Its message says why.
func ServerRefused(err error) bool {
	var re *RefusedError
	return errors.As(err, &re)
}

// codeNamespaceNotFound is the server's code for a missing collection.
const codeNamespaceNotFound = 26

// List returns the indexes of coll, in the server's order, without the _id
// index. A collection that does not exist has none. Indexes are read with
// FromDocument: options it does not model are in Other.
func List(ctx context.Context, coll *mongo.Collection) ([]Index, error) {
	cur, err := coll.Indexes().List(ctx)
	if err != nil {
		var ce mongo.CommandError
		if errors.As(err, &ce) && ce.Code == codeNamespaceNotFound {
			return nil, nil
		}
		return nil, fmt.Errorf("listIndexes %s.%s: %w", coll.Database().Name(), coll.Name(), err)
	}
	defer cur.Close(ctx)
	var out []Index
	for cur.Next(ctx) {
		var d bson.D
		if err := cur.Decode(&d); err != nil {
			return nil, fmt.Errorf("listIndexes %s.%s: %w", coll.Database().Name(), coll.Name(), err)
		}
		ix, err := FromDocument(d)
		if err != nil {
			return nil, fmt.Errorf("listIndexes %s.%s: %w", coll.Database().Name(), coll.Name(), err)
		}
		if ix.Name == IDIndexName {
			continue
		}
		out = append(out, ix)
	}
	if err := cur.Err(); err != nil {
		return nil, fmt.Errorf("listIndexes %s.%s: %w", coll.Database().Name(), coll.Name(), err)
	}
	return out, nil
}

// Create creates the wanted indexes of coll that it does not have, one
// createIndexes command each so that a refusal names its index, after
// ValidateList. An index already there with the same definition is left as
// it is; one with the same name and another definition, or the same key
// under another name, is a *RefusedError naming it (Have) before anything
// is created; a refusal by the server is a *RefusedError, and the indexes this call
// created before it are dropped again, so that a failed Create leaves the
// indexes of coll as they were. No other index is ever dropped.
func Create(ctx context.Context, coll *mongo.Collection, want []Index) error {
	_, err := CreateMissing(ctx, coll, want)
	return err
}

// CreateMissing is Create, returning the indexes it created (those of want
// that coll did not have), so that a caller that goes on to fail can drop
// them again (DropCreated).
func CreateMissing(ctx context.Context, coll *mongo.Collection, want []Index) (created []Index, err error) {
	if len(want) == 0 {
		return nil, nil
	}
	if err := ValidateList(want); err != nil {
		return nil, err
	}
	todo, err := missing(ctx, coll, want)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			DropCreated(ctx, coll, created)
			created = nil
		}
	}()
	db, name := coll.Database().Name(), coll.Name()
	for _, w := range todo {
		cmd := bson.D{{Key: "createIndexes", Value: name}, {Key: "indexes", Value: bson.A{w.Document()}}}
		if err := coll.Database().RunCommand(ctx, cmd).Err(); err != nil {
			var ce mongo.CommandError
			if errors.As(err, &ce) {
				return created, &RefusedError{DB: db, Collection: name, Index: w, Err: err}
			}
			return created, fmt.Errorf("createIndexes %s.%s index %q: %w", db, name, w.NameOrDefault(), err)
		}
		created = append(created, w)
	}
	return created, checkCreated(ctx, coll, todo)
}

// DropCreated drops the indexes of list from coll by name, as far as it
// can (also once ctx is done): what CreateMissing created, undone.
func DropCreated(ctx context.Context, coll *mongo.Collection, list []Index) {
	ctx = context.WithoutCancel(ctx)
	for _, ix := range list {
		_ = coll.Indexes().DropOne(ctx, ix.NameOrDefault())
	}
}

// checkCreated reads back the indexes todo that coll was asked to create:
// a server may accept an option and not keep it (some drop sparse), and an
// index that is not what was asked for is refused (CreateMissing then
// drops what it created).
func checkCreated(ctx context.Context, coll *mongo.Collection, todo []Index) error {
	if len(todo) == 0 {
		return nil
	}
	have, err := List(ctx, coll)
	if err != nil {
		return err
	}
	for _, w := range todo {
		h, ok := find(have, w)
		if ok && Equal(w, h) {
			continue
		}
		why := errors.New("it accepted the index but does not list it")
		if ok {
			why = fmt.Errorf("it accepted the index but keeps %s (%s): the server does not support that option", h, Diff(w, h))
		}
		return &RefusedError{DB: coll.Database().Name(), Collection: coll.Name(), Index: w, Err: why}
	}
	return nil
}

// Probe tells whether the server would create want for collection coll
// of db, without touching coll: it creates them on a scratch collection of
// db (named oidkit_index_probe_PID_RANDOM) and drops it again. A refusal is
// the *RefusedError Create gives, naming coll. A writer calls it before
// writing anything, when it creates indexes only after its documents.
func Probe(ctx context.Context, db *mongo.Database, coll string, want []Index) error {
	if len(want) == 0 {
		return nil
	}
	if err := ValidateList(want); err != nil {
		return err
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	scratch := db.Collection(fmt.Sprintf("oidkit_index_probe_%d_%x", os.Getpid(), b))
	defer func() { _ = scratch.Drop(context.WithoutCancel(ctx)) }()
	err := Create(ctx, scratch, want)
	var re *RefusedError
	if errors.As(err, &re) {
		re.Collection = coll
	}
	return err
}

// Conflicts returns the first wanted index that Create would refuse as a
// *RefusedError with the index in the way (Have: the collection has its
// name or its key with another definition), or nil; it creates nothing, so a writer can ask before it
// writes. want is validated first.
func Conflicts(ctx context.Context, coll *mongo.Collection, want []Index) error {
	if err := ValidateList(want); err != nil {
		return err
	}
	_, err := missing(ctx, coll, want)
	return err
}

// Conflict is Conflicts of the indexes have, which collection coll of
// database db has (List), asking the server nothing.
func Conflict(db, coll string, have, want []Index) error {
	if err := ValidateList(want); err != nil {
		return err
	}
	_, err := missingOf(db, coll, have, want)
	return err
}

// missing is the wanted indexes coll does not have, or the first conflict
// (missingOf).
func missing(ctx context.Context, coll *mongo.Collection, want []Index) ([]Index, error) {
	have, err := List(ctx, coll)
	if err != nil {
		return nil, err
	}
	return missingOf(coll.Database().Name(), coll.Name(), have, want)
}

// missingOf is the wanted indexes a collection with the indexes have does
// not have, or the first conflict: of the Problems, the first with an
// index there (under the name, or with the key under another name).
func missingOf(db, coll string, have, want []Index) ([]Index, error) {
	var todo []Index
	for _, p := range Problems(have, want) {
		if p.Have != nil {
			return nil, &RefusedError{DB: db, Collection: coll, Index: p.Want, Have: p.Have}
		}
		todo = append(todo, p.Want)
	}
	return todo, nil
}

// find is the index of have named as w is, else the one with w's key and
// filter under another name.
func find(have []Index, w Index) (Index, bool) {
	for _, h := range have {
		if h.NameOrDefault() == w.NameOrDefault() {
			return h, true
		}
	}
	k := extJSON(w.Key) + " " + extJSON(w.PartialFilterExpression)
	for _, h := range have {
		if extJSON(h.Key)+" "+extJSON(h.PartialFilterExpression) == k {
			return h, true
		}
	}
	return Index{}, false
}

// Problem is a wanted index a collection does not have as wanted.
type Problem struct {
	Want Index
	Have *Index // the index under that name (or on that key), nil when none
	// Reason is "missing", or what differs ("unique false, not true").
	Reason string
}

func (p Problem) String() string {
	if p.Have == nil {
		return fmt.Sprintf("index %q %s: missing", p.Want.NameOrDefault(), p.Want)
	}
	if p.Have.NameOrDefault() != p.Want.NameOrDefault() {
		return fmt.Sprintf("index %q %s: missing; index %q has its key: %s", p.Want.NameOrDefault(), p.Want, p.Have.NameOrDefault(), p.Have)
	}
	return fmt.Sprintf("index %q: has %s, not %s", p.Want.NameOrDefault(), p.Reason, p.Want)
}

// Check compares the indexes of coll with want: each wanted index must be
// there under its name with the same key and options. It returns one
// Problem per wanted index that is not; indexes coll has beyond want are
// not problems. The error is for a server that could not be asked.
func Check(ctx context.Context, coll *mongo.Collection, want []Index) ([]Problem, error) {
	have, err := List(ctx, coll)
	if err != nil {
		return nil, err
	}
	return Problems(have, want), nil
}

// Problems is Check of a collection with the indexes have.
func Problems(have, want []Index) []Problem {
	var out []Problem
	for _, w := range want {
		h, ok := find(have, w)
		switch {
		case !ok:
			out = append(out, Problem{Want: w, Reason: "missing"})
		case h.NameOrDefault() != w.NameOrDefault():
			out = append(out, Problem{Want: w, Have: &h, Reason: "missing"})
		case !Equal(w, h):
			out = append(out, Problem{Want: w, Have: &h, Reason: Diff(w, h)})
		}
	}
	return out
}

package infer_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/infer"
	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
)

// Integer _ids are referred to too, by a field that names its target
// (albums.images holds _ids of images), with the arrays' length
// distribution; an integer field that names no collection (a count found
// among the same integers) is no reference.
func TestIntegerReferences(t *testing.T) {
	ctx := context.Background()
	_, client := mongotest.Start(t)
	src, dst := client.Database("src"), client.Database("copy")
	r := rand.New(rand.NewPCG(1, 2))
	const nImages, nAlbums = 2000, 400
	var images, albums []any
	// Image numbers: a dense run, then sparse ones far above it.
	imageID := func(i int) int32 {
		if i < nImages/2 {
			return int32(2 * i)
		}
		return int32(10000 + 7*i)
	}
	for i := range nImages {
		images = append(images, bson.D{{Key: "_id", Value: imageID(i)}, {Key: "width", Value: int32(640)}})
	}
	for i := range nAlbums {
		n := 1 + r.IntN(4)
		if i%5 == 0 {
			n = 10
		}
		ids := bson.A{}
		for range n {
			ids = append(ids, imageID(r.IntN(nImages)))
		}
		albums = append(albums, bson.D{{Key: "_id", Value: int32(i)}, {Key: "images", Value: ids}, {Key: "likes", Value: int32(r.IntN(nImages))}})
	}
	if _, err := src.Collection("images").InsertMany(ctx, images); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Collection("albums").InsertMany(ctx, albums); err != nil {
		t.Fatal(err)
	}
	names := []string{"albums", "images"}
	profiles, err := infer.Collect(ctx, src, names, 1<<30, infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	refs := profiles[0].Refs
	if len(refs) != 1 || refs[0].Field != "images" || refs[0].To != "images" || !refs[0].Array || refs[0].Resolved < 0.99 {
		t.Fatalf("albums refs = %+v; want images (an array) to images, all resolving, and likes no reference", refs)
	}
	inf, err := infer.Plan("copy", profiles)
	if err != nil {
		t.Fatal(err)
	}
	seedPlan(t, dst, inf)
	copies, err := infer.Collect(ctx, dst, names, 1<<30, infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if refs := copies[0].Refs; len(refs) != 1 || refs[0].Field != "images" || refs[0].Resolved < 0.99 {
		t.Fatalf("the copy's albums refs = %+v; want images to images, all resolving", refs)
	}
	for _, d := range infer.Compare(profiles[0], copies[0]).Fields {
		if d.Path == "images" && d.ArrayLengths > 0.03 {
			t.Errorf("albums.images lengths: total variation %.3f between the source and its copy; want at most 0.03", d.ArrayLengths)
		}
	}
	// The images' integer _ids keep their distribution (idQuantiles).
	for _, d := range infer.Compare(profiles[1], copies[1]).Fields {
		if d.Path == "_id" && d.Values > 0.05 {
			t.Errorf("images._id: values KS %.3f between the source and its copy; want at most 0.05", d.Values)
		}
	}
}

// Where the sample is drawn in one pass over the collection (FerretDB),
// the references are counted over every document read, so a sample of an
// eighth keeps the orders per user of the whole collection: the plan's
// perTarget is the one a full read gives.
func TestReferenceSkewFromAPartialSample(t *testing.T) {
	ctx := context.Background()
	_, client := mongotest.Start(t)
	src := client.Database("src")
	writeSource(t, src, 2000, 8000)
	names := []string{"users", "orders"}
	full, err := infer.Collect(ctx, src, names, 1<<30, infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	part, err := infer.Collect(ctx, src, names, 1000, infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if part[1].Sampled != 1000 {
		t.Fatalf("orders: sampled %d, want 1000", part[1].Sampled)
	}
	a, err := infer.Plan("copy", full)
	if err != nil {
		t.Fatal(err)
	}
	b, err := infer.Plan("copy", part)
	if err != nil {
		t.Fatal(err)
	}
	pa, pb := a.Plan.Collections[1].Refs, b.Plan.Collections[1].Refs
	if len(pa) != 1 || len(pb) != 1 || len(pa[0].PerTarget) == 0 {
		t.Fatalf("refs: full %+v, part %+v", pa, pb)
	}
	if !part[1].ReadWhole() {
		t.Skip("skipped: the server drew the sample itself ($sample), so only the sample was counted")
	}
	if !slices.Equal(pa[0].PerTarget, pb[0].PerTarget) {
		t.Errorf("perTarget from a sample of 1,000 of 8,000 orders %v; from all of them %v", pb[0].PerTarget, pa[0].PerTarget)
	}
}

// An id field that refers outside what was inferred (ratings of books, the
// books not inferred) keeps how its values repeat: a $pool of as many
// generated values, shared as the source's are.
func TestRepeatingIDsBecomeAPool(t *testing.T) {
	ctx := context.Background()
	_, client := mongotest.Start(t)
	src, dst := client.Database("src"), client.Database("copy")
	r := rand.New(rand.NewPCG(5, 6))
	var docs []any
	for i := range 3000 {
		book := int32(100000 + 37*r.IntN(120))
		docs = append(docs, bson.D{{Key: "_id", Value: bson.NewObjectID()}, {Key: "book_id", Value: book}, {Key: "stars", Value: int32(i % 5)}})
	}
	if _, err := src.Collection("ratings").InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	profiles, err := infer.Collect(ctx, src, []string{"ratings"}, 1<<30, infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	inf, err := infer.Plan("copy", profiles)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(inf.JSON), `"$pool"`) {
		t.Fatalf("plan without a $pool for book_id:\n%s", inf.JSON)
	}
	seedPlan(t, dst, inf)
	copies, err := infer.Collect(ctx, dst, []string{"ratings"}, 1<<30, infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range infer.Compare(profiles[0], copies[0]).Fields {
		if d.Path == "book_id" && (d.Repeats < 0 || d.Repeats > 0.1 || d.Values > 0.05) {
			t.Errorf("book_id: repeats %.3f, values %.3f between the source and its copy; want repeats measured and at most 0.1, values at most 0.05", d.Repeats, d.Values)
		}
	}
}

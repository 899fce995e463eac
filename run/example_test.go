package run_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/embedded"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/parts"
	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/run"
	"github.com/oidkit/oidkit/seed"
	"github.com/oidkit/oidkit/verify"
)

// startEmbedded starts the embedded server over a new directory and connects a
// client; stop disconnects it and stops the server.
func startEmbedded() (client *mongo.Client, stop func(), err error) {
	dir, err := os.MkdirTemp("", "oidkit-run-example")
	if err != nil {
		return nil, nil, err
	}
	s, err := embedded.Start(embedded.Options{DataDir: dir})
	if err != nil {
		return nil, nil, err
	}
	client, err = mongo.Connect(options.Client().ApplyURI(s.URI()))
	if err != nil {
		_ = s.Close()
		return nil, nil, err
	}
	return client, func() {
		_ = client.Disconnect(context.Background())
		_ = s.Close()
		_ = os.RemoveAll(dir)
	}, nil
}

// usersPlan is n seeded users in database shop.
func usersPlan(n int64) *seed.Plan {
	return &seed.Plan{DB: "shop", Seed: 42, Seeded: true, Collections: []seed.CollectionSpec{
		{Name: "users", Kind: seed.KindUser, Count: n},
	}}
}

// Seed a plan: the documents, and a run manifest that records them.
func ExampleSeed() {
	client, stop, err := startEmbedded()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	ctx := context.Background()
	db := client.Database("shop")
	res, err := run.Seed(ctx, db, usersPlan(100), run.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range res.Collections {
		fmt.Printf("%s: inserted %d, skipped %d\n", c.Collection, c.Inserted, c.Skipped)
	}
	m, _ := mongowrite.ReadManifest(ctx, db, "users")
	fmt.Println("manifest:", m.State, m.AckedCount, "of", m.Count)
	// Output:
	// users: inserted 100, skipped 0
	// manifest: done 100 of 100
}

// Seed from settings as a command line gives them, the way oidkit seed
// does: a bad setting is refused before the target is opened, naming it;
// a resume with other settings than the run's is refused, naming the
// first difference.
func ExampleSeedSettings() {
	client, stop, err := startEmbedded()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	ctx := context.Background()
	settings := func(o seed.PlanOptions, given ...seed.Setting) run.Settings {
		o.Given = map[seed.Setting]bool{}
		for _, s := range given {
			o.Given[s] = true
		}
		return run.NewSettings(o)
	}
	open := func(context.Context) (*mongo.Client, rules.Profile, error) { return client, rules.MongoDB, nil }
	users := seed.PlanOptions{DB: "shop", Kind: "user", Count: 50, ID: "int", IDStart: 1, Seed: "7"}

	bad := users
	bad.Kind = "usr"
	_, err = run.SeedSettings(ctx, run.Request{Settings: settings(bad, seed.SettingKind), Open: open})
	fmt.Println(err)

	res, err := run.SeedSettings(ctx, run.Request{Settings: settings(users, seed.SettingKind, seed.SettingCount, seed.SettingID, seed.SettingSeed), Open: open})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s.%s: inserted %d\n", res.Collections[0].DB, res.Collections[0].Collection, res.Inserted)

	more := users
	more.Count = 60
	_, err = run.SeedSettings(ctx, run.Request{Settings: settings(more, seed.SettingCount), Options: run.Options{Resume: true}, Open: open})
	var other *run.OtherRunError
	if errors.As(err, &other) {
		fmt.Printf("resume: %s was %s, now %s\n", other.Diff.Field, other.Diff.Old, other.Diff.New)
	}
	// Output:
	// kind "usr": expected a kind: user, employee, product, order, or its plural; did you mean user?
	// shop.users: inserted 50
	// resume: count was 50, now 60
}

// Resume an interrupted run: the manifest lists what the server
// acknowledged, and the resumed run inserts only the rest.
func ExampleResume() {
	client, stop, err := startEmbedded()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	db := client.Database("shop")
	ctx, interrupt := context.WithCancel(context.Background())
	_, err = run.Seed(ctx, db, usersPlan(1000), run.Options{Batch: 10, Workers: 1, Progress: func(p run.Progress) {
		if p.Inserted > 0 {
			interrupt() // as a signal would, after the first batch
		}
	}})
	var ie *run.InsertError
	fmt.Println("interrupted:", errors.As(err, &ie) && errors.Is(err, context.Canceled))
	m, _ := mongowrite.ReadManifest(context.Background(), db, "users")
	fmt.Println("manifest:", m.State, m.AckedCount < m.Count)

	r, err := run.Resume(context.Background(), db, parts.Part{})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := run.Seed(context.Background(), db, r.Plan, run.Options{Resume: true, Manifests: r.Manifests})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("resumed:", res.Inserted+res.Skipped, "documents,", res.Skipped == m.AckedCount)
	n, _ := db.Collection("users").CountDocuments(context.Background(), map[string]any{})
	fmt.Println("stored:", n)
	// Output:
	// interrupted: true
	// manifest: failed true
	// resumed: 1000 documents, true
	// stored: 1000
}

// Seed one part of N: each part writes its own range of every collection,
// with its own manifest; the run is done once every part is.
func ExampleSeed_part() {
	client, stop, err := startEmbedded()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	ctx := context.Background()
	db := client.Database("shop")
	for _, p := range []parts.Part{{I: 0, N: 3}, {I: 2, N: 3}} {
		res, err := run.Seed(ctx, db, usersPlan(100), run.Options{Part: p})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("part %s: users %v, inserted %d\n", p, p.Range(100), res.Inserted)
	}
	ms, _ := run.Manifests(ctx, db, parts.Part{}, "users")
	var pe *run.PartsError
	if errors.As(run.PartsDone(ms), &pe) {
		fmt.Println(pe.Pending[0])
	}
	// Output:
	// part 0/3: users [0,33), inserted 33
	// part 2/3: users [66,100), inserted 34
	// users part 1/3: not started (no run manifest)
}

// Verify a collection from its run manifest: no plan, no flags, only what
// the run recorded in the database.
func ExampleExpected() {
	client, stop, err := startEmbedded()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	ctx := context.Background()
	db := client.Database("shop")
	if _, err := run.Seed(ctx, db, usersPlan(100), run.Options{}); err != nil {
		fmt.Println(err)
		return
	}
	set, err := run.Expected(ctx, db, parts.Part{}, "users")
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := verify.VerifyDB(ctx, client, set, verify.DBOptions{Profile: rules.FerretDB})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("users as the manifest says:", rep.OK())
	// Output:
	// users as the manifest says: true
}

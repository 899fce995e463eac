package seed_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/oidkit/oidkit/seed"
)

// A plan from settings as a person types them (as oidkit seed --kind orders
// -n 50 --seed 7 --span 30d does): the kind's plural is the kind, orders
// bring the users and products they refer to, and the window ends at the
// time base.
func ExampleNewPlan() {
	plan, err := seed.NewPlan(seed.PlanOptions{
		Kind: "orders", Count: 50, Seed: "7", Span: "30d",
		Given: map[seed.Setting]bool{seed.SettingKind: true, seed.SettingCount: true, seed.SettingSeed: true, seed.SettingSpan: true},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, cs := range plan.Collections {
		fmt.Println(cs.Name, cs.Kind, cs.Count, cs.RefOnly)
	}
	fmt.Println(plan.DB, plan.Seed, plan.Span)
	_, err = seed.NewPlan(seed.PlanOptions{Kind: "userss", Given: map[seed.Setting]bool{seed.SettingKind: true}})
	fmt.Println(err)
	// Output:
	// orders order 50 false
	// users user 50 true
	// products product 5 true
	// oidkit 7 720h0m0s
	// kind "userss": expected a kind: user, employee, product, order, or its plural; did you mean users?
}

// Every setting NewPlan cannot use is an *OptionError naming it and the
// value as typed; an error of the built plan is blamed on its setting.
func TestNewPlanErrors(t *testing.T) {
	given := func(s ...seed.Setting) map[seed.Setting]bool {
		m := map[seed.Setting]bool{}
		for _, k := range s {
			m[k] = true
		}
		return m
	}
	cases := []struct {
		o       seed.PlanOptions
		setting seed.Setting
		value   string
	}{
		{seed.PlanOptions{DB: " ", Given: given(seed.SettingDB)}, seed.SettingDB, `" "`},
		{seed.PlanOptions{Seed: "-1", Given: given(seed.SettingSeed)}, seed.SettingSeed, `"-1"`},
		{seed.PlanOptions{At: "yesterday", Given: given(seed.SettingAt)}, seed.SettingAt, `"yesterday"`},
		{seed.PlanOptions{Span: "1.5s"}, seed.SettingSpan, `"1.5s"`},
		{seed.PlanOptions{Span: "-3d"}, seed.SettingSpan, `"-3d"`},
		{seed.PlanOptions{Count: -1}, seed.SettingCount, "-1"},
		{seed.PlanOptions{Count: seed.MaxCount + 1}, seed.SettingCount, fmt.Sprint(seed.MaxCount + 1)},
		{seed.PlanOptions{ID: "ints"}, seed.SettingID, `"ints"`},
		{seed.PlanOptions{Template: "/no/such/template.json"}, seed.SettingTemplate, `"/no/such/template.json"`},
		{seed.PlanOptions{Plan: "shopx"}, seed.SettingFile, `"shopx"`},
		{seed.PlanOptions{Plan: "shop", Collection: "nope"}, seed.SettingCollection, `"nope"`},
		{seed.PlanOptions{Collection: "a$b"}, seed.SettingCollection, `"a$b"`},
		{seed.PlanOptions{Plan: "shop", DB: "a/b"}, seed.SettingFile, `"shop"`},
	}
	for _, c := range cases {
		p, err := seed.NewPlan(c.o)
		var oe *seed.OptionError
		if !errors.As(err, &oe) || oe.Setting != c.setting || oe.Value != c.value {
			t.Errorf("%+v: %v, %v; want an *OptionError of %s %s", c.o, p, err, c.setting, c.value)
		}
	}
}

// A plan without a seed draws one and the current second as its time base,
// and then builds the same documents again; a seeded plan keeps its own.
func TestDrawSeed(t *testing.T) {
	p := &seed.Plan{Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 3}}}
	if !p.DrawSeed() || !p.Seeded || p.At.IsZero() || p.At.Nanosecond() != 0 {
		t.Fatalf("drawn: %+v", p)
	}
	a, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := p.Build()
	if string(a.Collection("users").Doc(2).String()) != string(b.Collection("users").Doc(2).String()) {
		t.Error("a drawn seed does not repeat the documents")
	}
	seedBefore := p.Seed
	if p.DrawSeed() || p.Seed != seedBefore {
		t.Error("a seeded plan drew again")
	}
}

package seed_test

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/seed"
)

// The classic {_id: 10, "EmployeeName": "Smith"} collection, generated: a
// seeded plan gives the same documents on every run and machine.
func Example() {
	id, _ := seed.ParseIDStrategy("int")
	plan := &seed.Plan{Seed: 42, Seeded: true, Collections: []seed.CollectionSpec{
		{Name: "Employee", Kind: seed.KindEmployee, Count: 3, ID: id, IDStart: 10},
	}}
	ds, err := plan.Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	employees := ds.Collection("Employee")
	for i := range employees.Len() {
		d := employees.Doc(i)
		fmt.Println(d[0].Value, d[1].Key, d[1].Value)
	}
	js, _ := bson.MarshalExtJSON(employees.Doc(0), false, false)
	fmt.Println(string(js))
	// Output:
	// 10 EmployeeName Jabari West
	// 11 EmployeeName Kristina Goodwin
	// 12 EmployeeName Dominique Joseph
	// {"_id":10,"EmployeeName":"Jabari West","employeeNumber":"E0000000","email":"jabari.west.0@example.com","department":"Legal","title":"Systems Analyst","salary":41000,"createdAt":{"$date":"2023-01-01T00:00:00Z"}}
}

// References are IDs regenerated from the seed: order.userId is
// users.ID(j) for a j drawn from the order's own random stream.
func ExampleCollection_ID() {
	plan, _ := seed.BuiltinPlan("shop", 100)
	plan.Seed, plan.Seeded = 1, true
	ds, _ := plan.Build()
	order := ds.Collection("orders").Doc(0)
	users := ds.Collection("users")
	for j := range users.Len() {
		if users.ID(j) == order[2].Value {
			fmt.Printf("orders[0].%s = users[%d]._id = %v\n", order[2].Key, j, users.ID(j))
		}
	}
	// Output:
	// orders[0].userId = users[86]._id = ObjectID("6552d05ed1fa3a359632dfdb")
}

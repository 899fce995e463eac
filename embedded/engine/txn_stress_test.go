package engine

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/embedded/bsonval"
)

// 16 clients each move stock between the same few products in
// transactions run with WithTransaction (which retries on
// TransientTransactionError): every move commits exactly once, so the
// stock ends as a serial run of the same moves leaves it, and the total
// never changes.
func TestConflictingTransactionsEndAsSerial(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	stock := c.Database("shop").Collection("stock")
	const products, clients, moves = 4, 16, 25
	for p := 0; p < products; p++ {
		if _, err := stock.InsertOne(ctx, bson.D{{Key: "_id", Value: p}, {Key: "n", Value: 1000}}); err != nil {
			t.Fatal(err)
		}
	}
	want := map[int]int{0: 1000, 1: 1000, 2: 1000, 3: 1000}
	var wg sync.WaitGroup
	var runs atomic.Int64
	errs := make(chan error, clients)
	for cl := 0; cl < clients; cl++ {
		from, to := cl%products, (cl+1)%products
		amount := cl + 1
		want[from] -= amount * moves
		want[to] += amount * moves
		wg.Add(1)
		go func() {
			defer wg.Done()
			sess, err := c.StartSession()
			if err != nil {
				errs <- err
				return
			}
			defer sess.EndSession(ctx)
			for m := 0; m < moves; m++ {
				_, err := sess.WithTransaction(ctx, func(sc context.Context) (any, error) {
					runs.Add(1)
					if _, err := stock.UpdateOne(sc, bson.D{{Key: "_id", Value: from}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: -amount}}}}); err != nil {
						return nil, err
					}
					_, err := stock.UpdateOne(sc, bson.D{{Key: "_id", Value: to}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: amount}}}})
					return nil, err
				})
				if err != nil {
					errs <- fmt.Errorf("client moving %d from %d to %d: %w", amount, from, to, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	total := 0
	for p := 0; p < products; p++ {
		var d struct {
			N int `bson:"n"`
		}
		if err := stock.FindOne(ctx, bson.D{{Key: "_id", Value: p}}).Decode(&d); err != nil {
			t.Fatal(err)
		}
		got := d.N
		total += got
		if got != want[p] {
			t.Errorf("product %d: stock %d, a serial run leaves %d", p, got, want[p])
		}
	}
	t.Logf("%d transactions committed in %d runs (the others met a write conflict and were retried)", clients*moves, runs.Load())
	if total != products*1000 {
		t.Errorf("total stock %d, want %d", total, products*1000)
	}
}

const txnCrashChildEnv = "OIDKIT_ENGINE_TXN_CRASH_CHILD"

// TestTxnCrashChild is the child of TestKillNineDuringTransactions: over
// a server on the store in the directory it is given, it commits
// transactions that insert document i into two collections of two
// databases and count it in a third, printing i once the commit is
// acknowledged, until it is killed.
func TestTxnCrashChild(t *testing.T) {
	dir := os.Getenv(txnCrashChildEnv)
	if dir == "" {
		t.Skip("run by TestKillNineDuringTransactions")
	}
	c, _, _ := serveUnmanaged(t, dir)
	ctx := context.Background()
	a, b := c.Database("shop").Collection("a"), c.Database("ledger").Collection("b")
	count := c.Database("shop").Collection("count")
	sess, err := c.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(os.Stdout)
	pad := make([]byte, 20000) // large records make a kill mid-write likely
	start := 0
	if n, err := a.CountDocuments(ctx, bson.D{}); err == nil {
		start = int(n)
	}
	for i := start; ; i++ {
		_, err := sess.WithTransaction(ctx, func(sc context.Context) (any, error) {
			if _, err := a.InsertOne(sc, bson.D{{Key: "_id", Value: i}, {Key: "pad", Value: pad}}); err != nil {
				return nil, err
			}
			if _, err := b.InsertOne(sc, bson.D{{Key: "_id", Value: i}, {Key: "pad", Value: pad}}); err != nil {
				return nil, err
			}
			_, err := count.UpdateOne(sc, bson.D{{Key: "_id", Value: "n"}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}, options.UpdateOne().SetUpsert(true))
			return nil, err
		})
		if err != nil {
			t.Fatal(err)
		}
		w.WriteString(strconv.Itoa(i) + "\n")
		w.Flush()
	}
}

// TestKillNineDuringTransactions kills a process committing
// multi-document transactions at random moments (during commits and
// checkpoints) and checks after each restart that every acknowledged
// transaction is wholly there and every other one wholly absent.
func TestKillNineDuringTransactions(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes")
	}
	dir := t.TempDir()
	acked := -1
	for round := 0; round < 4; round++ {
		acked = max(acked, killChildAfter(t, "TestTxnCrashChild", txnCrashChildEnv+"="+dir, time.Duration(400+round*230)*time.Millisecond))
		st, err := Open(dir)
		if err != nil {
			t.Fatalf("round %d: reopen: %v", round, err)
		}
		a, b, cnt := st.view().coll("shop", "a"), st.view().coll("ledger", "b"), st.view().coll("shop", "count")
		if acked >= 0 && (a == nil || b == nil || cnt == nil) {
			t.Fatalf("round %d: a collection is lost after %d acknowledged transactions", round, acked+1)
		}
		if a != nil {
			for i := 0; i <= acked; i++ {
				if _, ok := a.get(bsonval.Int32(int32(i))); !ok {
					t.Fatalf("round %d: acknowledged transaction %d lost", round, i)
				}
			}
			if a.docs.Len() != b.docs.Len() {
				t.Fatalf("round %d: a half-written transaction: %d documents in a, %d in b", round, a.docs.Len(), b.docs.Len())
			}
			d, _ := cnt.get(bsonval.String("n"))
			n, _ := d.LookupErr("n")
			if got, _ := bsonval.IntOf(n); int(got) != a.docs.Len() {
				t.Fatalf("round %d: the counter says %d, %d transactions are stored", round, got, a.docs.Len())
			}
			acked = a.docs.Len() - 1
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if acked < 10 {
		t.Errorf("only %d transactions committed in all rounds: the test did not exercise commits", acked+1)
	}
}

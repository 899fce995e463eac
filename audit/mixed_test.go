package audit_test

import (
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/audit"
	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
	"github.com/oidkit/oidkit/oid"
)

// mixWant is what a mixed collection holds, counted by its generator.
type mixWant struct {
	mix               audit.Mix
	machines, pids    int
	pidMachines       map[uint16]int   // legacy PID -> machines it is on, when more than one
	pidIDs            map[uint16]int64 // and the IDs of those processes
	machinePIDs       map[string]int   // legacy machine hex -> its PIDs, when more than one
	ints, strs, uuids int64
	objectIDs, total  int64
	lone              int64
	docs              []bson.D // in insert order
	ids               []oid.ID // the ObjectIDs, in insert order
}

// mixedCollection is a collection written by every kind of writer the
// audit knows, interleaved as concurrent programs would insert: modern
// processes (5 random bytes each, rising counters), legacy hosts (machine
// hash + PID, several processes a host, PID 1 on three containers), a faker
// library's random hex, IDs made from a time, and _ids of other types. It
// counts each kind as it makes it, by its own rules, not the audit's.
func mixedCollection(seed uint64, randomHexIDs int) mixWant {
	r := rand.New(rand.NewPCG(seed, 99))
	w := mixWant{pidMachines: map[uint16]int{}, pidIDs: map[uint16]int64{}, machinePIDs: map[string]int{}}
	type stream struct {
		ids []oid.ID
		at  int
	}
	var streams []*stream
	base := uint32(time.Date(2021, 3, 1, 0, 0, 0, 0, time.UTC).Unix())
	process := func(key [5]byte, n int, legacy bool) {
		s := &stream{}
		secs, ctr := base+uint32(r.IntN(86400*300)), r.Uint32N(1<<24)
		for range n {
			var b [12]byte
			binary.BigEndian.PutUint32(b[:4], secs)
			copy(b[4:9], key[:])
			b[9], b[10], b[11] = byte(ctr>>16), byte(ctr>>8), byte(ctr)
			s.ids = append(s.ids, oid.ID(b))
			ctr = (ctr + 1) % (1 << 24)
			secs += uint32(r.IntN(3))
		}
		streams = append(streams, s)
		if legacy {
			w.mix.Legacy += int64(n)
			w.mix.LegacyWriters++
		} else {
			w.mix.Modern += int64(n)
			w.mix.ModernWriters++
		}
	}
	// Legacy hosts: machine hash -> PIDs of its processes.
	hosts := []struct {
		machine [3]byte
		pids    []uint16
	}{
		{[3]byte{0x0a, 0x1b, 0x2c}, []uint16{1, 4242, 77}},
		{[3]byte{0x3d, 0x4e, 0x5f}, []uint16{1, 913}},
		{[3]byte{0x6a, 0x7b, 0x8c}, []uint16{1}},
	}
	usedMachines, usedPIDs := map[[3]byte]bool{}, map[uint16]bool{}
	for _, h := range hosts {
		usedMachines[h.machine] = true
		if len(h.pids) > 1 {
			w.machinePIDs[hex.EncodeToString(h.machine[:])] = len(h.pids)
		}
		for _, pid := range h.pids {
			var key [5]byte
			copy(key[:3], h.machine[:])
			binary.BigEndian.PutUint16(key[3:], pid)
			n := 10 + r.IntN(20)
			process(key, n, true)
			if !usedPIDs[pid] {
				w.pids++
			}
			usedPIDs[pid] = true
			w.pidMachines[pid]++
			w.pidIDs[pid] += int64(n)
		}
	}
	w.machines = len(hosts)
	for pid, m := range w.pidMachines {
		if m < 2 {
			delete(w.pidMachines, pid)
			delete(w.pidIDs, pid)
		}
	}
	// Modern processes: 5 random bytes that share neither a machine hash
	// nor a PID with another process (which 5 random bytes do once in
	// thousands of pairs).
	for len(streams) < len(hosts)+7 {
		var key [5]byte
		binary.BigEndian.PutUint32(key[:4], r.Uint32())
		key[4] = byte(r.Uint32())
		m, pid := [3]byte(key[:3]), binary.BigEndian.Uint16(key[3:])
		if usedMachines[m] || usedPIDs[pid] {
			continue
		}
		usedMachines[m], usedPIDs[pid] = true, true
		process(key, 2+r.IntN(60), false)
	}
	// Random hex: each its own stream of one ID.
	for range randomHexIDs {
		var b [12]byte
		binary.BigEndian.PutUint64(b[:8], r.Uint64())
		binary.BigEndian.PutUint32(b[8:], r.Uint32())
		streams = append(streams, &stream{ids: []oid.ID{oid.ID(b)}})
		w.mix.RandomHex++
	}
	// createFromTime: the time, then zeros.
	for range 6 {
		var b [12]byte
		binary.BigEndian.PutUint32(b[:4], base+uint32(r.IntN(86400*400)))
		streams = append(streams, &stream{ids: []oid.ID{oid.ID(b)}})
		w.mix.ZeroTailed++
	}
	// Interleave: each step inserts the next ID of a random stream that
	// has one left, so every writer's IDs keep their order.
	for len(streams) > 0 {
		k := r.IntN(len(streams))
		s := streams[k]
		id := s.ids[s.at]
		s.at++
		if s.at == len(s.ids) {
			streams = slices.Delete(streams, k, k+1)
		}
		w.ids = append(w.ids, id)
		w.docs = append(w.docs, bson.D{{Key: "_id", Value: bson.ObjectID(id)}})
		if r.IntN(40) == 0 { // now and then a document of another _id type
			switch len(w.docs) % 3 {
			case 0:
				w.docs = append(w.docs, bson.D{{Key: "_id", Value: int64(len(w.docs))}})
				w.ints++
			case 1:
				w.docs = append(w.docs, bson.D{{Key: "_id", Value: "sku-" + string(rune('a'+len(w.docs)%26)) + id.Hex()[:6]}})
				w.strs++
			default:
				u := make([]byte, 16)
				binary.BigEndian.PutUint64(u, r.Uint64())
				binary.BigEndian.PutUint64(u[8:], r.Uint64())
				w.docs = append(w.docs, bson.D{{Key: "_id", Value: bson.Binary{Subtype: 4, Data: u}}})
				w.uuids++
			}
		}
	}
	w.objectIDs = int64(len(w.ids))
	w.total = int64(len(w.docs))
	w.mix.OtherTypes = w.ints + w.strs + w.uuids
	return w
}

// checkMixed compares a report with what the generator counted.
func checkMixed(t *testing.T, r *audit.Report, w mixWant) {
	t.Helper()
	wantCount(t, "total", r.Total, w.total)
	kinds := map[audit.Kind]int64{}
	for _, ts := range r.Types {
		kinds[ts.Kind] = ts.Count
	}
	for k, want := range map[audit.Kind]int64{audit.KindObjectID: w.objectIDs, audit.KindInt: w.ints, audit.KindString: w.strs, audit.KindUUID: w.uuids} {
		wantCount(t, "type "+k.String(), kinds[k], want)
	}
	l := r.Layout
	if l.Kind != audit.LayoutMixed || l.Mix == nil {
		t.Fatalf("layout %s, mix %+v; want mixed %+v", l.Kind, l.Mix, w.mix)
	}
	if *l.Mix != w.mix {
		t.Errorf("mix:\n got %+v\nwant %+v", *l.Mix, w.mix)
	}
	wantCount(t, "kinds add up to the ObjectIDs", l.Mix.Modern+l.Mix.Legacy+l.Mix.RandomHex+l.Mix.ZeroTailed+l.Mix.Untracked, w.objectIDs)
	wantCount(t, "random hex", r.Random.Count, w.mix.RandomHex)
	wantCount(t, "zero-tailed", r.Time.Findings["zeroTailed"].Count, w.mix.ZeroTailed)
	wantCount(t, "legacy machines", int64(l.Machines), int64(w.machines))
	wantCount(t, "legacy PIDs", int64(l.PIDs), int64(w.pids))
	got := map[uint16]int{}
	for _, p := range l.PIDsSharedByMachines {
		got[p.PID] = len(p.Machines)
		wantCount(t, "IDs of PID shared", p.IDs, w.pidIDs[p.PID])
	}
	if len(got) != len(w.pidMachines) {
		t.Errorf("PIDs shared by machines: got %v, want %v", got, w.pidMachines)
	}
	for pid, n := range w.pidMachines {
		if got[pid] != n {
			t.Errorf("PID %d on %d machines, want %d", pid, got[pid], n)
		}
	}
	gotM := map[string]int{}
	for _, m := range l.MachinesSharedByPIDs {
		gotM[m.Hash] = len(m.PIDs)
	}
	if len(gotM) != len(w.machinePIDs) {
		t.Errorf("machines with several PIDs: got %v, want %v", gotM, w.machinePIDs)
	}
	for m, n := range w.machinePIDs {
		if gotM[m] != n {
			t.Errorf("machine %s has %d PIDs, want %d", m, gotM[m], n)
		}
	}
}

// TestAuditMixedWriters: one collection of every kind of writer, audited
// from memory and from a collection on the embedded server; each kind is
// counted on its own, the layout is mixed, and a PID is shared only
// between legacy processes, not between random-hex IDs.
func TestAuditMixedWriters(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		w := mixedCollection(seed, 994)
		a := audit.New(audit.Options{Now: now})
		for _, d := range w.docs {
			a.AddDoc(mustRaw(t, d), audit.Fields{})
		}
		checkMixed(t, a.Report(), w)
	}
	_, client := mongotest.Start(t)
	w := mixedCollection(4, 994)
	coll := client.Database("mixed").Collection("events")
	docs := make([]any, len(w.docs))
	for i, d := range w.docs {
		docs[i] = d
	}
	if _, err := coll.InsertMany(t.Context(), docs); err != nil {
		t.Fatal(err)
	}
	a := audit.New(audit.Options{Now: now})
	if n, err := a.ScanCollection(t.Context(), coll, audit.Fields{}, nil); err != nil || n != w.total {
		t.Fatalf("scanned %d of %d: %v", n, w.total, err)
	}
	checkMixed(t, a.Report(), w)
}

// TestAuditMixedWithoutRandomHex: modern and legacy writers, no faker:
// two kinds, and no ID counted as random hex.
func TestAuditMixedWithoutRandomHex(t *testing.T) {
	w := mixedCollection(5, 0)
	a := audit.New(audit.Options{Now: now})
	for _, d := range w.docs {
		a.AddDoc(mustRaw(t, d), audit.Fields{})
	}
	checkMixed(t, a.Report(), w)
}

func mustRaw(t *testing.T, d bson.D) bson.Raw {
	t.Helper()
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

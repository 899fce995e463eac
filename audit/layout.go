package audit

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
)

// LayoutKind names the layout the writers' random values show.
type LayoutKind string

// The layouts.
const (
	LayoutNone    LayoutKind = "none"    // no ObjectIDs
	LayoutModern  LayoutKind = "modern"  // 5 random bytes per process (2018 on)
	LayoutLegacy  LayoutKind = "legacy"  // 3-byte machine hash + 2-byte PID
	LayoutNotSpec LayoutKind = "notSpec" // random hex, not made by a driver
	LayoutMixed   LayoutKind = "mixed"   // more than one of the three above
)

// Layout is the layout finding: for the legacy layout, the machines and
// PIDs, and which are shared.
type Layout struct {
	Kind LayoutKind `json:"kind"`
	// MachinesSharedByPIDs are machine hashes seen with more than one PID:
	// several processes on one host (normal for the legacy layout).
	MachinesSharedByPIDs []Machine `json:"machinesWithSeveralPIDs,omitempty"`
	// PIDsSharedByMachines are PIDs seen on more than one machine: in
	// containers every process is PID 1, so the legacy layout only has the
	// machine hash and counter to keep IDs apart.
	PIDsSharedByMachines []PID `json:"pidsOnSeveralMachines,omitempty"`
	Machines             int   `json:"machines"`
	PIDs                 int   `json:"pids"`
	// Mix counts each kind on its own when the collection holds more than
	// one layout (Kind mixed); Machines and PIDs are then the legacy
	// writers'.
	Mix *Mix `json:"mix,omitempty"`
}

// Mix is how many ObjectIDs (and writers) of each kind a collection holds.
// The kinds add up to the ObjectIDs audited.
type Mix struct {
	Modern        int64 `json:"modern"` // IDs of writers in the modern layout
	ModernWriters int64 `json:"modernWriters"`
	Legacy        int64 `json:"legacy"` // IDs of writers in the legacy layout
	LegacyWriters int64 `json:"legacyWriters"`
	RandomHex     int64 `json:"randomHex"`  // IDs of the random-hex rule
	ZeroTailed    int64 `json:"zeroTailed"` // IDs made from a time: no writer
	// Untracked are the IDs of writers of several IDs dropped to bound
	// memory, whose kind is no longer known.
	Untracked int64 `json:"untracked"`
	// OtherTypes are the _id values that are not ObjectIDs.
	OtherTypes int64 `json:"otherTypes"`
}

// kinds is how many of the three layouts the mix holds.
func (m *Mix) kinds() int {
	n := 0
	for _, c := range []int64{m.Modern, m.Legacy, m.RandomHex} {
		if c > 0 {
			n++
		}
	}
	return n
}

// Machine is a 3-byte machine hash and the PIDs seen with it.
type Machine struct {
	Hash string   `json:"machine"`
	PIDs []uint16 `json:"pids"`
	IDs  int64    `json:"ids"`
}

// PID is a process ID and the machines it was seen on.
type PID struct {
	PID      uint16   `json:"pid"`
	Machines []string `json:"machines"`
	IDs      int64    `json:"ids"`
}

func hexOf(b []byte) string { return hex.EncodeToString(b) }

func splitLegacy(key [5]byte) (machine [3]byte, pid uint16) {
	return [3]byte(key[:3]), binary.BigEndian.Uint16(key[3:])
}

// layoutOf is the layout rule (see the package doc), over the writers that
// behave like processes: those that share a machine hash, or a PID across
// machines, beyond what chance gives 5 random bytes, are legacy. It returns
// the legacy layout of ws (Kind modern when no writer is legacy, none when
// ws is empty) and the legacy writers.
func layoutOf(ws []*writer, nex int) (Layout, map[*writer]bool) {
	if len(ws) == 0 {
		return Layout{Kind: LayoutNone}, nil
	}
	var procs []*writer
	for _, w := range ws {
		if w.processLike() {
			procs = append(procs, w)
		}
	}
	byMachine := map[[3]byte][]*writer{}
	byPID := map[uint16]map[[3]byte][]*writer{}
	for _, w := range procs {
		m, p := splitLegacy(w.key)
		byMachine[m] = append(byMachine[m], w)
		if byPID[p] == nil {
			byPID[p] = map[[3]byte][]*writer{}
		}
		byPID[p][m] = append(byPID[p][m], w)
	}
	sharedMachines, sharedPIDs := 0, 0
	for _, mw := range byMachine {
		sharedMachines += len(mw) - 1
	}
	for _, ms := range byPID {
		sharedPIDs += len(ms) - 1
	}
	// Pairs of n random values that collide on b bytes: n(n-1)/2 / 256^b.
	pairs := float64(len(procs)) * float64(max(len(procs)-1, 0)) / 2
	byMachines := sharedMachines > 0 && float64(sharedMachines) > 4*pairs/(1<<24)
	byPIDs := sharedPIDs > 0 && float64(sharedPIDs) > 4*pairs/(1<<16)
	legacy := map[*writer]bool{}
	var l Layout
	if byMachines {
		l.MachinesSharedByPIDs = sharedMachineList(byMachine, legacy)
	}
	if byPIDs {
		l.PIDsSharedByMachines = sharedPIDList(byPID, legacy)
	}
	if len(legacy) == 0 {
		return Layout{Kind: LayoutModern}, nil
	}
	l.Kind = LayoutLegacy
	machines, pids := map[[3]byte]bool{}, map[uint16]bool{}
	for w := range legacy {
		m, p := splitLegacy(w.key)
		machines[m], pids[p] = true, true
	}
	l.Machines, l.PIDs = len(machines), len(pids)
	slices.SortFunc(l.MachinesSharedByPIDs, func(a, b Machine) int { return cmpCountThen(a.IDs, b.IDs, a.Hash, b.Hash) })
	slices.SortFunc(l.PIDsSharedByMachines, func(a, b PID) int {
		return cmpCountThen(a.IDs, b.IDs, fmt.Sprintf("%05d", a.PID), fmt.Sprintf("%05d", b.PID))
	})
	l.MachinesSharedByPIDs = l.MachinesSharedByPIDs[:min(len(l.MachinesSharedByPIDs), max(nex, topWriters))]
	l.PIDsSharedByMachines = l.PIDsSharedByMachines[:min(len(l.PIDsSharedByMachines), max(nex, topWriters))]
	return l, legacy
}

// sharedMachineList is the machine hashes that several PIDs share, of
// byMachine (the writers by machine hash); their writers are marked
// legacy.
func sharedMachineList(byMachine map[[3]byte][]*writer, legacy map[*writer]bool) []Machine {
	var out []Machine
	for m, mw := range byMachine {
		if len(mw) < 2 {
			continue
		}
		mc := Machine{Hash: hexOf(m[:])}
		for _, w := range mw {
			_, p := splitLegacy(w.key)
			mc.PIDs = append(mc.PIDs, p)
			mc.IDs += w.n
			legacy[w] = true
		}
		slices.Sort(mc.PIDs)
		out = append(out, mc)
	}
	return out
}

// sharedPIDList is the PIDs that several machines share, of byPID (the
// writers by PID, then machine hash); their writers are marked legacy.
func sharedPIDList(byPID map[uint16]map[[3]byte][]*writer, legacy map[*writer]bool) []PID {
	var out []PID
	for p, ms := range byPID {
		if len(ms) < 2 {
			continue
		}
		pc := PID{PID: p}
		for m, mw := range ms {
			pc.Machines = append(pc.Machines, hexOf(m[:]))
			for _, w := range mw {
				pc.IDs += w.n
				legacy[w] = true
			}
		}
		slices.Sort(pc.Machines)
		out = append(out, pc)
	}
	return out
}

// cmpCountThen orders by count, most first, then by name.
func cmpCountThen(a, b int64, an, bn string) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	switch {
	case an < bn:
		return -1
	case an > bn:
		return 1
	}
	return 0
}

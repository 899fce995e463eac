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

// layoutOf is the layout rule (see the package doc): writers sharing a
// machine hash or a PID across machines, beyond what chance gives 5 random
// bytes, mean the legacy layout.
func layoutOf(ws []*writer, nex int) Layout {
	if len(ws) == 0 {
		return Layout{Kind: LayoutNone}
	}
	byMachine := map[[3]byte][]*writer{}
	byPID := map[uint16]map[[3]byte]bool{}
	pidIDs := map[uint16]int64{}
	for _, w := range ws {
		m, p := splitLegacy(w.key)
		byMachine[m] = append(byMachine[m], w)
		if byPID[p] == nil {
			byPID[p] = map[[3]byte]bool{}
		}
		byPID[p][m] = true
		pidIDs[p] += w.n
	}
	var l Layout
	sharedMachines, sharedPIDs := 0, 0
	for m, mw := range byMachine {
		if len(mw) < 2 {
			continue
		}
		sharedMachines += len(mw) - 1
		mc := Machine{Hash: hexOf(m[:])}
		for _, w := range mw {
			_, p := splitLegacy(w.key)
			mc.PIDs = append(mc.PIDs, p)
			mc.IDs += w.n
		}
		slices.Sort(mc.PIDs)
		l.MachinesSharedByPIDs = append(l.MachinesSharedByPIDs, mc)
	}
	for p, ms := range byPID {
		if len(ms) < 2 {
			continue
		}
		sharedPIDs += len(ms) - 1
		pc := PID{PID: p, IDs: pidIDs[p]}
		for m := range ms {
			pc.Machines = append(pc.Machines, hexOf(m[:]))
		}
		slices.Sort(pc.Machines)
		l.PIDsSharedByMachines = append(l.PIDsSharedByMachines, pc)
	}
	// Pairs of n random values that collide on b bytes: n(n-1)/2 / 256^b.
	pairs := float64(len(ws)) * float64(len(ws)-1) / 2
	chanceMachines, chancePIDs := pairs/(1<<24), pairs/(1<<16)
	legacy := (sharedMachines > 0 && float64(sharedMachines) > 4*chanceMachines) ||
		(sharedPIDs > 0 && float64(sharedPIDs) > 4*chancePIDs)
	if !legacy {
		return Layout{Kind: LayoutModern}
	}
	l.Kind = LayoutLegacy
	l.Machines, l.PIDs = len(byMachine), len(byPID)
	slices.SortFunc(l.MachinesSharedByPIDs, func(a, b Machine) int { return cmpCountThen(a.IDs, b.IDs, a.Hash, b.Hash) })
	slices.SortFunc(l.PIDsSharedByMachines, func(a, b PID) int {
		return cmpCountThen(a.IDs, b.IDs, fmt.Sprintf("%05d", a.PID), fmt.Sprintf("%05d", b.PID))
	})
	l.MachinesSharedByPIDs = l.MachinesSharedByPIDs[:min(len(l.MachinesSharedByPIDs), max(nex, topWriters))]
	l.PIDsSharedByMachines = l.PIDsSharedByMachines[:min(len(l.PIDsSharedByMachines), max(nex, topWriters))]
	return l
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

package rules

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalidName is matched (errors.Is) by every *NameError.
var ErrInvalidName = errors.New("invalid name")

// Name kinds carried by NameError.What.
const (
	DatabaseName   = "database"
	CollectionName = "collection"
)

// Limits of MongoDB names, in bytes.
const (
	MaxDatabaseNameLen   = 63  // "fewer than 64 characters"
	MaxCollectionNameLen = 200 // leaves room for the database and index names in a namespace
)

// dbForbidden holds the characters MongoDB refuses in a database name on
// any platform (the Windows set is the strictest: / \ . space " $ * < > : | ?),
// plus NUL. One set for every target, so a name that works on Linux also
// works when the same fixtures are loaded on Windows.
const dbForbidden = "/\\. \"$*<>:|?\x00"

// NameError is a database or collection name that MongoDB would refuse.
type NameError struct {
	What   string // DatabaseName or CollectionName
	Name   string
	Reason string // what was expected
}

func (e *NameError) Error() string {
	return fmt.Sprintf("%s name %q: %s", e.What, e.Name, e.Reason)
}

// Is makes errors.Is(err, ErrInvalidName) true.
func (e *NameError) Is(target error) bool { return target == ErrInvalidName }

// CheckDatabaseName returns a *NameError when MongoDB would refuse name as a
// database name: empty, longer than MaxDatabaseNameLen bytes, or holding one
// of / \ . space " $ * < > : | ? or NUL.
func CheckDatabaseName(name string) error {
	bad := func(reason string) error { return &NameError{What: DatabaseName, Name: name, Reason: reason} }
	switch {
	case name == "":
		return bad("expected a non-empty name")
	case len(name) > MaxDatabaseNameLen:
		return bad(fmt.Sprintf("%d bytes, expected at most %d", len(name), MaxDatabaseNameLen))
	case strings.ContainsAny(name, dbForbidden):
		return bad(`expected no / \ . space " $ * < > : | ? or NUL character`)
	}
	return nil
}

// CheckCollectionName returns a *NameError when MongoDB would refuse name as
// a collection name: empty, holding $ or NUL, starting with the reserved
// "system." prefix, starting or ending with '.', or longer than
// MaxCollectionNameLen bytes.
func CheckCollectionName(name string) error {
	bad := func(reason string) error { return &NameError{What: CollectionName, Name: name, Reason: reason} }
	switch {
	case name == "":
		return bad("expected a non-empty name")
	case strings.ContainsAny(name, "$\x00"):
		return bad("expected no $ or NUL character")
	case strings.HasPrefix(name, "system."):
		return bad("the system. prefix is reserved")
	case strings.HasPrefix(name, ".") || strings.HasSuffix(name, "."):
		// The namespace would be "db..x" or "db.x.", which servers refuse
		// only after validation has passed.
		return bad("expected no . at the start or end")
	case len(name) > MaxCollectionNameLen:
		return bad(fmt.Sprintf("%d bytes, expected at most %d", len(name), MaxCollectionNameLen))
	}
	return nil
}

// CheckFileName returns a *NameError when a file named after collection
// name (the name and an extension) could not be one plain file in the
// directory it is written to: when CheckCollectionName refuses the name
// (which covers NUL, ".", ".." and any other leading dot), or when it holds
// / or \ (a path, not a name, on some platform). A name MongoDB takes that
// fails here can still be seeded, and exported to a file named on the
// command line.
func CheckFileName(name string) error {
	if err := CheckCollectionName(name); err != nil {
		return err
	}
	if strings.ContainsAny(name, `/\`) {
		return &NameError{What: CollectionName, Name: name, Reason: `cannot be a file name: expected no / or \ character`}
	}
	return nil
}
